/* probe.c: the code that runs inside the validation child. It dlopens
 * cuDNN by absolute path (never links it), checks the version, where every
 * libcudnn* came from, the driver and cuBLASLt, and runs one real forward
 * convolution through the driver API. It declares the few prototypes it
 * needs itself: no CUDA header is involved. Each finding is written as one
 * JSON line, so the parent keeps what was learned if cuDNN kills us. */
#include "base/base.h"
#include "machine/machine.h"
#include "store/store.h"
#include "validate/validate_int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
	CUDA_ERROR_NO_DEVICE = 100,
};

typedef size_t (*fn_size)(void);
typedef int (*fn_void)(void);
typedef int (*fn_prop)(int, int *);

struct probe {
	int fd;
	const struct cv_probe_args *a;
	void *cudnn, *cuda;
	char libdir_real[PATH_MAX];
	int gpu_ok;   /* a device is there and usable */
	int gpu_pass; /* step 5 passed: the context is current */
};

static void
emit(struct probe *p, struct cv_json *o)
{
	cv_probe_emit(p->fd, o);
}

/* `s` as JSON can carry it: cv_json refuses a string that is not UTF-8,
 * and a folder name needs not be (a store under a folder named in
 * Latin-1), nor a reason cut at its size in the middle of a character.
 * Such bytes become the text \xNN, as the front end shows them anyway.
 * xmalloc'd. */
static char *
utf8_text(const char *s)
{
	struct cv_buf b = CV_BUF_INIT;
	const unsigned char *u = (const unsigned char *)s;
	size_t n;

	for (; *u; u += n) {
		if ((n = cv_utf8_seq(u)) > 0) {
			cv_buf_add(&b, u, n);
		} else {
			cv_buf_addf(&b, "\\x%02x", *u);
			n = 1;
		}
	}
	return cv_buf_detach(&b);
}

/* Tell the parent what we are about to do: if we die now, that is where. */
static void
phase(struct probe *p, int step, const char *what)
{
	char *text = utf8_text(what);

	emit(p, cv_json_pack("{s:s,s:i,s:s}", "k", "phase", "step", step,
			     "what", text));
	free(text);
}

static void result(struct probe *p, int step, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void
result(struct probe *p, int step, int status, const char *fmt, ...)
{
	char reason[600], *text;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	text = utf8_text(reason);
	emit(p, cv_json_pack("{s:s,s:i,s:s,s:s}", "k", "step", "step", step,
			     "status", cv_check_name(status), "reason", text));
	free(text);
}

static void
fact_int(struct probe *p, const char *name, long v)
{
	emit(p, cv_json_pack("{s:s,s:s,s:I}", "k", "fact", "name", name,
			     "value", (int64_t)v));
}

static void
fact_str(struct probe *p, const char *name, const char *v)
{
	char *text = utf8_text(v);

	emit(p, cv_json_pack("{s:s,s:s,s:s}", "k", "fact", "name", name,
			     "value", text));
	free(text);
}

static const char *
min_driver_text(int cuda)
{
	const char *v = cv_machine_min_driver(cuda);

	return v != NULL ? v : "a release that lists this CUDA";
}

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

static void *
sym(void *h, const char *name)
{
	return h ? cv_dl_sym(h, name) : NULL;
}

/* ---- step 1: files ---------------------------------------------------- */

static int
step_files(struct probe *p)
{
	char *main_lib =
		xasprintf("%s/libcudnn.so.%d", p->a->libdir, p->a->major);
	int fd = cv_os_open(main_lib, CV_OPEN_READ, 0), dfd, ok = 1;
	const char *e;
	struct cv_dir *d;

	phase(p, CV_STEP_FILES, "reading the library files");
	if (fd < 0) {
		result(p, CV_STEP_FILES, CV_CHECK_FAIL,
		       "%s: %s; reinstall this version", main_lib,
		       strerror(errno));
		free(main_lib);
		return 0;
	}
	cv_os_close(fd);
	free(main_lib);
	if (cv_os_realpath(p->a->libdir, p->libdir_real,
			   sizeof p->libdir_real) == NULL)
		snprintf(p->libdir_real, sizeof p->libdir_real, "%s",
			 p->a->libdir);

	/* Every libcudnn* must be readable: the classic "chmod a+r". */
	d = cv_dir_open(p->a->libdir);
	dfd = d != NULL ? cv_dir_fd(d) : -1;
	while (d != NULL && ok && (e = cv_dir_next(d, NULL)) != NULL) {
		struct cv_stat st;
		int f;

		if (strncmp(e, "libcudnn", 8) != 0 ||
		    cv_os_stat_at(dfd, e, 1, &st) < 0 ||
		    st.kind != CV_KIND_FILE)
			continue;
		f = cv_os_open_at(dfd, e, CV_OPEN_READ, 0);
		if (f < 0) {
			result(p, CV_STEP_FILES, CV_CHECK_FAIL,
			       "%s/%s is not readable (%s); run: sudo chmod "
			       "a+r %s/libcudnn*",
			       p->a->libdir, e, strerror(errno), p->a->libdir);
			ok = 0;
		} else
			cv_os_close(f);
	}
	cv_dir_close(d);
	if (ok)
		result(p, CV_STEP_FILES, CV_CHECK_PASS, "%s", "");
	return ok;
}

/* ---- step 2: version -------------------------------------------------- */

/* From a dlerror() text, the missing library that is not cuDNN's own
 * ("libcublas.so.12: cannot open shared object file"), or NULL. */
static char *
missing_dep(const char *dlerr)
{
	const char *end =
		dlerr ? strstr(dlerr, ": cannot open shared object") : NULL;
	const char *start;

	if (end == NULL)
		return NULL;
	start = end;
	while (start > dlerr && start[-1] != ' ' && start[-1] != ':' &&
	       start[-1] != '/')
		start--;
	if (strncmp(start, "libcudnn", 8) == 0)
		return NULL;
	return xstrndup(start, (size_t)(end - start));
}

struct subcheck {
	const char *fn, *soname;
};
static const struct subcheck sub8[] = {
	{ "cudnnOpsInferVersionCheck", "libcudnn_ops_infer.so.8" },
	{ "cudnnCnnInferVersionCheck", "libcudnn_cnn_infer.so.8" },
	{ NULL, NULL },
};
static const struct subcheck sub9[] = {
	{ "cudnnGraphVersionCheck", "libcudnn_graph.so.9" },
	{ "cudnnOpsVersionCheck", "libcudnn_ops.so.9" },
	{ "cudnnCnnVersionCheck", "libcudnn_cnn.so.9" },
	{ NULL, NULL },
};

struct probe_state {
	char *dep_missing; /* a library outside cuDNN that a sub-library needs
			    */
	char *dep_needer;  /* the sub-library that needs it */
};

/* Make the sub-libraries load (cuDNN loads them lazily), so that step 3
 * sees them. 1 when all loaded, 0 on a fail (reported), 2 when one could
 * not load for a missing outside dependency (left to step 3/4). */
static int
load_sublibs(struct probe *p, struct probe_state *ps)
{
	const struct subcheck *c = p->a->major == 8   ? sub8
				   : p->a->major >= 9 ? sub9
						      : NULL;
	int rc = 1;

	for (; c != NULL && c->fn != NULL; c++) {
		fn_void f = (fn_void)sym(p->cudnn, c->fn);
		char *path, *dep, what[128];
		const char *dlerr;
		void *h;
		int st;

		if (f == NULL) {
			result(p, CV_STEP_VERSION, CV_CHECK_FAIL,
			       "libcudnn.so.%d has no %s: it is not the "
			       "cuDNN %d it claims to be; reinstall it",
			       p->a->major, c->fn, p->a->major);
			return 0;
		}
		snprintf(what, sizeof what, "calling %s (loads %s)", c->fn,
			 c->soname);
		phase(p, CV_STEP_VERSION, what);
		st = f();
		if (st == 0)
			continue;
		/* Learn why by loading the sub-library by path. */
		path = xasprintf("%s/%s", p->a->libdir, c->soname);
		if (cv_os_access(path, CV_ACCESS_EXISTS) != 0) {
			result(p, CV_STEP_VERSION, CV_CHECK_FAIL,
			       "%s returned status %d: %s is missing from "
			       "%s; reinstall this version",
			       c->fn, st, c->soname, p->a->libdir);
			free(path);
			return 0;
		}
		h = cv_dl_open(path, 0);
		dlerr = h ? NULL : cv_dl_error();
		dep = missing_dep(dlerr);
		free(path);
		if (dep != NULL) {
			if (ps->dep_missing == NULL) {
				ps->dep_missing = dep;
				ps->dep_needer = xstrdup(c->soname);
			} else
				free(dep);
			rc = 2;
			continue;
		}
		result(p, CV_STEP_VERSION, CV_CHECK_FAIL,
		       "%s returned status %d (sub-library %s: %s); "
		       "reinstall this version",
		       c->fn, st, c->soname, dlerr ? dlerr : "it loads");
		return 0;
	}
	return rc;
}

static int
step_version(struct probe *p, struct probe_state *ps)
{
	char *path = xasprintf("%s/libcudnn.so.%d", p->a->libdir, p->a->major);
	char what[PATH_MAX + 32];
	int maj, min, patch, emaj, emin, epatch, r;
	fn_size getver, getcudart;
	fn_prop getprop;
	long v, cudart;

	snprintf(what, sizeof what, "loading %s", path);
	phase(p, CV_STEP_VERSION, what);
	p->cudnn = cv_dl_open(path, 0);
	if (p->cudnn == NULL) {
		const char *dlerr = cv_dl_error();
		char *dep = missing_dep(dlerr);
		if (dep != NULL)
			result(p, CV_STEP_VERSION, CV_CHECK_FAIL,
			       "cannot load %s: it needs %s, which is not "
			       "found; install it or add its folder to "
			       "/etc/ld.so.conf.d",
			       path, dep);
		else
			result(p, CV_STEP_VERSION, CV_CHECK_FAIL,
			       "cannot load %s: %s; reinstall this version",
			       path, dlerr ? dlerr : "unknown error");
		free(dep);
		free(path);
		return 0;
	}
	free(path);
	getver = (fn_size)sym(p->cudnn, "cudnnGetVersion");
	getcudart = (fn_size)sym(p->cudnn, "cudnnGetCudartVersion");
	getprop = (fn_prop)sym(p->cudnn, "cudnnGetProperty");
	if (getver == NULL || getcudart == NULL) {
		result(p, CV_STEP_VERSION, CV_CHECK_FAIL,
		       "libcudnn.so.%d has no %s: not a cuDNN library or a "
		       "damaged one; reinstall this version",
		       p->a->major,
		       getver == NULL ? "cudnnGetVersion"
				      : "cudnnGetCudartVersion");
		return 0;
	}
	r = load_sublibs(p, ps);
	if (r == 0)
		return 0;
	phase(p, CV_STEP_VERSION, "calling cudnnGetVersion");
	v = (long)getver();
	cudart = (long)getcudart();
	fact_int(p, "cudnn_version", v);
	fact_int(p, "cudart_version", cudart);
	cv_probe_decode(v, &maj, &min, &patch);
	cv_probe_decode(p->a->expect, &emaj, &emin, &epatch);
	if (v != p->a->expect) {
		result(p, CV_STEP_VERSION, CV_CHECK_FAIL,
		       "cudnnGetVersion() says %d.%d.%d (%ld) but this "
		       "install is %d.%d.%d (%ld): its files were replaced "
		       "or mixed; reinstall it with --force",
		       maj, min, patch, v, emaj, emin, epatch, p->a->expect);
		return 0;
	}
	if (getprop != NULL) {
		int pm = -1, pn = -1, pp = -1;
		getprop(0, &pm);
		getprop(1, &pn);
		getprop(2, &pp);
		if (pm != maj || pn != min || pp != patch) {
			result(p, CV_STEP_VERSION, CV_CHECK_FAIL,
			       "cudnnGetProperty() says %d.%d.%d but "
			       "cudnnGetVersion() says %d.%d.%d: the "
			       "libraries are mixed; reinstall with --force",
			       pm, pn, pp, maj, min, patch);
			return 0;
		}
	}
	if (p->a->cuda > 0 && cudart / 1000 != p->a->cuda) {
		result(p, CV_STEP_VERSION, CV_CHECK_FAIL,
		       "this build is for CUDA %ld.%ld but is installed as "
		       "the cuda%d variant; reinstall it with --cuda %ld",
		       cudart / 1000, cudart % 1000 / 10, p->a->cuda,
		       cudart / 1000);
		return 0;
	}
	result(p, CV_STEP_VERSION, CV_CHECK_PASS,
	       "cuDNN %d.%d.%d, built with CUDA %ld.%ld", maj, min, patch,
	       cudart / 1000, cudart % 1000 / 10);
	return r;
}

/* ---- step 3: provenance ----------------------------------------------- */

struct prov {
	const char *want;          /* real path of the install's lib/ */
	char first[PATH_MAX + 64]; /* the first foreign one: name and folder */
	int nlocal, nforeign;
};

static int
prov_cb(const char *name, void *arg)
{
	struct prov *pv = arg;
	const char *base;
	char real[PATH_MAX], *slash;

	if (*name == '\0')
		return 0;
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (strncmp(base, "libcudnn", 8) != 0)
		return 0;
	if (cv_os_realpath(name, real, sizeof real) == NULL)
		snprintf(real, sizeof real, "%s", name);
	slash = strrchr(real, '/');
	if (slash != NULL)
		*slash = '\0';
	if (strcmp(real, pv->want) == 0) {
		pv->nlocal++;
		return 0;
	}
	if (pv->nforeign++ == 0)
		snprintf(pv->first, sizeof pv->first, "%s came from %s", base,
			 real);
	return 0;
}

/* After the convolution: the engine libraries cuDNN 9 loads only then
 * must come from this install too. Overrides step 3 when they do not. */
static void
recheck_provenance(struct probe *p)
{
	struct prov pv;

	memset(&pv, 0, sizeof pv);
	pv.want = p->libdir_real;
	cv_dl_each_loaded(prov_cb, &pv);
	if (pv.nforeign)
		result(p, CV_STEP_PROVENANCE, CV_CHECK_FAIL,
		       "mixed load during the convolution: %s, not from %s; "
		       "another cuDNN shadows this one (run: cudnnvm doctor)",
		       pv.first, p->libdir_real);
}

static void
step_provenance(struct probe *p, int loaded, const struct probe_state *ps,
		int gpu)
{
	struct prov pv;
	char more[64] = "";

	memset(&pv, 0, sizeof pv);
	pv.want = p->libdir_real;
	phase(p, CV_STEP_PROVENANCE, "listing the loaded libraries");
	cv_dl_each_loaded(prov_cb, &pv);
	if (pv.nforeign > 1)
		snprintf(more, sizeof more, " (and %d more)", pv.nforeign - 1);
	if (pv.nforeign) {
		result(p, CV_STEP_PROVENANCE, CV_CHECK_FAIL,
		       "mixed load: %s%s, not from %s; another cuDNN shadows "
		       "this one (run: cudnnvm doctor)",
		       pv.first, more, p->libdir_real);
	} else if (loaded == 2) {
		/* Only a GPU machine can use it, so only there is it a fail. */
		result(p, CV_STEP_PROVENANCE,
		       gpu > 0 ? CV_CHECK_FAIL : CV_CHECK_SKIP,
		       "cuDNN libraries loaded: %d, all from this install, but "
		       "%s cannot load: it needs %s, which is not found; "
		       "install the CUDA %d libraries (cuBLAS)",
		       pv.nlocal, ps->dep_needer, ps->dep_missing, p->a->cuda);
	} else {
		result(p, CV_STEP_PROVENANCE, CV_CHECK_PASS,
		       "cuDNN libraries loaded: %d, all from %s", pv.nlocal,
		       p->libdir_real);
	}
}

/* ---- steps 4 and 5: driver, dependencies, GPU ------------------------- */

typedef int (*cu_int)(int);
typedef int (*cu_intp)(int *);
typedef int (*cu_dev_get)(int *, int);
typedef int (*cu_attr)(int *, int, int);
typedef int (*cu_name)(char *, int, int);
typedef int (*cu_ctx_retain)(void **, int);
typedef int (*cu_ptrv)(void *);
typedef int (*cu_alloc)(cu_ptr *, size_t);
typedef int (*cu_free)(cu_ptr);
typedef int (*cu_htod)(cu_ptr, const void *, size_t);
typedef int (*cu_dtoh)(void *, cu_ptr, size_t);
typedef int (*cu_sync)(void);

struct driver {
	int state; /* 1 usable GPU, 0 no GPU (skip), -1 fail */
	char why[600];
	int version, dev, no_gpu;
	void *cuda;
};

/* The driver found no device: when CUDA_VISIBLE_DEVICES is set, it is
 * what hid them (the driver reads it; "" or an index that does not exist
 * hides every GPU), so say that rather than "no NVIDIA GPU". */
static void
hidden_by_visible_devices(struct driver *d)
{
	const char *vis = getenv("CUDA_VISIBLE_DEVICES");

	if (vis == NULL)
		return;
	snprintf(d->why, sizeof d->why,
		 "no GPU is visible: CUDA_VISIBLE_DEVICES='%.200s' %s; unset "
		 "it, or name a GPU (CUDA_VISIBLE_DEVICES=0)",
		 vis,
		 *vis ? "names no GPU the driver has"
		      : "is empty, which hides "
			"every GPU");
}

/* Load the driver and cuInit. It emits nothing, so it can run in a thread
 * while cuDNN loads: cuInit is most of a cold validation's time. */
static void
driver_init(struct driver *d)
{
	cu_int init;
	cu_intp getver, count;
	cu_dev_get devget;
	int r, n = 0;

	d->state = 0;
	snprintf(d->why, sizeof d->why, "no NVIDIA GPU");
	if (d->no_gpu) {
		snprintf(d->why, sizeof d->why, "--no-gpu given");
		return;
	}
	d->cuda = cv_dl_open("libcuda.so.1", 1);
	if (d->cuda == NULL) {
		if (cv_os_access("/proc/driver/nvidia/version",
				 CV_ACCESS_EXISTS) == 0) {
			d->state = -1;
			snprintf(d->why, sizeof d->why,
				 "the NVIDIA kernel driver is loaded but "
				 "libcuda.so.1 is not found; install the "
				 "driver's user-space libraries of the same "
				 "version");
		}
		return;
	}
	init = (cu_int)sym(d->cuda, "cuInit");
	getver = (cu_intp)sym(d->cuda, "cuDriverGetVersion");
	count = (cu_intp)sym(d->cuda, "cuDeviceGetCount");
	devget = (cu_dev_get)sym(d->cuda, "cuDeviceGet");
	if (!init || !getver || !count || !devget) {
		d->state = -1;
		snprintf(d->why, sizeof d->why,
			 "libcuda.so.1 lacks the driver API (cuInit); "
			 "reinstall the NVIDIA driver");
		return;
	}
	r = init(0);
	if (r == CUDA_ERROR_NO_DEVICE) {
		hidden_by_visible_devices(d);
		return;
	}
	if (r != 0) {
		d->state = -1;
		snprintf(d->why, sizeof d->why,
			 "cuInit failed with CUDA error %d: the driver is "
			 "unusable (check nvidia-smi; reboot after a driver "
			 "update)",
			 r);
		return;
	}
	getver(&d->version);
	if (count(&n) != 0 || n < 1 || devget(&d->dev, 0) != 0) {
		hidden_by_visible_devices(d);
		return;
	}
	d->state = 1;
}

static void *
driver_thread(void *arg)
{
	driver_init(arg);
	return NULL;
}

/* Step 4: the driver is new enough and the CUDA libraries cuDNN loads at
 * run time are there. 1 when step 5 may run. */
static int
step_driver(struct probe *p, const struct driver *d,
	    const struct probe_state *ps)
{
	int need = cv_probe_min_driver(p->a->cuda);
	char so[64];

	if (d->state == 0) {
		result(p, CV_STEP_DRIVER, CV_CHECK_SKIP, "%s", d->why);
		return 0;
	}
	if (d->state < 0) {
		result(p, CV_STEP_DRIVER, CV_CHECK_FAIL, "%s", d->why);
		return 0;
	}
	if (need && d->version < need) {
		result(p, CV_STEP_DRIVER, CV_CHECK_FAIL,
		       "the driver supports CUDA %d.%d but this build needs "
		       "CUDA %d; update the NVIDIA driver (r%s or newer)",
		       d->version / 1000, d->version % 1000 / 10, p->a->cuda,
		       min_driver_text(p->a->cuda));
		return 0;
	}
	if (ps->dep_missing != NULL) {
		result(p, CV_STEP_DRIVER, CV_CHECK_FAIL,
		       "%s needs %s, which is not found; install the CUDA %d "
		       "libraries (cuBLAS) or set CUDA_HOME to a toolkit "
		       "that has them",
		       ps->dep_needer, ps->dep_missing, p->a->cuda);
		return 0;
	}
	if (p->a->major == 8 && cv_dl_open("libcuda.so", 1) == NULL) {
		/* 8.x cnn_infer dlopens the unversioned name (WSL, some
		 * containers only have libcuda.so.1). */
		char file[PATH_MAX];
		char dir[PATH_MAX] = "<driver folder>", *slash;
		void *f = sym(p->cuda, "cuInit");
		if (f != NULL && cv_dl_file_of(f, file, sizeof file) == 0 &&
		    cv_os_realpath(file, dir, sizeof dir) != NULL &&
		    (slash = strrchr(dir, '/')) != NULL)
			*slash = '\0';
		result(p, CV_STEP_DRIVER, CV_CHECK_FAIL,
		       "cuDNN 8 loads the unversioned libcuda.so, which is "
		       "missing (only libcuda.so.1 is there); run: sudo ln -s "
		       "libcuda.so.1 %s/libcuda.so",
		       dir);
		return 0;
	}
	if (p->a->major >= 8) {
		phase(p, CV_STEP_DRIVER, "loading libcublasLt");
		snprintf(so, sizeof so, "libcublasLt.so.%d", p->a->cuda);
		if (p->a->cublaslt == NULL ||
		    cv_dl_open(p->a->cublaslt, 1) == NULL) {
			result(p, CV_STEP_DRIVER, CV_CHECK_FAIL,
			       "%s is not found (cuDNN %d loads it for its "
			       "kernels); install the CUDA %d libraries "
			       "(cuBLAS) or set CUDA_HOME to a toolkit that "
			       "has them",
			       so, p->a->major, p->a->cuda);
			return 0;
		}
	}
	result(p, CV_STEP_DRIVER, CV_CHECK_PASS, "driver for CUDA %d.%d%s%s",
	       d->version / 1000, d->version % 1000 / 10,
	       p->a->cublaslt ? ", " : "",
	       p->a->cublaslt ? p->a->cublaslt : "");
	return 1;
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

static void
conv_reference(const float *x, const float *w, float *y)
{
	/* Cross-correlation, pad 1, stride 1: the output is 16x16. */
	for (int k = 0; k < CONV_K; k++)
		for (int i = 0; i < CONV_H; i++)
			for (int j = 0; j < CONV_W; j++) {
				double acc = 0;
				for (int c = 0; c < CONV_C; c++)
					for (int r = 0; r < CONV_R; r++)
						for (int s = 0; s < CONV_S;
						     s++) {
							int yy = i + r - 1,
							    xx = j + s - 1;
							if (yy < 0 ||
							    yy >= CONV_H ||
							    xx < 0 ||
							    xx >= CONV_W)
								continue;
							acc += (double)x
								       [(c * CONV_H +
									 yy) * CONV_W +
									xx] *
							       w[((k * CONV_C +
								   c) * CONV_R +
								  r) * CONV_S +
								 s];
						}
				y[(k * CONV_H + i) * CONV_W + j] = (float)acc;
			}
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

/* The cuDNN entry points step 5 calls; 0, or -1 with the step failed. */
static int
load_conv_api(struct probe *p, struct cudnn_api *api)
{
#define LOAD(field, nm)                                                  \
	do {                                                             \
		*(void **)&api->field = sym(p->cudnn, nm);               \
		if (api->field == NULL) {                                \
			result(p, CV_STEP_GPU, CV_CHECK_FAIL,            \
			       "libcudnn.so.%d has no %s; reinstall it", \
			       p->a->major, nm);                         \
			return -1;                                       \
		}                                                        \
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
	*(void **)&api->set_math = sym(p->cudnn, "cudnnSetConvolutionMathType");
	*(void **)&api->errstr = sym(p->cudnn, "cudnnGetErrorString");
	return 0;
}

/* One convolution of step 5, from descriptors to the result checked. */
struct conv {
	struct probe *p;
	struct cudnn_api api;
	const char *gpu;
	cudnn_handle h;
	cudnn_desc xd, yd, wd, cd;
	int algo;
	size_t wsz;
};

/* A cuDNN call of step 5: on a failure the step fails naming it, and the
 * function returns -1. */
#define CK(cv, call, what)                                                  \
	do {                                                                \
		int st_;                                                    \
		phase((cv)->p, CV_STEP_GPU, "calling " what);               \
		st_ = (call);                                               \
		if (st_ != 0) {                                             \
			result((cv)->p, CV_STEP_GPU, CV_CHECK_FAIL,         \
			       what " failed: %s (%d) on %s",               \
			       cudnn_err(&(cv)->api, st_), st_, (cv)->gpu); \
			return -1;                                          \
		}                                                           \
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
		result(cv->p, CV_STEP_GPU, CV_CHECK_FAIL,
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
	if (api->set_math != NULL && cv->p->a->major >= 8)
		CK(cv, api->set_math(cv->cd, CUDNN_FMA_MATH),
		   "cudnnSetConvolutionMathType");
	CK(cv, api->out_dim(cv->cd, cv->xd, cv->wd, &n, &c, &hh, &ww),
	   "cudnnGetConvolution2dForwardOutputDim");
	if (n != CONV_N || c != CONV_K || hh != CONV_H || ww != CONV_W) {
		result(cv->p, CV_STEP_GPU, CV_CHECK_FAIL,
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
conv_check(struct conv *cv, const struct probe *p)
{
	float x[CONV_N * CONV_C * CONV_H * CONV_W];
	float w[CONV_K * CONV_C * CONV_R * CONV_S];
	float y[CONV_K * CONV_H * CONV_W], ref[CONV_K * CONV_H * CONV_W];
	cu_alloc alloc = (cu_alloc)sym(p->cuda, "cuMemAlloc_v2");
	cu_htod htod = (cu_htod)sym(p->cuda, "cuMemcpyHtoD_v2");
	cu_dtoh dtoh = (cu_dtoh)sym(p->cuda, "cuMemcpyDtoH_v2");
	cu_sync sync = (cu_sync)sym(p->cuda, "cuCtxSynchronize");
	cu_ptr dx, dw, dy, dws = 0;
	unsigned seed = 12345;
	float alpha = 1.0f, beta = 0.0f;
	double maxerr = 0;

	for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
		x[i] = rnd(&seed);
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		w[i] = rnd(&seed);
	conv_reference(x, w, ref);
	phase(cv->p, CV_STEP_GPU, "copying to the GPU");
	if (alloc(&dx, sizeof x) || alloc(&dw, sizeof w) ||
	    alloc(&dy, sizeof y) || (cv->wsz && alloc(&dws, cv->wsz)) ||
	    htod(dx, x, sizeof x) || htod(dw, w, sizeof w)) {
		result(cv->p, CV_STEP_GPU, CV_CHECK_FAIL,
		       "cannot allocate or copy GPU memory on %s; is it "
		       "full? (nvidia-smi)",
		       cv->gpu);
		return -1;
	}
	CK(cv,
	   cv->api.fwd(cv->h, &alpha, cv->xd, dx, cv->wd, dw, cv->cd, cv->algo,
		       dws, cv->wsz, &beta, cv->yd, dy),
	   "cudnnConvolutionForward");
	phase(cv->p, CV_STEP_GPU, "reading the result back");
	if (sync() != 0 || dtoh(y, dy, sizeof y) != 0) {
		result(cv->p, CV_STEP_GPU, CV_CHECK_FAIL,
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

/* Step 5: compute capability, then one forward convolution. */
static void
step_gpu(struct probe *p, const struct driver *d)
{
	cu_attr attr = (cu_attr)sym(p->cuda, "cuDeviceGetAttribute");
	cu_name name = (cu_name)sym(p->cuda, "cuDeviceGetName");
	cu_ctx_retain retain =
		(cu_ctx_retain)sym(p->cuda, "cuDevicePrimaryCtxRetain");
	cu_ptrv setcur = (cu_ptrv)sym(p->cuda, "cuCtxSetCurrent");
	struct conv cv;
	int ccmaj = 0, ccmin = 0, need, maj, min, patch, r;
	double maxerr;
	char gpu[128] = "";
	void *ctx = NULL;

	if (!attr || !name || !retain || !setcur ||
	    !sym(p->cuda, "cuMemAlloc_v2") ||
	    !sym(p->cuda, "cuMemcpyHtoD_v2") ||
	    !sym(p->cuda, "cuMemcpyDtoH_v2") ||
	    !sym(p->cuda, "cuCtxSynchronize")) {
		result(p, CV_STEP_GPU, CV_CHECK_FAIL,
		       "libcuda.so.1 lacks a driver API call; reinstall the "
		       "NVIDIA driver");
		return;
	}
	name(gpu, (int)sizeof gpu, d->dev);
	attr(&ccmaj, CU_ATTR_CC_MAJOR, d->dev);
	attr(&ccmin, CU_ATTR_CC_MINOR, d->dev);
	fact_str(p, "gpu", gpu);
	fact_int(p, "cc_major", ccmaj);
	fact_int(p, "cc_minor", ccmin);
	cv_probe_decode(p->a->expect, &maj, &min, &patch);
	if (!cv_probe_cc_ok(maj, min, ccmaj, ccmin, &need)) {
		result(p, CV_STEP_GPU, CV_CHECK_FAIL,
		       "%s has compute capability %d.%d; cuDNN %d.%d needs "
		       "%d.%d or newer; use an older cuDNN (9.10 still runs "
		       "on Maxwell, Pascal and Volta)",
		       gpu, ccmaj, ccmin, maj, min, need / 10, need % 10);
		return;
	}
	if (p->cudnn == NULL) {
		result(p, CV_STEP_GPU, CV_CHECK_SKIP, "cuDNN did not load");
		return;
	}
	memset(&cv, 0, sizeof cv);
	cv.p = p;
	cv.gpu = gpu;
	if (load_conv_api(p, &cv.api) < 0)
		return;
	phase(p, CV_STEP_GPU, "creating a CUDA context");
	r = retain(&ctx, d->dev);
	if (r == 0)
		r = setcur(ctx);
	if (r != 0) {
		result(p, CV_STEP_GPU, CV_CHECK_FAIL,
		       "cannot create a CUDA context on %s (CUDA error %d); "
		       "check nvidia-smi",
		       gpu, r);
		return;
	}
	if (conv_setup(&cv) < 0 || (maxerr = conv_check(&cv, p)) < 0)
		return;
	emit(p, cv_json_pack("{s:s,s:s,s:f}", "k", "fact", "name", "max_err",
			     "value", isfinite(maxerr) ? maxerr : 1e30));
	if (!(maxerr < 1e-3)) {
		result(p, CV_STEP_GPU, CV_CHECK_FAIL,
		       "the convolution on %s is wrong: max error %.3g vs the "
		       "CPU reference (algo %d)",
		       gpu, maxerr, cv.algo);
		return;
	}
	p->gpu_pass = 1;
	result(p, CV_STEP_GPU, CV_CHECK_PASS,
	       "%s (sm_%d%d): 2-D convolution matches the CPU reference "
	       "(max error %.1e, algo %d)",
	       gpu, ccmaj, ccmin, maxerr, cv.algo);
}

int
cv_probe_run(const struct cv_probe_args *a, int fd)
{
	struct probe p;
	struct probe_state ps = { NULL, NULL };
	struct driver d;
	int loaded = 0, usable, threaded = 0;
	pthread_t th;

	memset(&p, 0, sizeof p);
	memset(&d, 0, sizeof d);
	p.fd = fd;
	p.a = a;
	d.no_gpu = a->no_gpu;
	if (!a->no_gpu && pthread_create(&th, NULL, driver_thread, &d) == 0)
		threaded = 1;
	if (step_files(&p))
		loaded = step_version(&p, &ps);
	else
		result(&p, CV_STEP_VERSION, CV_CHECK_SKIP,
		       "the files are not usable");
	phase(&p, CV_STEP_DRIVER,
	      "loading libcuda.so.1 and initialising the driver (cuInit)");
	if (threaded)
		pthread_join(th, NULL);
	else
		driver_init(&d);
	p.cuda = d.cuda;
	if (d.version)
		fact_int(&p, "driver_version", d.version);
	if (p.cudnn != NULL)
		step_provenance(&p, loaded == 2 ? 2 : 1, &ps, d.state);
	else
		result(&p, CV_STEP_PROVENANCE, CV_CHECK_SKIP,
		       "cuDNN did not load");
	usable = step_driver(&p, &d, &ps);
	if (usable && loaded != 0) {
		step_gpu(&p, &d);
		recheck_provenance(&p);
		/* bench: the layers, then provenance once more (engines load
		 * lazily, per layer); the parent drops the figures on a fail.
		 */
		if (p.gpu_pass && a->nlayers > 0 && a->bench != NULL &&
		    a->bench(a, p.cudnn, p.cuda, d.dev, fd) == 0)
			recheck_provenance(&p);
	} else
		result(&p, CV_STEP_GPU, CV_CHECK_SKIP, "%s",
		       d.state == 0 ? d.why
				    : "not run: an earlier step failed");
	emit(&p, cv_json_pack("{s:s}", "k", "done"));
	free(ps.dep_missing);
	free(ps.dep_needer);
	return 0;
}
