/* path.c: path string helpers. */
#include "base/base_int.h"

#include <string.h>

char *
cv_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);

	while (la > 1 && a[la - 1] == '/')
		la--;
	while (*b == '/')
		b++;
	/* no printf: the prompt's commands join a path per folder they check */
	size_t lb = strlen(b);
	char *p = xmalloc(la + lb + 2);
	/* terminated by the copy of b's NUL below */
	memcpy(p, a, la); // NOLINT(bugprone-not-null-terminated-result)
	p[la] = '/';
	memcpy(p + la + 1, b, lb + 1);
	return p;
}
