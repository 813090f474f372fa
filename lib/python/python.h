/* python.h: the face of the python wing, Python environments: the frameworks
 * and the cuDNN they need, the gate that refuses what would break them, the
 * venv pin and its .pth hook, the active version with the venv rule, and
 * uninstall. Only what cmd/ and the wings above call; the rest is in
 * python_int.h. */
#ifndef CUDNNVM_PYTHON_PYTHON_H
#define CUDNNVM_PYTHON_PYTHON_H

#include "activate/activate.h"
#include "base/base.h"

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cv_store;
struct cv_json;
struct timespec;

/* ---- activation: link.c, activate.c, env.c, shell.c -------------------- */

/* active.c: cv_active_walk, then the venv pin's rule (cv_gate_venv_pin):
 * what every command that applies a version asks. */
int cv_active_resolve(const struct cv_store *st, const char *cwd,
		      struct cv_active *out, cv_seen_fn seen, void *payload,
		      struct cv_err *err);

/* The install id `spec` resolves to, or with spec NULL the version active
 * in the working folder. */
int cv_active_id(const struct cv_store *st, const struct cv_version *spec,
		 char id[64], struct cv_err *err);

/* ---- frameworks.c: what the Python environment's frameworks can load -- */

#define CV_FW_MAXEXCLUDE 4

/* What a framework's metadata says about the cuDNN it loads. */
struct cv_fw_need {
	int have;              /* a requirement was found */
	struct cv_version min; /* compiled against (floor); nparts 0: none */
	struct cv_version max; /* stated upper bound; nparts 0: none */
	int max_incl;          /* max is "<=" rather than "<" */
	struct cv_version exclude[CV_FW_MAXEXCLUDE]; /* "!=" */
	int nexclude;
	int cuda;          /* CUDA major of the build, 0 unknown */
	char source[4096]; /* the file that said so */
	char text[256];    /* the requirement as written */
	/* how it was found: "Requires-Dist" (METADATA), "build file",
	 * "conda depends", "DT_NEEDED" (the package's own shared libraries,
	 * when its metadata is silent), "DT_NEEDED: none" (they name no
	 * cuDNN: it needs none), "" (nothing stated, nothing read) */
	char via[32];
};

struct cv_framework {
	char name[128]; /* distribution or conda package name */
	char version[64];
	char location[4096]; /* its dist-info folder or conda-meta record */
	struct cv_fw_need need;
};

/* The Python environment in play and its frameworks. */
struct cv_fw_env {
	char prefix[4096]; /* "" when there is no Python at all */
	char how[32]; /* $VIRTUAL_ENV, $CONDA_PREFIX, python3 on PATH, given */
	struct cv_framework *fw;
	size_t n;
	char bundled_dir[4096]; /* the environment's own cuDNN folder, or "" */
	char bundled_version[64];
	/* "nvidia-cudnn wheel" or "conda cudnn package" */
	char bundled_via[32];
	/* the scan stopped at its time or size budget, or met a record it
	 * could not read (a FIFO, an oversized file): frameworks may be
	 * missing from fw */
	int incomplete;
	size_t read_bytes;        /* the scan's own accounting */
	struct timespec deadline; /* CLOCK_MONOTONIC */
};

/* The Python environment in play: $VIRTUAL_ENV, $CONDA_PREFIX, a .venv
 * of the working folder or a parent (not activated, as uv finds it),
 * else the environment of the first python3 on PATH. 1 with its folder
 * in out and how it was found in how, 0 when there is no Python. */
int cv_fw_env_in_play(char *out, size_t n, char how[32]);

/* Find the frameworks of `prefix` (NULL: cv_fw_env_in_play). Reads files
 * only. */
int cv_frameworks_find(struct cv_fw_env *out, const char *prefix,
		       struct cv_err *err);

void cv_fw_env_release(struct cv_fw_env *e);

/* 1 when version v (4 parts and cuda) can be loaded by f. */
int cv_framework_fits(const struct cv_framework *f, const struct cv_version *v);

/* "cuDNN 9.x \u2265 9.19 built for CUDA 13" */
void cv_framework_need_text(const struct cv_framework *f, char *buf, size_t n);

/* The version of a build that fits, without its CUDA major (need.cuda):
 * "9.19" */
void cv_framework_install_spec(const struct cv_framework *f, char *buf,
			       size_t n);

#define CV_FW_PROBE_MAX 16

struct cv_fw_verdict {
	char fw[32];    /* torch, tensorflow, jax */
	int unreadable; /* the line was not JSON: a failure, nothing to say */
	int pass;
	long version;   /* the cuDNN the framework reports (0: none) */
	long build;     /* the one it was built against (0: not said) */
	int subs;       /* sub-libraries mapped from the version's folder */
	char why[1024]; /* when it failed */
};

struct cv_fw_probe {
	size_t nfw; /* frameworks probed; 0: none to probe */
	size_t n;   /* verdicts read (fewer: it ended early) */
	struct cv_fw_verdict v[CV_FW_PROBE_MAX];
	char libdir[PATH_MAX]; /* the version's lib folder, resolved */
	int status;            /* the probe's exit status (128+N: signal) */
	int cached;            /* read from the validation cache */
};

/* Probe install `id` of st, started as self (the cudnnvm binary and this
 * run's global flags, NULL-ended): 0 with the verdicts in *out, or <0 with
 * err when the environment cannot be read or the probe cannot start. */
int cv_fw_probe_run(const struct cv_store *st, const char *id,
		    const char *const *self, struct cv_fw_probe *out,
		    struct cv_err *err);

/* The verdicts as a JSON object (`validate --frameworks --json`, the
 * cache): ok, skipped, cached, libdir, status and one object per
 * framework. */
struct cv_json *cv_fw_probe_json(const struct cv_fw_probe *p);

/* How a fix names a version in the command that failed: head, the
 * spec, tail ("cudnnvm use" ""; "eval \"$(cudnnvm env" ")\""). */
struct cv_gate_fix {
	const char *head, *tail;
};

#define CV_VERDICT_LINES 8

#define CV_VERDICT_TEXT 3072

struct cv_verdict {
	int refused;    /* 1: the version must not become active */
	int uses_cudnn; /* a framework of the environment loads cuDNN */
	int n;          /* lines to say, oldest first */
	struct {
		int say; /* enum cv_say: a note, a warning, the refusal */
		char text[CV_VERDICT_TEXT];
	} line[CV_VERDICT_LINES];
};

struct cv_gate_opts {
	int force;       /* a refusal becomes a warning */
	int no_validate; /* skip validation (also [install] validate = no) */
	int frameworks;  /* check the Python environment's frameworks */
	/* install or import just put it in the store: a failed validation
	 * says the version stays installed, not "not activating" */
	int installed;
	const char *prefix; /* the Python environment (NULL: in play) */
	/* another install pinned beside this one, of another cuDNN major
	 * (cudnnvm venv 9.19 8.9): a framework that needs its major is
	 * checked against it instead. NULL: the environment's .pth hook's
	 * pin of another major, if it has one (it loads that whatever is
	 * active); "": none (venv, which rewrites the hook) */
	const char *beside;
	const char *probe_exe;  /* validation's child (NULL: this binary) */
	struct cv_gate_fix fix; /* the hints' command (head NULL: use) */
	/* exec's program: a misfit refuses only when it is the environment's
	 * interpreter (cv_fw_env_runs), else it is a warning */
	const char *command;
};

#define CV_GATE_OPTS_INIT \
	{                 \
		0         \
	}

/* The version f is checked against of v and `beside` (NULL, or a version
 * of another major pinned beside v): beside when f needs its major. */
const struct cv_version *cv_gate_version_for(const struct cv_framework *f,
					     const struct cv_version *v,
					     const struct cv_version *beside);

/* 1 when a framework of the environment fe cannot load install `id` (or,
 * where the environment's .pth hook pins a version of another major, that
 * one): the reason in why->msg (one line), and as its hint the fix in the
 * words of `fix` (NULL: use): the installed build every framework there
 * loads, else the install of what the misfit needs. 0 when all can load
 * it. */
int cv_gate_misfit(const struct cv_store *st, const struct cv_fw_env *fe,
		   const char *id, const struct cv_gate_fix *fix,
		   struct cv_err *why);

/* The warning that says cv_gate_venv_pin's pin won, and over what. */
void cv_gate_venv_said(const struct cv_active *a, char *buf, size_t n);

/* What env and the prompt hook say when they make install `id` active
 * (never a refusal): with `misfit`, a framework of the environment in play
 * that cannot load it, as a warning with the fix in the words of `fix`;
 * when one loads cuDNN from the environment's own copy and the environment
 * has no .pth hook of `cudnnvm venv`, that the framework's front library
 * will be that copy (said once per environment: `said` is what the caller
 * remembers, the environment's folder; noted gets the folder to remember
 * when it was said now, else ""). Lines in *v. */
void cv_gate_notes(const struct cv_store *st, const char *id,
		   const struct cv_gate_fix *fix, int misfit, const char *said,
		   struct cv_verdict *v, char *noted, size_t n);

/* Both checks on install `id`, as o asks. Returns 0 with the verdict in
 * *v (refused or not), or <0 with err when validation could not run
 * (with force, a warning in *v instead). */
int cv_gate_check(const struct cv_config *cfg, struct cv_store *st,
		  const char *id, const struct cv_gate_opts *o,
		  struct cv_verdict *v, struct cv_err *err);

/* The install `spec` names among the installed ones, then cv_gate_check:
 * what use, global and shell make active. */
int cv_gate_choose(const struct cv_config *cfg, struct cv_store *st,
		   const struct cv_version *spec, const struct cv_gate_opts *o,
		   char id[64], struct cv_verdict *v, struct cv_err *err);

/* The ids the hook of `prefix` loads, at most max, into ids: how many
 * (0: no hook). */
int cv_preload_pins(const char *prefix, char (*ids)[64], size_t max);

/* Put <vdir>/lib/libcudnn.so.N (vdir: the version's folder, from
 * cv_store_dir) first in this process's LD_PRELOAD, for exec; 1 when
 * done, 0 when the version has no such file, CV_ESTORE when its path
 * holds a space or ':', which the loader would split it at. */
int cv_preload_exec(const char *vdir, const char *id, struct cv_err *err);

/* Remove the one installed version spec names (shown: the spec as the
 * user wrote it; its id into id). Refuses a spec naming several, the
 * system store's copy, the global default and the version active here
 * (unless force; a removed global default is unset first) and a version
 * running programs map (unless in_use_ok). */
int cv_uninstall(struct cv_store *st, const struct cv_version *spec,
		 const char *shown, int force, int in_use_ok, char id[64],
		 struct cv_err *err);

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

void cv_venv_registered(struct cv_strv *dirs);

#endif
