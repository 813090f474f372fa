/* dl_win32.c: dynamic loading (cv_dl_*) on Win32, the twin of
 * dl_posix.c: LoadLibraryExW, GetProcAddress, FreeLibrary, and the
 * process's modules for the walks. */
#ifdef _WIN32
#include "base/base_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* windows.h before the headers that need its types */
#include <windows.h>

#include <psapi.h>

/* what the last failure said, until cv_dl_error hands it out (per thread,
 * as dlerror's) */
static _Thread_local char why[600];
static _Thread_local int failed;

static void
say_failure(const char *what)
{
	DWORD e = GetLastError();
	char text[400];
	DWORD len = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM |
					   FORMAT_MESSAGE_IGNORE_INSERTS,
				   NULL, e, 0, text, sizeof text, NULL);

	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
			   text[len - 1] == ' '))
		text[--len] = '\0';
	if (len == 0)
		snprintf(text, sizeof text, "error %lu", (unsigned long)e);
	snprintf(why, sizeof why, "%s: %s", what, text);
	failed = 1;
}

/* A path is loaded from where it says, its own dependencies looked for
 * beside it and in the system's folders (never the working folder, which
 * is what a planted DLL relies on); a bare name only in the system's
 * folders and the program's. `global` has no Windows meaning: a module's
 * imports are bound to named DLLs, never to what was loaded before, and
 * they are all bound at load (no lazy binding to ask against). */
void *
cv_dl_open(const char *path, int global)
{
	int has_dir = strchr(path, '/') != NULL || strchr(path, '\\') != NULL;
	wchar_t *w = cv_win_widen(path), full[32768];
	HMODULE m = NULL;

	(void)global;
	if (w == NULL) {
		SetLastError(ERROR_NO_UNICODE_TRANSLATION);
		say_failure(path);
		return NULL;
	}
	if (!has_dir) {
		m = LoadLibraryExW(w, NULL, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
	} else if (GetFullPathNameW(w, 32768, full, NULL) != 0) {
		m = LoadLibraryExW(full, NULL,
				   LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |
					   LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
	}
	free(w);
	if (m == NULL)
		say_failure(path);
	return m;
}

void *
cv_dl_sym(void *lib, const char *name)
{
	FARPROC f = GetProcAddress((HMODULE)lib, name);
	void *p;

	if (f == NULL) {
		say_failure(name);
		return NULL;
	}
	/* a code address as the face's void *, as dlsym gives it */
	memcpy(&p, &f, sizeof p);
	return p;
}

const char *
cv_dl_error(void)
{
	if (!failed)
		return NULL;
	failed = 0;
	return why;
}

void
cv_dl_close(void *lib)
{
	if (lib != NULL)
		FreeLibrary((HMODULE)lib);
}

static int
module_path(HMODULE m, char *buf, size_t n)
{
	wchar_t w[32768];
	DWORD len = GetModuleFileNameW(m, w, 32768);
	int out;

	if (len == 0 || len >= 32768 || n == 0 || n > INT_MAX)
		return -1;
	out = WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, (int)n, NULL, NULL);
	if (out <= 0) {
		/* too long for buf: cut, as the POSIX side's snprintf */
		WideCharToMultiByte(CP_UTF8, 0, w, (int)(n - 1), buf,
				    (int)(n - 1), NULL, NULL);
		buf[n - 1] = '\0';
	}
	return 0;
}

int
cv_dl_file_of(const void *addr, char *buf, size_t n)
{
	HMODULE m;

	if (!GetModuleHandleExW(
		    GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
			    GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
		    (LPCWSTR)addr, &m))
		return -1;
	return module_path(m, buf, n);
}

/* The program's own module first, given as "" like the POSIX side's main
 * program, then each DLL. */
int
cv_dl_each_loaded(int (*fn)(const char *path, void *payload), void *payload)
{
	HMODULE mods[1024], self = GetModuleHandleW(NULL);
	DWORD got;
	size_t i, n;
	char path[MAX_PATH * 4];
	int r;

	if (!EnumProcessModules(GetCurrentProcess(), mods, sizeof mods, &got))
		return 0;
	n = got / sizeof mods[0];
	if (n > sizeof mods / sizeof mods[0])
		n = sizeof mods / sizeof mods[0];
	for (i = 0; i < n; i++) {
		if (mods[i] == self)
			path[0] = '\0';
		else if (module_path(mods[i], path, sizeof path) != 0)
			continue;
		if ((r = fn(path, payload)) != 0)
			return r;
	}
	return 0;
}
#endif
