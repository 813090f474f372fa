/* minimal_validate.c: the floor under `cudnnvm validate` cold, for
 * bench/bench_validate_floor.sh: the same work done as plainly as C
 * allows, in one thread: load the driver and cuInit, the primary context
 * of GPU 0, load cuDNN (argv[1], its sub-libraries found by the loader),
 * cudnnCreate, one 1x3x16x16 forward convolution (3x3, pad 1, FP32, FMA
 * math, IMPLICIT_GEMM) checked against the CPU. Exit 0 when the result
 * holds to 1e-3, else 1 with one line saying what failed.
 *   usage: minimal_validate /path/to/libcudnn.so.9 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned long long cu_ptr;
typedef void *handle;

#define N 1
#define C 3
#define H 16
#define W 16
#define K 4
#define R 3
#define S 3

static void *lib_cuda, *lib_cudnn;

static void *
need(void *h, const char *name)
{
	void *f = dlsym(h, name);

	if (f == NULL) {
		fprintf(stderr, "minimal_validate: no %s\n", name);
		exit(1);
	}
	return f;
}

#define CU(name)    ((int (*)())need(lib_cuda, name))
#define DNN(name)   ((int (*)())need(lib_cudnn, name))
#define CHECK(call) check((call), #call)

static void
check(int st, const char *what)
{
	if (st != 0) {
		fprintf(stderr, "minimal_validate: %s failed (%d)\n", what, st);
		exit(1);
	}
}

static float
rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static void
reference(const float *x, const float *w, float *y)
{
	for (int k = 0; k < K; k++)
		for (int i = 0; i < H; i++)
			for (int j = 0; j < W; j++) {
				double acc = 0;
				for (int c = 0; c < C; c++)
					for (int r = 0; r < R; r++)
						for (int s = 0; s < S; s++) {
							int yy = i + r - 1,
							    xx = j + s - 1;
							if (yy < 0 || yy >= H ||
							    xx < 0 || xx >= W)
								continue;
							acc += (double)x[(c * H + yy) * W + xx] *
							       w[((k * C + c) * R + r) * S + s];
						}
				y[(k * H + i) * W + j] = (float)acc;
			}
}

int
main(int argc, char **argv)
{
	float x[N * C * H * W], w[K * C * R * S], y[K * H * W], ref[K * H * W];
	float alpha = 1.0f, beta = 0.0f;
	unsigned seed = 12345;
	int dev = 0;
	void *ctx = NULL;
	handle h, xd, yd, wd, cd;
	cu_ptr dx, dw, dy, dws = 0;
	size_t ws = 0;
	double maxerr = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: minimal_validate LIBCUDNN\n");
		return 2;
	}
	if ((lib_cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL)) == NULL) {
		fprintf(stderr, "minimal_validate: %s\n", dlerror());
		return 1;
	}
	CHECK(CU("cuInit")(0));
	CHECK(CU("cuDeviceGet")(&dev, 0));
	CHECK(CU("cuDevicePrimaryCtxRetain")(&ctx, dev));
	CHECK(CU("cuCtxSetCurrent")(ctx));
	if ((lib_cudnn = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) == NULL) {
		fprintf(stderr, "minimal_validate: %s\n", dlerror());
		return 1;
	}
	CHECK(DNN("cudnnCreate")(&h));
	CHECK(DNN("cudnnCreateTensorDescriptor")(&xd));
	CHECK(DNN("cudnnCreateTensorDescriptor")(&yd));
	CHECK(DNN("cudnnCreateFilterDescriptor")(&wd));
	CHECK(DNN("cudnnCreateConvolutionDescriptor")(&cd));
	/* NCHW = 0, FLOAT = 0, CROSS_CORRELATION = 1, FMA_MATH = 3 */
	CHECK(DNN("cudnnSetTensor4dDescriptor")(xd, 0, 0, N, C, H, W));
	CHECK(DNN("cudnnSetTensor4dDescriptor")(yd, 0, 0, N, K, H, W));
	CHECK(DNN("cudnnSetFilter4dDescriptor")(wd, 0, 0, K, C, R, S));
	CHECK(DNN("cudnnSetConvolution2dDescriptor")(cd, 1, 1, 1, 1, 1, 1, 1,
						     0));
	CHECK(DNN("cudnnSetConvolutionMathType")(cd, 3));
	CHECK(DNN("cudnnGetConvolutionForwardWorkspaceSize")(h, xd, wd, cd, yd,
							     0, &ws));
	for (size_t i = 0; i < sizeof x / sizeof *x; i++)
		x[i] = rnd(&seed);
	for (size_t i = 0; i < sizeof w / sizeof *w; i++)
		w[i] = rnd(&seed);
	reference(x, w, ref);
	CHECK(CU("cuMemAlloc_v2")(&dx, sizeof x));
	CHECK(CU("cuMemAlloc_v2")(&dw, sizeof w));
	CHECK(CU("cuMemAlloc_v2")(&dy, sizeof y));
	if (ws > 0)
		CHECK(CU("cuMemAlloc_v2")(&dws, ws));
	CHECK(CU("cuMemcpyHtoD_v2")(dx, x, sizeof x));
	CHECK(CU("cuMemcpyHtoD_v2")(dw, w, sizeof w));
	CHECK(DNN("cudnnConvolutionForward")(h, &alpha, xd, dx, wd, dw, cd, 0,
					     dws, ws, &beta, yd, dy));
	CHECK(CU("cuCtxSynchronize")());
	CHECK(CU("cuMemcpyDtoH_v2")(y, dy, sizeof y));
	for (size_t i = 0; i < sizeof y / sizeof *y; i++) {
		double e = fabs((double)y[i] - (double)ref[i]);
		if (!(e <= maxerr))
			maxerr = isnan(e) ? INFINITY : e;
	}
	if (!(maxerr < 1e-3)) {
		fprintf(stderr, "minimal_validate: wrong result: max error %g\n",
			maxerr);
		return 1;
	}
	printf("convolution ok, max error %g\n", maxerr);
	return 0;
}
