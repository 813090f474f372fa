/* io.c: whole transfers over base's face of the OS (cv_os_read and
 * cv_os_write), the same loop for POSIX and Win32: a short count goes
 * round again, and so does a call a signal interrupted (EINTR, which
 * Windows never gives). */
#include "base/base.h"
#include "base/base_int.h"

#include <errno.h>

int
cv_os_write_all(int fd, const void *buf, size_t n)
{
	size_t off = 0;

	while (off < n) {
		long w = cv_os_write(fd, (const char *)buf + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0)
			errno = EIO;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

long
cv_os_read_full(int fd, char *buf, size_t n)
{
	size_t got = 0;

	while (got + 1 < n) {
		long r = cv_os_read(fd, buf + got, n - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (n > 0)
		buf[got] = '\0';
	return (long)got;
}
