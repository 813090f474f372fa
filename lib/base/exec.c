/* exec.c: run a program in this process's place (cudnnvm exec, shims):
 * on POSIX execvp, so the program keeps the pid, terminal, signals and
 * exit status; Windows has no exec, so the program is started with
 * CreateProcessW in this console, with this environment and standard
 * handles, waited for, and its exit code handed back for the caller to
 * end with: what the user and a calling script see is the same. */
#include "base/base.h"
#include "base/base_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
int
cv_os_exec(char *const *argv)
{
	struct cv_child c = CV_CHILD_INIT;
	struct cv_err err = CV_ERR_INIT;
	int r;

	/* base's child (child_win32.c: the command line quoted as the C
	 * runtime splits it, the program looked for on PATH and never in the
	 * working folder), its streams this process's */
	c.argv = (const char *const *)argv;
	c.flags = CV_CHILD_SEARCH_PATH;
	fflush(NULL);
	r = cv_child_run(&c, &err);
	if (r < 0) {
		errno = r == CV_ENOTFOUND ? ENOENT : EACCES;
		return -1;
	}
	return r;
}
#else
#include <unistd.h>

int
cv_os_exec(char *const *argv)
{
	fflush(NULL);
	execvp(argv[0], argv);
	return -1;
}
#endif
