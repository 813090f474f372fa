/* probe_win32.c: the validation child's steps on Windows, the twin of
 * probe.c's: cudnn64_<major>.dll is loaded by its full path from the
 * version's folder only (cv_dl_open: LoadLibraryExW with
 * LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, so
 * neither PATH nor the working folder can supply a sub-library), its
 * version read, every cudnn*64_<major>.dll the process then holds checked
 * to come from that folder (EnumProcessModules), and the driver looked
 * for as nvcuda.dll in the system folders, and with a GPU there, probe.c's
 * convolution run through it (probe_conv.c). Before any load, the files are
 * read as the loader would (machine/pe.c): a DLL of another machine, or
 * no PE at all, is named as such instead of LoadLibraryExW's "%1 is not a
 * valid Win32 application". cuDNN 8.3 to 9.1 load zlibwapi.dll at run
 * time, which NVIDIA does not ship: its absence is said here, where
 * otherwise the first convolution would fail.
 *
 * What was found goes to a sink (struct cv_probe_sink), one call per phase,
 * fact and result: cv_probe_run's writes them as probe.c's JSON lines. */
#ifdef _WIN32
#include "base/base.h"
#include "machine/machine.h"
#include "store/store.h"
#include "validate/validate_int.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef size_t (*fn_size)(void);
typedef int (*fn_void)(void);
typedef int (*cu_int)(int);
typedef int (*cu_intp)(int *);
typedef int (*cu_dev_get)(int *, int);

enum { CUDA_ERROR_NO_DEVICE = 100 };

struct wprobe {
	const struct cv_probe_args *a;
	const struct cv_probe_sink *s;
	void *cudnn, *cuda;
	int dev;                   /* the driver's device 0 */
	char dir[CV_WIN_PATH_MAX]; /* the folder, full, '\' separated */
};

/* ASCII case folded, '/' read as '\': how Windows compares the paths
 * the loader reports with the folder asked for */
static int
same_path(const char *a, const char *b)
{
	for (;; a++, b++) {
		int x = (unsigned char)*a, y = (unsigned char)*b;

		if (x == '/')
			x = '\\';
		if (y == '/')
			y = '\\';
		if (x >= 'A' && x <= 'Z')
			x += 'a' - 'A';
		if (y >= 'A' && y <= 'Z')
			y += 'a' - 'A';
		if (x != y)
			return 0;
		if (x == '\0')
			return 1;
	}
}

int
cv_probe_win_is_cudnn_dll(const char *name, int major)
{
	char head[6], tail[32];
	size_t n = strlen(name), t;

	snprintf(tail, sizeof tail, "64_%d.dll", major);
	t = strlen(tail);
	if (n < 5 + t)
		return 0;
	snprintf(head, sizeof head, "%s", name);
	return same_path(head, "cudnn") && same_path(name + n - t, tail);
}

/* The PE check of dir\name: 1 native, else a result said and 0. */
static int
pe_ok(struct wprobe *p, const char *name, int step)
{
	char *path = xasprintf("%s\\%s", p->dir, name);
	int fd = cv_os_open(path, CV_OPEN_READ, 0), r = 0;
	struct cv_pe pe;

	if (fd < 0) {
		cv_probe_say(p->s, step, CV_CHECK_FAIL,
			     "%s: %s; reinstall this version", path,
			     strerror(errno));
	} else if (cv_pe_read(fd, &pe) != 0) {
		cv_probe_say(
			p->s, step, CV_CHECK_FAIL,
			"%s is not a Windows DLL (no PE header); the file is "
			"damaged or not from NVIDIA's windows-x86_64 archive: "
			"reinstall this version",
			path);
	} else if (cv_pe_native(fd) != 1) {
		cv_probe_say(
			p->s, step, CV_CHECK_FAIL,
			"%s is %s%s %s, not an x86-64 DLL: it cannot load "
			"into cudnnvm.exe or an x86-64 Python; install the "
			"windows-x86_64 build of this version",
			path, pe.is_dll ? "an " : "a program for ",
			cv_pe_machine_name(pe.machine),
			pe.is_dll ? "DLL" : "(not a DLL)");
	} else
		r = 1;
	if (fd >= 0)
		cv_os_close(fd);
	free(path);
	return r;
}

/* 8.3 to 9.1 (zlib is linked into cuDNN itself from 9.2) */
static int
needs_zlibwapi(long v)
{
	int maj, min, patch;

	cv_probe_decode(v, &maj, &min, &patch);
	return (maj == 8 && min >= 3) || (maj == 9 && min < 2);
}

static int
step_files(struct wprobe *p)
{
	struct cv_dir *d;
	const char *e;
	char main_dll[32];
	int ok;

	cv_probe_phase(p->s, CV_STEP_FILES, "reading the DLLs' headers");
	if (cv_os_realpath(p->a->libdir, p->dir, sizeof p->dir) == NULL)
		snprintf(p->dir, sizeof p->dir, "%s", p->a->libdir);
	snprintf(main_dll, sizeof main_dll, "cudnn64_%d.dll", p->a->major);
	if (!(ok = pe_ok(p, main_dll, CV_STEP_FILES)))
		return 0;
	d = cv_dir_open(p->dir);
	while (d != NULL && ok && (e = cv_dir_next(d, NULL)) != NULL)
		if (cv_probe_win_is_cudnn_dll(e, p->a->major) &&
		    !same_path(e, main_dll))
			ok = pe_ok(p, e, CV_STEP_FILES);
	cv_dir_close(d);
	if (!ok)
		return 0;
	if (needs_zlibwapi(p->a->expect)) {
		char *z = xasprintf("%s\\zlibwapi.dll", p->dir);
		int here = cv_os_access(z, CV_ACCESS_EXISTS) == 0;
		void *sys = here ? NULL : cv_dl_open("zlibwapi.dll", 0);

		free(z);
		if (!here && sys == NULL) {
			cv_probe_say(
				p->s, CV_STEP_FILES, CV_CHECK_FAIL,
				"cuDNN 8.3 to 9.1 need zlibwapi.dll, which is "
				"neither in %s nor in the system folders; copy "
				"the x64 zlibwapi.dll into %s",
				p->dir, p->dir);
			return 0;
		}
		cv_dl_close(sys);
		if (here && !pe_ok(p, "zlibwapi.dll", CV_STEP_FILES))
			return 0;
	}
	cv_probe_say(p->s, CV_STEP_FILES, CV_CHECK_PASS, "%s", "");
	return 1;
}

static const char *const sub8[] = { "cudnnOpsInferVersionCheck",
				    "cudnnCnnInferVersionCheck", NULL };
static const char *const sub9[] = { "cudnnGraphVersionCheck",
				    "cudnnOpsVersionCheck",
				    "cudnnCnnVersionCheck", NULL };

/* cuDNN loads its sub-libraries when these are called: then step 3
 * sees them */
static int
load_sublibs(struct wprobe *p)
{
	const char *const *c = p->a->major == 8   ? sub8
			       : p->a->major >= 9 ? sub9
						  : NULL;

	for (; c != NULL && *c != NULL; c++) {
		fn_void f = (fn_void)cv_dl_sym(p->cudnn, *c);
		int st;

		if (f == NULL) {
			cv_probe_say(p->s, CV_STEP_VERSION, CV_CHECK_FAIL,
				     "cudnn64_%d.dll has no %s: it is not the "
				     "cuDNN %d it claims to be; reinstall it",
				     p->a->major, *c, p->a->major);
			return 0;
		}
		cv_probe_phase(p->s, CV_STEP_VERSION, *c);
		if ((st = f()) != 0) {
			cv_probe_say(
				p->s, CV_STEP_VERSION, CV_CHECK_FAIL,
				"%s returned status %d: a sub-library of "
				"cudnn64_%d.dll is missing from %s or cannot "
				"load; reinstall this version",
				*c, st, p->a->major, p->dir);
			return 0;
		}
	}
	return 1;
}

static int
step_version(struct wprobe *p)
{
	char *path = xasprintf("%s\\cudnn64_%d.dll", p->dir, p->a->major);
	int maj, min, patch, emaj, emin, epatch;
	fn_size getver, getcudart;
	long v, cudart = 0;
	const char *why;

	cv_probe_phase(p->s, CV_STEP_VERSION, path);
	p->cudnn = cv_dl_open(path, 0);
	if (p->cudnn == NULL) {
		why = cv_dl_error();
		cv_probe_say(p->s, CV_STEP_VERSION, CV_CHECK_FAIL,
			     "cannot load %s: %s; reinstall this version", path,
			     why != NULL ? why : "unknown error");
		free(path);
		return 0;
	}
	free(path);
	getver = (fn_size)cv_dl_sym(p->cudnn, "cudnnGetVersion");
	getcudart = (fn_size)cv_dl_sym(p->cudnn, "cudnnGetCudartVersion");
	if (getver == NULL) {
		cv_probe_say(
			p->s, CV_STEP_VERSION, CV_CHECK_FAIL,
			"cudnn64_%d.dll has no cudnnGetVersion: not a cuDNN "
			"library or a damaged one; reinstall this version",
			p->a->major);
		return 0;
	}
	if (!load_sublibs(p))
		return 0;
	v = (long)getver();
	p->s->fact(p->s->payload, "cudnn_version", v);
	if (getcudart != NULL) {
		cudart = (long)getcudart();
		p->s->fact(p->s->payload, "cudart_version", cudart);
	}
	cv_probe_decode(v, &maj, &min, &patch);
	cv_probe_decode(p->a->expect, &emaj, &emin, &epatch);
	if (v != p->a->expect) {
		cv_probe_say(
			p->s, CV_STEP_VERSION, CV_CHECK_FAIL,
			"cudnnGetVersion() says %d.%d.%d (%ld) but this "
			"install is %d.%d.%d (%ld): its files were replaced "
			"or mixed; reinstall it with --force",
			maj, min, patch, v, emaj, emin, epatch, p->a->expect);
		return 0;
	}
	if (p->a->cuda > 0 && cudart > 0 && cudart / 1000 != p->a->cuda) {
		cv_probe_say(
			p->s, CV_STEP_VERSION, CV_CHECK_FAIL,
			"this build is for CUDA %ld.%ld but is installed as "
			"the cuda%d variant; reinstall it with --cuda %ld",
			cudart / 1000, cudart % 1000 / 10, p->a->cuda,
			cudart / 1000);
		return 0;
	}
	cv_probe_say(p->s, CV_STEP_VERSION, CV_CHECK_PASS, "cuDNN %d.%d.%d",
		     maj, min, patch);
	return 1;
}

struct prov {
	const struct wprobe *p;
	char first[CV_WIN_PATH_MAX];
	int nlocal, nforeign;
};

static int
prov_cb(const char *path, void *arg)
{
	struct prov *pv = arg;
	const char *name = cv_path_base(path);
	char folder[CV_WIN_PATH_MAX];

	if (*path == '\0' || !cv_probe_win_is_cudnn_dll(name, pv->p->a->major))
		return 0;
	snprintf(folder, sizeof folder, "%.*s",
		 (int)(name > path ? name - path - 1 : 0), path);
	if (same_path(folder, pv->p->dir))
		pv->nlocal++;
	else if (pv->nforeign++ == 0)
		snprintf(pv->first, sizeof pv->first, "%s", path);
	return 0;
}

static void
step_provenance(struct wprobe *p)
{
	struct prov pv;
	char more[64] = "";

	memset(&pv, 0, sizeof pv);
	pv.p = p;
	cv_probe_phase(p->s, CV_STEP_PROVENANCE, "listing the loaded DLLs");
	cv_dl_each_loaded(prov_cb, &pv);
	if (pv.nforeign > 1)
		snprintf(more, sizeof more, " (and %d more)", pv.nforeign - 1);
	if (pv.nforeign)
		cv_probe_say(p->s, CV_STEP_PROVENANCE, CV_CHECK_FAIL,
			     "mixed load: %s%s is not from %s; another cuDNN "
			     "shadows this one (run: cudnnvm doctor)",
			     pv.first, more, p->dir);
	else
		cv_probe_say(p->s, CV_STEP_PROVENANCE, CV_CHECK_PASS,
			     "cuDNN DLLs loaded: %d, all from %s", pv.nlocal,
			     p->dir);
}

/* nvcuda.dll from the system folders only (the driver installs it in
 * System32): 1 usable, with the device count said */
static int
step_driver(struct wprobe *p)
{
	void *cuda;
	cu_int init;
	cu_intp getver, count;
	cu_dev_get devget;
	int version = 0, n = 0, need = cv_probe_min_driver(p->a->cuda), r;

	if (p->a->no_gpu) {
		cv_probe_say(p->s, CV_STEP_DRIVER, CV_CHECK_SKIP,
			     "--no-gpu given");
		return 0;
	}
	cv_probe_phase(p->s, CV_STEP_DRIVER, "loading nvcuda.dll (cuInit)");
	if ((cuda = cv_dl_open("nvcuda.dll", 0)) == NULL) {
		cv_probe_say(
			p->s, CV_STEP_DRIVER, CV_CHECK_SKIP,
			"no NVIDIA driver: nvcuda.dll is not in the system "
			"folders");
		return 0;
	}
	init = (cu_int)cv_dl_sym(cuda, "cuInit");
	getver = (cu_intp)cv_dl_sym(cuda, "cuDriverGetVersion");
	count = (cu_intp)cv_dl_sym(cuda, "cuDeviceGetCount");
	devget = (cu_dev_get)cv_dl_sym(cuda, "cuDeviceGet");
	if (init == NULL || getver == NULL || count == NULL || devget == NULL) {
		cv_probe_say(
			p->s, CV_STEP_DRIVER, CV_CHECK_FAIL,
			"nvcuda.dll lacks the driver API (cuInit); reinstall "
			"the NVIDIA driver");
		return 0;
	}
	if ((r = init(0)) == CUDA_ERROR_NO_DEVICE ||
	    (r == 0 && (count(&n) != 0 || n < 1 || devget(&p->dev, 0) != 0))) {
		cv_probe_say(p->s, CV_STEP_DRIVER, CV_CHECK_SKIP,
			     "no NVIDIA GPU");
		return 0;
	}
	if (r != 0) {
		cv_probe_say(p->s, CV_STEP_DRIVER, CV_CHECK_FAIL,
			     "cuInit failed with CUDA error %d: the driver is "
			     "unusable (check nvidia-smi)",
			     r);
		return 0;
	}
	getver(&version);
	p->s->fact(p->s->payload, "driver_version", version);
	if (need && version < need) {
		cv_probe_say(
			p->s, CV_STEP_DRIVER, CV_CHECK_FAIL,
			"the driver supports CUDA %d.%d but this build needs "
			"CUDA %d; update the NVIDIA driver",
			version / 1000, version % 1000 / 10, p->a->cuda);
		return 0;
	}
	cv_probe_say(p->s, CV_STEP_DRIVER, CV_CHECK_PASS,
		     "driver for CUDA %d.%d", version / 1000,
		     version % 1000 / 10);
	p->cuda = cuda;
	return 1;
}

/* Step 5, as on Linux (probe_conv.c): the convolution through
 * nvcuda.dll and the version's cudnn64_<major>.dll. */
static void
step_gpu(struct wprobe *p)
{
	char dll[32];
	struct cv_probe_gpu g = {
		.s = p->s,
		.cudnn = p->cudnn,
		.cuda = p->cuda,
		.dev = p->dev,
		.major = p->a->major,
		.expect = p->a->expect,
		.cudnn_file = dll,
		.driver_file = "nvcuda.dll",
	};

	snprintf(dll, sizeof dll, "cudnn64_%d.dll", p->a->major);
	cv_probe_gpu_conv(&g);
}

int
cv_probe_run(const struct cv_probe_args *a, int fd)
{
	struct cv_probe_sink s = cv_probe_lines(&fd);

	cv_probe_win(a, &s);
	cv_probe_emit(fd, cv_json_pack("{s:s}", "k", "done"));
	return 0;
}

int
cv_probe_win(const struct cv_probe_args *a, const struct cv_probe_sink *s)
{
	struct wprobe p;
	int loaded = 0;

	memset(&p, 0, sizeof p);
	p.a = a;
	p.s = s;
	if (step_files(&p))
		loaded = step_version(&p);
	else
		cv_probe_say(p.s, CV_STEP_VERSION, CV_CHECK_SKIP,
			     "the files are not usable");
	if (p.cudnn != NULL)
		step_provenance(&p);
	else
		cv_probe_say(p.s, CV_STEP_PROVENANCE, CV_CHECK_SKIP,
			     "cuDNN did not load");
	if (step_driver(&p) && loaded)
		step_gpu(&p);
	else
		cv_probe_say(
			p.s, CV_STEP_GPU, CV_CHECK_SKIP,
			"not run: no usable GPU, or an earlier step failed");
	return 0;
}
#endif
