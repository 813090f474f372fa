/* path.c: path string helpers. */
#include "base/base_int.h"

#include <string.h>

/* the platform's separator: on Windows '\\' joins, and either ends a part
 * (a path printed there reads C:\store\9.8, not C:\store/9.8) */
#ifdef _WIN32
#define JOIN_SEP  '\\'
#define IS_SEP(c) ((c) == '/' || (c) == '\\')
#else
#define JOIN_SEP  '/'
#define IS_SEP(c) ((c) == '/')
#endif

char *
cv_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);

	while (la > 1 && IS_SEP(a[la - 1]))
		la--;
	while (IS_SEP(*b))
		b++;
	/* no printf: the prompt's commands join a path per folder they check */
	size_t lb = strlen(b);
	char *p = xmalloc(la + lb + 2);
	/* terminated by the copy of b's NUL below */
	memcpy(p, a, la); // NOLINT(bugprone-not-null-terminated-result)
	/* the root "/" is a separator already: "/b", never "//b" */
	if (la == 1 && IS_SEP(a[0]))
		la = 0;
	else
		p[la] = JOIN_SEP;
	memcpy(p + la + 1, b, lb + 1);
	return p;
}
