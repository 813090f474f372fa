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
	return xasprintf("%.*s/%s", (int)la, a, b);
}
