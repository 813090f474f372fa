/* proc_win32.c: who this process is (cv_os_uid ...) and whether another
 * one still runs, on Win32, the twin of proc_posix.c. */
#ifdef _WIN32
#include "base/base_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* windows.h before the headers that need its types */
#include <windows.h>

#include <shlobj.h>
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

/* UTF-16 to UTF-8, xmalloc'd ("" for what cannot be converted) */
static char *
narrow(const wchar_t *w)
{
	int len = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s = xmalloc(len > 0 ? (size_t)len : 1);

	s[0] = '\0';
	if (len > 0)
		WideCharToMultiByte(CP_UTF8, 0, w, -1, s, len, NULL, NULL);
	return s;
}

/* the program's file name ("pwsh.exe") from a snapshot of the processes */
int
cv_os_process_name(long pid, char *buf, size_t n)
{
	PROCESSENTRY32W pe;
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	int r = -1;

	if (snap == INVALID_HANDLE_VALUE || n == 0)
		return -1;
	pe.dwSize = sizeof pe;
	if (Process32FirstW(snap, &pe)) {
		do {
			if ((long)pe.th32ProcessID == pid) {
				char *s = narrow(pe.szExeFile);
				snprintf(buf, n, "%s", s);
				free(s);
				r = 0;
				break;
			}
		} while (Process32NextW(snap, &pe));
	}
	CloseHandle(snap);
	return r;
}

int
cv_os_self(char *buf, size_t n)
{
	wchar_t w[32768];
	DWORD len = GetModuleFileNameW(NULL, w, 32768);
	char *s;
	int r = 0;

	if (len == 0 || len >= 32768) {
		errno = ENAMETOOLONG;
		return -1;
	}
	s = narrow(w);
	if (strlen(s) >= n) {
		errno = ENAMETOOLONG;
		r = -1;
	} else
		memcpy(buf, s, strlen(s) + 1);
	free(s);
	return r;
}

const char *
cv_os_family(void)
{
	return "windows";
}

char
cv_os_path_list_sep(void)
{
	return ';';
}

const char *
cv_os_exe_suffix(void)
{
	return ".exe";
}

/* the machine itself, not this process's view of it (an x86-64 program
 * under ARM64's emulation is still on an arm64 machine), in the names
 * uname gives on Linux, as Python's platform.machine() is compared to
 * them */
int
cv_os_machine(char *out, size_t n)
{
	SYSTEM_INFO si;

	GetNativeSystemInfo(&si);
	switch (si.wProcessorArchitecture) {
	case PROCESSOR_ARCHITECTURE_AMD64:
		snprintf(out, n, "x86_64");
		return 0;
	case PROCESSOR_ARCHITECTURE_ARM64:
		snprintf(out, n, "aarch64");
		return 0;
	case PROCESSOR_ARCHITECTURE_INTEL:
		snprintf(out, n, "i686");
		return 0;
	default:
		return -1;
	}
}

unsigned
cv_os_cores(void)
{
	DWORD_PTR mine, sys;
	unsigned n = 0;

	if (!GetProcessAffinityMask(GetCurrentProcess(), &mine, &sys))
		return 1;
	for (; mine != 0; mine &= mine - 1)
		n++;
	return n > 0 ? n : 1;
}

static int (*on_interrupt)(void);

/* run by Windows in a thread of its own; FALSE hands the event on to the
 * default handler, which ends the process (exit 0xC000013A) */
static BOOL WINAPI
on_ctrl(DWORD type)
{
	if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT)
		return FALSE;
	return on_interrupt != NULL && on_interrupt() ? TRUE : FALSE;
}

void
cv_os_on_interrupt(int (*fn)(void))
{
	on_interrupt = fn;
	SetConsoleCtrlHandler(on_ctrl, TRUE);
}

/* folder\cudnnvm, its trailing separators dropped; NULL (freeing folder)
 * when folder is not absolute */
static char *
ours(char *folder)
{
	size_t n = strlen(folder);
	char *r = NULL;

	while (n > 3 && (folder[n - 1] == '\\' || folder[n - 1] == '/'))
		folder[--n] = '\0';
	if (cv_os_is_absolute(folder))
		r = xasprintf("%s\\cudnnvm", folder);
	free(folder);
	return r;
}

/* An absolute folder of the environment, else the known folder. The
 * variable is read wide: the C library's getenv gives the ANSI code page,
 * not UTF-8, for a user name outside ASCII. */
static char *
known(const wchar_t *var, REFKNOWNFOLDERID id)
{
	wchar_t *w = NULL;
	DWORD n = GetEnvironmentVariableW(var, NULL, 0);
	char *s;

	if (n > 1) {
		w = xmalloc(n * sizeof *w);
		if (GetEnvironmentVariableW(var, w, n) == n - 1) {
			s = ours(narrow(w));
			free(w);
			if (s != NULL)
				return s;
		} else {
			free(w);
		}
		w = NULL;
	}
	if (SHGetKnownFolderPath(id, 0, NULL, &w) != S_OK) {
		CoTaskMemFree(w);
		return NULL;
	}
	s = narrow(w);
	CoTaskMemFree(w);
	return ours(s);
}

char *
cv_os_place(int place)
{
	char *p, *c;

	/* the machine's store and configuration share one folder */
	if (place == CV_PLACE_MACHINE_DATA || place == CV_PLACE_MACHINE_CONFIG)
		return known(L"ProgramData", &FOLDERID_ProgramData);
	if (place == CV_PLACE_USER_CONFIG)
		return known(L"APPDATA", &FOLDERID_RoamingAppData);
	p = known(L"LOCALAPPDATA", &FOLDERID_LocalAppData);
	if (place != CV_PLACE_USER_CACHE || p == NULL)
		return p;
	c = xasprintf("%s\\cache", p);
	free(p);
	return c;
}

int
cv_os_is_sep(int c)
{
	return c == '/' || c == '\\';
}

/* "C:\x", "C:/x", "\\server\share" and "\\?\..."; "\x" is relative to
 * the working folder's drive and "C:x" to that drive's working folder */
int
cv_os_is_absolute(const char *path)
{
	if (((path[0] >= 'A' && path[0] <= 'Z') ||
	     (path[0] >= 'a' && path[0] <= 'z')) &&
	    path[1] == ':')
		return path[2] == '\\' || path[2] == '/';
	return (path[0] == '\\' || path[0] == '/') &&
	       (path[1] == '\\' || path[1] == '/');
}
#endif
