/* bench_probe.c: the timing half of `cudnnvm bench`, run inside the
 * validation child once all five steps passed (so the library already
 * loaded from its own folder and computed a checked convolution). Per
 * layer it picks the algorithm the way frameworks do: on cuDNN 9 as
 * PyTorch does with cudnn.benchmark (a backend operation graph, the
 * engine configs heuristics mode A and the fallback list offer, each
 * finalized and timed, the fastest kept), else, or when that path fails,
 * cudnnFindConvolutionForwardAlgorithm (the v7 heuristic without it). It
 * checks the pick's output against a reference algorithm's (a fast wrong
 * answer is rejected and the next one tried), warms up, then times each
 * run with driver-API events. One JSON line per layer; the parent does
 * the rest. Like probe.c it declares the few prototypes and enum values
 * it needs (checked against cudnn_graph.h): no CUDA or cuDNN header. */
#include "base/base.h"
#include "store/store.h"
#include "validate/validate_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *obj;
typedef unsigned long long dptr;
enum {
	DT_FLOAT = 0,
	DT_HALF = 2,
	DT_BF16 = 9,
	CROSS_CORRELATION = 1,
	DEFAULT_MATH = 0,
	TENSOR_OP_MATH = 1,
	ALGO_IMPLICIT_GEMM = 0,
	ALGO_IMPLICIT_PRECOMP_GEMM = 1,
	NALGO = 8, /* CUDNN_CONVOLUTION_FWD_ALGO_COUNT */
	ATTR_CLOCK_KHZ = 13,
	ATTR_SM_COUNT = 16,
	ATTR_MEM_CLOCK_KHZ = 36,
	ATTR_CC_MAJOR = 75,
	ATTR_CC_MINOR = 76,
};
/* The backend (graph) API, cudnn_graph.h of cuDNN 9. */
enum {
	BK_CONVOLUTION = 1, /* cudnnBackendDescriptorType_t */
	BK_ENGINE = 2,
	BK_ENGINECFG = 3,
	BK_ENGINEHEUR = 4,
	BK_EXECUTION_PLAN = 5,
	BK_OPERATION_CONVOLUTION_FORWARD = 10,
	BK_OPERATIONGRAPH = 15,
	BK_VARIANT_PACK = 16,
	BK_TENSOR = 17,
	TYPE_HANDLE = 0, /* cudnnBackendAttributeType_t */
	TYPE_DATA_TYPE = 1,
	TYPE_INT64 = 3,
	TYPE_FLOAT = 4,
	TYPE_VOID_PTR = 6,
	TYPE_CONVOLUTION_MODE = 7,
	TYPE_HEUR_MODE = 8,
	TYPE_BACKEND_DESCRIPTOR = 15,
	HEUR_MODE_FALLBACK = 2, /* cudnnBackendHeurMode_t */
	HEUR_MODE_A = 3,
	A_CONV_COMP_TYPE = 100, /* cudnnBackendAttributeName_t */
	A_CONV_CONV_MODE = 101,
	A_CONV_DILATIONS = 102,
	A_CONV_FILTER_STRIDES = 103,
	A_CONV_POST_PADDINGS = 104,
	A_CONV_PRE_PADDINGS = 105,
	A_CONV_SPATIAL_DIMS = 106,
	A_ENGINEHEUR_MODE = 200,
	A_ENGINEHEUR_OPERATION_GRAPH = 201,
	A_ENGINEHEUR_RESULTS = 202,
	A_ENGINECFG_ENGINE = 300,
	A_PLAN_HANDLE = 400,
	A_PLAN_ENGINE_CONFIG = 401,
	A_PLAN_WORKSPACE_SIZE = 402,
	A_CONV_FWD_ALPHA = 700,
	A_CONV_FWD_BETA = 701,
	A_CONV_FWD_CONV_DESC = 702,
	A_CONV_FWD_W = 703,
	A_CONV_FWD_X = 704,
	A_CONV_FWD_Y = 705,
	A_OPERATIONGRAPH_HANDLE = 800,
	A_OPERATIONGRAPH_OPS = 801,
	A_TENSOR_BYTE_ALIGNMENT = 900,
	A_TENSOR_DATA_TYPE = 901,
	A_TENSOR_DIMENSIONS = 902,
	A_TENSOR_STRIDES = 903,
	A_TENSOR_UNIQUE_ID = 906,
	A_VARIANT_PACK_UNIQUE_IDS = 1000,
	A_VARIANT_PACK_DATA_POINTERS = 1001,
	A_VARIANT_PACK_WORKSPACE = 1003,
	A_ENGINE_GLOBAL_INDEX = 1301,
};
typedef int (*search_fn)(obj, obj, obj, obj, obj, int, int *,
			 struct cv_cudnn_fwd_perf *);

struct api {
	int (*create)(obj *);
	int (*create_tensor)(obj *);
	int (*create_filter)(obj *);
	int (*create_conv)(obj *);
	int (*set_tensor)(obj, int, int, int, int, int, int);
	int (*set_filter)(obj, int, int, int, int, int, int);
	int (*set_conv)(obj, int, int, int, int, int, int, int, int);
	int (*set_math)(obj, int);
	int (*set_groups)(obj, int);
	int (*out_dim)(obj, obj, obj, int *, int *, int *, int *);
	search_fn find, heuristic;
	int (*ws)(obj, obj, obj, obj, obj, int, size_t *);
	int (*fwd)(obj, const void *, obj, dptr, obj, dptr, obj, int, dptr,
		   size_t, const void *, obj, dptr);
	const char *(*errstr)(int);
	/* backend API (all six, or none used) */
	int (*bk_create)(int, obj *);
	int (*bk_destroy)(obj);
	int (*bk_finalize)(obj);
	int (*bk_set)(obj, int, int, int64_t, const void *);
	int (*bk_get)(obj, int, int, int64_t, int64_t *, void *);
	int (*bk_execute)(obj, obj, obj);
	/* driver API */
	int (*attr)(int *, int, int);
	int (*alloc)(dptr *, size_t);
	int (*mfree)(dptr);
	int (*htod)(dptr, const void *, size_t);
	int (*dtoh)(void *, dptr, size_t);
	int (*sync)(void);
	int (*ev_create)(obj *, unsigned);
	int (*ev_record)(obj, obj);
	int (*ev_sync)(obj);
	int (*ev_elapsed)(float *, obj, obj);
};

struct bench {
	const struct cv_probe_args *a;
	struct api api;
	int fd, cc_major, cc_minor;
	char missing[64]; /* a required symbol that is absent */
	obj handle, xd, wd, yd, cd;
	obj *ev; /* runs + 1 events */
};

/* One layer's device buffers and what was learned about it. */
struct layer_run {
	const struct cv_layer *l;
	int dt, p, q;
	size_t esize, nx, nw, ny;
	dptr x, w, y, yref, ws;
	size_t wsz;
	float *href, *hy; /* host copies, as floats */
	struct cv_json *out;
};

static void
load(void *lib, void *field, const char *name, int required, struct bench *b)
{
	void *f = lib ? cv_dl_sym(lib, name) : NULL;

	memcpy(field, &f, sizeof f);
	if (f == NULL && required && b->missing[0] == '\0')
		snprintf(b->missing, sizeof b->missing, "%s", name);
}

static void
load_api(struct bench *b, void *cudnn, void *cuda)
{
	struct api *x = &b->api;

	load(cudnn, &x->create, "cudnnCreate", 1, b);
	load(cudnn, &x->create_tensor, "cudnnCreateTensorDescriptor", 1, b);
	load(cudnn, &x->create_filter, "cudnnCreateFilterDescriptor", 1, b);
	load(cudnn, &x->create_conv, "cudnnCreateConvolutionDescriptor", 1, b);
	load(cudnn, &x->set_tensor, "cudnnSetTensor4dDescriptor", 1, b);
	load(cudnn, &x->set_filter, "cudnnSetFilter4dDescriptor", 1, b);
	load(cudnn, &x->set_conv, "cudnnSetConvolution2dDescriptor", 1, b);
	load(cudnn, &x->out_dim, "cudnnGetConvolution2dForwardOutputDim", 1, b);
	load(cudnn, &x->ws, "cudnnGetConvolutionForwardWorkspaceSize", 1, b);
	load(cudnn, &x->fwd, "cudnnConvolutionForward", 1, b);
	load(cudnn, &x->set_math, "cudnnSetConvolutionMathType", 0, b);
	load(cudnn, &x->set_groups, "cudnnSetConvolutionGroupCount", 0, b);
	load(cudnn, &x->find, "cudnnFindConvolutionForwardAlgorithm", 0, b);
	load(cudnn, &x->heuristic, "cudnnGetConvolutionForwardAlgorithm_v7", 0,
	     b);
	load(cudnn, &x->errstr, "cudnnGetErrorString", 0, b);
	load(cudnn, &x->bk_create, "cudnnBackendCreateDescriptor", 0, b);
	load(cudnn, &x->bk_destroy, "cudnnBackendDestroyDescriptor", 0, b);
	load(cudnn, &x->bk_finalize, "cudnnBackendFinalize", 0, b);
	load(cudnn, &x->bk_set, "cudnnBackendSetAttribute", 0, b);
	load(cudnn, &x->bk_get, "cudnnBackendGetAttribute", 0, b);
	load(cudnn, &x->bk_execute, "cudnnBackendExecute", 0, b);
	load(cuda, &x->attr, "cuDeviceGetAttribute", 1, b);
	load(cuda, &x->alloc, "cuMemAlloc_v2", 1, b);
	load(cuda, &x->mfree, "cuMemFree_v2", 1, b);
	load(cuda, &x->htod, "cuMemcpyHtoD_v2", 1, b);
	load(cuda, &x->dtoh, "cuMemcpyDtoH_v2", 1, b);
	load(cuda, &x->sync, "cuCtxSynchronize", 1, b);
	load(cuda, &x->ev_create, "cuEventCreate", 1, b);
	load(cuda, &x->ev_record, "cuEventRecord", 1, b);
	load(cuda, &x->ev_sync, "cuEventSynchronize", 1, b);
	/* CUDA 12.8 added _v2 (the same call, defined on more streams). */
	load(cuda, &x->ev_elapsed, "cuEventElapsedTime_v2", 0, b);
	if (x->ev_elapsed == NULL)
		load(cuda, &x->ev_elapsed, "cuEventElapsedTime", 1, b);
	if (x->find == NULL && x->heuristic == NULL && !b->missing[0])
		snprintf(b->missing, sizeof b->missing, "%s",
			 "cudnnFindConvolutionForwardAlgorithm");
}

static const char *
errstr(const struct bench *b, int st)
{
	const char *s = b->api.errstr ? b->api.errstr(st) : NULL;
	return s ? s : "unknown status";
}

/* ---- numbers ------------------------------------------------------------ */

static uint16_t
to_half(float f)
{
	uint32_t x, sign, mant, h, rem, halfway;
	int exp;

	memcpy(&x, &f, sizeof x);
	sign = (x >> 16) & 0x8000u;
	exp = (int)((x >> 23) & 0xff) - 127 + 15;
	mant = x & 0x7fffffu;
	if (exp >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (exp <= 0) { /* subnormal or zero */
		int shift;
		if (exp < -10)
			return (uint16_t)sign;
		mant |= 0x800000u;
		shift = 14 - exp;
		h = mant >> shift;
		rem = mant & ((1u << shift) - 1);
		halfway = 1u << (shift - 1);
	} else {
		h = ((uint32_t)exp << 10) | (mant >> 13);
		rem = mant & 0x1fffu;
		halfway = 0x1000u;
	}
	if (rem > halfway || (rem == halfway && (h & 1)))
		h++; /* round to nearest even; a carry moves the exponent */
	return (uint16_t)(sign | h);
}

static float
from_half(uint16_t h)
{
	int exp = (h >> 10) & 0x1f;
	unsigned mant = h & 0x3ffu;
	float f;

	if (exp == 0)
		f = ldexpf((float)mant, -24);
	else if (exp == 31)
		f = mant ? NAN : INFINITY;
	else
		f = ldexpf((float)(mant | 0x400u), exp - 25);
	return (h & 0x8000u) ? -f : f;
}

static uint16_t
to_bf16(float f)
{
	uint32_t x;

	memcpy(&x, &f, sizeof x);
	return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

static float
from_bf16(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;

	memcpy(&f, &x, sizeof f);
	return f;
}

static float
element(const void *buf, size_t i, int dt)
{
	uint16_t h;

	if (dt == DT_FLOAT)
		return ((const float *)buf)[i];
	memcpy(&h, (const char *)buf + 2 * i, 2);
	return dt == DT_HALF ? from_half(h) : from_bf16(h);
}

/* Deterministic values in [-1, 1], stored as the layer's type. */
static void *
random_data(size_t n, int dt, unsigned seed)
{
	size_t esize = dt == DT_FLOAT ? 4 : 2;
	char *buf = xmalloc(n * esize);

	for (size_t i = 0; i < n; i++) {
		float v;
		uint16_t h;
		seed = seed * 1103515245u + 12345u;
		v = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
		if (dt == DT_FLOAT) {
			memcpy(buf + 4 * i, &v, 4);
			continue;
		}
		h = dt == DT_HALF ? to_half(v) : to_bf16(v);
		memcpy(buf + 2 * i, &h, 2);
	}
	return buf;
}

static int
cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

/* ---- one layer ---------------------------------------------------------- */

static int
device_alloc(struct bench *b, dptr *p, size_t bytes)
{
	*p = 0;
	return b->api.alloc(p, bytes ? bytes : 1);
}

static void
free_run(struct bench *b, struct layer_run *r)
{
	dptr *all[] = { &r->x, &r->w, &r->y, &r->yref, &r->ws };

	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (*all[i] != 0) {
			b->api.mfree(*all[i]);
			*all[i] = 0;
		}
	free(r->href);
	free(r->hy);
	r->href = r->hy = NULL;
}

static int
fwd(struct bench *b, struct layer_run *r, int algo, dptr out)
{
	float alpha = 1.0f, beta = 0.0f;

	return b->api.fwd(b->handle, &alpha, b->xd, r->x, b->wd, r->w, b->cd,
			  algo, r->ws, r->wsz, &beta, b->yd, out);
}

/* Make r->ws at least `need` bytes. 0, or a driver status. */
static int
grow_workspace(struct bench *b, struct layer_run *r, size_t need)
{
	int st;

	if (need <= r->wsz)
		return 0;
	if (r->ws != 0)
		b->api.mfree(r->ws);
	r->ws = 0;
	r->wsz = 0;
	st = device_alloc(b, &r->ws, need);
	if (st == 0)
		r->wsz = need;
	return st;
}

/* Make r->ws large enough for `algo`. 0, or a cuDNN/driver status. */
static int
workspace_for(struct bench *b, struct layer_run *r, int algo)
{
	size_t need = 0;
	int st = b->api.ws(b->handle, b->xd, b->wd, b->cd, b->yd, algo, &need);

	return st != 0 ? st : grow_workspace(b, r, need);
}

/* What was picked: a legacy algorithm, or an execution plan run with a
 * variant pack that writes r->y. */
struct pick {
	int algo;
	obj plan, pack;
};

static int
run_pick(struct bench *b, struct layer_run *r, const struct pick *p)
{
	if (p->plan != NULL)
		return b->api.bk_execute(b->handle, p->plan, p->pack);
	return fwd(b, r, p->algo, r->y);
}

static void set_status(struct layer_run *r, const char *status, const char *fmt,
		       ...) __attribute__((format(printf, 3, 4)));
static void
set_status(struct layer_run *r, const char *status, const char *fmt, ...)
{
	char reason[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	cv_json_object_set_new(r->out, "status", cv_json_string(status));
	cv_json_object_set_new(r->out, "reason", cv_json_string(reason));
}

/* Describe the layer to cuDNN; 0, or a status with r->out set. */
static int
describe(struct bench *b, struct layer_run *r)
{
	const struct cv_layer *l = r->l;
	int fmt = l->layout == CV_LAYOUT_NHWC ? 1 : 0, n, k, st;
	const char *what = NULL;

	r->dt = l->dtype == CV_DTYPE_FP16   ? DT_HALF
		: l->dtype == CV_DTYPE_BF16 ? DT_BF16
					    : DT_FLOAT;
	r->esize = r->dt == DT_FLOAT ? 4 : 2;
	if (l->dtype == CV_DTYPE_BF16 &&
	    (b->a->expect < 8100 || b->cc_major < 8)) {
		set_status(r, "unsupported",
			   "bf16 needs cuDNN 8.1 or newer on sm_80 or newer");
		return -1;
	}
	if (l->groups > 1 && b->api.set_groups == NULL) {
		set_status(r, "unsupported",
			   "this cuDNN has no grouped convolution");
		return -1;
	}
#define TRY(call, name)                   \
	do {                              \
		if ((st = (call)) != 0) { \
			what = name;      \
			goto bad;         \
		}                         \
	} while (0)
	TRY(b->api.set_tensor(b->xd, fmt, r->dt, l->n, l->c, l->h, l->w),
	    "cudnnSetTensor4dDescriptor");
	TRY(b->api.set_filter(b->wd, r->dt, fmt, l->k, l->c / l->groups, l->r,
			      l->s),
	    "cudnnSetFilter4dDescriptor");
	/* Accumulate in fp32 for every type, as frameworks do. */
	TRY(b->api.set_conv(b->cd, l->pad, l->pad, l->stride, l->stride,
			    l->dilation, l->dilation, CROSS_CORRELATION,
			    DT_FLOAT),
	    "cudnnSetConvolution2dDescriptor");
	if (b->api.set_groups != NULL)
		TRY(b->api.set_groups(b->cd, l->groups),
		    "cudnnSetConvolutionGroupCount");
	/* Tensor cores for fp16/bf16; fp32 keeps the default math, which
	 * lets cuDNN use TF32 on Ampere and later as PyTorch does. */
	if (b->api.set_math != NULL)
		TRY(b->api.set_math(b->cd, r->dt == DT_FLOAT ? DEFAULT_MATH
							     : TENSOR_OP_MATH),
		    "cudnnSetConvolutionMathType");
	TRY(b->api.out_dim(b->cd, b->xd, b->wd, &n, &k, &r->p, &r->q),
	    "cudnnGetConvolution2dForwardOutputDim");
	TRY(b->api.set_tensor(b->yd, fmt, r->dt, n, k, r->p, r->q),
	    "cudnnSetTensor4dDescriptor");
#undef TRY
	r->nx = (size_t)l->n * (size_t)l->c * (size_t)l->h * (size_t)l->w;
	r->nw = (size_t)l->k * (size_t)(l->c / l->groups) * (size_t)l->r *
		(size_t)l->s;
	r->ny = (size_t)n * (size_t)k * (size_t)r->p * (size_t)r->q;
	return 0;
bad:
	set_status(r, "unsupported", "%s: %s (%d)", what, errstr(b, st), st);
	return st;
}

/* Fill n elements at dst with one block of random values repeated:
 * generating ResNet-50's 51 M-element inputs on the host would cost more
 * than timing them, and the values' period does not matter to the speed. */
#define TILE ((size_t)1 << 20)
static int
upload_tiled(struct bench *b, dptr dst, size_t n, int dt, unsigned seed)
{
	size_t esize = dt == DT_FLOAT ? 4 : 2, tile = n < TILE ? n : TILE;
	void *block = random_data(tile, dt, seed);
	int st = 0;

	for (size_t off = 0; off < n && st == 0; off += tile) {
		size_t len = n - off < tile ? n - off : tile;
		st = b->api.htod(dst + off * esize, block, len * esize);
	}
	free(block);
	return st;
}

static int
upload(struct bench *b, struct layer_run *r)
{
	int st;

	if ((st = device_alloc(b, &r->x, r->nx * r->esize)) != 0 ||
	    (st = device_alloc(b, &r->w, r->nw * r->esize)) != 0 ||
	    (st = device_alloc(b, &r->y, r->ny * r->esize)) != 0 ||
	    (st = device_alloc(b, &r->yref, r->ny * r->esize)) != 0) {
		set_status(r, "unsupported",
			   "cannot allocate %.0f MB on the GPU (CUDA error %d)",
			   (double)((r->nx + r->nw + 2 * r->ny) * r->esize) /
				   1e6,
			   st);
		return st;
	}
	st = upload_tiled(b, r->x, r->nx, r->dt, 12345u);
	if (st == 0)
		st = upload_tiled(b, r->w, r->nw, r->dt, 54321u);
	if (st != 0)
		set_status(r, "unsupported",
			   "cannot copy to the GPU (CUDA error %d)", st);
	return st;
}

/* How many output elements are compared: all of a small output, else
 * CHECK_CHUNKS blocks of TILE spread evenly over it (a wrong algorithm is
 * wrong everywhere; reading 100 MB twice per layer would be slower than
 * timing it). */
#define CHECK_CHUNKS 4
static size_t
checked(const struct layer_run *r)
{
	return r->ny <= CHECK_CHUNKS * TILE ? r->ny : CHECK_CHUNKS * TILE;
}

/* Read the checked part of a device output back as floats. */
static int
fetch(struct bench *b, const struct layer_run *r, dptr src, float **out)
{
	size_t n = checked(r), chunk = n == r->ny ? n : TILE;
	char *raw = xmalloc(n * r->esize);
	int st;

	if (*out == NULL)
		*out = xmalloc(n * sizeof **out);
	st = b->api.sync();
	for (size_t c = 0; st == 0 && c < n / chunk; c++) {
		size_t from = n == r->ny ? 0 : c * (r->ny / CHECK_CHUNKS);
		st = b->api.dtoh(raw + c * chunk * r->esize,
				 src + from * r->esize, chunk * r->esize);
	}
	for (size_t i = 0; st == 0 && i < n; i++)
		(*out)[i] = element(raw, i, r->dt);
	free(raw);
	return st;
}

/* The reference output: IMPLICIT_GEMM, the plainest algorithm, else
 * IMPLICIT_PRECOMP_GEMM, else the last (slowest) candidate that runs.
 * Returns the algorithm, or -1 with r->out set. */
static int
reference(struct bench *b, struct layer_run *r,
	  const struct cv_cudnn_fwd_perf *c, int nc)
{
	int order[NALGO + 2], n = 0, st = 0;

	order[n++] = ALGO_IMPLICIT_GEMM;
	order[n++] = ALGO_IMPLICIT_PRECOMP_GEMM;
	for (int i = nc - 1; i >= 0 && n < NALGO + 2; i--)
		order[n++] = c[i].algo;
	for (int i = 0; i < n; i++) {
		if ((st = workspace_for(b, r, order[i])) != 0 ||
		    (st = fwd(b, r, order[i], r->yref)) != 0)
			continue;
		if ((st = fetch(b, r, r->yref, &r->href)) == 0)
			return order[i];
	}
	set_status(r, "unsupported", "no forward algorithm runs: %s (%d)",
		   errstr(b, st), st);
	return -1;
}

/* Largest difference against the reference, relative to its largest
 * magnitude (NaN or Inf anywhere counts as infinitely wrong). */
static double
rel_error(const float *y, const float *ref, size_t n)
{
	double maxref = 0, maxdiff = 0;

	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)y[i] - (double)ref[i]);
		if (!isfinite(d))
			return INFINITY;
		if (d > maxdiff)
			maxdiff = d;
		if (fabs((double)ref[i]) > maxref)
			maxref = fabs((double)ref[i]);
	}
	return maxdiff / (maxref > 0 ? maxref : 1);
}

static double
tolerance(int dt)
{
	/* Different algorithms round differently: fp16's and TF32's 10-bit
	 * mantissas stay well inside 1%, bf16's 7 bits inside 4%. A wrong
	 * algorithm misses by far more. */
	return dt == DT_BF16 ? 4e-2 : 1e-2;
}

/* The algorithms to try, fastest (find) or preferred (heuristic) first. */
static int
candidates(struct bench *b, struct layer_run *r, struct cv_cudnn_fwd_perf *c)
{
	struct cv_cudnn_fwd_perf perf[NALGO];
	int got = 0, n = 0, st;
	const char *how = b->api.find ? "find" : "heuristic";
	search_fn search = b->api.find ? b->api.find : b->api.heuristic;

	memset(perf, 0, sizeof perf);
	st = search(b->handle, b->xd, b->wd, b->cd, b->yd, NALGO, &got, perf);
	if (st != 0) {
		set_status(r, "unsupported", "%s: %s (%d)",
			   b->api.find
				   ? "cudnnFindConvolutionForwardAlgorithm"
				   : "cudnnGetConvolutionForwardAlgorithm_v7",
			   errstr(b, st), st);
		return -1;
	}
	cv_json_object_set_new(r->out, "how", cv_json_string(how));
	for (int i = 0; i < got && i < NALGO; i++)
		if (perf[i].status == 0)
			c[n++] = perf[i];
	if (n == 0)
		set_status(r, "unsupported",
			   "cuDNN offers no forward algorithm for it");
	return n > 0 ? n : -1;
}

/* 0 when timed (r->out has the figures), else a status (r->out says). */
static int
time_runs(struct bench *b, struct layer_run *r, const struct pick *p)
{
	int runs = b->a->runs, done = 0, st = 0;
	float *t = xcalloc((size_t)runs, sizeof *t);

	/* The runs go back to back, an event between each two, with no
	 * wait until the last: the GPU stays busy, so each interval is the
	 * convolution's own time and not the host's time to launch it (as a
	 * training loop runs, and as torch.cuda.Event timing sees it). */
	for (int i = 0; i < b->a->warmup && st == 0; i++)
		st = run_pick(b, r, p);
	for (int i = 0; i < runs && st == 0; i++)
		if ((st = b->api.ev_record(b->ev[i], NULL)) == 0)
			st = run_pick(b, r, p);
	if (st == 0 && (st = b->api.ev_record(b->ev[runs], NULL)) == 0)
		st = b->api.ev_sync(b->ev[runs]);
	for (; done < runs && st == 0; done++)
		st = b->api.ev_elapsed(&t[done], b->ev[done], b->ev[done + 1]);
	if (st != 0 || done < runs) {
		if (p->plan != NULL)
			set_status(r, "unsupported",
				   "the engine config failed while timed "
				   "(status %d)",
				   st);
		else
			set_status(r, "unsupported",
				   "algo %d failed while timed (status %d)",
				   p->algo, st);
		free(t);
		return st != 0 ? st : -1;
	}
	qsort(t, (size_t)done, sizeof *t, cmp_float);
	cv_json_object_set_new(r->out, "status", cv_json_string("ok"));
	cv_json_object_set_new(r->out, "runs", cv_json_integer(done));
	cv_json_object_set_new(r->out, "ms", cv_json_real(t[done / 2]));
	cv_json_object_set_new(r->out, "min_ms", cv_json_real(t[0]));
	cv_json_object_set_new(r->out, "max_ms", cv_json_real(t[done - 1]));
	cv_json_object_set_new(r->out, "q1_ms", cv_json_real(t[done / 4]));
	cv_json_object_set_new(r->out, "q3_ms", cv_json_real(t[done * 3 / 4]));
	free(t);
	return 0;
}

static void
bench_legacy(struct bench *b, struct layer_run *r)
{
	struct cv_cudnn_fwd_perf c[NALGO];
	struct pick chosen = { 0, NULL, NULL };
	int nc, ref, rejected = 0, pick = -1, st;
	double err = 0, worst = 0;

	if ((nc = candidates(b, r, c)) < 0 ||
	    (ref = reference(b, r, c, nc)) < 0)
		return;
	cv_json_object_set_new(r->out, "ref_algo", cv_json_integer(ref));
	for (int i = 0; i < nc && pick < 0; i++) {
		if ((st = workspace_for(b, r, c[i].algo)) != 0 ||
		    (st = fwd(b, r, c[i].algo, r->y)) != 0 ||
		    (st = fetch(b, r, r->y, &r->hy)) != 0)
			continue; /* a pick that cannot run is no pick */
		err = rel_error(r->hy, r->href, checked(r));
		if (err <= tolerance(r->dt)) {
			pick = c[i].algo;
			break;
		}
		rejected++;
		if (!(err <= worst))
			worst = err;
	}
	cv_json_object_set_new(r->out, "rejected", cv_json_integer(rejected));
	if (pick < 0) {
		if (rejected)
			set_status(r, "wrong",
				   "every algorithm cuDNN offers disagrees "
				   "with algo %d (max relative error %.3g)",
				   ref, isfinite(worst) ? worst : 1e30);
		else
			set_status(r, "unsupported",
				   "no offered algorithm runs");
		return;
	}
	cv_json_object_set_new(r->out, "algo", cv_json_integer(pick));
	cv_json_object_set_new(r->out, "max_err", cv_json_real(err));
	chosen.algo = pick;
	(void)time_runs(b, r, &chosen);
}

/* ---- the engine path (cuDNN 9's backend API) ---------------------------- */

#define MAX_PLANS     10 /* torch.backends.cudnn.benchmark_limit's default */
#define TUNE_RUNS     3  /* timed runs per engine config; the fastest counts */
#define WORKSPACE_CAP ((int64_t)1 << 30)
enum { UID_X = 1, UID_W = 2, UID_Y = 3 };

struct engine_plan {
	obj cfg, plan;
	int64_t engine, ws;
	float ms;
};

struct graph {
	obj t[3]; /* X, W, Y */
	obj conv, op, graph, pack;
	struct engine_plan p[MAX_PLANS];
	int n;
	char why[200]; /* the first failure */
};

static int
has_backend(const struct bench *b)
{
	const struct api *x = &b->api;

	return b->a->expect >= 90000 && x->bk_create && x->bk_destroy &&
	       x->bk_finalize && x->bk_set && x->bk_get && x->bk_execute;
}

static int
bk_check(struct bench *b, struct graph *g, int st, const char *what)
{
	if (st != 0 && g->why[0] == '\0')
		snprintf(g->why, sizeof g->why, "%s: %s (%d)", what,
			 errstr(b, st), st);
	return st;
}

static int
bk_new(struct bench *b, struct graph *g, int type, obj *d)
{
	char what[64];

	*d = NULL;
	snprintf(what, sizeof what, "cudnnBackendCreateDescriptor(%d)", type);
	return bk_check(b, g, b->api.bk_create(type, d), what);
}

static int
bk_set(struct bench *b, struct graph *g, obj d, int name, int type, int64_t n,
       const void *v)
{
	char what[64];

	snprintf(what, sizeof what, "cudnnBackendSetAttribute(%d)", name);
	return bk_check(b, g, b->api.bk_set(d, name, type, n, v), what);
}

static int
bk_done(struct bench *b, struct graph *g, obj d, const char *name)
{
	char what[64];

	snprintf(what, sizeof what, "cudnnBackendFinalize(%s)", name);
	return bk_check(b, g, b->api.bk_finalize(d), what);
}

static void
bk_free(struct bench *b, obj *d)
{
	if (*d != NULL)
		b->api.bk_destroy(*d);
	*d = NULL;
}

static void
graph_free(struct bench *b, struct graph *g)
{
	for (int i = 0; i < g->n; i++) {
		bk_free(b, &g->p[i].plan);
		bk_free(b, &g->p[i].cfg);
	}
	bk_free(b, &g->pack);
	bk_free(b, &g->graph);
	bk_free(b, &g->op);
	bk_free(b, &g->conv);
	for (int i = 0; i < 3; i++)
		bk_free(b, &g->t[i]);
}

/* A tensor: dims always N, C, H, W; the layout is in the strides. */
static int
bk_tensor(struct bench *b, struct graph *g, obj *t, int64_t uid,
	  const struct layer_run *r, int64_t n, int64_t c, int64_t h, int64_t w)
{
	int64_t dims[4] = { n, c, h, w }, align = 16;
	int64_t nchw[4] = { c * h * w, h * w, w, 1 };
	int64_t nhwc[4] = { h * w * c, 1, w * c, c };
	int dt = r->dt;

	return bk_new(b, g, BK_TENSOR, t) ||
	       bk_set(b, g, *t, A_TENSOR_DATA_TYPE, TYPE_DATA_TYPE, 1, &dt) ||
	       bk_set(b, g, *t, A_TENSOR_DIMENSIONS, TYPE_INT64, 4, dims) ||
	       bk_set(b, g, *t, A_TENSOR_STRIDES, TYPE_INT64, 4,
		      r->l->layout == CV_LAYOUT_NHWC ? nhwc : nchw) ||
	       bk_set(b, g, *t, A_TENSOR_UNIQUE_ID, TYPE_INT64, 1, &uid) ||
	       bk_set(b, g, *t, A_TENSOR_BYTE_ALIGNMENT, TYPE_INT64, 1,
		      &align) ||
	       bk_done(b, g, *t, "TENSOR");
}

static int op_graph(struct bench *b, struct graph *g);

/* The operation graph of one convolution forward. Groups are in W's
 * dims (K, C/groups, R, S), as cudnn_frontend and PyTorch give them. */
static int
build_graph(struct bench *b, struct layer_run *r, struct graph *g)
{
	const struct cv_layer *l = r->l;
	int mode = CROSS_CORRELATION, comp = DT_FLOAT;
	int64_t dims = 2, pad[2] = { l->pad, l->pad };
	int64_t stride[2] = { l->stride, l->stride };
	int64_t dil[2] = { l->dilation, l->dilation };
	float alpha = 1.0f, beta = 0.0f;

	return bk_tensor(b, g, &g->t[0], UID_X, r, l->n, l->c, l->h, l->w) ||
	       bk_tensor(b, g, &g->t[1], UID_W, r, l->k, l->c / l->groups, l->r,
			 l->s) ||
	       bk_tensor(b, g, &g->t[2], UID_Y, r, l->n, l->k, r->p, r->q) ||
	       bk_new(b, g, BK_CONVOLUTION, &g->conv) ||
	       /* Accumulate in fp32 for every type, as frameworks do. */
	       bk_set(b, g, g->conv, A_CONV_COMP_TYPE, TYPE_DATA_TYPE, 1,
		      &comp) ||
	       bk_set(b, g, g->conv, A_CONV_CONV_MODE, TYPE_CONVOLUTION_MODE, 1,
		      &mode) ||
	       bk_set(b, g, g->conv, A_CONV_SPATIAL_DIMS, TYPE_INT64, 1,
		      &dims) ||
	       bk_set(b, g, g->conv, A_CONV_PRE_PADDINGS, TYPE_INT64, 2, pad) ||
	       bk_set(b, g, g->conv, A_CONV_POST_PADDINGS, TYPE_INT64, 2,
		      pad) ||
	       bk_set(b, g, g->conv, A_CONV_FILTER_STRIDES, TYPE_INT64, 2,
		      stride) ||
	       bk_set(b, g, g->conv, A_CONV_DILATIONS, TYPE_INT64, 2, dil) ||
	       bk_done(b, g, g->conv, "CONVOLUTION") ||
	       bk_new(b, g, BK_OPERATION_CONVOLUTION_FORWARD, &g->op) ||
	       bk_set(b, g, g->op, A_CONV_FWD_X, TYPE_BACKEND_DESCRIPTOR, 1,
		      &g->t[0]) ||
	       bk_set(b, g, g->op, A_CONV_FWD_W, TYPE_BACKEND_DESCRIPTOR, 1,
		      &g->t[1]) ||
	       bk_set(b, g, g->op, A_CONV_FWD_Y, TYPE_BACKEND_DESCRIPTOR, 1,
		      &g->t[2]) ||
	       bk_set(b, g, g->op, A_CONV_FWD_CONV_DESC,
		      TYPE_BACKEND_DESCRIPTOR, 1, &g->conv) ||
	       bk_set(b, g, g->op, A_CONV_FWD_ALPHA, TYPE_FLOAT, 1, &alpha) ||
	       bk_set(b, g, g->op, A_CONV_FWD_BETA, TYPE_FLOAT, 1, &beta) ||
	       bk_done(b, g, g->op, "OPERATION_CONVOLUTION_FORWARD") ||
	       bk_new(b, g, BK_OPERATIONGRAPH, &g->graph) || op_graph(b, g);
}

static int
op_graph(struct bench *b, struct graph *g)
{
	/* The handle attributes are deprecated in later 9.x: one refused is
	 * no failure (finalize says if it was needed). */
	b->api.bk_set(g->graph, A_OPERATIONGRAPH_HANDLE, TYPE_HANDLE, 1,
		      &b->handle);
	return bk_set(b, g, g->graph, A_OPERATIONGRAPH_OPS,
		      TYPE_BACKEND_DESCRIPTOR, 1, &g->op) ||
	       bk_done(b, g, g->graph, "OPERATIONGRAPH");
}

/* Append the engine configs heuristics `mode` offers, up to MAX_PLANS. */
static int
heuristics(struct bench *b, struct graph *g, int mode)
{
	obj h = NULL, cfg[MAX_PLANS];
	int64_t count = 0, got = 0, room = MAX_PLANS - g->n;
	int st;

	memset(cfg, 0, sizeof cfg);
	st = bk_new(b, g, BK_ENGINEHEUR, &h) ||
	     bk_set(b, g, h, A_ENGINEHEUR_OPERATION_GRAPH,
		    TYPE_BACKEND_DESCRIPTOR, 1, &g->graph) ||
	     bk_set(b, g, h, A_ENGINEHEUR_MODE, TYPE_HEUR_MODE, 1, &mode) ||
	     bk_done(b, g, h, "ENGINEHEUR") ||
	     bk_check(b, g,
		      b->api.bk_get(h, A_ENGINEHEUR_RESULTS,
				    TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL),
		      "cudnnBackendGetAttribute(ENGINEHEUR_RESULTS)");
	if (count > room)
		count = room;
	for (int64_t i = 0; i < count && st == 0; i++)
		st = bk_new(b, g, BK_ENGINECFG, &cfg[i]);
	if (st == 0 && count > 0)
		st = bk_check(b, g,
			      b->api.bk_get(h, A_ENGINEHEUR_RESULTS,
					    TYPE_BACKEND_DESCRIPTOR, count,
					    &got, cfg),
			      "cudnnBackendGetAttribute(ENGINEHEUR_RESULTS)");
	for (int64_t i = 0; i < count; i++) {
		if (st == 0 && i < got && cfg[i] != NULL)
			g->p[g->n++].cfg = cfg[i];
		else
			bk_free(b, &cfg[i]);
	}
	bk_free(b, &h);
	return st;
}

/* Finalize a plan per config; those that do not finalize, or need more
 * workspace than WORKSPACE_CAP, are dropped. How many are left. */
static int
make_plans(struct bench *b, struct graph *g, int64_t *max_ws)
{
	int kept = 0;

	*max_ws = 0;
	for (int i = 0; i < g->n; i++) {
		struct engine_plan *e = &g->p[i];
		obj eng = NULL;
		int64_t cnt = 0;

		e->engine = -1;
		e->ms = INFINITY;
		if (b->api.bk_create(BK_EXECUTION_PLAN, &e->plan) != 0) {
			e->plan = NULL;
			continue;
		}
		b->api.bk_set(e->plan, A_PLAN_HANDLE, TYPE_HANDLE, 1,
			      &b->handle); /* deprecated: see build_graph */
		if (b->api.bk_set(e->plan, A_PLAN_ENGINE_CONFIG,
				  TYPE_BACKEND_DESCRIPTOR, 1, &e->cfg) != 0 ||
		    b->api.bk_finalize(e->plan) != 0 ||
		    b->api.bk_get(e->plan, A_PLAN_WORKSPACE_SIZE, TYPE_INT64, 1,
				  &cnt, &e->ws) != 0 ||
		    e->ws < 0 || e->ws > WORKSPACE_CAP) {
			bk_free(b, &e->plan);
			continue;
		}
		/* The engine's global index names it in the report only. */
		if (b->api.bk_create(BK_ENGINE, &eng) == 0) {
			if (b->api.bk_get(e->cfg, A_ENGINECFG_ENGINE,
					  TYPE_BACKEND_DESCRIPTOR, 1, &cnt,
					  &eng) != 0 ||
			    b->api.bk_get(eng, A_ENGINE_GLOBAL_INDEX,
					  TYPE_INT64, 1, &cnt, &e->engine) != 0)
				e->engine = -1;
			bk_free(b, &eng);
		}
		if (e->ws > *max_ws)
			*max_ws = e->ws;
		kept++;
	}
	return kept;
}

static int
make_pack(struct bench *b, struct layer_run *r, struct graph *g)
{
	int64_t uids[3] = { UID_X, UID_W, UID_Y };
	void *ptrs[3] = { (void *)(uintptr_t)r->x, (void *)(uintptr_t)r->w,
			  (void *)(uintptr_t)r->y };
	void *ws = r->ws ? (void *)(uintptr_t)r->ws : NULL;

	return bk_new(b, g, BK_VARIANT_PACK, &g->pack) ||
	       bk_set(b, g, g->pack, A_VARIANT_PACK_UNIQUE_IDS, TYPE_INT64, 3,
		      uids) ||
	       bk_set(b, g, g->pack, A_VARIANT_PACK_DATA_POINTERS,
		      TYPE_VOID_PTR, 3, ptrs) ||
	       bk_set(b, g, g->pack, A_VARIANT_PACK_WORKSPACE, TYPE_VOID_PTR, 1,
		      &ws) ||
	       bk_done(b, g, g->pack, "VARIANT_PACK");
}

/* Time each plan as cudnn.benchmark does: one untimed run, then the
 * fastest of TUNE_RUNS; a plan that fails to run keeps ms = INFINITY. */
static void
autotune(struct bench *b, struct layer_run *r, struct graph *g)
{
	for (int i = 0; i < g->n; i++) {
		struct engine_plan *e = &g->p[i];
		struct pick p = { 0, e->plan, g->pack };
		float best = INFINITY, t = 0;
		int st;

		if (e->plan == NULL)
			continue;
		st = run_pick(b, r, &p);
		for (int k = 0; k < TUNE_RUNS && st == 0; k++)
			if ((st = b->api.ev_record(b->ev[k], NULL)) == 0)
				st = run_pick(b, r, &p);
		if (st == 0 &&
		    (st = b->api.ev_record(b->ev[TUNE_RUNS], NULL)) == 0)
			st = b->api.ev_sync(b->ev[TUNE_RUNS]);
		for (int k = 0; k < TUNE_RUNS && st == 0; k++)
			if ((st = b->api.ev_elapsed(&t, b->ev[k],
						    b->ev[k + 1])) == 0 &&
			    t < best)
				best = t;
		if (st == 0)
			e->ms = best;
	}
}

/* The fastest timed plan not yet tried (-1: none left). */
static int
next_fastest(const struct graph *g, const int *tried)
{
	int best = -1;

	for (int i = 0; i < g->n; i++)
		if (!tried[i] && isfinite(g->p[i].ms) &&
		    (best < 0 || g->p[i].ms < g->p[best].ms))
			best = i;
	return best;
}

/* What the engine path may have written into r->out. */
static const char *const engine_keys[] = {
	"how",     "ref_algo", "rejected", "engine", "engine_configs",
	"max_err", "status",   "reason",   NULL,
};

/* Pick and time the layer through the engine path. 0: done, r->out set;
 * -1: the path failed before timing, with why (the caller falls back). */
static int
bench_engines(struct bench *b, struct layer_run *r, char *why, size_t n)
{
	struct graph g;
	int64_t max_ws = 0;
	int ref, tried[MAX_PLANS] = { 0 }, pick = -1, rejected = 0, i;
	double err = 0, worst = 0;

	memset(&g, 0, sizeof g);
	if ((ref = reference(b, r, NULL, 0)) < 0) {
		snprintf(why, n, "no reference algorithm runs");
		return -1;
	}
	if (build_graph(b, r, &g) != 0)
		goto fail;
	/* PyTorch's order: heuristics mode A, then the fallback list. */
	heuristics(b, &g, HEUR_MODE_A);
	heuristics(b, &g, HEUR_MODE_FALLBACK);
	if (g.n == 0) {
		if (g.why[0] == '\0')
			snprintf(g.why, sizeof g.why,
				 "the heuristics offer no engine config");
		goto fail;
	}
	g.why[0] = '\0';
	if (make_plans(b, &g, &max_ws) == 0) {
		snprintf(g.why, sizeof g.why,
			 "none of the %d engine configs finalizes", g.n);
		goto fail;
	}
	if (grow_workspace(b, r, (size_t)max_ws) != 0) {
		snprintf(g.why, sizeof g.why,
			 "cannot allocate a %lld-byte workspace",
			 (long long)max_ws);
		goto fail;
	}
	if (make_pack(b, r, &g) != 0)
		goto fail;
	autotune(b, r, &g);
	while ((i = next_fastest(&g, tried)) >= 0) {
		struct pick p = { 0, g.p[i].plan, g.pack };
		tried[i] = 1;
		if (run_pick(b, r, &p) != 0 || fetch(b, r, r->y, &r->hy) != 0)
			continue;
		err = rel_error(r->hy, r->href, checked(r));
		if (err <= tolerance(r->dt)) {
			pick = i;
			break;
		}
		rejected++;
		if (!(err <= worst))
			worst = err;
	}
	if (pick < 0) {
		if (rejected)
			snprintf(g.why, sizeof g.why,
				 "every engine config that runs disagrees "
				 "with algo %d (max relative error %.3g)",
				 ref, isfinite(worst) ? worst : 1e30);
		else
			snprintf(g.why, sizeof g.why, "no engine config runs");
		goto fail;
	}
	cv_json_object_set_new(r->out, "how", cv_json_string("engines"));
	cv_json_object_set_new(r->out, "ref_algo", cv_json_integer(ref));
	cv_json_object_set_new(r->out, "rejected", cv_json_integer(rejected));
	cv_json_object_set_new(r->out, "engine",
			       cv_json_integer(g.p[pick].engine));
	cv_json_object_set_new(r->out, "engine_configs", cv_json_integer(g.n));
	cv_json_object_set_new(r->out, "max_err", cv_json_real(err));
	{
		struct pick p = { 0, g.p[pick].plan, g.pack };
		if (time_runs(b, r, &p) != 0) {
			const char *reason = cv_json_string_value(
				cv_json_object_get(r->out, "reason"));
			snprintf(g.why, sizeof g.why, "%s",
				 reason ? reason : "timing failed");
			goto fail;
		}
	}
	graph_free(b, &g);
	return 0;
fail:
	snprintf(why, n, "%s", g.why);
	graph_free(b, &g);
	/* The legacy path starts from a clean record. */
	for (const char *const *k = engine_keys; *k != NULL; k++)
		cv_json_object_del(r->out, *k);
	return -1;
}

static void
bench_layer(struct bench *b, struct layer_run *r)
{
	char why[200];

	if (describe(b, r) != 0 || upload(b, r) != 0)
		return;
	if (has_backend(b)) {
		if (bench_engines(b, r, why, sizeof why) == 0)
			return;
		/* The legacy path decides the layer; say why it had to. */
		cv_json_object_set_new(r->out, "engine_fallback",
				       cv_json_string(why));
	}
	bench_legacy(b, r);
}

int
cv_probe_bench(const struct cv_probe_args *a, void *cudnn, void *cuda, int dev,
	       int fd)
{
	struct bench b;
	int sms = 0, clock = 0, mem = 0, st = 0;

	memset(&b, 0, sizeof b);
	b.a = a;
	b.fd = fd;
	load_api(&b, cudnn, cuda);
	if (b.missing[0] == '\0') {
		b.api.attr(&b.cc_major, ATTR_CC_MAJOR, dev);
		b.api.attr(&b.cc_minor, ATTR_CC_MINOR, dev);
		b.api.attr(&sms, ATTR_SM_COUNT, dev);
		b.api.attr(&clock, ATTR_CLOCK_KHZ, dev);
		b.api.attr(&mem, ATTR_MEM_CLOCK_KHZ, dev);
		cv_probe_emit(fd,
			      cv_json_pack("{s:s,s:i,s:i,s:i}", "k", "gpuinfo",
					   "sm_count", sms, "sm_clock_khz",
					   clock, "mem_clock_khz", mem));
		if ((st = b.api.create(&b.handle)) == 0 &&
		    (st = b.api.create_tensor(&b.xd)) == 0 &&
		    (st = b.api.create_tensor(&b.yd)) == 0 &&
		    (st = b.api.create_filter(&b.wd)) == 0 &&
		    (st = b.api.create_conv(&b.cd)) == 0) {
			b.ev = xcalloc((size_t)a->runs + 1, sizeof *b.ev);
			for (int i = 0; i <= a->runs && st == 0; i++)
				st = b.api.ev_create(&b.ev[i], 0);
		}
	}
	for (int i = 0; i < a->nlayers; i++) {
		struct cv_layer l;
		struct layer_run r;
		char what[64];

		/* Should cuDNN crash here, the parent says where. */
		snprintf(what, sizeof what, "timing layer %d of %d", i + 1,
			 a->nlayers);
		cv_probe_emit(fd,
			      cv_json_pack("{s:s,s:i,s:s}", "k", "phase",
					   "step", CV_STEP_GPU, "what", what));
		memset(&r, 0, sizeof r);
		r.l = &l;
		r.out = cv_json_pack("{s:s,s:i}", "k", "layer", "i", i);
		if (cv_layer_decode(a->layers[i], &l) < 0)
			set_status(&r, "unsupported", "bad layer '%.80s'",
				   a->layers[i]);
		else if (b.missing[0])
			set_status(&r, "unsupported", "the libraries lack %s",
				   b.missing);
		else if (st != 0)
			set_status(&r, "unsupported",
				   "cannot set up cuDNN: %s (%d)",
				   errstr(&b, st), st);
		else
			bench_layer(&b, &r);
		free_run(&b, &r);
		cv_probe_emit(fd, r.out);
	}
	free(b.ev);
	return 0;
}
