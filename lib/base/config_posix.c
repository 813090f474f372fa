/* config_posix.c: config.c's INI reader on POSIX, inih (Debian's libinih),
 * fed one line at a time by config.c's own reader, which counts the lines
 * every complaint names. */
#include "base/base_int.h"

#include <ini.h>

int
cv_ini_read(const char *data, size_t len,
	    char *(*line)(char *str, int num, void *user),
	    int (*key)(void *user, const char *section, const char *name,
		       const char *value),
	    void *user)
{
	(void)data;
	(void)len;
	return ini_parse_stream(line, user, key, user);
}
