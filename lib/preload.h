/* preload.h: make a framework bind to the activated cuDNN rather than the
 * copy its own RPATH points at (lib/preload.c says why this works). */
#ifndef CUDNNVM_PRELOAD_H
#define CUDNNVM_PRELOAD_H

#include <stddef.h>

struct cv_err;

/* The .pth file `cudnnvm venv` writes into each site-packages: where it
 * is, an interpreter of the environment binds the activated cuDNN. */
#define CV_PRELOAD_PTH "cudnnvm.pth"

/* One version the hook loads: install `id` of the store folder `store`. */
struct cv_preload_pin {
	const char *store;
	const char *id;
};

/* Write (remove; n 0 removes too) the .pth preload hook into every
 * site-packages of the environment `prefix`: on the first import of a
 * framework it loads pins[0..n), one per cuDNN major, pins[0] the one
 * CUDNNVM_VERSION or an activation may replace. An environment without
 * Python is no error. */
int cv_preload_hook(const char *prefix, const struct cv_preload_pin *pins,
		    size_t n, int remove, struct cv_err *err);
/* The ids the hook of `prefix` loads, at most max, into ids: how many
 * (0: no hook). */
int cv_preload_pins(const char *prefix, char (*ids)[64], size_t max);
/* Whether cv_preload_hook can write into every site-packages of `prefix`
 * (none may lead outside it): 0, or CV_EDATA before anything is written. */
int cv_preload_hook_check(const char *prefix, struct cv_err *err);
/* Put <vdir>/lib/libcudnn.so.N (vdir: the version's folder, from
 * cv_store_dir) first in this process's LD_PRELOAD, for exec; 1 when
 * done, 0 when the version has no such file, CV_ESTORE when its path
 * holds a space or ':', which the loader would split it at. */
int cv_preload_exec(const char *vdir, const char *id, struct cv_err *err);

#endif
