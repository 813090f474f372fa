/* config_win32.c: config.c's INI reader on Windows, the system's own: the
 * Win32 profile API (GetPrivateProfileSectionNamesW, then
 * GetPrivateProfileSectionW for each section), as Debian builds no inih
 * for mingw. The API reads files, so the text config.c has read (and
 * checked: its size, no NUL) is written to a temporary file of its own,
 * in UTF-16 with a byte-order mark, the one encoding the API reads the
 * same everywhere (without it, the ANSI code page would stand in for
 * UTF-8). What it reads differently from inih is said in cudnnvm.ini(5):
 * lines before the first section and a section's second part are not
 * seen, a value keeps a " ; comment" after it, an indented line is a key
 * of its own, and a line that is no key is refused without its number. */
#ifdef _WIN32
#include "base/base_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* windows.h before the headers that need its types */
#include <windows.h>

/* UTF-16 to UTF-8, xmalloc'd */
static char *
narrow(const wchar_t *w, int n)
{
	int len = WideCharToMultiByte(CP_UTF8, 0, w, n, NULL, 0, NULL, NULL);
	char *s = xmalloc(len > 0 ? (size_t)len + 1 : 1);

	if (len > 0)
		WideCharToMultiByte(CP_UTF8, 0, w, n, s, len, NULL, NULL);
	s[len > 0 ? len : 0] = '\0';
	return s;
}

/* The text as a temporary UTF-16 file: its name (xmalloc'd) or NULL. */
static wchar_t *
spill(const char *data, size_t len)
{
	wchar_t dir[MAX_PATH + 1],
		*name = xmalloc((MAX_PATH + 1) * sizeof *name);
	int n = len > 0 ? MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS,
					      data, (int)len, NULL, 0)
			: 0;
	wchar_t *w = NULL;
	HANDLE h;
	DWORD put;
	BOOL ok;

	if ((len > 0 && n <= 0) || GetTempPathW(MAX_PATH + 1, dir) == 0 ||
	    GetTempFileNameW(dir, L"cvi", 0, name) == 0) {
		free(name);
		return NULL;
	}
	w = xmalloc(((size_t)n + 1) * sizeof *w);
	w[0] = 0xFEFF; /* the byte-order mark */
	if (n > 0)
		MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, data,
				    (int)len, w + 1, n);
	h = CreateFileW(name, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
			FILE_ATTRIBUTE_TEMPORARY, NULL);
	ok = h != INVALID_HANDLE_VALUE &&
	     WriteFile(h, w, (DWORD)(((size_t)n + 1) * sizeof *w), &put,
		       NULL) &&
	     put == ((size_t)n + 1) * sizeof *w;
	if (h != INVALID_HANDLE_VALUE)
		CloseHandle(h);
	free(w);
	if (!ok) {
		DeleteFileW(name);
		free(name);
		return NULL;
	}
	return name;
}

/* Each "name=value" of one section's block to key; a line that is no key
 * (no '=') is CV_INI_NOT_KEY, and a '#' line a comment, as inih reads it
 * (the API skips only ';' lines). 0, 1 when key stopped, or the error. */
static int
each_key(const wchar_t *block, const char *section,
	 int (*key)(void *user, const char *section, const char *name,
		    const char *value),
	 void *user)
{
	for (const wchar_t *e = block; *e; e += wcslen(e) + 1) {
		const wchar_t *eq = wcschr(e, L'=');
		char *name, *value;
		int go;

		if (*e == L'#')
			continue;
		if (eq == NULL)
			return CV_INI_NOT_KEY;
		name = narrow(e, (int)(eq - e));
		value = narrow(eq + 1, -1);
		/* the API trims the name and the value, as inih does */
		go = key(user, section, name, value);
		free(name);
		free(value);
		if (!go)
			return 1;
	}
	return 0;
}

int
cv_ini_read(const char *data, size_t len,
	    char *(*line)(char *str, int num, void *user),
	    int (*key)(void *user, const char *section, const char *name,
		       const char *value),
	    void *user)
{
	/* no block is longer than the text: UTF-16 takes no more units than
	 * UTF-8 takes bytes, and each line loses its "\r\n" to one NUL */
	DWORD cap = (DWORD)len + 16;
	wchar_t *file = spill(data, len), *names, *block;
	int r = 0;

	(void)line;
	if (file == NULL)
		return -1;
	names = xmalloc(cap * sizeof *names);
	block = xmalloc(cap * sizeof *block);
	names[0] = L'\0';
	GetPrivateProfileSectionNamesW(names, cap, file);
	for (const wchar_t *sec = names; r == 0 && *sec;
	     sec += wcslen(sec) + 1) {
		char *section = narrow(sec, -1);
		block[0] = L'\0';
		GetPrivateProfileSectionW(sec, block, cap, file);
		r = each_key(block, section, key, user);
		free(section);
	}
	if (r == 1)
		r = 0; /* stopped by key: it said why */
	DeleteFileW(file);
	free(file);
	free(names);
	free(block);
	return r;
}
#endif
