/* fuzz_version.c: the spec grammar of SPEC.md.
 *
 * Oracles: the parser accepts exactly what an independent reading of the
 * grammar accepts; an accepted spec formats back to the same bytes and
 * parses to the same value (round trip); install ids are the 4-part specs
 * with -cudaN; and cv_version_cmp is a total order consistent with
 * matching, checked on the newline-separated specs of the input. */
#include "fuzz.h"

#define MAX_SPECS 8

/* A second reading of ^[0-9]{1,3}(\.[0-9]{1,5}){0,3}(-cuda[0-9]{1,3})?$
 * with no leading zeros and a non-zero CUDA major, at most 40 bytes. */
static int
reference_accepts(const char *s, int *nparts, int *has_cuda)
{
	size_t len = strlen(s), i = 0;
	int part = 0;

	if (len == 0 || len > 40)
		return 0;
	for (;;) {
		size_t start = i, maxd = part == 0 ? 3 : 5;
		while (s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == start || i - start > maxd ||
		    (i - start > 1 && s[start] == '0'))
			return 0;
		part++;
		if (s[i] != '.')
			break;
		if (part == 4)
			return 0;
		i++;
	}
	*nparts = part;
	*has_cuda = 0;
	if (strncmp(s + i, "-cuda", 5) == 0) {
		size_t start = i += 5;
		while (s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == start || i - start > 3 ||
		    (i - start > 1 && s[start] == '0') ||
		    (i - start == 1 && s[start] == '0'))
			return 0;
		*has_cuda = 1;
	}
	return s[i] == '\0';
}

static int
sign(int x)
{
	return (x > 0) - (x < 0);
}

static void
check_one(const char *s, struct cv_version *v, int *ok)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_version again, id;
	char buf[128];
	int nparts = 0, has_cuda = 0, want, rc;

	rc = cv_version_parse(v, s, &err);
	fuzz_check_err(rc, &err);
	want = reference_accepts(s, &nparts, &has_cuda);
	FUZZ_CHECK((rc == 0) == want, "'%s': parser %d, grammar %d", s, rc,
		   want);
	*ok = rc == 0;
	rc = cv_install_id_parse(&id, s, &err);
	fuzz_check_err(rc, &err);
	FUZZ_CHECK((rc == 0) == (want && nparts == 4 && has_cuda),
		   "'%s': install id %d", s, rc);
	if (!*ok)
		return;
	FUZZ_CHECK(v->nparts == nparts && (v->cuda != 0) == has_cuda,
		   "'%s': %d parts, cuda %d", s, v->nparts, v->cuda);
	cv_version_format_id(v, buf, sizeof buf);
	FUZZ_CHECK(strcmp(buf, s) == 0, "'%s' formats as '%s'", s, buf);
	FUZZ_CHECK(cv_version_parse(&again, buf, NULL) == 0 &&
			   cv_version_cmp(v, &again) == 0 &&
			   again.cuda == v->cuda,
		   "'%s' does not round-trip", s);
	FUZZ_CHECK(cv_version_cmp(v, v) == 0, "'%s' differs from itself", s);
	FUZZ_CHECK(cv_version_matches(v, v), "'%s' does not match itself", s);
	cv_version_format(v, buf, sizeof buf);
	FUZZ_CHECK(strchr(buf, '-') == NULL, "'%s' formats parts as '%s'", s,
		   buf);
	(void)cv_version_cudnn_number(v);
}

static void
check_pair(const struct cv_version *a, const struct cv_version *b)
{
	int ab = cv_version_cmp(a, b), ba = cv_version_cmp(b, a);
	int same = a->nparts == b->nparts;

	FUZZ_CHECK(sign(ab) == -sign(ba), "cmp is not antisymmetric");
	for (int i = 0; same && i < a->nparts; i++)
		same = a->part[i] == b->part[i];
	FUZZ_CHECK((ab == 0) == same, "cmp 0 but the parts differ");
	/* A spec that matches a version is a prefix of it: never newer. */
	if (cv_version_matches(a, b)) {
		FUZZ_CHECK(ab <= 0, "a matching spec sorts after its version");
		FUZZ_CHECK(a->nparts <= b->nparts, "match with more parts");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *save = NULL, *line;
	struct cv_version v[MAX_SPECS];
	int n = 0, ok;

	/* The whole input first (embedded newlines must be refused)... */
	{
		struct cv_version whole;
		if (memchr(data, '\0', size) == NULL)
			check_one(text, &whole, &ok);
	}
	/* ...then each line, for the ordering oracle. */
	for (line = strtok_r(text, "\n", &save); line && n < MAX_SPECS;
	     line = strtok_r(NULL, "\n", &save)) {
		check_one(line, &v[n], &ok);
		if (ok)
			n++;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			check_pair(&v[i], &v[j]);
			for (int k = 0; k < n; k++)
				if (cv_version_cmp(&v[i], &v[j]) <= 0 &&
				    cv_version_cmp(&v[j], &v[k]) <= 0)
					FUZZ_CHECK(cv_version_cmp(&v[i],
								  &v[k]) <= 0,
						   "cmp is not transitive");
		}
	free(text);
	return 0;
}
