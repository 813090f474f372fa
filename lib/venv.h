/* venv.h: a version pinned to a Python virtualenv or a conda environment
 * (`cudnnvm venv`): blocks in its activate scripts, or conda's
 * activate.d/deactivate.d scripts, plus the .pth preload hook. */
#ifndef CUDNNVM_VENV_H
#define CUDNNVM_VENV_H

#include <stddef.h>

struct cv_err;
struct cv_store;
struct cv_strv;

enum cv_venv_kind { CV_VENV_PYTHON = 1, CV_VENV_CONDA = 2 };
/* versions one environment may pin: one per cuDNN major in use (8, 9) */
#define CV_VENV_MAXPINS 2

/* What the environment `dir` is (enum cv_venv_kind), or CV_EUSAGE when it
 * is neither a Python venv (bin/activate) nor a conda env (conda-meta/). */
int cv_venv_kind(const char *dir, struct cv_err *err);
/* Pin install ids[0] of st to the environment `dir`, and ids[1..n) (one
 * per other cuDNN major) to its .pth preload hook (remove: take every
 * hook out again; st and ids unused); exe is the cudnnvm binary its
 * scripts run. */
int cv_venv_write(const char *dir, const struct cv_store *st,
		  const char *const *ids, size_t n, const char *exe, int remove,
		  struct cv_err *err);
/* The virtualenv or conda env (VIRTUAL_ENV, CONDA_PREFIX) whose block
 * set CUDNNVM_VERSION to `spec`: 1 and its folder in dir, else 0. */
int cv_venv_pinned_by(const char *spec, char *dir, size_t n);
/* The environments pinned to install `id` that this process can know of:
 * the active virtualenv and conda env, and ./.venv; their real paths are
 * appended to dirs. */
void cv_venv_pinning(const char *id, struct cv_strv *dirs);
/* The registry of the environments cv_venv_write pinned (and has not
 * unpinned since): its path, and its entries appended to dirs. */
void cv_venv_registry_path(char *out, size_t n);
void cv_venv_registered(struct cv_strv *dirs);

/* The install id `cudnnvm venv` pinned the environment `prefix` to (its
 * block in bin/activate or conda's activate.d): 1 and id set, else 0. */
int cv_venv_pin_of(const char *prefix, char id[64]);

#endif
