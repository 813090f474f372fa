/* probe.c: the code that runs inside the validation child. It dlopens
 * cuDNN by absolute path (never links it), checks the version, where every
 * libcudnn* came from, the driver and cuBLASLt, and runs one real forward
 * convolution through the driver API (probe_conv.c, which Windows shares). It
 * declares the few prototypes it needs itself: no CUDA header is involved. Each
 * finding is written as one JSON line, so the parent keeps what was learned if
 * cuDNN kills us. */
#include "base/base.h"
#include "machine/machine.h"
#include "store/store.h"
#include "validate/validate_int.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CUDA_ERROR_NO_DEVICE = 100 };

typedef size_t (*fn_size)(void);
typedef int (*fn_void)(void);
typedef int (*fn_prop)(int, int *);

/* Each phase is said before it starts (cv_probe_phase): if the child
 * dies, the parent knows where. */
struct probe {
	int fd;
	struct cv_probe_sink out; /* the JSON lines on fd */
	const struct cv_probe_args *a;
	void *cudnn, *cuda;
	char libdir_real[PATH_MAX];
	int gpu_ok;   /* a device is there and usable */
	int gpu_pass; /* step 5 passed: the context is current */
};

static void
fact_int(struct probe *p, const char *name, long v)
{
	p->out.fact(p->out.payload, name, v);
}

static const char *
min_driver_text(int cuda)
{
	const char *v = cv_machine_min_driver(cuda);

	return v != NULL ? v : "a release that lists this CUDA";
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

	cv_probe_phase(&p->out, CV_STEP_FILES, "reading the library files");
	if (fd < 0) {
		cv_probe_say(&p->out, CV_STEP_FILES, CV_CHECK_FAIL,
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
			cv_probe_say(
				&p->out, CV_STEP_FILES, CV_CHECK_FAIL,
				"%s/%s is not readable (%s); run: sudo chmod "
				"a+r %s/libcudnn*",
				p->a->libdir, e, strerror(errno), p->a->libdir);
			ok = 0;
		} else
			cv_os_close(f);
	}
	cv_dir_close(d);
	if (ok)
		cv_probe_say(&p->out, CV_STEP_FILES, CV_CHECK_PASS, "%s", "");
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
			cv_probe_say(&p->out, CV_STEP_VERSION, CV_CHECK_FAIL,
				     "libcudnn.so.%d has no %s: it is not the "
				     "cuDNN %d it claims to be; reinstall it",
				     p->a->major, c->fn, p->a->major);
			return 0;
		}
		snprintf(what, sizeof what, "calling %s (loads %s)", c->fn,
			 c->soname);
		cv_probe_phase(&p->out, CV_STEP_VERSION, what);
		st = f();
		if (st == 0)
			continue;
		/* Learn why by loading the sub-library by path. */
		path = xasprintf("%s/%s", p->a->libdir, c->soname);
		if (cv_os_access(path, CV_ACCESS_EXISTS) != 0) {
			cv_probe_say(
				&p->out, CV_STEP_VERSION, CV_CHECK_FAIL,
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
		cv_probe_say(&p->out, CV_STEP_VERSION, CV_CHECK_FAIL,
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
	cv_probe_phase(&p->out, CV_STEP_VERSION, what);
	p->cudnn = cv_dl_open(path, 0);
	if (p->cudnn == NULL) {
		const char *dlerr = cv_dl_error();
		char *dep = missing_dep(dlerr);
		if (dep != NULL)
			cv_probe_say(
				&p->out, CV_STEP_VERSION, CV_CHECK_FAIL,
				"cannot load %s: it needs %s, which is not "
				"found; install it or add its folder to "
				"/etc/ld.so.conf.d",
				path, dep);
		else
			cv_probe_say(
				&p->out, CV_STEP_VERSION, CV_CHECK_FAIL,
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
		cv_probe_say(
			&p->out, CV_STEP_VERSION, CV_CHECK_FAIL,
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
	cv_probe_phase(&p->out, CV_STEP_VERSION, "calling cudnnGetVersion");
	v = (long)getver();
	cudart = (long)getcudart();
	fact_int(p, "cudnn_version", v);
	fact_int(p, "cudart_version", cudart);
	cv_probe_decode(v, &maj, &min, &patch);
	cv_probe_decode(p->a->expect, &emaj, &emin, &epatch);
	if (v != p->a->expect) {
		cv_probe_say(
			&p->out, CV_STEP_VERSION, CV_CHECK_FAIL,
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
			cv_probe_say(
				&p->out, CV_STEP_VERSION, CV_CHECK_FAIL,
				"cudnnGetProperty() says %d.%d.%d but "
				"cudnnGetVersion() says %d.%d.%d: the "
				"libraries are mixed; reinstall with --force",
				pm, pn, pp, maj, min, patch);
			return 0;
		}
	}
	if (p->a->cuda > 0 && cudart / 1000 != p->a->cuda) {
		cv_probe_say(
			&p->out, CV_STEP_VERSION, CV_CHECK_FAIL,
			"this build is for CUDA %ld.%ld but is installed as "
			"the cuda%d variant; reinstall it with --cuda %ld",
			cudart / 1000, cudart % 1000 / 10, p->a->cuda,
			cudart / 1000);
		return 0;
	}
	cv_probe_say(&p->out, CV_STEP_VERSION, CV_CHECK_PASS,
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
		cv_probe_say(
			&p->out, CV_STEP_PROVENANCE, CV_CHECK_FAIL,
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
	cv_probe_phase(&p->out, CV_STEP_PROVENANCE,
		       "listing the loaded libraries");
	cv_dl_each_loaded(prov_cb, &pv);
	if (pv.nforeign > 1)
		snprintf(more, sizeof more, " (and %d more)", pv.nforeign - 1);
	if (pv.nforeign) {
		cv_probe_say(
			&p->out, CV_STEP_PROVENANCE, CV_CHECK_FAIL,
			"mixed load: %s%s, not from %s; another cuDNN shadows "
			"this one (run: cudnnvm doctor)",
			pv.first, more, p->libdir_real);
	} else if (loaded == 2) {
		/* Only a GPU machine can use it, so only there is it a fail. */
		cv_probe_say(
			&p->out, CV_STEP_PROVENANCE,
			gpu > 0 ? CV_CHECK_FAIL : CV_CHECK_SKIP,
			"cuDNN libraries loaded: %d, all from this install, but "
			"%s cannot load: it needs %s, which is not found; "
			"install the CUDA %d libraries (cuBLAS)",
			pv.nlocal, ps->dep_needer, ps->dep_missing, p->a->cuda);
	} else {
		cv_probe_say(&p->out, CV_STEP_PROVENANCE, CV_CHECK_PASS,
			     "cuDNN libraries loaded: %d, all from %s",
			     pv.nlocal, p->libdir_real);
	}
}

/* ---- steps 4 and 5: driver, dependencies, GPU ------------------------- */

typedef int (*cu_int)(int);
typedef int (*cu_intp)(int *);
typedef int (*cu_dev_get)(int *, int);

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
		cv_probe_say(&p->out, CV_STEP_DRIVER, CV_CHECK_SKIP, "%s",
			     d->why);
		return 0;
	}
	if (d->state < 0) {
		cv_probe_say(&p->out, CV_STEP_DRIVER, CV_CHECK_FAIL, "%s",
			     d->why);
		return 0;
	}
	if (need && d->version < need) {
		cv_probe_say(
			&p->out, CV_STEP_DRIVER, CV_CHECK_FAIL,
			"the driver supports CUDA %d.%d but this build needs "
			"CUDA %d; update the NVIDIA driver (r%s or newer)",
			d->version / 1000, d->version % 1000 / 10, p->a->cuda,
			min_driver_text(p->a->cuda));
		return 0;
	}
	if (ps->dep_missing != NULL) {
		cv_probe_say(
			&p->out, CV_STEP_DRIVER, CV_CHECK_FAIL,
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
		cv_probe_say(
			&p->out, CV_STEP_DRIVER, CV_CHECK_FAIL,
			"cuDNN 8 loads the unversioned libcuda.so, which is "
			"missing (only libcuda.so.1 is there); run: sudo ln -s "
			"libcuda.so.1 %s/libcuda.so",
			dir);
		return 0;
	}
	if (p->a->major >= 8) {
		cv_probe_phase(&p->out, CV_STEP_DRIVER, "loading libcublasLt");
		snprintf(so, sizeof so, "libcublasLt.so.%d", p->a->cuda);
		if (p->a->cublaslt == NULL ||
		    cv_dl_open(p->a->cublaslt, 1) == NULL) {
			cv_probe_say(
				&p->out, CV_STEP_DRIVER, CV_CHECK_FAIL,
				"%s is not found (cuDNN %d loads it for its "
				"kernels); install the CUDA %d libraries "
				"(cuBLAS) or set CUDA_HOME to a toolkit that "
				"has them",
				so, p->a->major, p->a->cuda);
			return 0;
		}
	}
	cv_probe_say(&p->out, CV_STEP_DRIVER, CV_CHECK_PASS,
		     "driver for CUDA %d.%d%s%s", d->version / 1000,
		     d->version % 1000 / 10, p->a->cublaslt ? ", " : "",
		     p->a->cublaslt ? p->a->cublaslt : "");
	return 1;
}

/* Step 5 (probe_conv.c, shared with Windows). */
static void
step_gpu(struct probe *p, const struct driver *d)
{
	char so[64];
	struct cv_probe_gpu g = {
		.s = &p->out,
		.cudnn = p->cudnn,
		.cuda = p->cuda,
		.dev = d->dev,
		.major = p->a->major,
		.expect = p->a->expect,
		.cudnn_file = so,
		.driver_file = "libcuda.so.1",
	};

	snprintf(so, sizeof so, "libcudnn.so.%d", p->a->major);
	p->gpu_pass = cv_probe_gpu_conv(&g);
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
	p.out = cv_probe_lines(&p.fd);
	p.a = a;
	d.no_gpu = a->no_gpu;
	if (!a->no_gpu && pthread_create(&th, NULL, driver_thread, &d) == 0)
		threaded = 1;
	if (step_files(&p))
		loaded = step_version(&p, &ps);
	else
		cv_probe_say(&p.out, CV_STEP_VERSION, CV_CHECK_SKIP,
			     "the files are not usable");
	cv_probe_phase(
		&p.out, CV_STEP_DRIVER,
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
		cv_probe_say(&p.out, CV_STEP_PROVENANCE, CV_CHECK_SKIP,
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
		cv_probe_say(&p.out, CV_STEP_GPU, CV_CHECK_SKIP, "%s",
			     d.state == 0 ? d.why
					  : "not run: an earlier step failed");
	cv_probe_emit(p.fd, cv_json_pack("{s:s}", "k", "done"));
	free(ps.dep_missing);
	free(ps.dep_needer);
	return 0;
}
