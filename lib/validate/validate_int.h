/* validate_int.h: what the files of the validate wing (and their unit tests)
 * share; no other wing includes it. */
#ifndef CUDNNVM_VALIDATE_VALIDATE_INT_H
#define CUDNNVM_VALIDATE_VALIDATE_INT_H

#include "base/base.h"
#include "store/store.h"
#include "validate/validate.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cv_json;

/* ---- validate.c / doctor.c: proof that a version works ----------------- */

/* Decoders shared with the tests. */
long cv_probe_decode(long v, int *maj, int *min, int *patch);

int cv_probe_min_driver(int cuda); /* driver API version, 0 unknown */

/* 1 when compute capability cc_major.cc_minor is supported by cuDNN
 * `major.minor`; *need gets the minimum as major*10+minor. */
int cv_probe_cc_ok(int major, int minor, int cc_major, int cc_minor, int *need);

void cv_validate_cache_put(const char *cache_dir, const char *key,
			   const struct cv_validation *v);

/* Parse the JSON of cv_validation_json back. 0 or -1. */
/* "pass", "fail", "skip" back to CV_CHECK_*; CV_CHECK_NONE otherwise. */
int cv_check_from_name(const char *s);

int cv_validation_from_json(const char *text, struct cv_validation *out);

/* ---- bench.c: convolution timing across installed versions ------------ */

/* Floating-point operations of one forward pass (2 per multiply-add). */
double cv_layer_flops(const struct cv_layer *l);

/* Output height and width. */
int cv_layer_out_h(const struct cv_layer *l);

int cv_layer_out_w(const struct cv_layer *l);

/* The most layers a set may have once swept (CV_EDATA past it). */
#define CV_BENCH_MAX_LAYERS 1024

/* The shapes-file form of a set: `text` (len bytes, one layer a line)
 * under the file name `name` for messages; as cv_bench_layers. */
int cv_bench_shapes_parse(const char *text, size_t len, const char *name,
			  unsigned dtypes, unsigned layouts,
			  struct cv_layer **out, size_t *n, struct cv_err *err);

/* The built-in set names, NULL-ended. */
const char *const *cv_bench_sets(void);

/* One line of a shapes file: "name N C H W K R S stride pad dilation
 * groups [dtype [layout]]" (commas or blanks). 1 with *l set (*has_dtype,
 * *has_layout tell what the line named), 0 for a blank or # line, or
 * CV_EDATA saying which field is wrong. */
int cv_layer_parse(const char *line, struct cv_layer *l, int *has_dtype,
		   int *has_layout, struct cv_err *err);

/* The compact form the bench child is given (no name), and back. */
void cv_layer_encode(const struct cv_layer *l, char *buf, size_t n);

int cv_layer_decode(const char *s, struct cv_layer *l);

/* cudnnConvolutionFwdAlgoPerf_t (48 bytes on LP64), which probe.c and
 * bench_probe.c read without any cuDNN header. */
struct cv_cudnn_fwd_perf {
	int algo, status;
	float time;
	size_t memory;
	int determinism, math_type, reserved[3];
};

/* probe.c: write one JSON object (taking its reference) as a line. */
void cv_probe_emit(int fd, struct cv_json *o);

/* Where a validation child's findings go: each phase before it starts,
 * each fact (cudnn_version, driver_version, gpu, max_err, ...), each
 * step's result. probe.c and probe_win32.c write through one; the
 * Windows suite's winprobe.exe prints them. fact_text and fact_real may
 * be NULL (dropped). */
struct cv_probe_sink {
	void (*phase)(void *payload, int step, const char *what);
	void (*fact)(void *payload, const char *name, long value);
	void (*result)(void *payload, int step, int status, const char *text);
	void *payload;
	void (*fact_text)(void *payload, const char *name, const char *value);
	void (*fact_real)(void *payload, const char *name, double value);
};

/* The sink of the child's JSON lines on *fd (probe_decode.c): what the
 * parent (validate.c) reads. Text that is not UTF-8 is written with its
 * bytes as \xNN. */
struct cv_probe_sink cv_probe_lines(int *fd);

/* A step's result, printf-formatted (at most 1199 bytes), and a phase,
 * into a sink. */
void cv_probe_say(const struct cv_probe_sink *s, int step, int status,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void cv_probe_phase(const struct cv_probe_sink *s, int step, const char *what);

/* ---- probe_conv.c: step 5, one convolution checked on the CPU --------- */

/* What step 5 runs on, on either platform: the driver (libcuda.so.1 or
 * nvcuda.dll) initialised with device `dev` found, and cuDNN loaded
 * (NULL: the step is skipped, said). The file names are for messages. */
struct cv_probe_gpu {
	const struct cv_probe_sink *s;
	void *cudnn, *cuda; /* cv_dl_open handles */
	int dev, major;
	long expect; /* cudnnGetVersion() the version should give */
	const char *cudnn_file, *driver_file;
};

/* Compute capability against what cuDNN `expect` supports, a context,
 * then a 1x3x16x16 * 4x3x3x3 FP32 convolution compared with a CPU
 * reference. Facts gpu, cc_major, cc_minor, max_err; one result for
 * CV_STEP_GPU. 1 when it passed (the context is then current). */
int cv_probe_gpu_conv(const struct cv_probe_gpu *g);

/* ---- probe_win32.c: the validation child's steps on Windows ----------- */

/* The longest path the Windows probe handles (UTF-8 bytes of a \\?\
 * path's 32767 UTF-16 units at most). */
#define CV_WIN_PATH_MAX (32768 * 3)

/* The five steps for a->libdir (the version's bin folder, holding
 * cudnn64_<a->major>.dll). Returns 0. */
int cv_probe_win(const struct cv_probe_args *a, const struct cv_probe_sink *s);

/* 1 when `name` is one of cuDNN <major>'s DLLs (cudnn*64_<major>.dll,
 * case folded). */
int cv_probe_win_is_cudnn_dll(const char *name, int major);

#endif
