/* interrupt.c: Ctrl-C during long work. The first SIGINT calls the
 * caller's `first` (which asks the work in flight to stop cleanly: a
 * download keeps its partial file, the command exits 130); a second one,
 * e.g. while waiting on a lock, ends the process at once with the signal
 * (the store is crash-safe either way). */
#include "base/base_int.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

static void (*on_first)(void);

static void
on_sigint(int sig)
{
	static volatile sig_atomic_t seen;
	int saved = errno;

	if (seen) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	seen = 1;
	if (on_first != NULL)
		on_first();
	errno = saved;
}

void
cv_interrupt_catch(void (*first)(void))
{
	struct sigaction sa;

	on_first = first;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}
