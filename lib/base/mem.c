/* mem.c: GNU's memmem, memrchr and strcasestr for the files that search
 * bytes of a known length (a RECORD line, a file name) or a pasted error
 * message, which mingw's C library has not: glibc's own where it is, a
 * plain scan on Windows. */
#include "base/base.h"

#include <string.h>

#ifdef _WIN32
void *
cv_memmem(const void *hay, size_t n, const void *needle, size_t k)
{
	const char *h = hay;
	size_t i;

	if (k == 0)
		return (void *)h;
	for (i = 0; k <= n && i <= n - k; i++)
		if (h[i] == *(const char *)needle &&
		    memcmp(h + i, needle, k) == 0)
			return (void *)(h + i);
	return NULL;
}

void *
cv_memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	while (n-- > 0)
		if (p[n] == (unsigned char)c)
			return (void *)(p + n);
	return NULL;
}

char *
cv_strcasestr(const char *hay, const char *needle)
{
	size_t k = strlen(needle);

	for (; *hay; hay++)
		if (_strnicmp(hay, needle, k) == 0)
			return (char *)hay;
	return k == 0 ? (char *)hay : NULL;
}
#else
void *
cv_memmem(const void *hay, size_t n, const void *needle, size_t k)
{
	return memmem(hay, n, needle, k);
}

void *
cv_memrchr(const void *s, int c, size_t n)
{
	return memrchr(s, c, n);
}
char *
cv_strcasestr(const char *hay, const char *needle)
{
	return strcasestr(hay, needle);
}
#endif
