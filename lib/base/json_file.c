/* json_file.c: a JSON file read with base's own file calls, over either
 * backend (apart from json.c, so that the rest builds without fs.c). */
#include "base/base_int.h"

#include <stdio.h>

static int
add_chunk(const void *data, size_t len, void *payload, struct cv_err *err)
{
	return cv_buf_add(payload, data, len);
}

struct cv_json *
cv_json_load_file(const char *path, size_t flags, struct cv_json_error *error)
{
	struct cv_buf b = CV_BUF_INIT;
	struct cv_err err = { 0 };
	struct cv_json *v = NULL;

	if (cv_fs_read_each(path, add_chunk, &b, &err) == 0) {
		v = cv_json_loadb(b.buf, b.len, flags, error);
	} else if (error != NULL) {
		error->line = error->column = -1;
		error->position = 0;
		snprintf(error->text, sizeof error->text, "%s", err.msg);
	}
	if (error != NULL && v == NULL)
		snprintf(error->source, sizeof error->source, "%s", path);
	cv_buf_release(&b);
	return v;
}
