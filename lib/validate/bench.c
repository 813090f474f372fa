/* bench.c: the parent half of `cudnnvm bench`: the layer sets (built in,
 * or read from a shapes file), one validation child per version that also
 * times the layers (bench_probe.c), and the figures it reports, gathered
 * into results and JSON. Validation and timing share one child, so the
 * figures come from exactly the libraries whose provenance was proven. */
#include "base/base.h"
#include "store/store.h"
#include "validate/validate_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const dtype_names[CV_NDTYPES] = { "fp32", "fp16", "bf16" };
static const char *const layout_names[CV_NLAYOUTS] = { "nchw", "nhwc" };

const char *
cv_dtype_name(int dtype)
{
	return dtype >= 0 && dtype < CV_NDTYPES ? dtype_names[dtype] : "?";
}

const char *
cv_layout_name(int layout)
{
	return layout >= 0 && layout < CV_NLAYOUTS ? layout_names[layout] : "?";
}

/* A name of `names` (what the user gave in `s`) to its index. */
static int
lookup(const char *s, const char *const *names, int n, const char *what,
       int *out, struct cv_err *err)
{
	for (*out = 0; s != NULL && *out < n; (*out)++)
		if (strcmp(s, names[*out]) == 0)
			return 0;
	*out = -1;
	return cv_err_set(err, CV_EUSAGE, "unknown %s '%.40s' (%s, %s%s%s)",
			  what, s ? s : "", names[0], names[1],
			  n > 2 ? ", " : "", n > 2 ? names[2] : "");
}

int
cv_dtype_parse(const char *s, int *out, struct cv_err *err)
{
	return lookup(s, dtype_names, CV_NDTYPES, "dtype", out, err);
}

int
cv_layout_parse(const char *s, int *out, struct cv_err *err)
{
	return lookup(s, layout_names, CV_NLAYOUTS, "layout", out, err);
}

static int
out_dim(int in, int r, const struct cv_layer *l)
{
	int span = (r - 1) * l->dilation + 1;
	int room = in + 2 * l->pad - span;

	return room < 0 ? 0 : room / l->stride + 1;
}

int
cv_layer_out_h(const struct cv_layer *l)
{
	return out_dim(l->h, l->r, l);
}

int
cv_layer_out_w(const struct cv_layer *l)
{
	return out_dim(l->w, l->s, l);
}

double
cv_layer_flops(const struct cv_layer *l)
{
	return 2.0 * l->n * l->k * cv_layer_out_h(l) * cv_layer_out_w(l) *
	       (l->groups > 0 ? l->c / l->groups : l->c) * l->r * l->s;
}

/* ---- the built-in sets ----------------------------------------------------
 */

/* ResNet-50's distinct convolutions (torchvision, stride on the 3x3), for
 * a 224x224 input: stage, C, H (= W), K, R (= S), stride, pad. */
struct shape {
	const char *stage;
	int c, h, k, r, stride, pad;
};
static const struct shape resnet50[] = {
	{ "conv1", 3, 224, 64, 7, 2, 3 },    { "res2", 64, 56, 64, 1, 1, 0 },
	{ "res2", 64, 56, 64, 3, 1, 1 },     { "res2", 64, 56, 256, 1, 1, 0 },
	{ "res2", 256, 56, 64, 1, 1, 0 },    { "res3", 256, 56, 128, 1, 1, 0 },
	{ "res3", 128, 56, 128, 3, 2, 1 },   { "res3", 128, 28, 512, 1, 1, 0 },
	{ "res3", 256, 56, 512, 1, 2, 0 },   { "res3", 512, 28, 128, 1, 1, 0 },
	{ "res3", 128, 28, 128, 3, 1, 1 },   { "res4", 512, 28, 256, 1, 1, 0 },
	{ "res4", 256, 28, 256, 3, 2, 1 },   { "res4", 256, 14, 1024, 1, 1, 0 },
	{ "res4", 512, 28, 1024, 1, 2, 0 },  { "res4", 1024, 14, 256, 1, 1, 0 },
	{ "res4", 256, 14, 256, 3, 1, 1 },   { "res5", 1024, 14, 512, 1, 1, 0 },
	{ "res5", 512, 14, 512, 3, 2, 1 },   { "res5", 512, 7, 2048, 1, 1, 0 },
	{ "res5", 1024, 14, 2048, 1, 2, 0 }, { "res5", 2048, 7, 512, 1, 1, 0 },
	{ "res5", 512, 7, 512, 3, 1, 1 },
};

struct set {
	const char *name;
	int batch;
};
static const struct set sets[] = {
	{ "resnet50", 64 },   /* training batch */
	{ "resnet50-b1", 1 }, /* single-image inference */
};
static const char *const set_names[] = { "resnet50", "resnet50-b1", NULL };

const char *const *
cv_bench_sets(void)
{
	return set_names;
}

struct layers {
	struct cv_layer *v;
	size_t n, alloc;
};

static void
push(struct layers *ls, const struct cv_layer *l)
{
	if (ls->n == ls->alloc) {
		ls->alloc = ls->alloc ? 2 * ls->alloc : 32;
		ls->v = xrealloc(ls->v, ls->alloc * sizeof *ls->v);
	}
	ls->v[ls->n++] = *l;
}

/* One layer per wanted dtype and layout (those a file line fixed stay). */
static void
push_each(struct layers *ls, struct cv_layer *l, unsigned dtypes,
	  unsigned layouts, int has_dtype, int has_layout)
{
	for (int d = 0; d < CV_NDTYPES; d++) {
		if (has_dtype ? d != l->dtype : !(dtypes & (1u << d)))
			continue;
		for (int o = 0; o < CV_NLAYOUTS; o++) {
			struct cv_layer x = *l;
			if (has_layout ? o != l->layout
				       : !(layouts & (1u << o)))
				continue;
			x.dtype = d;
			x.layout = o;
			push(ls, &x);
		}
	}
}

static void
builtin(const struct set *s, unsigned dtypes, unsigned layouts,
	struct layers *ls)
{
	for (size_t i = 0; i < sizeof resnet50 / sizeof resnet50[0]; i++) {
		const struct shape *sh = &resnet50[i];
		struct cv_layer l;

		memset(&l, 0, sizeof l);
		l.n = s->batch;
		l.c = sh->c;
		l.h = l.w = sh->h;
		l.k = sh->k;
		l.r = l.s = sh->r;
		l.stride = sh->stride;
		l.pad = sh->pad;
		l.dilation = l.groups = 1;
		if (sh->stride > 1)
			snprintf(l.name, sizeof l.name, "%s %dx%d/%d %d>%d @%d",
				 sh->stage, sh->r, sh->r, sh->stride, sh->c,
				 sh->k, sh->h);
		else
			snprintf(l.name, sizeof l.name, "%s %dx%d %d>%d @%d",
				 sh->stage, sh->r, sh->r, sh->c, sh->k, sh->h);
		push_each(ls, &l, dtypes, layouts, 0, 0);
	}
}

/* ---- shapes files ---------------------------------------------------------
 */

#define LAYER_MAX_ELEMENTS 2147483647.0 /* cuDNN indexes with int */

static int
check_layer(const struct cv_layer *l, struct cv_err *err)
{
	double nx = (double)l->n * l->c * l->h * l->w;
	double ny = (double)l->n * l->k * cv_layer_out_h(l) * cv_layer_out_w(l);

	if (l->c % l->groups != 0 || l->k % l->groups != 0)
		return cv_err_set(err, CV_EDATA,
				  "C (%d) and K (%d) must be multiples of "
				  "groups (%d)",
				  l->c, l->k, l->groups);
	if (cv_layer_out_h(l) < 1 || cv_layer_out_w(l) < 1)
		return cv_err_set(err, CV_EDATA,
				  "the filter (%dx%d, dilation %d) does not "
				  "fit the padded %dx%d input",
				  l->r, l->s, l->dilation, l->h, l->w);
	if (nx > LAYER_MAX_ELEMENTS || ny > LAYER_MAX_ELEMENTS)
		return cv_err_set(err, CV_EDATA,
				  "the tensors are too large (over 2^31 "
				  "elements)");
	return 0;
}

int
cv_layer_parse(const char *line, struct cv_layer *l, int *has_dtype,
	       int *has_layout, struct cv_err *err)
{
	static const char *const fields[] = {
		"N", "C",      "H",   "W",        "K",      "R",
		"S", "stride", "pad", "dilation", "groups",
	};
	static const int lo[] = { 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1 };
	static const int hi[] = { 65536, 1 << 20, 1 << 16, 1 << 16, 1 << 20, 64,
				  64,    64,      64,      64,      1 << 20 };
	int *dst[] = { &l->n,   &l->c,        &l->h,     &l->w,
		       &l->k,   &l->r,        &l->s,     &l->stride,
		       &l->pad, &l->dilation, &l->groups };
	char *copy = xstrdup(line), *save = NULL, *tok[16];
	int n = 0, r = 1;

	memset(l, 0, sizeof *l);
	*has_dtype = *has_layout = 0;
	for (char *t = strtok_r(copy, ", \t\r\n", &save); t != NULL;
	     t = strtok_r(NULL, ", \t\r\n", &save)) {
		if (n == 0 && *t == '#')
			break;
		if (n == 16) {
			n++;
			break;
		}
		tok[n++] = t;
	}
	if (n == 0) {
		r = 0;
		goto out;
	}
	if (n < 12 || n > 14) {
		r = cv_err_set(err, CV_EDATA,
			       "expected: name N C H W K R S stride pad "
			       "dilation groups [dtype [layout]], got %d "
			       "fields",
			       n);
		goto out;
	}
	for (const char *p = tok[0]; *p; p++)
		if (!isgraph((unsigned char)*p) || p - tok[0] >= 47) {
			r = cv_err_set(err, CV_EDATA,
				       "the name must be at most 47 printable "
				       "characters");
			goto out;
		}
	snprintf(l->name, sizeof l->name, "%s", tok[0]);
	for (int i = 0; i < 11; i++) {
		char *end;
		long v;
		/* digits only: strtol alone would take "+1", "-0" and a
		 * leading vertical tab */
		errno = 0;
		v = strtol(tok[i + 1], &end, 10);
		if (strspn(tok[i + 1], "0123456789") != strlen(tok[i + 1]) ||
		    errno || *end || end == tok[i + 1] || v < lo[i] ||
		    v > hi[i]) {
			r = cv_err_set(err, CV_EDATA,
				       "%s must be a whole number from %d to "
				       "%d, not '%.20s'",
				       fields[i], lo[i], hi[i], tok[i + 1]);
			goto out;
		}
		*dst[i] = (int)v;
	}
	if ((n > 12 && cv_dtype_parse(tok[12], &l->dtype, err) < 0) ||
	    (n > 13 && cv_layout_parse(tok[13], &l->layout, err) < 0)) {
		r = CV_EDATA;
		if (err != NULL)
			err->code = CV_EDATA;
		goto out;
	}
	*has_dtype = n > 12;
	*has_layout = n > 13;
	r = check_layer(l, err) < 0 ? CV_EDATA : 1;
out:
	free(copy);
	return r;
}

/* Each layer goes to the bench child as two arguments, and a wedged
 * child is given up on after its timeout: a set past this many layers
 * (after the dtype and layout sweep) is refused before anything runs,
 * rather than failing to start the child (E2BIG) or timing out. */
#define SHAPES_MAX_BYTES (1 << 20)

static int
too_many(const char *name, struct cv_err *err)
{
	return cv_err_set(err, CV_EDATA,
			  "%.300s: more than %d layers once swept over "
			  "dtypes and layouts; split it into smaller files",
			  name, CV_BENCH_MAX_LAYERS);
}

static int
parse_text(const char *text, size_t len, const char *name, unsigned dtypes,
	   unsigned layouts, struct layers *ls, struct cv_err *err)
{
	char line[1024];
	int lineno = 0, r = 0;

	for (size_t off = 0; r >= 0 && off < len;) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
		struct cv_layer l;
		int hd, hl;

		lineno++;
		if (n >= sizeof line)
			return cv_err_set(err, CV_EDATA,
					  "%.300s:%d: line too long", name,
					  lineno);
		if (memchr(text + off, '\0', n) != NULL)
			return cv_err_set(err, CV_EDATA,
					  "%.300s:%d: not text (a NUL byte)",
					  name, lineno);
		memcpy(line, text + off, n);
		line[n] = '\0';
		off += n + (nl != NULL);
		r = cv_layer_parse(line, &l, &hd, &hl, err);
		if (r < 0)
			cv_err_prefix(err, "%.300s:%d: ", name, lineno);
		else if (r == 1)
			push_each(ls, &l, dtypes, layouts, hd, hl);
		if (ls->n > CV_BENCH_MAX_LAYERS)
			return too_many(name, err);
	}
	if (r >= 0 && ls->n == 0)
		r = cv_err_set(err, CV_EDATA, "%.300s: no layers in it", name);
	return r < 0 ? r : 0;
}

int
cv_bench_shapes_parse(const char *text, size_t len, const char *name,
		      unsigned dtypes, unsigned layouts, struct cv_layer **out,
		      size_t *n, struct cv_err *err)
{
	struct layers ls = { NULL, 0, 0 };
	int r = parse_text(text, len, name, dtypes, layouts, &ls, err);

	if (r < 0) {
		free(ls.v);
		ls.v = NULL;
		ls.n = 0;
	}
	*out = ls.v;
	*n = ls.n;
	return r;
}

/* A regular file only, opened without blocking (cv_fs_read_head): a FIFO
 * named as --shapes would hang bench until someone wrote to it. */
static int
read_file(const char *path, unsigned dtypes, unsigned layouts,
	  struct layers *ls, struct cv_err *err)
{
	char *text = xmalloc(SHAPES_MAX_BYTES + 1);
	ssize_t got =
		cv_fs_read_head(CV_AT_CWD, path, 0, text, SHAPES_MAX_BYTES + 1);
	int r;

	if (got < 0 && errno == EINVAL)
		r = cv_err_set(err, CV_EUSAGE,
			       "--shapes %.300s is not a regular file (a "
			       "FIFO or a device is not read)",
			       path);
	else if (got < 0)
		r = cv_err_errno(err, errno == ENOENT ? CV_EUSAGE : CV_EIO,
				 "--shapes %.300s", path);
	else if ((size_t)got == SHAPES_MAX_BYTES)
		r = cv_err_set(err, CV_EDATA,
			       "%.300s: over %d MiB; split it into smaller "
			       "files",
			       path, SHAPES_MAX_BYTES >> 20);
	else
		r = parse_text(text, (size_t)got, path, dtypes, layouts, ls,
			       err);
	free(text);
	return r;
}

int
cv_bench_layers(const char *set, unsigned dtypes, unsigned layouts,
		struct cv_layer **out, size_t *n, struct cv_err *err)
{
	struct layers ls = { NULL, 0, 0 };
	int r = 0;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
		if (strcmp(set, sets[i].name) == 0) {
			builtin(&sets[i], dtypes, layouts, &ls);
			if (ls.n > CV_BENCH_MAX_LAYERS) {
				free(ls.v);
				return too_many(set, err);
			}
			*out = ls.v;
			*n = ls.n;
			return 0;
		}
	if (strchr(set, '/') == NULL && strchr(set, '.') == NULL)
		return cv_err_set(err, CV_EUSAGE,
				  "unknown layer set '%.40s' (resnet50, "
				  "resnet50-b1, or a file path)",
				  set);
	r = read_file(set, dtypes, layouts, &ls, err);
	if (r < 0) {
		free(ls.v);
		return r;
	}
	*out = ls.v;
	*n = ls.n;
	return 0;
}

void
cv_layer_encode(const struct cv_layer *l, char *buf, size_t n)
{
	snprintf(buf, n, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%s", l->n, l->c,
		 l->h, l->w, l->k, l->r, l->s, l->stride, l->pad, l->dilation,
		 l->groups, cv_dtype_name(l->dtype), cv_layout_name(l->layout));
}

int
cv_layer_decode(const char *s, struct cv_layer *l)
{
	char *line = xasprintf("x %s", s);
	int hd, hl, r = cv_layer_parse(line, l, &hd, &hl, NULL);

	free(line);
	return r == 1 && hd && hl ? 0 : -1;
}

/* ---- running a version ----------------------------------------------------
 */

static const char *const status_names[] = { "not run", "ok", "unsupported",
					    "wrong" };

const char *
cv_bench_status_name(int status)
{
	return status >= 0 && status <= CV_BENCH_WRONG ? status_names[status]
						       : "?";
}

struct collect {
	struct cv_bench_run *out;
	const struct cv_layer *layers;
	size_t nlayers;
};

static double
num(struct cv_json *o, const char *key)
{
	return cv_json_number_value(cv_json_object_get(o, key));
}

static void
take_layer(struct collect *c, struct cv_json *o)
{
	int64_t i = cv_json_integer_value(cv_json_object_get(o, "i"));
	const char *st = cv_json_string_value(cv_json_object_get(o, "status"));
	const char *how = cv_json_string_value(cv_json_object_get(o, "how"));
	const char *why = cv_json_string_value(cv_json_object_get(o, "reason"));
	const char *fallback =
		cv_json_string_value(cv_json_object_get(o, "engine_fallback"));
	struct cv_json *engine = cv_json_object_get(o, "engine");
	struct cv_bench_result *r;

	if (i < 0 || (size_t)i >= c->nlayers || st == NULL)
		return;
	r = &c->out->res[i];
	r->status = strcmp(st, "ok") == 0            ? CV_BENCH_OK
		    : strcmp(st, "wrong") == 0       ? CV_BENCH_WRONG
		    : strcmp(st, "unsupported") == 0 ? CV_BENCH_UNSUPPORTED
						     : CV_BENCH_NOTRUN;
	r->algo = (int)cv_json_integer_value(cv_json_object_get(o, "algo"));
	r->engine = cv_json_is_integer(engine)
			    ? (long)cv_json_integer_value(engine)
			    : -1;
	r->runs = (int)cv_json_integer_value(cv_json_object_get(o, "runs"));
	r->rejected =
		(int)cv_json_integer_value(cv_json_object_get(o, "rejected"));
	r->ms = num(o, "ms");
	r->min_ms = num(o, "min_ms");
	r->max_ms = num(o, "max_ms");
	r->q1_ms = num(o, "q1_ms");
	r->q3_ms = num(o, "q3_ms");
	r->max_err = num(o, "max_err");
	r->tflops = r->status == CV_BENCH_OK && r->ms > 0
			    ? cv_layer_flops(&c->layers[i]) / (r->ms * 1e9)
			    : 0;
	snprintf(r->how, sizeof r->how, "%s", how ? how : "");
	snprintf(r->reason, sizeof r->reason, "%s", why ? why : "");
	snprintf(r->engine_fallback, sizeof r->engine_fallback, "%s",
		 fallback ? fallback : "");
}

static void
on_line(void *payload, const char *line)
{
	struct collect *c = payload;
	struct cv_json *o = cv_json_loads(line, 0, NULL);
	const char *k = cv_json_string_value(cv_json_object_get(o, "k"));

	if (k != NULL && strcmp(k, "layer") == 0)
		take_layer(c, o);
	else if (k != NULL && strcmp(k, "gpuinfo") == 0) {
		c->out->gpu.sm_count = (int)num(o, "sm_count");
		c->out->gpu.sm_clock_khz = (int)num(o, "sm_clock_khz");
		c->out->gpu.mem_clock_khz = (int)num(o, "mem_clock_khz");
	}
	cv_json_decref(o);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
cv_bench_version(const char *dir, const struct cv_installed *inst,
		 const struct cv_layer *layers, size_t nlayers,
		 const struct cv_bench_opts *opts, struct cv_bench_run *out,
		 struct cv_err *err)
{
	struct cv_validate_opts vo = CV_VALIDATE_OPTS_INIT;
	struct collect c = { out, layers, nlayers };
	char **args = xcalloc(2 * nlayers + 6, sizeof *args);
	size_t na = 0;
	double t0 = now_s();
	int r;

	memset(out, 0, sizeof *out);
	out->res = xcalloc(nlayers ? nlayers : 1, sizeof *out->res);
	args[na++] = xstrdup("--bench-runs");
	args[na++] = xasprintf("%d", opts->runs);
	args[na++] = xstrdup("--bench-warmup");
	args[na++] = xasprintf("%d", opts->warmup);
	for (size_t i = 0; i < nlayers; i++) {
		char enc[256];
		cv_layer_encode(&layers[i], enc, sizeof enc);
		args[na++] = xstrdup("--bench-layer");
		args[na++] = xstrdup(enc);
	}
	args[na] = NULL;
	vo.self_exe = opts->self_exe;
	vo.timeout_s = opts->timeout_s ? opts->timeout_s : 600;
	vo.extra_args = args;
	vo.on_line = on_line;
	vo.payload = &c;
	vo.stop = opts->stop;
	r = cv_validate(dir, inst, &vo, &out->v, err);
	for (size_t i = 0; i < na; i++)
		free(args[i]);
	free(args);
	out->seconds = now_s() - t0;
	if (r < 0)
		return r;
	out->gpu.driver_version = out->v.driver_version;
	out->gpu.cc_major = out->v.cc_major;
	out->gpu.cc_minor = out->v.cc_minor;
	snprintf(out->gpu.name, sizeof out->gpu.name, "%s", out->v.gpu);
	if (cv_validation_failed(&out->v) >= 0) {
		/* Figures from a version that failed (even after the layers
		 * ran, say a foreign engine library) are not kept. */
		for (size_t i = 0; i < nlayers; i++)
			memset(&out->res[i], 0, sizeof out->res[i]);
		return 0;
	}
	if (out->v.step[CV_STEP_GPU].status != CV_CHECK_PASS) {
		out->no_gpu = 1;
		return 0;
	}
	out->benched = 1;
	return 0;
}

void
cv_bench_run_release(struct cv_bench_run *r)
{
	free(r->res);
	r->res = NULL;
}

int
cv_bench_fastest(const struct cv_bench_run *runs, size_t nruns, size_t layer)
{
	int best = -1;

	for (size_t i = 0; i < nruns; i++) {
		const struct cv_bench_result *x;
		if (!runs[i].benched)
			continue;
		x = &runs[i].res[layer];
		if (x->status == CV_BENCH_OK &&
		    (best < 0 || x->ms < runs[best].res[layer].ms))
			best = (int)i;
	}
	return best;
}

/* ---- JSON -----------------------------------------------------------------
 */

static struct cv_json *
layer_json(const struct cv_layer *l)
{
	return cv_json_pack(
		"{s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,"
		"s:s,s:s,s:i,s:i,s:f}",
		"name", l->name, "n", l->n, "c", l->c, "h", l->h, "w", l->w,
		"k", l->k, "r", l->r, "s", l->s, "stride", l->stride, "pad",
		l->pad, "dilation", l->dilation, "groups", l->groups, "dtype",
		cv_dtype_name(l->dtype), "layout", cv_layout_name(l->layout),
		"out_h", cv_layer_out_h(l), "out_w", cv_layer_out_w(l), "gflop",
		cv_layer_flops(l) / 1e9);
}

static struct cv_json *
result_json(const struct cv_bench_result *x)
{
	struct cv_json *o = cv_json_pack("{s:s}", "status",
					 cv_bench_status_name(x->status));

	if (x->status == CV_BENCH_OK)
		cv_json_object_update_new(
			o, cv_json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:i,s:i,s:i,"
					"s:s,s:f}",
					"ms", x->ms, "min_ms", x->min_ms,
					"max_ms", x->max_ms, "q1_ms", x->q1_ms,
					"q3_ms", x->q3_ms, "tflops", x->tflops,
					"algo", x->algo, "runs", x->runs,
					"rejected", x->rejected, "chosen_by",
					x->how, "max_rel_err", x->max_err));
	else if (x->status != CV_BENCH_NOTRUN)
		cv_json_object_set_new(o, "reason", cv_json_string(x->reason));
	if (x->status == CV_BENCH_OK && strcmp(x->how, "engines") == 0) {
		/* an engine, not a legacy algorithm, was timed */
		cv_json_object_set_new(o, "algo", cv_json_null());
		cv_json_object_set_new(o, "engine", cv_json_integer(x->engine));
	} else if (x->status == CV_BENCH_OK)
		cv_json_object_set_new(o, "engine", cv_json_null());
	if (x->engine_fallback[0] != '\0')
		cv_json_object_set_new(o, "engine_fallback",
				       cv_json_string(x->engine_fallback));
	return o;
}

char *
cv_bench_json(const struct cv_layer *layers, size_t nlayers,
	      const struct cv_bench_run *runs, size_t nruns,
	      const struct cv_bench_opts *opts)
{
	struct cv_json *root = cv_json_object(), *jl = cv_json_array(),
		       *jv = cv_json_array();
	const struct cv_bench_gpu *gpu = NULL;
	char *s, *out;

	for (size_t i = 0; i < nruns; i++)
		if (runs[i].benched && gpu == NULL)
			gpu = &runs[i].gpu;
	for (size_t i = 0; i < nlayers; i++) {
		struct cv_json *o = layer_json(&layers[i]);
		int f = cv_bench_fastest(runs, nruns, i);
		cv_json_object_set_new(o, "fastest",
				       f >= 0 ? cv_json_string(runs[f].v.id)
					      : cv_json_null());
		cv_json_array_append_new(jl, o);
	}
	for (size_t i = 0; i < nruns; i++) {
		const struct cv_bench_run *b = &runs[i];
		char *vj = cv_validation_json(&b->v);
		struct cv_json *res = cv_json_array();
		struct cv_json *o = cv_json_pack(
			"{s:s,s:b,s:I,s:I,s:o,s:f}", "id", b->v.id,
			"benchmarked", b->benched, "cudnn_version",
			(int64_t)b->v.cudnn_version, "cudart_version",
			(int64_t)b->v.cudart_version, "validation",
			cv_json_loads(vj, 0, NULL), "seconds", b->seconds);
		free(vj);
		for (size_t j = 0; j < nlayers; j++)
			cv_json_array_append_new(res, result_json(&b->res[j]));
		cv_json_object_set_new(o, "results", res);
		cv_json_array_append_new(jv, o);
	}
	cv_json_object_set_new(
		root, "gpu",
		gpu == NULL
			? cv_json_null()
			: cv_json_pack("{s:s,s:i,s:i,s:i,s:i,s:i,s:i}", "name",
				       gpu->name, "cc_major", gpu->cc_major,
				       "cc_minor", gpu->cc_minor, "sm_count",
				       gpu->sm_count, "sm_clock_khz",
				       gpu->sm_clock_khz, "mem_clock_khz",
				       gpu->mem_clock_khz, "driver_version",
				       gpu->driver_version));
	cv_json_object_set_new(root, "runs", cv_json_integer(opts->runs));
	cv_json_object_set_new(root, "warmup", cv_json_integer(opts->warmup));
	cv_json_object_set_new(root, "statistic", cv_json_string("median"));
	cv_json_object_set_new(root, "layers", jl);
	cv_json_object_set_new(root, "versions", jv);
	s = cv_json_dumps(root, CV_JSON_INDENT(2));
	cv_json_decref(root);
	out = xstrdup(s ? s : "{}");
	free(s);
	return out;
}
