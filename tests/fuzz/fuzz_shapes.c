/* fuzz_shapes.c: `bench --shapes FILE` text on any bytes.
 *
 * The first byte picks the --dtype and --layout masks; the rest is the
 * file, parsed by cv_bench_shapes_parse. The oracle is a reference parse
 * of the grammar the man page gives, written here apart from
 * lib/validate/bench.c: lines split at '\n' (at most 1023 bytes, no NUL),
 * fields split at blanks and commas, a first field starting with '#' makes a
 * comment, "name N C H W K R S stride pad dilation groups [dtype [layout]]"
 * with a name of 1-47 printable characters, each number plain digits within its
 * bounds, groups dividing C and K, the filter fitting the padded input, both
 * tensors under 2^31 elements, each layer swept over the masks unless it
 * names its own, at most CV_BENCH_MAX_LAYERS in all and at least one.
 * Accepted by one means accepted by the other with the same layers, in
 * the same order; errors are one line with CV_EDATA. */
#include "fuzz.h"
#include "validate/validate_int.h"

#define LINE_MAX_BYTES 1023

struct ref_layer {
	char name[48];
	long v[11];
	int dtype, layout;
};

static const char *const dtypes[] = { "fp32", "fp16", "bf16" };
static const char *const layouts[] = { "nchw", "nhwc" };
static const long lo[11] = { 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1 };
static const long hi[11] = { 65536, 1 << 20, 65536, 65536, 1 << 20, 64,
			     64,    64,      64,    64,    1 << 20 };

static int
is_sep(unsigned char c)
{
	return c == ' ' || c == '\t' || c == ',' || c == '\r' || c == '\n';
}

static int
number(const char *s, size_t n, long lo_, long hi_, long *out)
{
	long v = 0;

	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		if (v <= hi_)
			v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return v >= lo_ && v <= hi_;
}

static int
name_index(const char *s, size_t n, const char *const *names, int count)
{
	for (int i = 0; i < count; i++)
		if (strlen(names[i]) == n && memcmp(s, names[i], n) == 0)
			return i;
	return -1;
}

static long
out_dim(long in, long f, long stride, long pad, long dil)
{
	long room = in + 2 * pad - ((f - 1) * dil + 1);

	return room < 0 ? 0 : room / stride + 1;
}

/* One line: -1 refused, 0 nothing (blank or comment), 1 with *l set and
 * *fixed_dtype / *fixed_layout telling what it named. */
static int
ref_line(const char *s, size_t n, struct ref_layer *l, int *fixed_dtype,
	 int *fixed_layout)
{
	const char *tok[15];
	size_t len[15];
	int nt = 0;

	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && !is_sep((unsigned char)s[j]))
			j++;
		if (j > i) {
			if (nt == 0 && s[i] == '#')
				return 0;
			if (nt == 15)
				return -1;
			tok[nt] = s + i;
			len[nt++] = j - i;
		}
		i = j + 1;
	}
	if (nt == 0)
		return 0;
	if (nt < 12 || nt > 14 || len[0] > 47)
		return -1;
	for (size_t i = 0; i < len[0]; i++)
		if ((unsigned char)tok[0][i] < 0x21 ||
		    (unsigned char)tok[0][i] > 0x7e)
			return -1;
	memset(l, 0, sizeof *l);
	memcpy(l->name, tok[0], len[0]);
	for (int i = 0; i < 11; i++)
		if (!number(tok[i + 1], len[i + 1], lo[i], hi[i], &l->v[i]))
			return -1;
	*fixed_dtype = nt > 12;
	*fixed_layout = nt > 13;
	if (nt > 12 && (l->dtype = name_index(tok[12], len[12], dtypes, 3)) < 0)
		return -1;
	if (nt > 13 &&
	    (l->layout = name_index(tok[13], len[13], layouts, 2)) < 0)
		return -1;
	{
		long N = l->v[0], C = l->v[1], H = l->v[2], W = l->v[3];
		long K = l->v[4], R = l->v[5], S = l->v[6], st = l->v[7];
		long pad = l->v[8], dil = l->v[9], g = l->v[10];
		long oh = out_dim(H, R, st, pad, dil);
		long ow = out_dim(W, S, st, pad, dil);
		unsigned __int128 nx = (unsigned __int128)N * C * H * W;
		unsigned __int128 ny = (unsigned __int128)N * K * oh * ow;

		if (C % g != 0 || K % g != 0 || oh < 1 || ow < 1 ||
		    nx > 2147483647u || ny > 2147483647u)
			return -1;
	}
	return 1;
}

/* The whole text: the layers into v (at most cap + 1), or -1. */
static long
ref_parse(const char *s, size_t n, unsigned dmask, unsigned lmask,
	  struct ref_layer *v, size_t cap)
{
	size_t count = 0;

	for (size_t off = 0; off < n;) {
		const char *nl = memchr(s + off, '\n', n - off);
		size_t len = nl ? (size_t)(nl - (s + off)) : n - off;
		struct ref_layer l;
		int fd, fl, r;

		if (len > LINE_MAX_BYTES || memchr(s + off, '\0', len))
			return -1;
		r = ref_line(s + off, len, &l, &fd, &fl);
		off += len + 1;
		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		for (int d = 0; d < 3; d++)
			for (int o = 0; o < 2; o++) {
				if (fd ? d != l.dtype : !(dmask & (1u << d)))
					continue;
				if (fl ? o != l.layout : !(lmask & (1u << o)))
					continue;
				if (count == cap)
					return -1;
				v[count] = l;
				v[count].dtype = d;
				v[count++].layout = o;
			}
	}
	return count == 0 ? -1 : (long)count;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ref_layer want[CV_BENCH_MAX_LAYERS];
	struct cv_err err = CV_ERR_INIT;
	struct cv_layer *got = NULL;
	unsigned dmask, lmask;
	size_t n = 0;
	long nref;
	int rc;

	if (size == 0)
		return 0;
	dmask = data[0] & 7u ? data[0] & 7u : 1u;
	lmask = (data[0] >> 3) & 3u ? (data[0] >> 3) & 3u : 3u;
	rc = cv_bench_shapes_parse((const char *)data + 1, size - 1, "f", dmask,
				   lmask, &got, &n, &err);
	fuzz_check_err(rc, &err);
	nref = ref_parse((const char *)data + 1, size - 1, dmask, lmask, want,
			 CV_BENCH_MAX_LAYERS);
	FUZZ_CHECK(rc == 0 || rc == CV_EDATA, "returned %d (%s)", rc, err.msg);
	FUZZ_CHECK((rc == 0) == (nref >= 0), "parser %s, reference %s (%s)",
		   rc == 0 ? "accepts" : "refuses",
		   nref >= 0 ? "accepts" : "refuses", err.msg);
	if (rc == 0) {
		FUZZ_CHECK((long)n == nref, "%zu layers, reference %ld", n,
			   nref);
		for (size_t i = 0; i < n; i++) {
			const struct cv_layer *g = &got[i];
			const struct ref_layer *w = &want[i];
			long gv[11] = { g->n,        g->c,      g->h,
					g->w,        g->k,      g->r,
					g->s,        g->stride, g->pad,
					g->dilation, g->groups };
			FUZZ_CHECK(strcmp(g->name, w->name) == 0,
				   "layer %zu: name '%s', reference '%s'", i,
				   g->name, w->name);
			for (int k = 0; k < 11; k++)
				FUZZ_CHECK(
					gv[k] == w->v[k],
					"layer %zu field %d: %ld, reference %ld",
					i, k, gv[k], w->v[k]);
			FUZZ_CHECK(
				g->dtype == w->dtype && g->layout == w->layout,
				"layer %zu: dtype/layout %d/%d, reference %d/%d",
				i, g->dtype, g->layout, w->dtype, w->layout);
		}
	}
	free(got);
	return 0;
}
