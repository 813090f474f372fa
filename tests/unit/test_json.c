/* test_json.c: base's JSON face, one set of vectors for both backends:
 * build/tests/unit/test_json links jansson's, test_json_jsmn jsmn's (and
 * make windows-json runs the latter cross-built, under wine). The
 * expected bytes are jansson's (2.14) for each input and flag. */
#include "base/base.h"
#include "tap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <unistd.h>
#endif

#define RD  CV_JSON_REJECT_DUPLICATES
#define ANY CV_JSON_DECODE_ANY
#define NUL CV_JSON_ALLOW_NUL
#define C   CV_JSON_COMPACT
#define I2  CV_JSON_INDENT(2)
#define SK  CV_JSON_SORT_KEYS

/* accepted: the document and how it dumps */
static const struct {
	const char *in;
	size_t pflags, dflags;
	const char *out;
} accept[] = {
	{ "{}", 0, 0, "{}" },
	{ " [ ] ", 0, I2, "[]" },
	{ "{\"a\":1,\"b\":2,\"a\":3}", 0, 0, "{\"a\": 3, \"b\": 2}" },
	{ "{\"b\":1,\"a\":{\"d\":[],\"c\":{}}}", 0, C | SK,
	  "{\"a\":{\"c\":{},\"d\":[]},\"b\":1}" },
	{ "{\"a\":[1,{\"b\":[]},{}],\"c\":{}}", 0, I2,
	  "{\n  \"a\": [\n    1,\n    {\n      \"b\": []\n    },\n    {}\n  ],\n"
	  "  \"c\": {}\n}" },
	{ "{\"a\":[1,{\"b\":[]},{}],\"c\":{}}", 0, 0,
	  "{\"a\": [1, {\"b\": []}, {}], \"c\": {}}" },
	{ "{\"a\":[1,{\"b\":[]},{}],\"c\":{}}", 0, I2 | C,
	  "{\n  \"a\":[\n    1,\n    {\n      \"b\":[]\n    },\n    {}\n  ],\n"
	  "  \"c\":{}\n}" },
	{ "{\"z\":1,\"y\":[true,false,null]}", 0, I2 | SK,
	  "{\n  \"y\": [\n    true,\n    false,\n    null\n  ],\n  \"z\": 1\n}" },
	{ "[\"\\u001f\\u007f\x7f\\/\\b\\f\\n\\r\\t\\\"\\\\\"]", 0, C,
	  "[\"\\u001F\x7f\x7f/\\b\\f\\n\\r\\t\\\"\\\\\"]" },
	{ "[1.0,-0.0,1e300,1e-400,0.1,100000000000000000000.0,1e22,5e-324,"
	  "123456789012345678,-0,1E+2,2.5e-7]",
	  0, C,
	  "[1.0,-0.0,1.0000000000000001e300,0.0,0.10000000000000001,1e20,1e22,"
	  "4.9406564584124654e-324,123456789012345678,0,100.0,2.4999999999999999e-7]" },
	{ "[9223372036854775807,-9223372036854775808]", 0, C,
	  "[9223372036854775807,-9223372036854775808]" },
	{ "[\"\\u00e9\\u20AC\\ud83d\\ude00\xc3\xa9\xf0\x9f\x98\x80\"]", 0, C,
	  "[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc3\xa9\xf0\x9f\x98\x80\"]" },
	{ "[\"\\u0000x\"]", NUL, C, "[\"\\u0000x\"]" },
	{ "\"x\"", ANY, C, NULL }, /* accepted, but no container to dump */
	{ "  7 ", ANY, C, NULL },
	{ "{\"\":\"\"}\r\n\t", RD, C, "{\"\":\"\"}" },
	{ "[[[[]]]]", 0, I2, "[\n  [\n    [\n      []\n    ]\n  ]\n]" },
};

/* refused: the document, its flags, where (line, position; 0: any) */
static const struct {
	const char *in;
	size_t pflags;
	int line, position;
} reject[] = {
	{ "", 0, 1, 0 },
	{ "  ", 0, 1, 2 },
	{ "  ", ANY, 1, 2 },
	{ "\"x\"", 0, 1, 0 },
	{ "7", 0, 1, 0 },
	{ "{} x", 0, 1, 4 },
	{ "{}{}", 0, 1, 0 },
	{ "{\n\"a\": 1,\n}", 0, 3, 11 },
	{ "[1,]", 0, 1, 4 },
	{ "[1,2", 0, 1, 4 },
	{ "[1 2]", 0, 1, 4 },
	{ "[1,,2]", 0, 1, 4 },
	{ "[,1]", 0, 1, 2 },
	{ "{\"a\" 1}", 0, 1, 6 },
	{ "{\"a\":1,\"b\":2,\"a\":3}", RD, 1, 16 },
	{ "{\"\\u0000\":1}", NUL, 1, 9 },
	{ "[\"\\u0000\"]", 0, 1, 0 },
	{ "[\"\\ud800\"]", 0, 1, 9 },
	{ "[\"\\udc00\"]", 0, 1, 9 },
	{ "[\"\\ud800\\u0041\"]", 0, 1, 0 },
	{ "[\"\\ud800x\"]", 0, 1, 0 },
	{ "[\"\xc3\"]", 0, 1, 0 },
	{ "[\"\xc0\xaf\"]", 0, 1, 0 },
	{ "[\"\xed\xa0\x80\"]", 0, 1, 0 },
	{ "[\"\xf4\x90\x80\x80\"]", 0, 1, 0 },
	{ "[\"a\x01\"]", 0, 1, 0 },
	{ "[\"a\nb\"]", 0, 0, 0 },
	{ "[\"\\x\"]", 0, 1, 0 },
	{ "[\"\\u12\"]", 0, 1, 0 },
	{ "[\"abc", 0, 1, 0 },
	{ "[1e400]", 0, 1, 0 },
	{ "[-1e400]", 0, 1, 0 },
	{ "[9223372036854775808]", 0, 1, 0 },
	{ "[-9223372036854775809]", 0, 1, 0 },
	{ "[01]", 0, 1, 0 },
	{ "[1.]", 0, 1, 0 },
	{ "[.5]", 0, 1, 0 },
	{ "[1e]", 0, 1, 0 },
	{ "[-]", 0, 1, 0 },
	{ "[+1]", 0, 1, 0 },
	{ "[tru]", 0, 1, 0 },
	{ "[truex]", 0, 1, 0 },
	{ "[True]", 0, 1, 0 },
	{ "[nan]", 0, 1, 0 },
	{ "{1:2}", 0, 1, 0 },
	{ "{\"a\":1:2}", 0, 1, 0 },
	{ "[\"a\":1]", 0, 1, 0 },
	{ "{\"a\"}", 0, 1, 0 },
	{ "{\"a\":}", 0, 1, 0 },
	{ "[1]]", 0, 1, 0 },
	{ "[}", 0, 1, 0 },
	{ "\xef\xbb\xbf[]", 0, 1, 0 },
	{ "[\v]", 0, 1, 0 },
	{ "[1\"a\"]", 0, 1, 0 },
	{ "['a']", 0, 1, 0 },
};

static const char *backend;

/* s is want; says what it was when not */
static int
same(const char *s, const char *want)
{
	if (s != NULL && strcmp(s, want) == 0)
		return 1;
	printf("# %s: got %s\n#  want %s\n", backend, s ? s : "(null)", want);
	return 0;
}

static void
test_accept(void)
{
	for (size_t k = 0; k < sizeof accept / sizeof *accept; k++) {
		struct cv_json_error e;
		struct cv_json *v =
			cv_json_loads(accept[k].in, accept[k].pflags, &e);
		char *out = v ? cv_json_dumps(v, accept[k].dflags) : NULL;
		int same = accept[k].out ? out && !strcmp(out, accept[k].out)
					 : out == NULL;

		CHECK(v != NULL && same);
		if (v == NULL || !same)
			printf("# %s: [%s] -> %s (%s)\n", backend, accept[k].in,
			       out ? out : "(null)", v ? "" : e.text);
		free(out);
		cv_json_decref(v);
	}
}

static void
test_reject(void)
{
	for (size_t k = 0; k < sizeof reject / sizeof *reject; k++) {
		struct cv_json_error e;
		struct cv_json *v =
			cv_json_loadb(reject[k].in, strlen(reject[k].in),
				      reject[k].pflags, &e);
		int where = v == NULL &&
			    (!reject[k].line || e.line == reject[k].line) &&
			    (!reject[k].position ||
			     e.position == reject[k].position) &&
			    e.text[0] != '\0';

		CHECK(where);
		if (!where)
			printf("# %s: [%s] %s line %d position %d: %s\n",
			       backend, reject[k].in,
			       v ? "accepted" : "refused", e.line, e.position,
			       e.text);
		cv_json_decref(v);
	}
	/* a NUL inside the buffer, and nesting past jansson's 2048 */
	{
		struct cv_json_error e;
		char deep[2 * 2049 + 1];

		CHECK(cv_json_loadb("[1]\0", 4, 0, &e) == NULL);
		/* jansson alone would skip a NUL after a number or literal
		 * (doc/reliability.md M11) */
		CHECK(cv_json_loadb("[1\0]", 4, 0, &e) == NULL &&
		      e.position == 3 && e.column == 3);
		CHECK(cv_json_loadb("1\0", 2, ANY, &e) == NULL);
		CHECK(cv_json_loadb("{\"b\":true\0}", 10, 0, &e) == NULL);
		CHECK(cv_json_loadb("[\"a\0\"]", 6, 0, &e) == NULL);
		memset(deep, '[', 2048);
		memset(deep + 2048, ']', 2048);
		deep[4096] = '\0';
		struct cv_json *v = cv_json_loads(deep, 0, &e);
		CHECK(v != NULL);
		cv_json_decref(v);
		memset(deep, '[', 2049);
		memset(deep + 2049, ']', 2049);
		deep[4098] = '\0';
		CHECK(cv_json_loads(deep, 0, &e) == NULL);
	}
}

static void
test_values(void)
{
	struct cv_json_error e;
	struct cv_json *o = cv_json_loads(
		"{\"s\":\"h\\u00e9\",\"i\":-42,\"r\":2.5,\"t\":true,\"f\":false,"
		"\"n\":null,\"a\":[1,\"x\"],\"big\":9007199254740993}",
		RD, &e);
	const char *key, *order = "s i r t f n a big ";
	struct cv_json *val, *a;
	char seen[64] = "";
	size_t i;

	CHECK(o != NULL && cv_json_is_object(o));
	CHECK(cv_json_object_size(o) == 8);
	CHECK(!strcmp(cv_json_string_value(cv_json_object_get(o, "s")),
		      "h\xc3\xa9"));
	CHECK(cv_json_string_length(cv_json_object_get(o, "s")) == 3);
	CHECK(cv_json_integer_value(cv_json_object_get(o, "i")) == -42);
	CHECK(cv_json_is_integer(cv_json_object_get(o, "big")) &&
	      cv_json_integer_value(cv_json_object_get(o, "big")) ==
		      INT64_C(9007199254740993));
	CHECK(cv_json_real_value(cv_json_object_get(o, "r")) == 2.5);
	CHECK(cv_json_number_value(cv_json_object_get(o, "i")) == -42.0);
	CHECK(cv_json_is_real(cv_json_object_get(o, "r")) &&
	      !cv_json_is_integer(cv_json_object_get(o, "r")));
	CHECK(cv_json_is_true(cv_json_object_get(o, "t")) &&
	      cv_json_is_boolean(cv_json_object_get(o, "f")) &&
	      cv_json_is_false(cv_json_object_get(o, "f")));
	CHECK(cv_json_is_null(cv_json_object_get(o, "n")));
	CHECK(cv_json_typeof(cv_json_object_get(o, "n")) == CV_JSON_NULL);
	CHECK(cv_json_object_get(o, "missing") == NULL);
	CHECK(cv_json_string_value(cv_json_object_get(o, "i")) == NULL);
	CHECK(cv_json_integer_value(cv_json_object_get(o, "s")) == 0);
	CHECK(cv_json_object_get(NULL, "s") == NULL &&
	      !cv_json_is_object(NULL));
	a = cv_json_object_get(o, "a");
	CHECK(cv_json_array_size(a) == 2 && cv_json_array_get(a, 2) == NULL);
	CHECK(!strcmp(cv_json_string_value(cv_json_array_get(a, 1)), "x"));
	cv_json_object_foreach(o, key, val)
	{
		strcat(seen, key);
		strcat(seen, " ");
	}
	CHECK(!strcmp(seen, order));
	cv_json_array_foreach(a, i, val);
	CHECK(i == 2);
	CHECK(cv_json_object_del(o, "i") == 0 &&
	      cv_json_object_del(o, "i") < 0);
	seen[0] = '\0';
	cv_json_object_foreach(o, key, val)
	{
		strcat(seen, key);
		strcat(seen, " ");
	}
	CHECK(!strcmp(seen, "s r t f n a big "));
	cv_json_decref(o);
}

static void
test_build(void)
{
	struct cv_json *o = cv_json_object(), *a = cv_json_array(), *p, *u;
	char *s;

	CHECK(cv_json_string("\xc3") == NULL);
	CHECK(cv_json_stringn("a\xc3", 2) == NULL);
	CHECK(cv_json_real(NAN) == NULL && cv_json_real(INFINITY) == NULL);
	CHECK(cv_json_object_set_new(o, "s", cv_json_stringn("a\0b", 3)) == 0);
	CHECK(cv_json_object_set_new(o, "i", cv_json_integer(INT64_MIN)) == 0);
	CHECK(cv_json_object_set_new(o, "r", cv_json_real(3.0)) == 0);
	CHECK(cv_json_object_set_new(o, "b", cv_json_boolean(7)) == 0);
	CHECK(cv_json_object_set_new(o, "n", cv_json_null()) == 0);
	CHECK(cv_json_object_set_new(o, "x", NULL) < 0);
	CHECK(cv_json_object_set_new(o, "\xff", cv_json_true()) < 0);
	CHECK(cv_json_object_set_new(a, "k", cv_json_true()) < 0);
	CHECK(cv_json_array_append_new(a, cv_json_false()) == 0);
	CHECK(cv_json_array_append(a, cv_json_object_get(o, "s")) == 0);
	CHECK(cv_json_array_append(a, a) < 0);
	CHECK(cv_json_object_set(o, "a", a) == 0);
	cv_json_decref(a);
	/* replacing keeps the member's place */
	CHECK(cv_json_object_set_new(o, "i", cv_json_integer(5)) == 0);
	s = cv_json_dumps(o, 0);
	CHECK(same(s, "{\"s\": \"a\\u0000b\", \"i\": 5, \"r\": 3.0, "
		      "\"b\": true, \"n\": null, \"a\": [false, "
		      "\"a\\u0000b\"]}"));
	free(s);
	u = cv_json_pack("{s:i, s:s}", "i", 6, "new", "v");
	CHECK(cv_json_object_update_new(o, u) == 0);
	s = cv_json_dumps(o, C | SK);
	CHECK(same(s, "{\"a\":[false,\"a\\u0000b\"],\"b\":true,\"i\":6,"
		      "\"n\":null,\"new\":\"v\",\"r\":3.0,"
		      "\"s\":\"a\\u0000b\"}"));
	free(s);
	s = cv_json_dumps(cv_json_object_get(o, "s"), C);
	CHECK(s == NULL);
	p = cv_json_pack("{s:s,s:s?,s:i,s:I,s:b,s:f,s:n,s:o,s:O,s:{s:[s,s]}}",
			 "s", "x", "q", (const char *)NULL, "i", -1, "I",
			 (int64_t)1 << 40, "b", 0, "f", 0.5, "n", "o",
			 cv_json_integer(1), "O", o, "c", "d", "e", "f");
	s = cv_json_dumps(p, C);
	CHECK(s &&
	      !strncmp(s,
		       "{\"s\":\"x\",\"q\":null,\"i\":-1,\"I\":1099511627776,"
		       "\"b\":false,\"f\":0.5,\"n\":null,\"o\":1,\"O\":{",
		       81));
	CHECK(s && strstr(s, "},\"c\":{\"d\":[\"e\",\"f\"]}}") != NULL);
	free(s);
	cv_json_decref(p);
	/* a NULL value fails the pack and still takes every "o" */
	CHECK(cv_json_pack("{s:s,s:o}", "a", (const char *)NULL, "b",
			   cv_json_array()) == NULL);
	CHECK(cv_json_pack("[o,s]", cv_json_array(), (const char *)NULL) ==
	      NULL);
	CHECK(cv_json_pack("{s:o}", "a", (struct cv_json *)NULL) == NULL);
	cv_json_decref(o);
	cv_json_decref(NULL);
}

#ifndef _WIN32
static void
test_file(void)
{
	char path[] = "/tmp/cudnnvm-test-json.XXXXXX";
	int fd = mkstemp(path);
	struct cv_json_error e;
	struct cv_json *v;

	CHECK(fd >= 0 && write(fd, "{\"k\": [1, 2]}\n", 14) == 14);
	close(fd);
	v = cv_json_load_file(path, RD, &e);
	CHECK(cv_json_array_size(cv_json_object_get(v, "k")) == 2);
	cv_json_decref(v);
	unlink(path);
	CHECK(cv_json_load_file(path, 0, &e) == NULL && e.line == -1 &&
	      e.text[0] != '\0');
}
#endif

/* each accepted document dumps to bytes that parse back to the same */
static void
test_roundtrip(void)
{
	static const size_t flags[] = { 0, C, I2, C | SK, I2 | SK };

	for (size_t k = 0; k < sizeof accept / sizeof *accept; k++) {
		struct cv_json *v =
			cv_json_loads(accept[k].in, accept[k].pflags, NULL);
		for (size_t f = 0; v && f < sizeof flags / sizeof *flags; f++) {
			char *a = cv_json_dumps(v, flags[f]), *b = NULL;
			struct cv_json *w =
				a ? cv_json_loads(a, accept[k].pflags, NULL)
				  : NULL;

			b = w ? cv_json_dumps(w, flags[f]) : NULL;
			CHECK(a == NULL || (b && !strcmp(a, b)));
			free(a);
			free(b);
			cv_json_decref(w);
		}
		cv_json_decref(v);
	}
}

int
main(void)
{
	backend = cv_json_library();
	printf("# backend %s\n", backend);
	test_accept();
	test_reject();
	test_values();
	test_build();
#ifndef _WIN32
	test_file();
#else
	/* cv_json_load_file reads through fs.c, whose Win32 twin test_os
	 * runs; the vectors above are what differs between the backends */
	printf("# cv_json_load_file not run here\n");
#endif
	test_roundtrip();
	return TEST_DONE();
}
