/* validate.h: the face of the validate wing, the proof that a version works:
 * the validation child and its record, the probe inside it, the cache of
 * results, the bench, and what a build loads beside itself. Only what cmd/
 * and the wings above call; the rest is in validate_int.h. */
#ifndef CUDNNVM_VALIDATE_VALIDATE_H
#define CUDNNVM_VALIDATE_VALIDATE_H

#include "base/base.h"
#include "store/store.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cv_store;
struct cv_json;

/* ---- store.c: the store, locks, staging, publish ----------------------- */

/* What build v (its CUDA major set) loads beside itself: 0 to
 * CV_MAX_DEPS entries. */
int cv_deps_needed(const struct cv_version *v,
		   struct cv_dep_need need[CV_MAX_DEPS]);

/* Where this machine's loader search (as validation looks: the library
 * path, CUDA_HOME, the toolkits, the system folders, ld.so.cache) finds
 * what `need` names, or NULL (xmalloc'd). */
char *cv_deps_find_on_machine(const struct cv_dep_need *need);

/* NVIDIA's CUDA redist tree for the dependencies: [remote] cuda_mirror, else
 * the cuDNN mirror (`cudnn_mirror`, NULL: the configured one) with its
 * /cudnn/redist turned into /cuda/redist. NULL and CV_ECONFIG with a hint
 * when neither says (xmalloc'd). */
char *cv_deps_cuda_mirror(const struct cv_config *cfg, const char *cudnn_mirror,
			  struct cv_err *err);

/* cuBLAS's own channel (compute/cublas/redist/): [remote] cublas_mirror,
 * else the cuDNN mirror with /cudnn/redist turned into /cublas/redist;
 * NULL and CV_ECONFIG when neither says (xmalloc'd). */
char *cv_deps_cublas_mirror(const struct cv_config *cfg,
			    const char *cudnn_mirror, struct cv_err *err);

/* The folder of `channel` (cuda, cublas) beside a copy of the cuDNN tree
 * at cudnn_dir (.../cudnn/redist -> .../<channel>/redist), or NULL when
 * cudnn_dir names no cudnn/redist folder (xmalloc'd). */
char *cv_deps_sibling_dir(const char *cudnn_dir, const char *channel);

/* ---- validate.c / doctor.c: proof that a version works ----------------- */

enum cv_check { CV_CHECK_NONE, CV_CHECK_PASS, CV_CHECK_FAIL, CV_CHECK_SKIP };

struct cv_validate_opts {
	const char *self_exe;  /* the cudnnvm binary (NULL: /proc/self/exe) */
	const char *cache_dir; /* NULL: no cache */
	int no_gpu;            /* skip steps 4-5 */
	unsigned timeout_s;    /* 0: 120 s */
	/* More work for the child once all five steps pass (bench): extra
	 * arguments (NULL-ended; they also bypass the cache), and every line
	 * the child writes handed to on_line(payload, line). */
	char *const *extra_args;
	void (*on_line)(void *payload, const char *line);
	void *payload;
	/* Set from a signal handler: kill the child, end with CV_EINTR. */
	volatile sig_atomic_t *stop;
};

#define CV_VALIDATE_OPTS_INIT                            \
	{                                                \
		NULL, NULL, 0, 0, NULL, NULL, NULL, NULL \
	}

/* Validate the install in `dir` (its metadata in `inst`) in a child process
 * with a clean environment. Returns 0 when the steps ran (out tells pass or
 * fail), <0 when validation itself could not run. */
int cv_validate(const char *dir, const struct cv_installed *inst,
		const struct cv_validate_opts *opts, struct cv_validation *out,
		struct cv_err *err);

/* What the cuDNN (libcudnn.so.<major>) of `libdir` says of itself, asked in
 * the probe child (self_exe, NULL: this binary) with no GPU work:
 * cudnnGetVersion() and cudnnGetCudartVersion(). CV_ENOTFOUND when it does
 * not load. */
int cv_validate_identity(const char *libdir, int major, const char *self_exe,
			 long *cudnn_version, long *cudart_version,
			 struct cv_err *err);

/* The options a command validates with: the store's cache, the probe
 * child `self_exe` (NULL: this binary), and CUDNNVM_VALIDATE_TIMEOUT
 * (seconds) when it is set to a sane value. */
void cv_validate_opts_default(struct cv_validate_opts *o,
			      const struct cv_store *st, const char *self_exe,
			      int no_gpu);

/* The first failed step, or -1. */
int cv_validation_failed(const struct cv_validation *v);

const char *cv_step_name(int step);

const char *cv_check_name(int status);

/* The result as a JSON object (xmalloc'd string). */
char *cv_validation_json(const struct cv_validation *v);

/* probe.c: what runs inside the child (`cudnnvm validate-probe`). */
struct cv_probe_args {
	const char *libdir;   /* <install>/lib, absolute */
	int major;            /* cuDNN major: 7, 8, 9 */
	long expect;          /* expected cudnnGetVersion() */
	int cuda;             /* variant's CUDA major */
	const char *cublaslt; /* path of libcublasLt found, or NULL */
	int no_gpu;
	/* bench: layers (cv_layer_encode form) to time once step 5 passed */
	char **layers;
	int nlayers, runs, warmup;
	/* what times them (cv_probe_bench): given by the caller, so that the
	 * probe knows nothing of the bench it runs */
	int (*bench)(const struct cv_probe_args *a, void *cudnn, void *cuda,
		     int dev, int fd);
};

/* Run the probe, writing one JSON object per line to `fd`. Returns 0. */
int cv_probe_run(const struct cv_probe_args *a, int fd);

/* bench_probe.c: inside the validation child once step 5 passed (its
 * CUDA context current): time a->layers, one JSON line each. 0 when the
 * layers ran (whatever their outcome). */
int cv_probe_bench(const struct cv_probe_args *a, void *cudnn, void *cuda,
		   int dev, int fd);

/* validate_cache.c: results per install id, driver, GPU and the identity
 * (dev, inode, size, mtime) of every lib/libcudnn* file. */
char *cv_validate_cache_key(const char *dir, const char *id, int no_gpu,
			    const char *cublaslt);

int cv_validate_cache_get(const char *cache_dir, const char *key,
			  struct cv_validation *out);

/* Another kind of result kept beside a version's validation (kind "":
 * the validation itself; ".frameworks": validate --frameworks), under the
 * same rule: used only when its key is byte-identical. NULL when none. */
struct cv_json *cv_validate_cache_get_json(const char *cache_dir,
					   const char *key, const char *kind);

void cv_validate_cache_put_json(const char *cache_dir, const char *key,
				const char *kind, struct cv_json *result);

/* One "label=path:dev:inode:size:mtime:mode" line of a key (none when the
 * path cannot be stat'ed). */
void cv_validate_key_identity(struct cv_buf *b, const char *label,
			      const char *path);

struct cv_finding {
	int level;
	char *what, *why, *fix; /* fix: one command, may be "" */
};

struct cv_doctor_ctx {
	const char *store_root;
	const char *active_id; /* NULL when none */
	const char *active_dir;
	int active_cuda, active_major;
	const struct cv_store *store; /* for versions that fit; may be NULL */
};

/* The classic error messages: the cause and fix of `msg`, with the
 * versions and file names it holds read out of it. 1 and *out filled
 * (release it), or 0 when no known message matches. */
struct cv_explanation {
	const char *pattern; /* the catalogue entry that matched */
	char *cause, *fix;
};

/* ---- bench.c: convolution timing across installed versions ------------ */

enum cv_dtype { CV_DTYPE_FP32, CV_DTYPE_FP16, CV_DTYPE_BF16, CV_NDTYPES };

enum cv_layout { CV_LAYOUT_NCHW, CV_LAYOUT_NHWC, CV_NLAYOUTS };

/* One forward convolution: input N,C,H,W; K filters of R x S over C/groups
 * channels; the same stride, padding and dilation in both dimensions. */
struct cv_layer {
	char name[48];
	int n, c, h, w, k, r, s, stride, pad, dilation, groups;
	int dtype, layout;
};

const char *cv_dtype_name(int dtype); /* fp32, fp16, bf16 */

const char *cv_layout_name(int layout); /* nchw, nhwc */

/* "fp16" -> CV_DTYPE_FP16 (and the layouts); CV_EUSAGE otherwise. */
int cv_dtype_parse(const char *s, int *out, struct cv_err *err);

int cv_layout_parse(const char *s, int *out, struct cv_err *err);

/* A layer set: a built-in name ("resnet50") or a file. Each layer comes
 * once per dtype bit of `dtypes` (1 << CV_DTYPE_*) and layout bit of
 * `layouts`, unless the file line names its own. *out is xmalloc'd. */
int cv_bench_layers(const char *set, unsigned dtypes, unsigned layouts,
		    struct cv_layer **out, size_t *n, struct cv_err *err);

enum cv_bench_status {
	CV_BENCH_NOTRUN,
	CV_BENCH_OK,
	CV_BENCH_UNSUPPORTED, /* this version cannot run the layer */
	CV_BENCH_WRONG,       /* every algorithm disagreed with the reference */
};

const char *cv_bench_status_name(int status);

struct cv_bench_result {
	int status;   /* enum cv_bench_status */
	int algo;     /* cudnnConvolutionFwdAlgo_t picked (legacy API) */
	long engine;  /* the engine's global index (backend API), else -1 */
	int runs;     /* timed runs */
	int rejected; /* faster algorithms whose output was wrong */
	double ms, min_ms, max_ms, q1_ms, q3_ms; /* median and spread */
	double tflops;
	double max_err; /* relative to the reference's largest magnitude */
	char how[16];   /* "engines", "find" or "heuristic" */
	char reason[300];
	char engine_fallback[200]; /* why the engine path gave way, or "" */
};

struct cv_bench_gpu {
	char name[128];
	int cc_major, cc_minor, sm_count;
	int sm_clock_khz, mem_clock_khz; /* as the driver reports them */
	int driver_version;
};

/* What benchmarking one installed version found. */
struct cv_bench_run {
	struct cv_validation v; /* the five steps, run in the same child */
	int benched;            /* 1 when validation passed and layers ran */
	int no_gpu;             /* 1 when the machine has no usable GPU */
	struct cv_bench_result *res; /* one per layer (xmalloc'd) */
	struct cv_bench_gpu gpu;
	double seconds; /* wall time of the child */
};

struct cv_bench_opts {
	const char *self_exe; /* NULL: /proc/self/exe */
	int runs, warmup;     /* timed and untimed runs per layer */
	unsigned timeout_s;   /* for one version, 0: 600 s */
	volatile sig_atomic_t *stop;
};

/* Validate the install in `dir` and, when it passes, time every layer in
 * the same isolated child (the library loaded from its own folder, its
 * provenance checked again after the layers ran). 0 when the child ran
 * (out tells what it found), <0 when it could not (CV_EINTR on stop). */
int cv_bench_version(const char *dir, const struct cv_installed *inst,
		     const struct cv_layer *layers, size_t nlayers,
		     const struct cv_bench_opts *opts, struct cv_bench_run *out,
		     struct cv_err *err);

void cv_bench_run_release(struct cv_bench_run *r);

/* Index of the fastest version for layer i (-1: none ran it). */
int cv_bench_fastest(const struct cv_bench_run *runs, size_t nruns,
		     size_t layer);

/* Everything as one JSON object (xmalloc'd). */
char *cv_bench_json(const struct cv_layer *layers, size_t nlayers,
		    const struct cv_bench_run *runs, size_t nruns,
		    const struct cv_bench_opts *opts);

#endif
