/* proc_posix.c: who this process is (cv_os_uid ...) and whether another
 * one still runs, on POSIX. */
#include "base/base_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

long
cv_os_uid(void)
{
	return (long)getuid();
}

long
cv_os_euid(void)
{
	return (long)geteuid();
}

long
cv_os_pid(void)
{
	return (long)getpid();
}

long
cv_os_ppid(void)
{
	return (long)getppid();
}

int
cv_os_setenv(const char *name, const char *value)
{
	return value != NULL ? setenv(name, value, 1) : unsetenv(name);
}

int
cv_os_pid_alive(long pid)
{
	/* EPERM: it runs, as another user */
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno != ESRCH);
}

/* /proc/<pid>/comm: the program's name as the kernel keeps it (15 bytes
 * at most, a login shell's leading '-' included) */
int
cv_os_process_name(long pid, char *buf, size_t n)
{
	char path[64];
	ssize_t got;
	int fd;

	if (n < 2)
		return -1;
	snprintf(path, sizeof path, "/proc/%ld/comm", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	got = read(fd, buf, n - 1);
	close(fd);
	if (got <= 0)
		return -1;
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int
cv_os_self(char *buf, size_t n)
{
	ssize_t got = n > 1 ? readlink("/proc/self/exe", buf, n - 1) : -1;

	if (got <= 0)
		return -1;
	buf[got] = '\0';
	return 0;
}

const char *
cv_os_family(void)
{
	return "linux";
}

char
cv_os_path_list_sep(void)
{
	return ':';
}

const char *
cv_os_exe_suffix(void)
{
	return "";
}

int
cv_os_machine(char *out, size_t n)
{
	struct utsname u;

	if (uname(&u) < 0)
		return -1;
	snprintf(out, n, "%s", u.machine);
	return 0;
}

unsigned
cv_os_cores(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (unsigned)n : 1;
}

static int (*on_interrupt)(void);

static void
on_sigint(int sig)
{
	int saved = errno;

	if (on_interrupt == NULL || !on_interrupt()) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	errno = saved;
}

void
cv_os_on_interrupt(int (*fn)(void))
{
	struct sigaction sa;

	on_interrupt = fn;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

/* $XDG_DATA_HOME ($XDG_CACHE_HOME, $XDG_CONFIG_HOME) when absolute (the
 * XDG rule: a relative one is ignored), else under ~/.local/share
 * (~/.cache, ~/.config); the machine's store is /opt/cudnn, its
 * configuration /etc/cudnnvm */
char *
cv_os_place(int place)
{
	static const char *const xdg[] = { "XDG_DATA_HOME", NULL,
					   "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
					   NULL };
	static const char *const under[] = { ".local/share", NULL, ".cache",
					     ".config", NULL };
	const char *x, *home = getenv("HOME");

	if (place == CV_PLACE_MACHINE_DATA)
		return xstrdup("/opt/cudnn");
	if (place == CV_PLACE_MACHINE_CONFIG)
		return xstrdup("/etc/cudnnvm");
	if (place < 0 || place > CV_PLACE_USER_CONFIG || xdg[place] == NULL)
		return NULL;
	x = getenv(xdg[place]);
	if (x != NULL && x[0] == '/')
		return cv_path_join(x, "cudnnvm");
	if (home == NULL || home[0] != '/')
		return NULL;
	return xasprintf("%s/%s/cudnnvm", home, under[place]);
}

int
cv_os_is_absolute(const char *path)
{
	return path[0] == '/';
}

int
cv_os_is_sep(int c)
{
	return c == '/';
}
