/* fuzz_requirement.c: the framework requirement grammar on any bytes:
 * METADATA "Requires-Dist:" values (cv_fw_requires_dist) and conda
 * `depends` entries (cv_fw_conda_depend), one per input line, each line
 * also folded into one need as a record's lines are.
 *
 * Oracles, none of them a second run of the parser's own code:
 *  - a line is taken only when it names cuDNN as this file reads the name
 *    (a small recogniser of "nvidia[-_.]cudnn[-_.]cuN" / "cudnn"), and
 *    the CUDA major taken is the N written; a line not taken leaves the
 *    need as it was (conda's cuda-version lines may set the CUDA major
 *    only, to a number written in the line);
 *  - every bound is a number written in the line: the floor, each
 *    exclusion and the ceiling are leading parts of a dotted number of the
 *    input (a "~=" ceiling: such parts with the last one raised by one);
 *  - a need written back as ">=MIN,<MAX,!=X" and read again is the same;
 *  - the versions a need lets load keep its major and at least its minor,
 *    never its exclusions, a ceiling it excludes or another CUDA major, and
 *    form a range: of a < b < c, if a and c fit and b is not excluded, b
 *    fits. */
#include "fuzz.h"

#include "base/base.h"
#include "python/python_int.h"

#include <ctype.h>
#include <limits.h>

/* Longer lines are not judged. */
#define MAXLINE 4096
/* Every number of a judged line: each takes a digit and a separator, so a
 * line has at most half its length, rounded up. A shorter list would miss
 * a bound written late in a long line and blame the parser for it. */
#define MAXSEQ (MAXLINE / 2 + 1)

/* The dotted numbers of a line ("9.1.0.70", "12"), saturating as strtoul
 * does, at most CV_VERSION_MAXPARTS parts each. */
struct seqs {
	int n;
	struct cv_version v[MAXSEQ];
};

static void
dotted_numbers(const char *s, struct seqs *out)
{
	out->n = 0;
	while (*s && out->n < MAXSEQ) {
		struct cv_version *v;
		if (!isdigit((unsigned char)*s)) {
			s++;
			continue;
		}
		v = &out->v[out->n++];
		memset(v, 0, sizeof *v);
		for (;;) {
			unsigned long x = 0;
			int over = 0;
			while (isdigit((unsigned char)*s)) {
				unsigned d = (unsigned)(*s++ - '0');
				if (x > (ULONG_MAX - d) / 10)
					over = 1;
				x = over ? ULONG_MAX : x * 10 + d;
			}
			if (v->nparts < CV_VERSION_MAXPARTS)
				v->part[v->nparts++] = x;
			if (s[0] != '.' || !isdigit((unsigned char)s[1]))
				break;
			s++;
		}
	}
}

/* 1 when b's parts are a's first ones, or (bumped) those with the last
 * raised by one. */
static int
leading(const struct cv_version *a, const struct cv_version *b, int bumped)
{
	if (b->nparts == 0 || b->nparts > a->nparts)
		return 0;
	for (int i = 0; i < b->nparts; i++) {
		unsigned long want = a->part[i];
		if (bumped && i == b->nparts - 1)
			want++;
		if (b->part[i] != want)
			return 0;
	}
	return 1;
}

static int
written(const struct seqs *s, const struct cv_version *v, int bumped)
{
	for (int i = 0; i < s->n; i++)
		if (leading(&s->v[i], v, bumped))
			return 1;
	return 0;
}

static int
same_version(const struct cv_version *a, const struct cv_version *b)
{
	if (a->nparts != b->nparts || a->cuda != b->cuda)
		return 0;
	for (int i = 0; i < CV_VERSION_MAXPARTS; i++)
		if (a->part[i] != b->part[i])
			return 0;
	return 1;
}

/* Field by field: padding bytes say nothing about a need. */
static int
same_need(const struct cv_fw_need *a, const struct cv_fw_need *b)
{
	if (a->have != b->have || !same_version(&a->min, &b->min) ||
	    !same_version(&a->max, &b->max) || a->max_incl != b->max_incl ||
	    a->nexclude != b->nexclude || a->cuda != b->cuda ||
	    strcmp(a->source, b->source) != 0 || strcmp(a->text, b->text) != 0)
		return 0;
	for (int i = 0; i < a->nexclude && i < CV_FW_MAXEXCLUDE; i++)
		if (!same_version(&a->exclude[i], &b->exclude[i]))
			return 0;
	return 1;
}

/* The CUDA major of "nvidia-cudnn-cuN..." as the line writes it, else 0. */
static int
wheel_cuda(const char *s)
{
	static const char *const words[] = { "nvidia", "cudnn", "cu" };
	long n = 0;
	int digits = 0;

	for (int i = 0; i < 3; i++) {
		if (strncasecmp(s, words[i], strlen(words[i])) != 0)
			return 0;
		s += strlen(words[i]);
		if (i < 2 && !(*s == '-' || *s == '_' || *s == '.'))
			return 0;
		if (i < 2)
			s++;
	}
	while (isdigit((unsigned char)*s) && n <= 999) {
		n = n * 10 + (*s++ - '0');
		digits++;
	}
	if (!digits || n < 1 || n > 999)
		return 0;
	return *s == '\0' || strchr(" \t(;<>=!~[,", *s) != NULL ? (int)n : 0;
}

static struct cv_version
padded(const struct cv_version *v, int cuda)
{
	struct cv_version p = *v;

	p.nparts = CV_VERSION_MAXPARTS;
	p.cuda = cuda;
	return p;
}

static int
excluded(const struct cv_fw_need *n, const struct cv_version *v)
{
	for (int i = 0; i < n->nexclude; i++) {
		int same = 1;
		for (int k = 0; k < n->exclude[i].nparts; k++)
			same &= n->exclude[i].part[k] == v->part[k];
		if (same)
			return 1;
	}
	return 0;
}

/* The need written back as a line of its own grammar, read again. */
static void
round_trip(const struct cv_fw_need *n, int conda)
{
	struct cv_fw_need again;
	char line[512], v[96];
	size_t len;

	if (conda)
		len = (size_t)snprintf(line, sizeof line, "cudnn ");
	else
		len = (size_t)snprintf(line, sizeof line, "nvidia-cudnn-cu%d ",
				       n->cuda);
	if (n->min.nparts) {
		cv_version_format(&n->min, v, sizeof v);
		len += (size_t)snprintf(line + len, sizeof line - len, ">=%s,",
					v);
	}
	if (n->max.nparts) {
		cv_version_format(&n->max, v, sizeof v);
		len += (size_t)snprintf(line + len, sizeof line - len, "%s%s,",
					n->max_incl ? "<=" : "<", v);
	}
	for (int i = 0; i < n->nexclude; i++) {
		cv_version_format(&n->exclude[i], v, sizeof v);
		len += (size_t)snprintf(line + len, sizeof line - len, "!=%s,",
					v);
	}
	memset(&again, 0, sizeof again);
	again.cuda = conda ? n->cuda : 0;
	FUZZ_CHECK((conda ? cv_fw_conda_depend(&again, line, "x")
			  : cv_fw_requires_dist(&again, line, "x")) == 1,
		   "'%s' not taken", line);
	FUZZ_CHECK(cv_version_cmp(&again.min, &n->min) == 0 &&
			   again.min.nparts == n->min.nparts,
		   "'%s': another floor", line);
	FUZZ_CHECK(cv_version_cmp(&again.max, &n->max) == 0 &&
			   again.max.nparts == n->max.nparts &&
			   again.max_incl == n->max_incl,
		   "'%s': another ceiling", line);
	FUZZ_CHECK(again.nexclude == n->nexclude && again.cuda == n->cuda,
		   "'%s': %d exclusions for %d, CUDA %d for %d", line,
		   again.nexclude, n->nexclude, again.cuda, n->cuda);
}

static int
fits(const struct cv_fw_need *n, const struct cv_version *v)
{
	struct cv_framework f;

	memset(&f, 0, sizeof f);
	f.need = *n;
	return cv_framework_fits(&f, v);
}

/* What the versions a need lets load must be. */
static void
check_fits(const struct cv_fw_need *n)
{
	struct cv_version probe[12];
	int np = 0, cuda = n->cuda ? n->cuda : 12;

	if (n->min.nparts)
		probe[np++] = padded(&n->min, cuda);
	if (n->max.nparts)
		probe[np++] = padded(&n->max, cuda);
	for (int i = 0; i < n->nexclude && np < 6; i++)
		probe[np++] = padded(&n->exclude[i], cuda);
	for (int i = 0, k = np; i < k && np + 2 <= 12; i++)
		for (int d = 0; d < 2; d++) {
			struct cv_version p = probe[i];
			int at = d ? 1 : 3;
			if (d ? p.part[at] == ULONG_MAX : p.part[at] == 0)
				continue;
			p.part[at] += d ? 1 : (unsigned long)-1;
			probe[np++] = p;
		}
	for (int i = 0; i < np; i++) {
		struct cv_version other = probe[i];
		int ok = fits(n, &probe[i]);
		if (ok && n->min.nparts) {
			FUZZ_CHECK(probe[i].part[0] == n->min.part[0] &&
					   (n->min.nparts < 2 ||
					    probe[i].part[1] >= n->min.part[1]),
				   "fits below the floor or another major");
		}
		FUZZ_CHECK(!ok || !excluded(n, &probe[i]), "an exclusion fits");
		if (n->max.nparts && !n->max_incl &&
		    leading(&probe[i], &n->max, 0))
			FUZZ_CHECK(!ok, "the excluded ceiling fits");
		other.cuda = cuda + 1;
		FUZZ_CHECK(!n->cuda || !fits(n, &other),
			   "another CUDA major fits");
	}
	for (int a = 0; a < np; a++)
		for (int c = 0; c < np; c++)
			for (int b = 0; b < np; b++)
				if (cv_version_cmp(&probe[a], &probe[b]) < 0 &&
				    cv_version_cmp(&probe[b], &probe[c]) < 0 &&
				    fits(n, &probe[a]) && fits(n, &probe[c]) &&
				    !excluded(n, &probe[b]))
					FUZZ_CHECK(fits(n, &probe[b]),
						   "the fitting versions are "
						   "not a range");
}

static void
one_line(const char *line, struct cv_fw_need *folded)
{
	struct seqs nums;
	struct cv_fw_need n, before;
	int cuda = wheel_cuda(line), got;
	int conda_cudnn =
		strncmp(line, "cudnn ", 6) == 0 || strcmp(line, "cudnn") == 0;
	int conda_cuda = strncmp(line, "cuda-version ", 13) == 0 ||
			 strncmp(line, "cudatoolkit ", 12) == 0;

	dotted_numbers(line, &nums);
	for (int conda = 0; conda < 2; conda++) {
		memset(&n, 0, sizeof n);
		before = n;
		got = conda ? cv_fw_conda_depend(&n, line, "src")
			    : cv_fw_requires_dist(&n, line, "src");
		if (!got) {
			FUZZ_CHECK(!conda || !conda_cudnn,
				   "cudnn line refused");
			if (conda && conda_cuda && n.cuda != 0) {
				struct cv_version c = {
					1, { (unsigned long)n.cuda }, 0
				};
				FUZZ_CHECK(written(&nums, &c, 0),
					   "CUDA %d is not in the line",
					   n.cuda);
				n.cuda = 0;
			}
			FUZZ_CHECK(same_need(&n, &before),
				   "a line not taken changed the need");
			continue;
		}
		FUZZ_CHECK(n.have, "taken without a requirement");
		if (conda)
			FUZZ_CHECK(conda_cudnn,
				   "conda took a line not about cudnn");
		else
			FUZZ_CHECK(cuda != 0 && n.cuda == cuda,
				   "took CUDA %d from a line naming %d", n.cuda,
				   cuda);
		FUZZ_CHECK(n.min.nparts == 0 || written(&nums, &n.min, 0),
			   "the floor is not in the line");
		FUZZ_CHECK(n.max.nparts == 0 || written(&nums, &n.max, 0) ||
				   written(&nums, &n.max, 1),
			   "the ceiling is not in the line");
		for (int i = 0; i < n.nexclude; i++)
			FUZZ_CHECK(written(&nums, &n.exclude[i], 0),
				   "an exclusion is not in the line");
		FUZZ_CHECK(strcmp(n.source, "src") == 0, "source lost");
		if (!conda || n.cuda)
			round_trip(&n, conda);
		check_fits(&n);
	}
	/* as a record folds its lines: the floor only rises */
	{
		struct cv_version floor = folded->min;
		if (cv_fw_requires_dist(folded, line, "src") && floor.nparts)
			FUZZ_CHECK(cv_version_cmp(&folded->min, &floor) >= 0,
				   "a later line lowered the floor");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *line, *next;
	struct cv_fw_need folded;

	memset(&folded, 0, sizeof folded);
	for (line = text; line != NULL; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		if (strlen(line) < MAXLINE)
			one_line(line, &folded);
	}
	if (folded.have)
		check_fits(&folded);
	free(text);
	return 0;
}
