/* json_error.c: where a JSON text went wrong, counted as jansson counts,
 * for both backends (apart from json.c, which calls them). */
#include "base/base_int.h"

void
cv_json_error_at(struct cv_json_error *error, const char *buf, size_t len,
		 size_t off)
{
	int line = 1, col = 0;

	if (off > len)
		off = len;
	if (off < len)
		off++;
	for (size_t i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			line++;
			col = 0;
		} else if (((unsigned char)buf[i] & 0xc0) != 0x80) {
			col++;
		}
	}
	error->line = line;
	error->column = col;
	error->position = (int)off;
}
