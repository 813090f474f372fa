/* probe_conv.c: step 5 of the validation child, the same on Linux
 * (probe.c, libcuda.so.1) and Windows (probe_win32.c, nvcuda.dll): the
 * GPU's compute capability against what the version supports, a context,
 * and one real forward convolution through cuDNN's legacy API, compared
 * with a CPU reference. Only the driver API and cuDNN's C entry points are
 * called, through cv_dl_sym: no CUDA header, no link. */
#include "base/base.h"
#include "validate/validate_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* cuDNN and driver API types, values as documented by NVIDIA. */
typedef void *cudnn_handle;
typedef void *cudnn_desc;
typedef unsigned long long cu_ptr;
enum {
	CUDNN_TENSOR_NCHW = 0,
	CUDNN_DATA_FLOAT = 0,
	CUDNN_CROSS_CORRELATION = 1,
	CUDNN_FMA_MATH = 3,
	CU_ATTR_CC_MAJOR = 75,
	CU_ATTR_CC_MINOR = 76,
};

typedef int (*cu_attr)(int *, int, int);
typedef int (*cu_name)(char *, int, int);
typedef int (*cu_ctx_retain)(void **, int);
typedef int (*cu_ptrv)(void *);
typedef int (*cu_alloc)(cu_ptr *, size_t);
typedef int (*cu_htod)(cu_ptr, const void *, size_t);
typedef int (*cu_dtoh)(void *, cu_ptr, size_t);
typedef int (*cu_sync)(void);

int
cv_probe_cc_ok(int major, int minor, int cc_major, int cc_minor, int *need)
{
	int n;

	/* NVIDIA's support matrices: 7.x Kepler (3.0); 8.0-8.8 3.5;
	 * 8.9 and 9.0-9.10: Maxwell (5.0); 9.11 on: Turing (7.5). */
	if (major < 8)
		n = 30;
	else if (major == 8 && minor < 9)
		n = 35;
	else if (major == 8 || (major == 9 && minor <= 10))
		n = 50;
	else
		n = 75;
	if (need != NULL)
		*need = n;
	return cc_major * 10 + cc_minor >= n;
}

/* Small deterministic values in [-1, 1]. */
static float
rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

#define CONV_N 1
#define CONV_C 3
#define CONV_H 16
#define CONV_W 16
#define CONV_K 4
#define CONV_R 3
#define CONV_S 3

/* One output element of the cross-correlation, pad 1, stride 1. */
static double
conv_at(const float *x, const float *w, int k, int i, int j)
{
	double acc = 0;

	for (int c = 0; c < CONV_C; c++)
		for (int r = 0; r < CONV_R; r++)
			for (int s = 0; s < CONV_S; s++) {
				int yy = i + r - 1, xx = j + s - 1;
				if (yy < 0 || yy >= CONV_H || xx < 0 ||
				    xx >= CONV_W)
					continue;
				acc += (double)x[(c * CONV_H + yy) * CONV_W +
						 xx] *
				       w[((k * CONV_C + c) * CONV_R + r) *
						 CONV_S +
					 s];
			}
	return acc;
}

static void
conv_reference(const float *x, const float *w, float *y)
{
	for (int k = 0; k < CONV_K; k++)
		for (int i = 0; i < CONV_H; i++)
			for (int j = 0; j < CONV_W; j++)
				y[(k * CONV_H + i) * CONV_W + j] =
					(float)conv_at(x, w, k, i, j);
}

struct cudnn_api {
	int (*create)(cudnn_handle *);
	int (*create_tensor)(cudnn_desc *);
	int (*create_filter)(cudnn_desc *);
	int (*create_conv)(cudnn_desc *);
	int (*set_tensor)(cudnn_desc, int, int, int, int, int, int);
	int (*set_filter)(cudnn_desc, int, int, int, int, int, int);
	int (*set_conv)(cudnn_desc, int, int, int, int, int, int, int, int);
	int (*set_math)(cudnn_desc, int);
	int (*out_dim)(cudnn_desc, cudnn_desc, cudnn_desc, int *, int *, int *,
		       int *);
	int (*algo)(cudnn_handle, cudnn_desc, cudnn_desc, cudnn_desc,
		    cudnn_desc, int, int *, struct cv_cudnn_fwd_perf *);
	int (*ws)(cudnn_handle, cudnn_desc, cudnn_desc, cudnn_desc, cudnn_desc,
		  int, size_t *);
	int (*fwd)(cudnn_handle, const void *, cudnn_desc, cu_ptr, cudnn_desc,
		   cu_ptr, cudnn_desc, int, cu_ptr, size_t, const void *,
		   cudnn_desc, cu_ptr);
	const char *(*errstr)(int);
};

static const char *
cudnn_err(const struct cudnn_api *api, int st)
{
	const char *s = api->errstr ? api->errstr(st) : NULL;
	return s ? s : "unknown status";
}

/* The cuDNN entry points the step calls; 0, or -1 with the step failed. */
static int
load_conv_api(const struct cv_probe_gpu *g, struct cudnn_api *api)
{
#define LOAD(field, nm)                                                \
	do {                                                           \
		*(void **)&api->field = cv_dl_sym(g->cudnn, nm);       \
		if (api->field == NULL) {                              \
			cv_probe_say(g->s, CV_STEP_GPU, CV_CHECK_FAIL, \
				     "%s has no %s; reinstall it",     \
				     g->cudnn_file, nm);               \
			return -1;                                     \
		}                                                      \
	} while (0)
	LOAD(create, "cudnnCreate");
	LOAD(create_tensor, "cudnnCreateTensorDescriptor");
	LOAD(create_filter, "cudnnCreateFilterDescriptor");
	LOAD(create_conv, "cudnnCreateConvolutionDescriptor");
	LOAD(set_tensor, "cudnnSetTensor4dDescriptor");
	LOAD(set_filter, "cudnnSetFilter4dDescriptor");
	LOAD(set_conv, "cudnnSetConvolution2dDescriptor");
	LOAD(out_dim, "cudnnGetConvolution2dForwardOutputDim");
	LOAD(algo, "cudnnGetConvolutionForwardAlgorithm_v7");
	LOAD(ws, "cudnnGetConvolutionForwardWorkspaceSize");
	LOAD(fwd, "cudnnConvolutionForward");
#undef LOAD
	*(void **)&api->set_math =
		cv_dl_sym(g->cudnn, "cudnnSetConvolutionMathType");
	*(void **)&api->errstr = cv_dl_sym(g->cudnn, "cudnnGetErrorString");
	return 0;
}

/* One convolution, from descriptors to the result checked. */
struct conv {
	const struct cv_probe_gpu *g;
	struct cudnn_api api;
	const char *gpu;
	cudnn_handle h;
	cudnn_desc xd, yd, wd, cd;
	int algo;
	size_t wsz;
};

/* A cuDNN call: on a failure the step fails naming it, and the function
 * returns -1. */
#define CK(cv, call, what)                                                   \
	do {                                                                 \
		int st_;                                                     \
		cv_probe_phase((cv)->g->s, CV_STEP_GPU, "calling " what);    \
		st_ = (call);                                                \
		if (st_ != 0) {                                              \
			cv_probe_say((cv)->g->s, CV_STEP_GPU, CV_CHECK_FAIL, \
				     what " failed: %s (%d) on %s",          \
				     cudnn_err(&(cv)->api, st_), st_,        \
				     (cv)->gpu);                             \
			return -1;                                           \
		}                                                            \
	} while (0)

/* IMPLICIT_GEMM (0) serves every FP32 NCHW convolution, and choosing it
 * costs nothing, where the heuristic query loads and initialises cuDNN
 * 9's heuristics library (a quarter of a second measured on an H200).
 * The query stays as the fallback. */
static int
conv_algo(struct conv *cv)
{
	struct cudnn_api *api = &cv->api;
	struct cv_cudnn_fwd_perf perf[8];
	int got = 0;

	cv->algo = 0;
	if (api->ws(cv->h, cv->xd, cv->wd, cv->cd, cv->yd, cv->algo,
		    &cv->wsz) == 0)
		return 0;
	cv->algo = -1;
	CK(cv, api->algo(cv->h, cv->xd, cv->wd, cv->cd, cv->yd, 8, &got, perf),
	   "cudnnGetConvolutionForwardAlgorithm_v7");
	for (int i = 0; i < got && i < 8; i++)
		if (perf[i].status == 0) {
			cv->algo = perf[i].algo;
			break;
		}
	if (cv->algo < 0) {
		cv_probe_say(
			cv->g->s, CV_STEP_GPU, CV_CHECK_FAIL,
			"cuDNN offers no forward convolution algorithm on %s "
			"(%d tried)",
			cv->gpu, got);
		return -1;
	}
	CK(cv,
	   api->ws(cv->h, cv->xd, cv->wd, cv->cd, cv->yd, cv->algo, &cv->wsz),
	   "cudnnGetConvolutionForwardWorkspaceSize");
	return 0;
}

/* The handle and descriptors of the 1x3x16x16 * 4x3x3x3 convolution. */
static int
conv_setup(struct conv *cv)
{
	struct cudnn_api *api = &cv->api;
	int n, c, hh, ww;

	CK(cv, api->create(&cv->h), "cudnnCreate");
	CK(cv, api->create_tensor(&cv->xd), "cudnnCreateTensorDescriptor");
	CK(cv, api->create_tensor(&cv->yd), "cudnnCreateTensorDescriptor");
	CK(cv, api->create_filter(&cv->wd), "cudnnCreateFilterDescriptor");
	CK(cv, api->create_conv(&cv->cd), "cudnnCreateConvolutionDescriptor");
	CK(cv,
	   api->set_tensor(cv->xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, CONV_N,
			   CONV_C, CONV_H, CONV_W),
	   "cudnnSetTensor4dDescriptor");
	CK(cv,
	   api->set_filter(cv->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, CONV_K,
			   CONV_C, CONV_R, CONV_S),
	   "cudnnSetFilter4dDescriptor");
	CK(cv,
	   api->set_conv(cv->cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
			 CUDNN_DATA_FLOAT),
	   "cudnnSetConvolution2dDescriptor");
	/* Plain FP32 (no TF32), so the CPU reference holds to 1e-3. */
	if (api->set_math != NULL && cv->g->major >= 8)
		CK(cv, api->set_math(cv->cd, CUDNN_FMA_MATH),
		   "cudnnSetConvolutionMathType");
	CK(cv, api->out_dim(cv->cd, cv->xd, cv->wd, &n, &c, &hh, &ww),
	   "cudnnGetConvolution2dForwardOutputDim");
	if (n != CONV_N || c != CONV_K || hh != CONV_H || ww != CONV_W) {
		cv_probe_say(cv->g->s, CV_STEP_GPU, CV_CHECK_FAIL,
			     "cudnnGetConvolution2dForwardOutputDim gave "
			     "%dx%dx%dx%d, expected 1x4x16x16",
			     n, c, hh, ww);
		return -1;
	}
	CK(cv,
	   api->set_tensor(cv->yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c,
			   hh, ww),
	   "cudnnSetTensor4dDescriptor");
	return conv_algo(cv);
}

/* Run it on random data and compare with the CPU: the largest error, or
 * -1 with the step failed. */
static double
conv_check(struct conv *cv)
{
	float x[CONV_N * CONV_C * CONV_H * CONV_W];
	float w[CONV_K * CONV_C * CONV_R * CONV_S];
	float y[CONV_K * CONV_H * CONV_W], ref[CONV_K * CONV_H * CONV_W];
	void *cuda = cv->g->cuda;
	cu_alloc alloc = (cu_alloc)cv_dl_sym(cuda, "cuMemAlloc_v2");
	cu_htod htod = (cu_htod)cv_dl_sym(cuda, "cuMemcpyHtoD_v2");
	cu_dtoh dtoh = (cu_dtoh)cv_dl_sym(cuda, "cuMemcpyDtoH_v2");
	cu_sync sync = (cu_sync)cv_dl_sym(cuda, "cuCtxSynchronize");
	cu_ptr dx, dw, dy, dws = 0;
	unsigned seed = 12345;
	float alpha = 1.0f, beta = 0.0f;
	double maxerr = 0;

	for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
		x[i] = rnd(&seed);
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		w[i] = rnd(&seed);
	conv_reference(x, w, ref);
	cv_probe_phase(cv->g->s, CV_STEP_GPU, "copying to the GPU");
	if (alloc(&dx, sizeof x) || alloc(&dw, sizeof w) ||
	    alloc(&dy, sizeof y) || (cv->wsz && alloc(&dws, cv->wsz)) ||
	    htod(dx, x, sizeof x) || htod(dw, w, sizeof w)) {
		cv_probe_say(cv->g->s, CV_STEP_GPU, CV_CHECK_FAIL,
			     "cannot allocate or copy GPU memory on %s; is it "
			     "full? (nvidia-smi)",
			     cv->gpu);
		return -1;
	}
	CK(cv,
	   cv->api.fwd(cv->h, &alpha, cv->xd, dx, cv->wd, dw, cv->cd, cv->algo,
		       dws, cv->wsz, &beta, cv->yd, dy),
	   "cudnnConvolutionForward");
	cv_probe_phase(cv->g->s, CV_STEP_GPU, "reading the result back");
	if (sync() != 0 || dtoh(y, dy, sizeof y) != 0) {
		cv_probe_say(cv->g->s, CV_STEP_GPU, CV_CHECK_FAIL,
			     "the convolution did not complete on %s", cv->gpu);
		return -1;
	}
	for (size_t i = 0; i < sizeof y / sizeof y[0]; i++) {
		double e = fabs((double)y[i] - (double)ref[i]);
		if (!(e <= maxerr)) /* NaN counts as an error too */
			maxerr = isnan(e) ? INFINITY : e;
	}
	return maxerr;
}
#undef CK

/* The GPU's name and compute capability, said as facts; 0 when this
 * version supports it, else -1 with the step failed. */
static int
device_supported(const struct cv_probe_gpu *g, char *gpu, size_t gpusz,
		 int *ccmaj, int *ccmin)
{
	cu_attr attr = (cu_attr)cv_dl_sym(g->cuda, "cuDeviceGetAttribute");
	cu_name name = (cu_name)cv_dl_sym(g->cuda, "cuDeviceGetName");
	int need, maj, min, patch;

	name(gpu, (int)gpusz, g->dev);
	attr(ccmaj, CU_ATTR_CC_MAJOR, g->dev);
	attr(ccmin, CU_ATTR_CC_MINOR, g->dev);
	if (g->s->fact_text != NULL)
		g->s->fact_text(g->s->payload, "gpu", gpu);
	g->s->fact(g->s->payload, "cc_major", *ccmaj);
	g->s->fact(g->s->payload, "cc_minor", *ccmin);
	cv_probe_decode(g->expect, &maj, &min, &patch);
	if (cv_probe_cc_ok(maj, min, *ccmaj, *ccmin, &need))
		return 0;
	cv_probe_say(g->s, CV_STEP_GPU, CV_CHECK_FAIL,
		     "%s has compute capability %d.%d; cuDNN %d.%d needs "
		     "%d.%d or newer; use an older cuDNN (9.10 still runs "
		     "on Maxwell, Pascal and Volta)",
		     gpu, *ccmaj, *ccmin, maj, min, need / 10, need % 10);
	return -1;
}

static int
driver_has_calls(void *cuda)
{
	static const char *const calls[] = {
		"cuDeviceGetAttribute",
		"cuDeviceGetName",
		"cuDevicePrimaryCtxRetain",
		"cuCtxSetCurrent",
		"cuMemAlloc_v2",
		"cuMemcpyHtoD_v2",
		"cuMemcpyDtoH_v2",
		"cuCtxSynchronize",
	};

	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (cv_dl_sym(cuda, calls[i]) == NULL)
			return 0;
	return 1;
}

int
cv_probe_gpu_conv(const struct cv_probe_gpu *g)
{
	cu_ctx_retain retain;
	cu_ptrv setcur;
	struct conv cv;
	int ccmaj = 0, ccmin = 0, r;
	double maxerr;
	char gpu[128] = "";
	void *ctx = NULL;

	if (!driver_has_calls(g->cuda)) {
		cv_probe_say(g->s, CV_STEP_GPU, CV_CHECK_FAIL,
			     "%s lacks a driver API call; reinstall the NVIDIA "
			     "driver",
			     g->driver_file);
		return 0;
	}
	if (device_supported(g, gpu, sizeof gpu, &ccmaj, &ccmin) < 0)
		return 0;
	if (g->cudnn == NULL) {
		cv_probe_say(g->s, CV_STEP_GPU, CV_CHECK_SKIP,
			     "cuDNN did not load");
		return 0;
	}
	memset(&cv, 0, sizeof cv);
	cv.g = g;
	cv.gpu = gpu;
	if (load_conv_api(g, &cv.api) < 0)
		return 0;
	cv_probe_phase(g->s, CV_STEP_GPU, "creating a CUDA context");
	retain = (cu_ctx_retain)cv_dl_sym(g->cuda, "cuDevicePrimaryCtxRetain");
	setcur = (cu_ptrv)cv_dl_sym(g->cuda, "cuCtxSetCurrent");
	r = retain(&ctx, g->dev);
	if (r == 0)
		r = setcur(ctx);
	if (r != 0) {
		cv_probe_say(
			g->s, CV_STEP_GPU, CV_CHECK_FAIL,
			"cannot create a CUDA context on %s (CUDA error %d); "
			"check nvidia-smi",
			gpu, r);
		return 0;
	}
	if (conv_setup(&cv) < 0 || (maxerr = conv_check(&cv)) < 0)
		return 0;
	if (g->s->fact_real != NULL)
		g->s->fact_real(g->s->payload, "max_err",
				isfinite(maxerr) ? maxerr : 1e30);
	if (!(maxerr < 1e-3)) {
		cv_probe_say(
			g->s, CV_STEP_GPU, CV_CHECK_FAIL,
			"the convolution on %s is wrong: max error %.3g vs the "
			"CPU reference (algo %d)",
			gpu, maxerr, cv.algo);
		return 0;
	}
	cv_probe_say(g->s, CV_STEP_GPU, CV_CHECK_PASS,
		     "%s (sm_%d%d): 2-D convolution matches the CPU reference "
		     "(max error %.1e, algo %d)",
		     gpu, ccmaj, ccmin, maxerr, cv.algo);
	return 1;
}
