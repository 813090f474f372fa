/* exec.c: run a program in this process's place (cudnnvm exec, shims):
 * on POSIX execvp, so the program keeps the pid, terminal, signals and
 * exit status; Windows has no exec, so the program is started with
 * CreateProcessW in this console, with this environment and standard
 * handles, waited for, and its exit code becomes this process's: what the
 * user and a calling script see is the same. The command line is quoted
 * the way CommandLineToArgvW and the C runtime split it back, so each
 * argument arrives whole. */
#include "base/base.h"
#include "base/base_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>

/* one argument as the MS C runtime reads it: quoted when it has a blank
 * or a quote (or is empty), each quote backslashed, backslashes doubled
 * only before a quote */
static void
quote_arg(struct cv_buf *b, const char *a)
{
	size_t slashes = 0;

	if (*a != '\0' && strpbrk(a, " \t\n\v\"") == NULL) {
		cv_buf_adds(b, a);
		return;
	}
	cv_buf_adds(b, "\"");
	for (; *a; a++) {
		if (*a == '\\') {
			slashes++;
			continue;
		}
		for (; slashes > 0; slashes--)
			cv_buf_adds(b, *a == '"' ? "\\\\" : "\\");
		if (*a == '"')
			cv_buf_adds(b, "\\\"");
		else
			cv_buf_add(b, a, 1);
	}
	for (; slashes > 0; slashes--)
		cv_buf_adds(b, "\\\\");
	cv_buf_adds(b, "\"");
}

char *
cv_os_command_line(char *const *argv)
{
	struct cv_buf b = CV_BUF_INIT;
	char *line;
	size_t i;

	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			cv_buf_adds(&b, " ");
		quote_arg(&b, argv[i]);
	}
	line = cv_buf_detach(&b);
	return line != NULL ? line : xstrdup("");
}

int
cv_os_exec(char *const *argv)
{
	char *line = cv_os_command_line(argv);
	wchar_t *w = cv_win_widen(line);
	STARTUPINFOW si;
	PROCESS_INFORMATION pi;
	DWORD code = 1, e;

	free(line);
	if (w == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(&si, 0, sizeof si);
	si.cb = sizeof si;
	fflush(NULL);
	/* the program is looked for as CreateProcessW looks: its folder,
	 * the system folders, then PATH, .exe added */
	if (!CreateProcessW(NULL, w, NULL, NULL, TRUE, 0, NULL, NULL, &si,
			    &pi)) {
		e = GetLastError();
		free(w);
		errno = e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND
				? ENOENT
				: EACCES;
		return -1;
	}
	free(w);
	CloseHandle(pi.hThread);
	WaitForSingleObject(pi.hProcess, INFINITE);
	GetExitCodeProcess(pi.hProcess, &code);
	CloseHandle(pi.hProcess);
	exit((int)code);
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
