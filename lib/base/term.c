/* term.c: whether a standard stream is a terminal, and a terminal that
 * shows the colours cmd/ui.c writes, on POSIX and on Win32: the front end
 * asks these instead of calling isatty itself. On Windows a terminal is a
 * console (GetConsoleMode succeeds: the CRT's _isatty also says yes for
 * NUL and other character devices), and colours need the console's
 * virtual-terminal mode, which Windows 10 has but leaves off. */
#include "base/base.h"

#ifdef _WIN32
#include <io.h>
#include <windows.h>

static HANDLE
console_of(int fd)
{
	intptr_t h = _get_osfhandle(fd);
	DWORD mode;

	if (h == -1 || !GetConsoleMode((HANDLE)h, &mode))
		return NULL;
	return (HANDLE)h;
}

int
cv_os_isatty(int fd)
{
	return console_of(fd) != NULL;
}

int
cv_os_term_colors(int fd)
{
	HANDLE h = console_of(fd);
	DWORD mode;

	if (h == NULL || !GetConsoleMode(h, &mode))
		return 0;
	if (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING)
		return 1;
	return SetConsoleMode(h, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) !=
	       0;
}
#else
#include <unistd.h>

int
cv_os_isatty(int fd)
{
	return isatty(fd);
}

int
cv_os_term_colors(int fd)
{
	return isatty(fd);
}
#endif
