/* proc_win32.c: who this process is (cv_os_uid ...) and whether another
 * one still runs, on Win32, the twin of proc_posix.c. */
#ifdef _WIN32
#include "base/base_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* windows.h before the headers that need its types */
#include <windows.h>

#include <tlhelp32.h>

/* Windows has no uid: a user is a SID. Its relative id (the last
 * sub-authority, 1000 and up for a local user) stands for it, the number
 * cv_os_stat's owner is compared with (file_win32.c maps the owner SID
 * the same way, and this user's SID to exactly this). -1 when the token
 * cannot be read. */
long
cv_os_uid(void)
{
	static long uid = -1;
	char buf[256];
	HANDLE tok;
	DWORD got;

	if (uid != -1)
		return uid;
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
		return -1;
	if (GetTokenInformation(tok, TokenUser, buf, sizeof buf, &got)) {
		PSID sid = ((TOKEN_USER *)(void *)buf)->User.Sid;
		uid = (long)*GetSidSubAuthority(
			sid, *GetSidSubAuthorityCount(sid) - 1u);
	}
	CloseHandle(tok);
	return uid;
}

/* one token: no set-user-id programs on Windows */
long
cv_os_euid(void)
{
	return cv_os_uid();
}

long
cv_os_pid(void)
{
	return (long)GetCurrentProcessId();
}

/* The parent's id as Windows recorded it at the start (the parent may have
 * ended since, and its id been given again; POSIX's getppid has the same
 * limit once a process is reparented). 0 when it cannot be read. */
long
cv_os_ppid(void)
{
	DWORD me = GetCurrentProcessId();
	PROCESSENTRY32W pe;
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	long ppid = 0;

	if (snap == INVALID_HANDLE_VALUE)
		return 0;
	pe.dwSize = sizeof pe;
	if (Process32FirstW(snap, &pe)) {
		do {
			if (pe.th32ProcessID == me) {
				ppid = (long)pe.th32ParentProcessID;
				break;
			}
		} while (Process32NextW(snap, &pe));
	}
	CloseHandle(snap);
	return ppid;
}

/* Both environments: the C library's (getenv) and the process's, which a
 * child made by CreateProcess inherits. A value of "" is kept as "" in
 * the process's; the C library cannot hold an empty one and drops it. */
int
cv_os_setenv(const char *name, const char *value)
{
	wchar_t *wn, *wv = NULL;
	BOOL ok;

	if (name[0] == '\0' || strchr(name, '=') != NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((wn = cv_win_widen(name)) == NULL ||
	    (value != NULL && (wv = cv_win_widen(value)) == NULL)) {
		free(wn);
		errno = EINVAL;
		return -1;
	}
	ok = SetEnvironmentVariableW(wn, wv);
	if (ok && _wputenv_s(wn, wv != NULL ? wv : L"") != 0)
		ok = FALSE;
	free(wn);
	free(wv);
	if (!ok) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Another user's process cannot be opened (ERROR_ACCESS_DENIED): it runs;
 * no process of that id: ERROR_INVALID_PARAMETER. One that has ended but
 * whose handle someone still holds is gone. */
int
cv_os_pid_alive(long pid)
{
	HANDLE h;
	DWORD code;
	int alive;

	if (pid <= 0)
		return 0;
	h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
	if (h == NULL)
		return GetLastError() == ERROR_ACCESS_DENIED;
	alive = !GetExitCodeProcess(h, &code) || code == STILL_ACTIVE;
	CloseHandle(h);
	return alive;
}
#endif
