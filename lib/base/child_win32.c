/* child_win32.c: how child.c's program starts and ends on Win32, the twin
 * of child_posix.c. CreateProcessW takes one command line, not an argv:
 * it is written by Microsoft's rules, the inverse of CommandLineToArgvW
 * (and of the C runtime's parser of main's argv), so that the child reads
 * back each argument unchanged; a program that parses its line another
 * way (cmd.exe, a .bat file) is not one cudnnvm starts with arguments of
 * its user's. The child starts suspended inside a job object, so a
 * timeout or a stop kills it and every process it started
 * (TerminateJobObject), as a kill of the one child could not. Its stdout
 * and stderr are pipes read by a thread each, so neither can fill up and
 * block the child while the other is read. */
#ifdef _WIN32
#include "base/base_int.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

/* windows.h before the headers that need its types */
#include <windows.h>

/* what cv_child_run reports for a child it killed: SIGKILL's number, so
 * that callers read 128 + 9 as on POSIX */
#define KILLED 9

/* ---- the command line ------------------------------------------------- */

/* One argument as CommandLineToArgvW reads it back: bare when it has no
 * blank or quote, else in quotes, a quote escaped by a backslash, and the
 * backslashes before a quote (or before the closing quote) doubled; other
 * backslashes are taken as they are. */
static void
quote_arg(struct cv_buf *b, const char *arg)
{
	if (*arg != '\0' && strpbrk(arg, " \t\n\v\"") == NULL) {
		cv_buf_adds(b, arg);
		return;
	}
	cv_buf_add(b, "\"", 1);
	for (const char *p = arg;; p++) {
		size_t bs = 0;
		while (*p == '\\') {
			p++;
			bs++;
		}
		if (*p == '\0') {
			for (size_t i = 0; i < bs * 2; i++)
				cv_buf_add(b, "\\", 1);
			break;
		}
		for (size_t i = 0; i < (*p == '"' ? bs * 2 + 1 : bs); i++)
			cv_buf_add(b, "\\", 1);
		cv_buf_add(b, p, 1);
	}
	cv_buf_add(b, "\"", 1);
}

/* The whole line: argv[0] is read by other rules (up to the next blank,
 * or in quotes with no escapes: a file name holds no quote), so it is only
 * ever put in quotes. */
static wchar_t *
command_line(const char *const *argv)
{
	struct cv_buf b = CV_BUF_INIT;
	wchar_t *w;

	cv_buf_addf(&b, "\"%s\"", argv[0]);
	for (size_t i = 1; argv[i] != NULL; i++) {
		cv_buf_add(&b, " ", 1);
		quote_arg(&b, argv[i]);
	}
	w = cv_win_widen(b.buf);
	cv_buf_release(&b);
	return w;
}

/* ---- the program and its environment --------------------------------- */

static int
has_sep(const char *s)
{
	return strpbrk(s, "/\\:") != NULL;
}

/* The program's file: path as given (with .exe added where the name has
 * none and the bare one is not there), or, with SEARCH_PATH and no folder
 * in the name, the first PATH folder holding it (never the working folder,
 * which CreateProcessW alone would try first). NULL with errno. */
static wchar_t *
program(const struct cv_child *c)
{
	const char *path = c->path != NULL ? c->path : c->argv[0];
	wchar_t *w = cv_win_widen(path), *found, *env;
	DWORD n, got;

	if (w == NULL)
		return NULL;
	if (!(c->flags & CV_CHILD_SEARCH_PATH) || has_sep(path)) {
		DWORD a = GetFileAttributesW(w);
		const char *dot = strrchr(path, '.');
		if (a == INVALID_FILE_ATTRIBUTES &&
		    (dot == NULL || strpbrk(dot, "/\\") != NULL)) {
			size_t len = wcslen(w);
			w = xrealloc(w, (len + 5) * sizeof *w);
			wcscpy(w + len, L".exe");
		}
		return w;
	}
	n = GetEnvironmentVariableW(L"PATH", NULL, 0);
	if (n == 0) {
		free(w);
		errno = ENOENT;
		return NULL;
	}
	env = xmalloc(n * sizeof *env);
	GetEnvironmentVariableW(L"PATH", env, n);
	found = xmalloc(32768 * sizeof *found);
	got = SearchPathW(env, w, L".exe", 32768, found, NULL);
	free(env);
	free(w);
	if (got == 0 || got >= 32768) {
		free(found);
		errno = ENOENT;
		return NULL;
	}
	return found;
}

static int
cmp_env(const void *a, const void *b)
{
	const wchar_t *x = *(wchar_t *const *)a, *y = *(wchar_t *const *)b;

	/* by name, case aside, as Windows keeps its own block */
	for (;; x++, y++) {
		wchar_t cx = *x == L'=' ? 0 : towupper(*x);
		wchar_t cy = *y == L'=' ? 0 : towupper(*y);
		if (cx != cy || cx == 0)
			return cx < cy ? -1 : cx > cy;
	}
}

/* envp ("NAME=value" strings) as CreateProcessW's block: UTF-16 strings,
 * sorted by name, each NUL-terminated, an empty one at the end. NULL with
 * errno for a string that is not UTF-8. */
static wchar_t *
env_block(char *const *envp)
{
	size_t n = 0, len = 1, at = 0;
	wchar_t **w, *block;

	while (envp[n] != NULL)
		n++;
	w = xcalloc(n + 1, sizeof *w);
	for (size_t i = 0; i < n; i++) {
		if ((w[i] = cv_win_widen(envp[i])) == NULL) {
			for (size_t j = 0; j < i; j++)
				free(w[j]);
			free(w);
			return NULL;
		}
		len += wcslen(w[i]) + 1;
	}
	qsort(w, n, sizeof *w, cmp_env);
	block = xmalloc((len + 1) * sizeof *block);
	for (size_t i = 0; i < n; i++) {
		size_t l = wcslen(w[i]) + 1;
		memcpy(block + at, w[i], l * sizeof *block);
		at += l;
		free(w[i]);
	}
	block[at++] = L'\0';
	if (n == 0)
		block[at++] = L'\0';
	free(w);
	return block;
}

/* ---- the streams ------------------------------------------------------ */

struct reader {
	struct cv_child *c;
	HANDLE pipe, thread;
	int stream;
	volatile LONG asked_stop; /* on_out returned nonzero */
};

static DWORD WINAPI
read_loop(void *arg)
{
	struct reader *r = arg;
	char buf[8192];
	DWORD n;

	while (ReadFile(r->pipe, buf, sizeof buf, &n, NULL) && n > 0)
		if (cv_child_take(r->c, r->stream, buf, n)) {
			InterlockedExchange(&r->asked_stop, 1);
			break;
		}
	return 0;
}

/* An inheritable handle for the child's end (the pipe's write end, NUL,
 * or this process's own stream). */
static HANDLE
inheritable(HANDLE h)
{
	HANDLE dup = NULL;

	if (h == NULL || h == INVALID_HANDLE_VALUE ||
	    !DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &dup,
			     0, TRUE, DUPLICATE_SAME_ACCESS))
		return NULL;
	return dup;
}

static HANDLE
open_nul(DWORD access)
{
	SECURITY_ATTRIBUTES sa = { sizeof sa, NULL, TRUE };

	return CreateFileW(L"NUL", access, FILE_SHARE_READ | FILE_SHARE_WRITE,
			   &sa, OPEN_EXISTING, 0, NULL);
}

/* A pipe whose read end (*rd) stays here and whose write end (*wr) is the
 * child's, inheritable. */
static int
make_pipe(HANDLE *rd, HANDLE *wr)
{
	SECURITY_ATTRIBUTES sa = { sizeof sa, NULL, TRUE };

	if (!CreatePipe(rd, wr, &sa, 0))
		return -1;
	SetHandleInformation(*rd, HANDLE_FLAG_INHERIT, 0);
	return 0;
}

/* ---- a run ------------------------------------------------------------ */

struct run {
	struct cv_child *c;
	struct reader rd[2];
	HANDLE std[3]; /* the child's ends */
	PROCESS_INFORMATION pi;
	HANDLE job;
	ULONGLONG deadline;
};

static void
close_h(HANDLE *h)
{
	if (*h != NULL && *h != INVALID_HANDLE_VALUE)
		CloseHandle(*h);
	*h = NULL;
}

/* The child's three streams: pipes for what c keeps, NUL where asked,
 * else this process's own. */
static int
plan(struct run *r)
{
	struct cv_child *c = r->c;
	int want[2] = { c->out != NULL || c->on_out != NULL, c->err != NULL };

	r->std[0] = (c->flags & CV_CHILD_STDIN_NULL)
			    ? open_nul(GENERIC_READ)
			    : inheritable(GetStdHandle(STD_INPUT_HANDLE));
	for (int i = 0; i < 2; i++) {
		r->rd[i].c = c;
		r->rd[i].stream = i;
		if (want[i]) {
			if (make_pipe(&r->rd[i].pipe, &r->std[i + 1]) < 0)
				return -1;
		} else if (i == 1 && (c->flags & CV_CHILD_STDERR_NULL)) {
			r->std[2] = open_nul(GENERIC_WRITE);
		} else {
			r->std[i + 1] = inheritable(GetStdHandle(
				i == 0 ? STD_OUTPUT_HANDLE : STD_ERROR_HANDLE));
		}
	}
	return 0;
}

/* Start the program suspended, put it in the job, let it run. Only the
 * child's three ends are inherited (the handle list), so another thread's
 * child started at the same moment cannot keep one of these pipes open. */
static int
start(struct run *r, wchar_t *exe, wchar_t *line, wchar_t *env)
{
	STARTUPINFOEXW si;
	HANDLE list[3];
	SIZE_T size = 0;
	DWORD n = 0, flags = CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED;
	BOOL ok;

	memset(&si, 0, sizeof si);
	si.StartupInfo.cb = sizeof si;
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = r->std[0];
	si.StartupInfo.hStdOutput = r->std[1];
	si.StartupInfo.hStdError = r->std[2];
	for (int i = 0; i < 3; i++)
		if (r->std[i] != NULL && r->std[i] != INVALID_HANDLE_VALUE &&
		    (i == 0 || r->std[i] != r->std[i - 1]))
			list[n++] = r->std[i];
	InitializeProcThreadAttributeList(NULL, 1, 0, &size);
	si.lpAttributeList = xmalloc(size);
	if (n > 0 &&
	    InitializeProcThreadAttributeList(si.lpAttributeList, 1, 0,
					      &size) &&
	    UpdateProcThreadAttribute(si.lpAttributeList, 0,
				      PROC_THREAD_ATTRIBUTE_HANDLE_LIST, list,
				      n * sizeof *list, NULL, NULL)) {
		si.StartupInfo.cb = sizeof si;
		flags |= EXTENDED_STARTUPINFO_PRESENT;
	} else {
		si.StartupInfo.cb = sizeof si.StartupInfo;
	}
	ok = CreateProcessW(exe, line, NULL, NULL, n > 0, flags, env, NULL,
			    &si.StartupInfo, &r->pi);
	if (flags & EXTENDED_STARTUPINFO_PRESENT)
		DeleteProcThreadAttributeList(si.lpAttributeList);
	free(si.lpAttributeList);
	if (!ok)
		return -1;
	r->job = CreateJobObjectW(NULL, NULL);
	/* outside a job (an older Windows where this process's own job
	 * allows no other) it still runs, killed alone on a timeout */
	if (r->job != NULL && !AssignProcessToJobObject(r->job, r->pi.hProcess))
		close_h(&r->job);
	ResumeThread(r->pi.hThread);
	close_h(&r->pi.hThread);
	return 0;
}

static void
kill_all(struct run *r)
{
	if (r->job != NULL)
		TerminateJobObject(r->job, 1);
	else
		TerminateProcess(r->pi.hProcess, 1);
}

/* Milliseconds to wait before looking at the deadline and the stop flag
 * again: 20, or less when the deadline is nearer. */
static DWORD
slice(const struct run *r)
{
	ULONGLONG now = GetTickCount64();

	if (r->c->timeout_s == 0)
		return 20;
	if (now >= r->deadline)
		return 0;
	return r->deadline - now < 20 ? (DWORD)(r->deadline - now) : 20;
}

/* Kill the job on the deadline or the stop flag: 1 when it did. */
static int
due(struct run *r, struct cv_child_end *end)
{
	if (r->c->stop != NULL && *r->c->stop) {
		end->stopped = 1;
		kill_all(r);
		return 1;
	}
	if (r->c->timeout_s && GetTickCount64() >= r->deadline) {
		r->c->timed_out = 1;
		kill_all(r);
		return 1;
	}
	return 0;
}

/* Until both streams end (1 when on_out stopped the reading), or the
 * deadline or the stop flag (0, the job killed). */
static int
pump(struct run *r, struct cv_child_end *end)
{
	for (;;) {
		HANDLE live[2];
		DWORD n = 0;
		for (int i = 0; i < 2; i++) {
			if (r->rd[i].thread == NULL)
				continue;
			if (WaitForSingleObject(r->rd[i].thread, 0) ==
			    WAIT_OBJECT_0) {
				if (r->rd[i].asked_stop)
					return 1;
				continue;
			}
			live[n++] = r->rd[i].thread;
		}
		if (n == 0 || due(r, end))
			return 0;
		WaitForMultipleObjects(n, live, FALSE, slice(r));
	}
}

/* Wait for the child's end, killing the job on the deadline or the stop
 * flag; its code into end. */
static int
reap(struct run *r, struct cv_child_end *end, struct cv_err *err)
{
	int killed = end->stopped || r->c->timed_out;
	DWORD code;

	while (!killed &&
	       WaitForSingleObject(r->pi.hProcess, slice(r)) == WAIT_TIMEOUT)
		killed = due(r, end);
	if (WaitForSingleObject(r->pi.hProcess, INFINITE) != WAIT_OBJECT_0 ||
	    !GetExitCodeProcess(r->pi.hProcess, &code)) {
		errno = EINVAL;
		return cv_err_errno(err, CV_ERROR, "cannot wait for '%s'",
				    r->c->argv[0]);
	}
	if (killed)
		end->signal = KILLED;
	else if (code <= 255)
		end->code = (int)code;
	else if (code == 0xC0000005u || code == 0xC00000FDu)
		end->signal = SIGSEGV; /* access violation, stack overflow */
	else if (code == 0xC000001Du)
		end->signal = SIGILL;
	else if (code == 0xC0000094u || code == 0xC000008Eu)
		end->signal = SIGFPE;
	else if (code == 0xC000013Au) /* ended by Ctrl-C */
		end->signal = SIGINT;
	else
		end->code = 255; /* another NTSTATUS: no POSIX name */
	return 0;
}

/* The reader threads, after the child's end: their pipes end with the
 * last process holding the write end; one that a process outside the job
 * keeps open is cancelled. */
static void
finish(struct run *r)
{
	for (int i = 0; i < 2; i++) {
		if (r->rd[i].thread == NULL)
			continue;
		if (WaitForSingleObject(r->rd[i].thread, 2000) ==
		    WAIT_TIMEOUT) {
			CancelSynchronousIo(r->rd[i].thread);
			WaitForSingleObject(r->rd[i].thread, 2000);
		}
		close_h(&r->rd[i].thread);
	}
}

static void
release(struct run *r)
{
	for (int i = 0; i < 2; i++) {
		close_h(&r->rd[i].pipe);
	}
	for (int i = 0; i < 3; i++)
		close_h(&r->std[i]);
	close_h(&r->pi.hProcess);
	close_h(&r->pi.hThread);
	close_h(&r->job);
}

static int
start_fail(struct cv_child *c, const char *path, struct cv_err *err)
{
	DWORD e = GetLastError();

	errno = e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? ENOENT
		: e == ERROR_ACCESS_DENIED                             ? EACCES
		: e == ERROR_BAD_EXE_FORMAT                            ? ENOEXEC
								       : EINVAL;
	(void)c;
	return cv_err_errno(err, errno == ENOENT ? CV_ENOTFOUND : CV_ERROR,
			    "cannot run '%s'", path);
}

/* Start c's program, feed what it writes to cv_child_take, wait with
 * c's deadline and stop flag: 0 and *end, or <0 (err) when it could not
 * start or be waited for. */
static int
run_child(struct cv_child *c, struct cv_child_end *end, struct cv_err *err)
{
	const char *path = c->path != NULL ? c->path : c->argv[0];
	struct run r;
	wchar_t *exe = NULL, *line = NULL, *env = NULL;
	int rc = 0, left = 0;

	memset(&r, 0, sizeof r);
	r.c = c;
	if ((exe = program(c)) == NULL)
		return cv_err_errno(err,
				    errno == ENOENT ? CV_ENOTFOUND : CV_ERROR,
				    "cannot run '%s'", path);
	line = command_line(c->argv);
	if (line == NULL ||
	    (c->envp != NULL && (env = env_block(c->envp)) == NULL)) {
		errno = EINVAL;
		rc = cv_err_errno(err, CV_ERROR,
				  "cannot run '%s': an argument or variable "
				  "that is not UTF-8",
				  path);
		goto out;
	}
	if (plan(&r) < 0 || start(&r, exe, line, env) < 0) {
		rc = start_fail(c, path, err);
		goto out;
	}
	/* the child's ends are its own now: the pipes end with it */
	for (int i = 0; i < 3; i++)
		close_h(&r.std[i]);
	for (int i = 0; i < 2; i++)
		if (r.rd[i].pipe != NULL)
			r.rd[i].thread = CreateThread(NULL, 0, read_loop,
						      &r.rd[i], 0, NULL);
	r.deadline = GetTickCount64() + (ULONGLONG)c->timeout_s * 1000;
	if (pump(&r, end)) {
		/* said all it had to say: not waited for */
		for (int i = 0; i < 2; i++)
			if (r.rd[i].thread != NULL)
				CancelSynchronousIo(r.rd[i].thread);
		c->left =
			WaitForSingleObject(r.pi.hProcess, 0) != WAIT_OBJECT_0;
		end->left = left = 1;
	}
	if (!left)
		rc = reap(&r, end, err);
	finish(&r);
out:
	release(&r);
	free(exe);
	free(line);
	free(env);
	return rc;
}

int
cv_child_run(struct cv_child *c, struct cv_err *err)
{
	struct cv_child_end end = { 0, 0, 0, 0 };
	int r;

	c->timed_out = c->left = c->signal = 0;
	if ((r = run_child(c, &end, err)) < 0)
		return r;
	return cv_child_end_code(c, &end, err);
}
#endif
