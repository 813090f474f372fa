/* json.c: what the JSON face builds over either backend: json_pack's forms
 * as the callers use them. */
#include "base/base_int.h"

#include <stdio.h>
#include <string.h>

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
