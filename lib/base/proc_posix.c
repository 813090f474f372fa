/* proc_posix.c: who this process is (cv_os_uid ...) and whether another
 * one still runs, on POSIX. */
#include "base/base_int.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
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
