/* python_int.h: what the files of the python wing (and their unit tests)
 * share; no other wing includes it. */
#ifndef CUDNNVM_PYTHON_PYTHON_INT_H
#define CUDNNVM_PYTHON_PYTHON_INT_H

#include "activate/activate.h"
#include "base/base.h"
#include "python/python.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cv_store;

/* ---- frameworks.c: what the Python environment's frameworks can load -- */

/* 1 when a framework of e states a cuDNN need or e holds its own copy. */
int cv_fw_env_uses_cudnn(const struct cv_fw_env *e);

/* 1 when the program execvp would run for cmd is a python of e's bin/
 * folder, or a script whose "#!" line names one (directly or through
 * env): a start that can import e's frameworks. */
int cv_fw_env_runs(const struct cv_fw_env *e, const char *cmd);

/* The `cudnnvm install` arguments of a version that fits: "9.19 --cuda 13" */
void cv_framework_install_hint(const struct cv_framework *f, char *buf,
			       size_t n);

/* cv_gate_misfit for the Python environment `prefix` (NULL: the one in
 * play). *uses_cudnn (may be NULL): a framework there loads cuDNN. */
int cv_gate_frameworks(const struct cv_store *st, const char *id,
		       const char *prefix, const struct cv_gate_fix *fix,
		       int *uses_cudnn, struct cv_err *why);

/* A pin file or the global default named a->id; when the Python
 * environment in play was pinned with `cudnnvm venv` to an installed
 * version that every framework there loads, and one of them cannot load
 * a->id, that pin wins (unless CUDNNVM_VERSION or a spec chose: those are
 * never passed over): a->id becomes it, and a->venv, a->passed_over and
 * a->why say so. 1 when it won. Cheap when the environment has no pin
 * (two failed opens); the frameworks are read only when it has one. */
int cv_gate_venv_pin(const struct cv_store *st, struct cv_active *a);

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

/* Whether cv_preload_hook can write into every site-packages of `prefix`
 * (none may lead outside it): 0, or CV_EDATA before anything is written. */
int cv_preload_hook_check(const char *prefix, struct cv_err *err);

enum cv_venv_kind { CV_VENV_PYTHON = 1, CV_VENV_CONDA = 2 };

/* The registry of the environments cv_venv_write pinned (and has not
 * unpinned since): its path, and its entries appended to dirs. */
void cv_venv_registry_path(char *out, size_t n);

/* The install id `cudnnvm venv` pinned the environment `prefix` to: 1
 * and id set, else 0. An environment with Python is pinned to what its
 * interpreter loads (cv_preload_pin_of), so that a venv killed mid-pin
 * reads as one version here and in Python; one without (a bare conda
 * prefix) to the block of its activate script. */
int cv_venv_pin_of(const char *prefix, char id[64]);

/* preload.c: the primary pin the hook of `prefix` loads (its .pth line
 * and module both there): 1 and id set; 0 when the environment has a
 * site-packages but no complete hook (a pin killed before its .pth line
 * was written, or none); -1 when it has no site-packages at all. */
int cv_preload_pin_of(const char *prefix, char id[64]);

/* preload.c: where the activate scripts of `prefix` read the pin
 * cv_preload_pin_of reads (the first site-packages' module and .pth
 * line): 1 and both paths set (n bytes each), 0 without a site-packages. */
int cv_preload_site_files(const char *prefix, char *module, char *pth,
			  size_t n);

/* frameworks.c: the requirement grammar, one line at a time (the fuzz
 * target and the unit test reach it here). One METADATA "Requires-Dist:"
 * value ("nvidia-cudnn-cu12==9.1.0.70; extra == 'cuda'"), or one conda
 * `depends` entry ("cudnn >=9.1.0.70,<10.0a0"; "cuda-version >=12.0"
 * sets the CUDA major), folded into n, `source` naming the file: 1 when
 * it named cuDNN, else 0 (n then unchanged, but for a conda CUDA major). */
int cv_fw_requires_dist(struct cv_fw_need *n, const char *value,
			const char *source);

int cv_fw_conda_depend(struct cv_fw_need *n, const char *entry,
		       const char *source);

#endif
