/* fuzz_json.c: base's two JSON backends on any bytes, side by side:
 * jansson's (json_jansson.c, what the Linux builds link) and jsmn's
 * (json_jsmn.c, what the Windows build links), the latter's cv_json_*
 * renamed cv_jsmn_* by the Makefile so that one program holds both. The
 * first byte picks the parse flags and the dump flags.
 *
 * Oracles: both accept or both refuse; a refusal says where (a line from
 * 1, a sentence); an accepted document dumps to the same bytes from both
 * (or to none from both: a top-level value that is no container), and
 * those bytes are a fixed point, read back by either backend and dumped
 * again, byte for byte: a property of the text itself, trusting neither
 * backend's tree. */
#include "fuzz.h"

struct cv_json *cv_jsmn_loadb(const char *buf, size_t len, size_t flags,
			      struct cv_json_error *error);
char *cv_jsmn_dumps(const struct cv_json *v, size_t flags);
void cv_jsmn_decref(struct cv_json *v);

static const size_t dump_flags[] = {
	0,
	CV_JSON_COMPACT,
	CV_JSON_INDENT(2),
	CV_JSON_COMPACT | CV_JSON_SORT_KEYS,
	CV_JSON_INDENT(2) | CV_JSON_SORT_KEYS,
	CV_JSON_INDENT(2) | CV_JSON_COMPACT,
	CV_JSON_INDENT(1) | CV_JSON_SORT_KEYS | CV_JSON_COMPACT,
	CV_JSON_INDENT(31),
};

/* text dumped by one backend, read back and dumped by the other (or the
 * same): the same bytes */
static void
fixed_point(const char *text, size_t pflags, size_t dflags)
{
	struct cv_json_error e;
	struct cv_json *a = cv_json_loadb(text, strlen(text), pflags, &e);
	struct cv_json *b = cv_jsmn_loadb(text, strlen(text), pflags, &e);
	char *sa = a ? cv_json_dumps(a, dflags) : NULL;
	char *sb = b ? cv_jsmn_dumps(b, dflags) : NULL;

	FUZZ_CHECK(sa != NULL && strcmp(sa, text) == 0,
		   "jansson rereads [%s] as [%s]", text, sa ? sa : "(null)");
	FUZZ_CHECK(sb != NULL && strcmp(sb, text) == 0,
		   "jsmn rereads [%s] as [%s]", text, sb ? sb : "(null)");
	free(sa);
	free(sb);
	cv_json_decref(a);
	cv_jsmn_decref(b);
}

static void
refusal(const struct cv_json_error *e, const char *who)
{
	FUZZ_CHECK(e->line >= 1 && e->position >= 0 && e->text[0] != '\0',
		   "%s refuses at line %d position %d: '%s'", who, e->line,
		   e->position, e->text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cv_json_error ea, eb;
	const char *s = (const char *)data + 1;
	size_t n = size - 1, pflags = 0, dflags;
	struct cv_json *a, *b;
	char *sa, *sb;

	if (size < 1)
		return 0;
	pflags |= data[0] & 1 ? CV_JSON_REJECT_DUPLICATES : 0;
	pflags |= data[0] & 2 ? CV_JSON_DECODE_ANY : 0;
	pflags |= data[0] & 4 ? CV_JSON_ALLOW_NUL : 0;
	dflags = dump_flags[(data[0] >> 3) %
			    (sizeof dump_flags / sizeof *dump_flags)];
	a = cv_json_loadb(s, n, pflags, &ea);
	b = cv_jsmn_loadb(s, n, pflags, &eb);
	FUZZ_CHECK((a == NULL) == (b == NULL), "jansson %s, jsmn %s",
		   a ? "accepts" : ea.text, b ? "accepts" : eb.text);
	if (a == NULL) {
		refusal(&ea, "jansson");
		refusal(&eb, "jsmn");
		return 0;
	}
	sa = cv_json_dumps(a, dflags);
	sb = cv_jsmn_dumps(b, dflags);
	FUZZ_CHECK((sa == NULL) == (sb == NULL) &&
			   (sa == NULL || strcmp(sa, sb) == 0),
		   "jansson dumps [%s], jsmn [%s]", sa ? sa : "(null)",
		   sb ? sb : "(null)");
	if (sa != NULL)
		fixed_point(sa, pflags, dflags);
	free(sa);
	free(sb);
	cv_json_decref(a);
	cv_jsmn_decref(b);
	return 0;
}
