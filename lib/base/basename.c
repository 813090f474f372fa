/* basename.c: the last part of a path as the platform separates it: after
 * the last '/', and on Windows after the last '\' too (a user's
 * C:\Downloads\cudnn-windows-x86_64-...zip names its file so). */
#include "base/base.h"

#include <string.h>

const char *
cv_path_last_sep(const char *path)
{
	const char *s = strrchr(path, '/');
#ifdef _WIN32
	const char *b = strrchr(path, '\\');

	if (b != NULL && (s == NULL || b > s))
		s = b;
#endif
	return s;
}

const char *
cv_path_base(const char *path)
{
	const char *s = cv_path_last_sep(path);

	return s != NULL ? s + 1 : path;
}
