/* json.c: what the JSON face builds over either backend: a file read with
 * base's own file calls, and json_pack's forms as the callers use them. */
#include "base/base_int.h"

#include <stdio.h>
#include <string.h>

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

/* the format and the arguments still to read; failed once a value could
 * not be made (the rest is read all the same, to take every "o") */
struct pack {
	const char *f;
	va_list ap;
	int failed;
};

static void
pack_skip(struct pack *p)
{
	while (*p->f == ' ' || *p->f == ',' || *p->f == ':')
		p->f++;
}

static struct cv_json *pack_value(struct pack *p);

/* `{` or `[` read: the members up to the closing one */
static struct cv_json *
pack_container(struct pack *p, int object)
{
	struct cv_json *c = object ? cv_json_object() : cv_json_array();

	for (pack_skip(p); *p->f != (object ? '}' : ']'); pack_skip(p)) {
		const char *key = NULL;
		struct cv_json *v;

		if (*p->f == '\0') {
			p->failed = 1;
			break;
		}
		if (object) {
			if (*p->f++ != 's') {
				p->failed = 1;
				break;
			}
			key = va_arg(p->ap, const char *);
			pack_skip(p);
		}
		v = pack_value(p);
		if (v == NULL || (object && key == NULL)) {
			p->failed = 1;
			cv_json_decref(v);
		} else if (object ? cv_json_object_set_new(c, key, v)
				  : cv_json_array_append_new(c, v)) {
			p->failed = 1;
		}
	}
	if (*p->f != '\0')
		p->f++;
	if (p->failed) {
		cv_json_decref(c);
		return NULL;
	}
	return c;
}

static struct cv_json *
pack_value(struct pack *p)
{
	const char *s;
	struct cv_json *v;

	switch (*p->f++) {
	case '{':
		return pack_container(p, 1);
	case '[':
		return pack_container(p, 0);
	case 's':
		s = va_arg(p->ap, const char *);
		if (*p->f == '?') {
			p->f++;
			return s != NULL ? cv_json_string(s) : cv_json_null();
		}
		return s != NULL ? cv_json_string(s) : NULL;
	case 'i':
		return cv_json_integer(va_arg(p->ap, int));
	case 'I':
		return cv_json_integer(va_arg(p->ap, int64_t));
	case 'b':
		return cv_json_boolean(va_arg(p->ap, int));
	case 'f':
		return cv_json_real(va_arg(p->ap, double));
	case 'n':
		return cv_json_null();
	case 'o':
		return va_arg(p->ap, struct cv_json *);
	case 'O':
		v = va_arg(p->ap, struct cv_json *);
		return v != NULL ? cv_json_incref(v) : NULL;
	default:
		p->failed = 1;
		return NULL;
	}
}

struct cv_json *
cv_json_pack(const char *fmt, ...)
{
	struct pack p;
	struct cv_json *v;

	p.f = fmt;
	p.failed = 0;
	va_start(p.ap, fmt);
	pack_skip(&p);
	v = pack_value(&p);
	va_end(p.ap);
	if (p.failed) {
		cv_json_decref(v);
		return NULL;
	}
	return v;
}
