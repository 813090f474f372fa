/* json_jsmn.c: the JSON face for Windows, where Debian builds no jansson:
 * jsmn (Debian's header-only libjsmn-dev) cuts the text into tokens, and
 * this file checks them against JSON's grammar, builds the tree and writes
 * it back. What it accepts, refuses and prints is jansson's, for the flags
 * of base.h: tests/unit/test_json.c runs the same vectors over both, and
 * tests/fuzz/fuzz_json.c holds them to the same answers. */
#ifndef __USE_MINGW_ANSI_STDIO
#define __USE_MINGW_ANSI_STDIO 1 /* C99 printf and strtod under mingw */
#endif
#include "base/base_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#define JSMN_PARENT_LINKS
#include <jsmn.h>

/* jansson's JSON_PARSER_MAX_DEPTH: deeper nesting is refused */
#define MAX_DEPTH 2048

/* a member of an object; its key is what an iterator is reached by */
struct member {
	struct cv_json *value;
	size_t index; /* its place in the object */
	size_t klen;
	char key[];
};

struct cv_json {
	enum cv_json_type type;
	size_t refs;
	union {
		struct {
			struct member **m;
			size_t n, cap;
		} obj;
		struct {
			struct cv_json **v;
			size_t n, cap;
		} arr;
		struct {
			char *s;
			size_t len;
		} str;
		int64_t i;
		double d;
	} u;
};

static struct cv_json json_true_v = { CV_JSON_TRUE, SIZE_MAX, { { 0 } } };
static struct cv_json json_false_v = { CV_JSON_FALSE, SIZE_MAX, { { 0 } } };
static struct cv_json json_null_v = { CV_JSON_NULL, SIZE_MAX, { { 0 } } };

static struct cv_json *
json_new(enum cv_json_type type)
{
	struct cv_json *v = xcalloc(1, sizeof *v);

	v->type = type;
	v->refs = 1;
	return v;
}

/* true, false and null: one of each, never counted nor freed */
static int
singleton(const struct cv_json *v)
{
	return v == &json_true_v || v == &json_false_v || v == &json_null_v;
}

struct cv_json *
cv_json_incref(struct cv_json *v)
{
	if (v != NULL && !singleton(v))
		v->refs++;
	return v;
}

void
cv_json_decref(struct cv_json *v)
{
	size_t i;

	if (v == NULL || singleton(v) || --v->refs > 0)
		return;
	switch (v->type) {
	case CV_JSON_OBJECT:
		for (i = 0; i < v->u.obj.n; i++) {
			cv_json_decref(v->u.obj.m[i]->value);
			free(v->u.obj.m[i]);
		}
		free(v->u.obj.m);
		break;
	case CV_JSON_ARRAY:
		for (i = 0; i < v->u.arr.n; i++)
			cv_json_decref(v->u.arr.v[i]);
		free(v->u.arr.v);
		break;
	case CV_JSON_STRING:
		free(v->u.str.s);
		break;
	default:
		break;
	}
	free(v);
}

/* ---- values ------------------------------------------------------------ */

enum cv_json_type
cv_json_typeof(const struct cv_json *v)
{
	return v->type;
}

#define IS(name, test)                                 \
	int cv_json_is_##name(const struct cv_json *v) \
	{                                              \
		return v != NULL && (test);            \
	}
IS(object, v->type == CV_JSON_OBJECT)
IS(array, v->type == CV_JSON_ARRAY)
IS(string, v->type == CV_JSON_STRING)
IS(integer, v->type == CV_JSON_INTEGER)
IS(real, v->type == CV_JSON_REAL)
IS(number, v->type == CV_JSON_INTEGER || v->type == CV_JSON_REAL)
IS(true, v->type == CV_JSON_TRUE)
IS(false, v->type == CV_JSON_FALSE)
IS(boolean, v->type == CV_JSON_TRUE || v->type == CV_JSON_FALSE)
IS(null, v->type == CV_JSON_NULL)
#undef IS

static struct member *
member_find(const struct cv_json *o, const char *key, size_t len)
{
	for (size_t i = 0; i < o->u.obj.n; i++) {
		struct member *m = o->u.obj.m[i];

		if (m->klen == len && memcmp(m->key, key, len) == 0)
			return m;
	}
	return NULL;
}

struct cv_json *
cv_json_object_get(const struct cv_json *o, const char *key)
{
	struct member *m;

	if (!cv_json_is_object(o) || key == NULL)
		return NULL;
	m = member_find(o, key, strlen(key));
	return m != NULL ? m->value : NULL;
}

size_t
cv_json_object_size(const struct cv_json *o)
{
	return cv_json_is_object(o) ? o->u.obj.n : 0;
}

size_t
cv_json_array_size(const struct cv_json *a)
{
	return cv_json_is_array(a) ? a->u.arr.n : 0;
}

struct cv_json *
cv_json_array_get(const struct cv_json *a, size_t i)
{
	return cv_json_is_array(a) && i < a->u.arr.n ? a->u.arr.v[i] : NULL;
}

const char *
cv_json_string_value(const struct cv_json *s)
{
	return cv_json_is_string(s) ? s->u.str.s : NULL;
}

size_t
cv_json_string_length(const struct cv_json *s)
{
	return cv_json_is_string(s) ? s->u.str.len : 0;
}

int64_t
cv_json_integer_value(const struct cv_json *i)
{
	return cv_json_is_integer(i) ? i->u.i : 0;
}

double
cv_json_real_value(const struct cv_json *r)
{
	return cv_json_is_real(r) ? r->u.d : 0.0;
}

double
cv_json_number_value(const struct cv_json *n)
{
	if (cv_json_is_integer(n))
		return (double)n->u.i;
	return cv_json_real_value(n);
}

void *
cv_json_object_iter(struct cv_json *o)
{
	return cv_json_object_size(o) > 0 ? o->u.obj.m[0] : NULL;
}

void *
cv_json_object_iter_next(struct cv_json *o, void *iter)
{
	struct member *m = iter;

	if (m == NULL || !cv_json_is_object(o) || m->index + 1 >= o->u.obj.n)
		return NULL;
	return o->u.obj.m[m->index + 1];
}

const char *
cv_json_object_iter_key(void *iter)
{
	return iter != NULL ? ((struct member *)iter)->key : NULL;
}

struct cv_json *
cv_json_object_iter_value(void *iter)
{
	return iter != NULL ? ((struct member *)iter)->value : NULL;
}

void *
cv_json_object_key_to_iter(const char *key)
{
	return key != NULL ? (void *)(key - offsetof(struct member, key))
			   : NULL;
}

/* ---- builders ---------------------------------------------------------- */

/* 1 when the len bytes at s are UTF-8 (NUL allowed) */
static int
utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		unsigned char tail[5] = { 0 };

		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if (len - i >= 4) {
			n = cv_utf8_seq(p + i);
		} else {
			memcpy(tail, p + i, len - i);
			n = cv_utf8_seq(tail);
		}
		if (n == 0 || n > len - i)
			return 0;
		i += n;
	}
	return 1;
}

struct cv_json *
cv_json_object(void)
{
	return json_new(CV_JSON_OBJECT);
}

struct cv_json *
cv_json_array(void)
{
	return json_new(CV_JSON_ARRAY);
}

/* a string of the len bytes at s, which the caller checked */
static struct cv_json *
string_own(char *s, size_t len)
{
	struct cv_json *v = json_new(CV_JSON_STRING);

	v->u.str.s = s;
	v->u.str.len = len;
	return v;
}

struct cv_json *
cv_json_stringn(const char *s, size_t len)
{
	char *copy;

	if (s == NULL || !utf8_valid(s, len))
		return NULL;
	copy = xmalloc(len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	return string_own(copy, len);
}

struct cv_json *
cv_json_string(const char *s)
{
	return s != NULL ? cv_json_stringn(s, strlen(s)) : NULL;
}

struct cv_json *
cv_json_integer(int64_t i)
{
	struct cv_json *v = json_new(CV_JSON_INTEGER);

	v->u.i = i;
	return v;
}

struct cv_json *
cv_json_real(double d)
{
	struct cv_json *v;

	if (isnan(d) || isinf(d))
		return NULL;
	v = json_new(CV_JSON_REAL);
	v->u.d = d;
	return v;
}

struct cv_json *
cv_json_true(void)
{
	return &json_true_v;
}

struct cv_json *
cv_json_false(void)
{
	return &json_false_v;
}

struct cv_json *
cv_json_boolean(int b)
{
	return b ? &json_true_v : &json_false_v;
}

struct cv_json *
cv_json_null(void)
{
	return &json_null_v;
}

/* set key (len bytes, checked) to value, whose reference is taken */
static void
object_put(struct cv_json *o, const char *key, size_t len,
	   struct cv_json *value)
{
	struct member *m = member_find(o, key, len);

	if (m != NULL) {
		cv_json_decref(m->value);
		m->value = value;
		return;
	}
	if (o->u.obj.n == o->u.obj.cap) {
		o->u.obj.cap = o->u.obj.cap ? 2 * o->u.obj.cap : 4;
		o->u.obj.m = xrealloc(o->u.obj.m,
				      o->u.obj.cap * sizeof(struct member *));
	}
	m = xmalloc(sizeof *m + len + 1);
	memcpy(m->key, key, len);
	m->key[len] = '\0';
	m->klen = len;
	m->value = value;
	m->index = o->u.obj.n;
	o->u.obj.m[o->u.obj.n++] = m;
}

int
cv_json_object_set_new(struct cv_json *o, const char *key,
		       struct cv_json *value)
{
	if (value == NULL)
		return -1;
	if (!cv_json_is_object(o) || key == NULL || o == value ||
	    !utf8_valid(key, strlen(key))) {
		cv_json_decref(value);
		return -1;
	}
	object_put(o, key, strlen(key), value);
	return 0;
}

int
cv_json_object_set(struct cv_json *o, const char *key, struct cv_json *value)
{
	return cv_json_object_set_new(o, key, cv_json_incref(value));
}

int
cv_json_object_del(struct cv_json *o, const char *key)
{
	struct member *m;
	size_t i;

	if (!cv_json_is_object(o) || key == NULL ||
	    (m = member_find(o, key, strlen(key))) == NULL)
		return -1;
	for (i = m->index; i + 1 < o->u.obj.n; i++) {
		o->u.obj.m[i] = o->u.obj.m[i + 1];
		o->u.obj.m[i]->index = i;
	}
	o->u.obj.n--;
	cv_json_decref(m->value);
	free(m);
	return 0;
}

int
cv_json_object_update_new(struct cv_json *o, struct cv_json *other)
{
	int r = -1;

	if (cv_json_is_object(o) && cv_json_is_object(other)) {
		for (size_t i = 0; i < other->u.obj.n; i++)
			cv_json_object_set(o, other->u.obj.m[i]->key,
					   other->u.obj.m[i]->value);
		r = 0;
	}
	cv_json_decref(other);
	return r;
}

int
cv_json_array_append_new(struct cv_json *a, struct cv_json *value)
{
	if (value == NULL)
		return -1;
	if (!cv_json_is_array(a) || a == value) {
		cv_json_decref(value);
		return -1;
	}
	if (a->u.arr.n == a->u.arr.cap) {
		a->u.arr.cap = a->u.arr.cap ? 2 * a->u.arr.cap : 4;
		a->u.arr.v = xrealloc(a->u.arr.v,
				      a->u.arr.cap * sizeof(struct cv_json *));
	}
	a->u.arr.v[a->u.arr.n++] = value;
	return 0;
}

int
cv_json_array_append(struct cv_json *a, struct cv_json *value)
{
	return cv_json_array_append_new(a, cv_json_incref(value));
}

const char *
cv_json_library(void)
{
	return "jsmn/1.1.0";
}

/* ---- parsing ----------------------------------------------------------- */

/* a walk over jsmn's tokens: each is checked where the grammar wants it,
 * and the text between two (pos up to the next) may hold only blanks and
 * the one separator that belongs there */
struct rd {
	const char *js;
	size_t len, flags, pos;
	jsmntok_t *t;
	int ntok, next, depth;
	struct cv_json_error *error;
	int failed;
};

/* jansson's report: line and column (characters) of the byte at off,
 * position just after it */
static void fail_at(struct rd *r, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
fail_at(struct rd *r, size_t off, const char *fmt, ...)
{
	va_list ap;

	if (r->failed)
		return;
	r->failed = 1;
	if (r->error == NULL)
		return;
	cv_json_error_at(r->error, r->js, r->len, off);
	va_start(ap, fmt);
	vsnprintf(r->error->text, sizeof r->error->text, fmt, ap);
	va_end(ap);
}

static int
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* the first byte at or after off that is not a blank */
static size_t
skip_blanks(const struct rd *r, size_t off)
{
	while (off < r->len && is_blank(r->js[off]))
		off++;
	return off;
}

/* what a message calls the text at off: 'c' or end of file */
static void
fail_near(struct rd *r, size_t off, const char *what)
{
	if (off >= r->len)
		fail_at(r, off, "%s near end of file", what);
	else
		fail_at(r, off, "%s near '%c'", what, r->js[off]);
}

/* the gap from r->pos to end: blanks, and sep exactly once (0: none) */
static int
gap(struct rd *r, size_t end, char sep, const char *what)
{
	int seen = 0;

	if (r->pos > end) {
		fail_near(r, end, what);
		return -1;
	}
	for (; r->pos < end; r->pos++) {
		char c = r->js[r->pos];

		if (is_blank(c))
			continue;
		if (sep != 0 && c == sep && !seen) {
			seen = 1;
			continue;
		}
		fail_near(r, r->pos, what);
		return -1;
	}
	if (sep != 0 && !seen) {
		fail_near(r, end, what);
		return -1;
	}
	return 0;
}

/* where a token's text begins (a string's opening quote) */
static size_t
tok_begin(const jsmntok_t *t)
{
	return (size_t)t->start - (t->type == JSMN_STRING);
}

static int
hex4(const char *s, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t
utf8_put(char *d, unsigned cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | (cp >> 6));
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (char)(0xe0 | (cp >> 12));
		d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		d[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (char)(0xf0 | (cp >> 18));
	d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	d[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* one \uXXXX (a pair for a surrogate) at s[*i] just past the 'u': the
 * code point, or -1 refused */
static long
unescape_u(struct rd *r, const char *s, size_t n, size_t *i, size_t at)
{
	unsigned hi, lo;

	/* jansson reports a bad escape once the string is read */
	at = (size_t)(s - r->js) + n;
	if (*i + 4 > n || hex4(s + *i, &hi) < 0) {
		fail_at(r, at, "invalid escape");
		return -1;
	}
	*i += 4;
	if (hi >= 0xdc00 && hi <= 0xdfff) {
		fail_at(r, at, "invalid Unicode '\\u%04X'", hi);
		return -1;
	}
	if (hi < 0xd800 || hi > 0xdbff)
		return (long)hi;
	if (*i + 6 > n || s[*i] != '\\' || s[*i + 1] != 'u') {
		fail_at(r, at, "invalid Unicode '\\u%04X'", hi);
		return -1;
	}
	if (hex4(s + *i + 2, &lo) < 0) {
		fail_at(r, at, "invalid escape");
		return -1;
	}
	if (lo < 0xdc00 || lo > 0xdfff) {
		fail_at(r, at, "invalid Unicode '\\u%04X\\u%04X'", hi, lo);
		return -1;
	}
	*i += 6;
	return 0x10000 + (((long)hi - 0xd800) << 10) + ((long)lo - 0xdc00);
}

/* the string token t unescaped into *out (xmalloc'd, NUL-terminated) */
static int
string_tok(struct rd *r, const jsmntok_t *t, char **out, size_t *outlen)
{
	const char *s = r->js + t->start;
	size_t n = (size_t)(t->end - t->start), i = 0, o = 0, k;
	char *d = xmalloc(n + 1);
	long cp;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t at = (size_t)t->start + i;

		if (c < 0x20) {
			fail_at(r, at, "control character 0x%x", c);
			goto bad;
		}
		if (c >= 0x80) {
			k = cv_utf8_seq((const unsigned char *)s + i);
			if (k == 0 || k > n - i) {
				fail_at(r, at, "unable to decode byte 0x%x", c);
				goto bad;
			}
			memcpy(d + o, s + i, k);
			o += k;
			i += k;
			continue;
		}
		if (c != '\\') {
			d[o++] = (char)c;
			i++;
			continue;
		}
		if (i + 1 >= n) {
			fail_at(r, at, "invalid escape");
			goto bad;
		}
		i += 2;
		switch (s[i - 1]) {
		case '"':
		case '\\':
		case '/':
			d[o++] = s[i - 1];
			break;
		case 'b':
			d[o++] = '\b';
			break;
		case 'f':
			d[o++] = '\f';
			break;
		case 'n':
			d[o++] = '\n';
			break;
		case 'r':
			d[o++] = '\r';
			break;
		case 't':
			d[o++] = '\t';
			break;
		case 'u':
			cp = unescape_u(r, s, n, &i, at);
			if (cp < 0)
				goto bad;
			if (cp == 0 && !(r->flags & CV_JSON_ALLOW_NUL)) {
				fail_at(r, at,
					"\\u0000 is not allowed without "
					"JSON_ALLOW_NUL");
				goto bad;
			}
			/* never longer than the escape it stands for */
			o += utf8_put(d + o, (unsigned)cp);
			break;
		default:
			fail_at(r, at, "invalid escape");
			goto bad;
		}
	}
	d[o] = '\0';
	*out = d;
	*outlen = o;
	return 0;
bad:
	free(d);
	return -1;
}

/* a primitive token: true, false, null or a number as jansson reads it */
static struct cv_json *
primitive_tok(struct rd *r, const jsmntok_t *t)
{
	const char *s = r->js + t->start;
	size_t n = (size_t)(t->end - t->start), i = 0;
	int real = 0;
	char small[64], *z;
	struct cv_json *v = NULL;

	if (n == 4 && memcmp(s, "true", 4) == 0)
		return cv_json_true();
	if (n == 5 && memcmp(s, "false", 5) == 0)
		return cv_json_false();
	if (n == 4 && memcmp(s, "null", 4) == 0)
		return cv_json_null();
		/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
#define DIGIT(k) ((k) < n && s[k] >= '0' && s[k] <= '9')
	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0')
		i++;
	else if (DIGIT(i))
		while (DIGIT(i))
			i++;
	else
		goto invalid;
	if (i < n && s[i] == '.') {
		real = 1;
		i++;
		if (!DIGIT(i))
			goto invalid;
		while (DIGIT(i))
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		real = 1;
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (!DIGIT(i))
			goto invalid;
		while (DIGIT(i))
			i++;
	}
#undef DIGIT
	if (i != n)
		goto invalid;
	z = n < sizeof small ? small : xmalloc(n + 1);
	memcpy(z, s, n);
	z[n] = '\0';
	errno = 0;
	if (!real) {
		long long ll = strtoll(z, NULL, 10);

		if (errno == ERANGE)
			fail_at(r, (size_t)t->end - 1,
				"too big %sinteger near '%s'",
				ll < 0 ? "negative " : "", z);
		else
			v = cv_json_integer((int64_t)ll);
	} else {
		double d = strtod(z, NULL);

		if ((d == HUGE_VAL || d == -HUGE_VAL) && errno == ERANGE)
			fail_at(r, (size_t)t->end - 1,
				"real number overflow near '%s'", z);
		else
			v = cv_json_real(d);
	}
	if (z != small)
		free(z);
	return v;
invalid:
	fail_at(r, (size_t)t->start + i, "invalid token near '%.*s'",
		(int)(n < 40 ? n : 40), s);
	return NULL;
}

static struct cv_json *parse_value(struct rd *r);

/* the token next in line, there and beginning at or after r->pos */
static const jsmntok_t *
next_tok(struct rd *r, const char *what)
{
	const jsmntok_t *t;

	if (r->next >= r->ntok) {
		fail_near(r, r->pos, what);
		return NULL;
	}
	t = &r->t[r->next];
	if (t->start < 0 || tok_begin(t) < r->pos) {
		fail_near(r, r->pos, what);
		return NULL;
	}
	return t;
}

/* the members of the object token c, r->next past it */
static int
parse_members(struct rd *r, const jsmntok_t *c, struct cv_json *o)
{
	for (int k = 0; k < c->size; k++) {
		const jsmntok_t *kt = next_tok(r, "string or '}' expected");
		struct cv_json *v;
		char *key;
		size_t klen;

		if (kt == NULL || gap(r, tok_begin(kt), k ? ',' : 0,
				      "string or '}' expected") < 0)
			return -1;
		if (kt->type != JSMN_STRING) {
			fail_near(r, tok_begin(kt), "string or '}' expected");
			return -1;
		}
		if (kt->size != 1) {
			fail_near(r, skip_blanks(r, (size_t)kt->end + 1),
				  "':' expected");
			return -1;
		}
		r->next++;
		if (string_tok(r, kt, &key, &klen) < 0)
			return -1;
		if (memchr(key, '\0', klen) != NULL) {
			fail_at(r, (size_t)kt->end,
				"NUL byte in object key not supported");
			free(key);
			return -1;
		}
		if ((r->flags & CV_JSON_REJECT_DUPLICATES) &&
		    member_find(o, key, klen) != NULL) {
			fail_at(r, (size_t)kt->end,
				"duplicate object key near '\"%s\"'", key);
			free(key);
			return -1;
		}
		r->pos = (size_t)kt->end + 1;
		v = NULL;
		if (next_tok(r, "':' expected") != NULL &&
		    gap(r, tok_begin(&r->t[r->next]), ':', "':' expected") == 0)
			v = parse_value(r);
		if (v == NULL) {
			free(key);
			return -1;
		}
		object_put(o, key, klen, v);
		free(key);
	}
	return 0;
}

static int
parse_elements(struct rd *r, const jsmntok_t *c, struct cv_json *a)
{
	for (int k = 0; k < c->size; k++) {
		const jsmntok_t *t = next_tok(r, "unexpected token");
		struct cv_json *v;

		if (t == NULL ||
		    gap(r, tok_begin(t), k ? ',' : 0, "']' expected") < 0 ||
		    (v = parse_value(r)) == NULL)
			return -1;
		cv_json_array_append_new(a, v);
	}
	return 0;
}

/* the blanks before container t's closing bracket; a comma there is
 * refused where jansson refuses it, at the bracket it found next */
static int
close_gap(struct rd *r, const jsmntok_t *t, int object)
{
	size_t end = (size_t)t->end - 1, at = skip_blanks(r, r->pos);

	if (at < end && r->js[at] == ',' && skip_blanks(r, at + 1) == end &&
	    t->size > 0) {
		fail_near(r, end,
			  object ? "string or '}' expected"
				 : "unexpected token");
		return -1;
	}
	return gap(r, end, 0, object ? "'}' expected" : "']' expected");
}

/* the value at token r->next, which begins at r->pos (blanks before) */
static struct cv_json *
parse_value(struct rd *r)
{
	const jsmntok_t *t = &r->t[r->next++];
	struct cv_json *v;
	char *s;
	size_t n;
	int object = t->type == JSMN_OBJECT;

	r->pos = tok_begin(t);
	switch (t->type) {
	case JSMN_OBJECT:
	case JSMN_ARRAY:
		if (++r->depth > MAX_DEPTH) {
			fail_at(r, r->pos, "maximum parsing depth reached");
			return NULL;
		}
		v = object ? cv_json_object() : cv_json_array();
		r->pos++;
		if ((object ? parse_members(r, t, v)
			    : parse_elements(r, t, v)) < 0 ||
		    close_gap(r, t, object) < 0) {
			cv_json_decref(v);
			return NULL;
		}
		r->depth--;
		r->pos = (size_t)t->end;
		return v;
	case JSMN_STRING:
		if (t->size != 0) {
			fail_near(r, skip_blanks(r, (size_t)t->end + 1),
				  "']' expected");
			return NULL;
		}
		if (string_tok(r, t, &s, &n) < 0)
			return NULL;
		r->pos = (size_t)t->end + 1;
		return string_own(s, n);
	case JSMN_PRIMITIVE:
		if (t->size != 0) {
			fail_near(r, skip_blanks(r, (size_t)t->end),
				  "']' expected");
			return NULL;
		}
		r->pos = (size_t)t->end;
		return primitive_tok(r, t);
	default:
		fail_near(r, r->pos, "unexpected token");
		return NULL;
	}
}

/* jsmn's own refusal, at the place it stopped */
static void
fail_jsmn(struct rd *r, int code, size_t at)
{
	if (code == JSMN_ERROR_PART)
		fail_at(r, r->len, "premature end of input near end of file");
	else if (at < r->len)
		fail_near(r, at, "invalid token");
	else
		fail_at(r, r->len, "unexpected token near end of file");
}

static struct cv_json *
parse(struct rd *r)
{
	jsmn_parser p;
	const char *nul = memchr(r->js, '\0', r->len);
	struct cv_json *v;
	int n;

	if (nul != NULL) {
		fail_at(r, (size_t)(nul - r->js), "NUL byte in input");
		return NULL;
	}
	if (r->len > INT_MAX / 2) {
		fail_at(r, 0, "input too big");
		return NULL;
	}
	jsmn_init(&p);
	n = jsmn_parse(&p, r->js, r->len, NULL, 0);
	if (n < 0) {
		fail_jsmn(r, n, p.pos);
		return NULL;
	}
	r->t = xmalloc(((size_t)n + 1) * sizeof *r->t);
	jsmn_init(&p);
	r->ntok = jsmn_parse(&p, r->js, r->len, r->t, (unsigned)n + 1);
	if (r->ntok < 0) {
		fail_jsmn(r, r->ntok, p.pos);
		return NULL;
	}
	if (r->ntok == 0) {
		fail_at(r, r->len, "%s near end of file",
			r->flags & CV_JSON_DECODE_ANY ? "unexpected token"
						      : "'[' or '{' expected");
		return NULL;
	}
	if (!(r->flags & CV_JSON_DECODE_ANY) && r->t[0].type != JSMN_OBJECT &&
	    r->t[0].type != JSMN_ARRAY) {
		fail_near(r, tok_begin(&r->t[0]), "'[' or '{' expected");
		return NULL;
	}
	if (gap(r, tok_begin(&r->t[0]), 0, "unexpected token") < 0 ||
	    (v = parse_value(r)) == NULL)
		return NULL;
	if (r->next < r->ntok) {
		/* the text after the value: blanks up to the next token */
		if (gap(r, tok_begin(&r->t[r->next]), 0,
			"end of file expected") == 0)
			fail_near(r, r->pos, "end of file expected");
		cv_json_decref(v);
		return NULL;
	}
	if (gap(r, r->len, 0, "end of file expected") < 0) {
		cv_json_decref(v);
		return NULL;
	}
	return v;
}

struct cv_json *
cv_json_loadb(const char *buf, size_t len, size_t flags,
	      struct cv_json_error *error)
{
	struct rd r = { 0 };
	struct cv_json *v;

	if (error != NULL) {
		memset(error, 0, sizeof *error);
		error->line = error->column = -1;
		snprintf(error->source, sizeof error->source, "<buffer>");
	}
	if (buf == NULL) {
		if (error != NULL)
			snprintf(error->text, sizeof error->text,
				 "wrong arguments");
		return NULL;
	}
	r.js = buf;
	r.len = len;
	r.flags = flags;
	r.error = error;
	v = parse(&r);
	free(r.t);
	if (v != NULL && error != NULL)
		error->text[0] = '\0';
	return v;
}

struct cv_json *
cv_json_loads(const char *s, size_t flags, struct cv_json_error *error)
{
	struct cv_json *v =
		cv_json_loadb(s, s != NULL ? strlen(s) : 0, flags, error);

	if (v == NULL && error != NULL && s != NULL)
		snprintf(error->source, sizeof error->source, "<string>");
	return v;
}

/* ---- writing: jansson's dump.c, byte for byte -------------------------- */

static void
dump_string(struct cv_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, run = 0;

	cv_buf_add(b, "\"", 1);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[7] = { '\\', 0 };
		size_t n = 2;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		cv_buf_add(b, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"':
		case '\\':
			esc[1] = (char)c;
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		default:
			esc[1] = 'u';
			esc[2] = esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			n = 6;
			break;
		}
		cv_buf_add(b, esc, n);
	}
	cv_buf_add(b, s + run, len - run);
	cv_buf_add(b, "\"", 1);
}

/* jsonp_dtostr: %.17g, a ".0" where it would read as an integer, the
 * exponent without its '+' and leading zeros */
static void
dump_real(struct cv_buf *b, double d)
{
	char s[64], *e, *from;
	size_t len;

	len = (size_t)snprintf(s, sizeof s, "%.17g", d);
	if (strchr(s, '.') == NULL && strchr(s, 'e') == NULL) {
		memcpy(s + len, ".0", 3);
		len += 2;
	}
	e = strchr(s, 'e');
	if (e != NULL) {
		e++;
		if (*e == '-')
			e++;
		for (from = e; *from == '+' || *from == '0'; from++)
			;
		/* keep one digit of an exponent that is all zeros */
		if (*from == '\0' && from > e)
			from--;
		memmove(e, from, strlen(from) + 1);
		len = strlen(s);
	}
	cv_buf_add(b, s, len);
}

static void
dump_indent(struct cv_buf *b, size_t flags, int depth, int space)
{
	size_t n = CV_JSON_INDENT(flags) * (size_t)depth;

	if (CV_JSON_INDENT(flags) > 0) {
		cv_buf_add(b, "\n", 1);
		while (n-- > 0)
			cv_buf_add(b, " ", 1);
	} else if (space && !(flags & CV_JSON_COMPACT)) {
		cv_buf_add(b, " ", 1);
	}
}

static int
key_order(const void *a, const void *b)
{
	const struct member *x = *(struct member *const *)a;
	const struct member *y = *(struct member *const *)b;

	return strcmp(x->key, y->key);
}

static void dump_value(struct cv_buf *b, const struct cv_json *v, size_t flags,
		       int depth);

static void
dump_container(struct cv_buf *b, const struct cv_json *v, size_t flags,
	       int depth)
{
	int object = v->type == CV_JSON_OBJECT;
	size_t n = object ? v->u.obj.n : v->u.arr.n, i;
	struct member **m = NULL;

	cv_buf_add(b, object ? "{" : "[", 1);
	if (n == 0) {
		cv_buf_add(b, object ? "}" : "]", 1);
		return;
	}
	if (object) {
		m = xmalloc(n * sizeof(struct member *));
		memcpy(m, v->u.obj.m, n * sizeof(struct member *));
		if (flags & CV_JSON_SORT_KEYS)
			qsort(m, n, sizeof(struct member *), key_order);
	}
	dump_indent(b, flags, depth + 1, 0);
	for (i = 0; i < n; i++) {
		if (object) {
			dump_string(b, m[i]->key, strlen(m[i]->key));
			cv_buf_adds(b, flags & CV_JSON_COMPACT ? ":" : ": ");
		}
		dump_value(b, object ? m[i]->value : v->u.arr.v[i], flags,
			   depth + 1);
		if (i + 1 < n) {
			cv_buf_add(b, ",", 1);
			dump_indent(b, flags, depth + 1, 1);
		} else {
			dump_indent(b, flags, depth, 0);
		}
	}
	free(m);
	cv_buf_add(b, object ? "}" : "]", 1);
}

static void
dump_value(struct cv_buf *b, const struct cv_json *v, size_t flags, int depth)
{
	switch (v->type) {
	case CV_JSON_OBJECT:
	case CV_JSON_ARRAY:
		dump_container(b, v, flags, depth);
		break;
	case CV_JSON_STRING:
		dump_string(b, v->u.str.s, v->u.str.len);
		break;
	case CV_JSON_INTEGER:
		cv_buf_addf(b, "%" PRId64, v->u.i);
		break;
	case CV_JSON_REAL:
		dump_real(b, v->u.d);
		break;
	case CV_JSON_TRUE:
		cv_buf_adds(b, "true");
		break;
	case CV_JSON_FALSE:
		cv_buf_adds(b, "false");
		break;
	case CV_JSON_NULL:
		cv_buf_adds(b, "null");
		break;
	}
}

char *
cv_json_dumps(const struct cv_json *v, size_t flags)
{
	struct cv_buf b = CV_BUF_INIT;

	if (!cv_json_is_object(v) && !cv_json_is_array(v))
		return NULL;
	dump_value(&b, v, flags, 0);
	return cv_buf_detach(&b);
}
