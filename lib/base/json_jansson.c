/* json_jansson.c: the JSON face over jansson, for the Linux builds: a
 * struct cv_json is a json_t, each call jansson's own. The only file that
 * includes <jansson.h> (make lint-layers checks it). */
#include "base/base_int.h"

#include <jansson.h>
#include <string.h>

_Static_assert(CV_JSON_REJECT_DUPLICATES == JSON_REJECT_DUPLICATES &&
		       CV_JSON_DECODE_ANY == JSON_DECODE_ANY &&
		       CV_JSON_ALLOW_NUL == JSON_ALLOW_NUL &&
		       CV_JSON_INDENT(31) == JSON_INDENT(31) &&
		       CV_JSON_COMPACT == JSON_COMPACT &&
		       CV_JSON_SORT_KEYS == JSON_SORT_KEYS,
	       "the face's flags are jansson's");
_Static_assert(sizeof(json_int_t) == sizeof(int64_t), "64-bit integers");

#define J(v) ((json_t *)(v))
#define V(j) ((struct cv_json *)(j))

static struct cv_json *
loaded(json_t *j, const json_error_t *je, struct cv_json_error *error)
{
	if (j == NULL && error != NULL) {
		error->line = je->line;
		error->column = je->column;
		error->position = je->position;
		snprintf(error->source, sizeof error->source, "%s", je->source);
		snprintf(error->text, sizeof error->text, "%s", je->text);
	}
	return V(j);
}

/* A NUL byte is no JSON, but jansson skips one that follows a number or
 * true/false/null: refused here, as jsmn's backend refuses it. */
struct cv_json *
cv_json_loadb(const char *buf, size_t len, size_t flags,
	      struct cv_json_error *error)
{
	const char *nul = buf != NULL ? memchr(buf, '\0', len) : NULL;
	json_error_t je;

	if (nul != NULL) {
		if (error != NULL) {
			cv_json_error_at(error, buf, len, (size_t)(nul - buf));
			snprintf(error->source, sizeof error->source,
				 "<buffer>");
			snprintf(error->text, sizeof error->text,
				 "NUL byte in input");
		}
		return NULL;
	}
	return loaded(json_loadb(buf, len, flags, &je), &je, error);
}

struct cv_json *
cv_json_loads(const char *s, size_t flags, struct cv_json_error *error)
{
	json_error_t je;

	return loaded(json_loads(s, flags, &je), &je, error);
}

char *
cv_json_dumps(const struct cv_json *v, size_t flags)
{
	return json_dumps(J(v), flags);
}

struct cv_json *
cv_json_incref(struct cv_json *v)
{
	return V(json_incref(J(v)));
}

void
cv_json_decref(struct cv_json *v)
{
	json_decref(J(v));
}

enum cv_json_type
cv_json_typeof(const struct cv_json *v)
{
	switch (json_typeof(J(v))) {
	case JSON_OBJECT:
		return CV_JSON_OBJECT;
	case JSON_ARRAY:
		return CV_JSON_ARRAY;
	case JSON_STRING:
		return CV_JSON_STRING;
	case JSON_INTEGER:
		return CV_JSON_INTEGER;
	case JSON_REAL:
		return CV_JSON_REAL;
	case JSON_TRUE:
		return CV_JSON_TRUE;
	case JSON_FALSE:
		return CV_JSON_FALSE;
	default:
		return CV_JSON_NULL;
	}
}

#define IS(name)                                       \
	int cv_json_is_##name(const struct cv_json *v) \
	{                                              \
		return json_is_##name(J(v));           \
	}
IS(object)
IS(array)
IS(string)
IS(integer)
IS(real)
IS(number)
IS(true)
IS(false)
IS(boolean)
IS(null)
#undef IS

struct cv_json *
cv_json_object_get(const struct cv_json *o, const char *key)
{
	return V(json_object_get(J(o), key));
}

size_t
cv_json_object_size(const struct cv_json *o)
{
	return json_object_size(J(o));
}

size_t
cv_json_array_size(const struct cv_json *a)
{
	return json_array_size(J(a));
}

struct cv_json *
cv_json_array_get(const struct cv_json *a, size_t i)
{
	return V(json_array_get(J(a), i));
}

const char *
cv_json_string_value(const struct cv_json *s)
{
	return json_string_value(J(s));
}

size_t
cv_json_string_length(const struct cv_json *s)
{
	return json_string_length(J(s));
}

int64_t
cv_json_integer_value(const struct cv_json *i)
{
	return json_integer_value(J(i));
}

double
cv_json_real_value(const struct cv_json *r)
{
	return json_real_value(J(r));
}

double
cv_json_number_value(const struct cv_json *n)
{
	return json_number_value(J(n));
}

void *
cv_json_object_iter(struct cv_json *o)
{
	return json_object_iter(J(o));
}

void *
cv_json_object_iter_next(struct cv_json *o, void *iter)
{
	return json_object_iter_next(J(o), iter);
}

const char *
cv_json_object_iter_key(void *iter)
{
	return json_object_iter_key(iter);
}

struct cv_json *
cv_json_object_iter_value(void *iter)
{
	return V(json_object_iter_value(iter));
}

void *
cv_json_object_key_to_iter(const char *key)
{
	return json_object_key_to_iter(key);
}

struct cv_json *
cv_json_object(void)
{
	return V(json_object());
}

struct cv_json *
cv_json_array(void)
{
	return V(json_array());
}

struct cv_json *
cv_json_string(const char *s)
{
	return V(json_string(s));
}

struct cv_json *
cv_json_stringn(const char *s, size_t len)
{
	return V(json_stringn(s, len));
}

struct cv_json *
cv_json_integer(int64_t i)
{
	return V(json_integer(i));
}

struct cv_json *
cv_json_real(double d)
{
	return V(json_real(d));
}

struct cv_json *
cv_json_true(void)
{
	return V(json_true());
}

struct cv_json *
cv_json_false(void)
{
	return V(json_false());
}

struct cv_json *
cv_json_boolean(int b)
{
	return V(json_boolean(b));
}

struct cv_json *
cv_json_null(void)
{
	return V(json_null());
}

int
cv_json_object_set_new(struct cv_json *o, const char *key,
		       struct cv_json *value)
{
	return json_object_set_new(J(o), key, J(value));
}

int
cv_json_object_set(struct cv_json *o, const char *key, struct cv_json *value)
{
	return json_object_set(J(o), key, J(value));
}

int
cv_json_object_del(struct cv_json *o, const char *key)
{
	return json_object_del(J(o), key);
}

int
cv_json_object_update_new(struct cv_json *o, struct cv_json *other)
{
	return json_object_update_new(J(o), J(other));
}

int
cv_json_array_append_new(struct cv_json *a, struct cv_json *value)
{
	return json_array_append_new(J(a), J(value));
}

int
cv_json_array_append(struct cv_json *a, struct cv_json *value)
{
	return json_array_append(J(a), J(value));
}

const char *
cv_json_library(void)
{
	return "jansson/" JANSSON_VERSION;
}
