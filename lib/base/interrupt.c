/* interrupt.c: Ctrl-C during long work. The first SIGINT calls the
 * caller's `first` (which asks the work in flight to stop cleanly: a
 * download keeps its partial file, the command exits 130); a second one,
 * e.g. while waiting on a lock, ends the process at once with the signal
 * (the store is crash-safe either way). The OS's part, a SIGINT handler
 * or a console control handler, is base's cv_os_on_interrupt. */
#include "base/base_int.h"

#include <signal.h>

static void (*on_first)(void);

/* 1: the first interrupt, taken; 0: a later one, the OS's default */
static int
on_interrupt(void)
{
	static volatile sig_atomic_t seen;

	if (seen)
		return 0;
	seen = 1;
	if (on_first != NULL)
		on_first();
	return 1;
}

void
cv_interrupt_catch(void (*first)(void))
{
	on_first = first;
	cv_os_on_interrupt(on_interrupt);
}
