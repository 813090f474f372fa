/* activate.h: the face of the activate wing, putting a version in effect:
 * pins and the walk for the active version, the environment for each shell,
 * the prompt hook, shims and module files. Only what cmd/ and the wings
 * above call; the rest is in activate_int.h. */
#ifndef CUDNNVM_ACTIVATE_ACTIVATE_H
#define CUDNNVM_ACTIVATE_ACTIVATE_H

#include "base/base.h"
#include "store/store.h"

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cv_store;
struct timespec;

/* ---- activation: link.c, activate.c, env.c, shell.c -------------------- */

enum cv_origin {
	CV_ORIGIN_NONE = 0,
	CV_ORIGIN_ENV,    /* CUDNNVM_VERSION */
	CV_ORIGIN_FILE,   /* a .cudnn-version or .tool-versions */
	CV_ORIGIN_GLOBAL, /* <store>/current */
	CV_ORIGIN_SYSTEM, /* the system store's current, seen by a user */
	CV_ORIGIN_LOCK,   /* a pin file's cudnnvm.lock, which locks that pin */
};

struct cv_active {
	int origin;                /* enum cv_origin */
	char spec[64];             /* the spec as written (the id for global) */
	struct cv_version version; /* spec, parsed once where it was read */
	char file[4096];           /* the pin file, for CV_ORIGIN_FILE/LOCK */
	char lock[4096];           /* its cudnnvm.lock, for CV_ORIGIN_LOCK */
	char id[64];               /* the install id it resolves to */
	/* set when the Python environment in play has a pin of `cudnnvm
	 * venv` its frameworks load and they cannot load what the pin file
	 * or global default named (lib/python/gate.c): id is the venv's pin,
	 * passed_over what origin named, why the framework's need */
	char venv[4096];
	char passed_over[64];
	char why[1024];
	/* the pin or the global says CV_SYSTEM: no version, on purpose
	 * (CV_ENOTFOUND, origin FILE or GLOBAL) */
	int system;
};

/* Called for every folder the upward search visits and every pin file it
 * finds, so the shell hook knows what to watch. May be NULL. */
typedef void (*cv_seen_fn)(void *payload, const char *path);

/* The nearest pin from `dir` (absolute) up to /. Returns 1 with file and
 * spec set, 0 when there is none. */
int cv_pin_find(const char *dir, char file[4096], char spec[64],
		cv_seen_fn seen, void *payload, struct cv_err *err);

/* Pin `spec` for folder `dir`, where the pin search will read it: the
 * `cudnn` line of <dir>/.tool-versions when that file has one and there
 * is no <dir>/.cudnn-version (only that line changes), else
 * <dir>/.cudnn-version. `file` gets the path written. */
int cv_pin_set(const char *dir, const struct cv_version *spec, char file[4096],
	       struct cv_err *err);

/* Remove the pin of folder `dir`: its .cudnn-version, else the cudnn
 * line of its .tool-versions (`file` gets which); CV_ENOTFOUND when it
 * has neither. */
int cv_pin_unset(const char *dir, char file[4096], struct cv_err *err);

/* Resolve the active version from the environment, the pins above `cwd`
 * (NULL: the working folder, however deep: one whose path does not fit in
 * PATH_MAX is walked by descriptors and its pins named relative to it)
 * and the global link. CV_ENOTFOUND when nothing is active (origin NONE;
 * with a hint naming a version to make the default, unless `seen` is
 * given: the prompt hook's caller never shows it) or when the chosen
 * version is not installed (with the install hint). The walk alone:
 * no Python environment is looked at. */
int cv_active_walk(const struct cv_store *st, const char *cwd,
		   struct cv_active *out, cv_seen_fn seen, void *payload,
		   struct cv_err *err);

/* Resolve a parsed spec to an installed id (a full id is checked
 * directly); CV_ENOTFOUND says how to install it. */
int cv_active_find(const struct cv_store *st, const struct cv_version *spec,
		   char id[64], struct cv_err *err);

#define CV_ENV_INIT        \
	{                  \
		NULL, 0, 0 \
	}

/* Look up a variable in the environment being changed (NULL: getenv). */
typedef const char *(*cv_getenv_fn)(void *ctx, const char *name);

/* The assignments that make install `id` of the store active in the
 * environment read through get (id NULL: leave, restoring what the user
 * had). Idempotent; removes only the previous version's path entries. */
int cv_env_build(struct cv_env *out, const struct cv_store *st, const char *id,
		 cv_getenv_fn get, void *ctx, struct cv_err *err);

/* Apply to this process (setenv/unsetenv). */
int cv_env_apply(const struct cv_env *e, struct cv_err *err);

void cv_env_release(struct cv_env *e);

/* Remove every `dir` entry from a colon list (xmalloc'd result). */
char *cv_env_path_remove(const char *list, const char *dir);

/* ---- modulefile.c: Lmod / Environment Modules files ------------------- */

enum cv_modfmt { CV_MODFMT_LUA, CV_MODFMT_TCL };

/* "lua" / "tcl"; CV_EUSAGE otherwise. */
int cv_modulefile_format_parse(const char *s, int *fmt, struct cv_err *err);

/* 1 with *fmt set when <outdir>/cudnn was written by cudnnvm, else 0. */
int cv_modulefiles_format_of(const char *outdir, int *fmt);

/* The same for every installed version of st, the global version the
 * default; *n gets how many. outdir NULL: <store>/modulefiles. */
int cv_modulefiles_write_store(const struct cv_store *st, const char *outdir,
			       int fmt, size_t *n, struct cv_err *err);

/* After an install or uninstall: rewrite <store>/modulefiles when cudnnvm
 * wrote it (in the format it has); 0 when there is nothing to do. */
int cv_modulefiles_refresh(const struct cv_store *st, struct cv_err *err);

struct cv_hook_stamp {
	char path[PATH_MAX + 64]; /* empty: no stamp could be made */
	struct timespec start;    /* when this run began */
};

/* Touch the stamp `given` (the shell's, when it is one of ours: a regular
 * file of this user in the stamp folder), else make a new one; either way
 * its time is one second before now, so that a change in the same clock
 * tick still tests newer at the next prompt. */
void cv_hook_stamp_touch(struct cv_hook_stamp *s, const char *given);

/* Move the stamp up to the newest of the watched paths, but keep it 10 ms
 * before this run started. */
void cv_hook_stamp_settle(const struct cv_hook_stamp *s, char *const *watched,
			  size_t n);

/* 1 when the shell that started this process loaded the integration:
 * `cudnnvm init` exports CUDNNVM_HOOK as that shell's pid, so a shell
 * started from it without init (or a script) does not count. */
int cv_hook_loaded(void);

/* The folder of the hook's stamps and notes. */
void cv_hook_dir(char *out, size_t n);

/* 1 the first time it is asked for the shell that started this process
 * (a file in the stamp folder, swept with the stamps), then 0: a note
 * about that shell is said once. */
int cv_hook_first_note(void);

/* Push what the store adds to the watch list: its root, the system
 * store's, and the folder a store not made yet will be made in. */
void cv_hook_watch_store(const struct cv_store *st, struct cv_strv *w);

/* The shims folder: $XDG_DATA_HOME/cudnnvm/shims, else under ~/.local. */
void cv_shim_dir(char *out, size_t n);

/* 1 when `prog` can name a shim: letters, digits, . _ + -, no slash, not
 * starting with . or -, at most 128 bytes. */
int cv_shim_name_valid(const char *prog);

/* Write the shim of `prog` into dir (made when missing), running the
 * cudnnvm binary exe; a file there that is not our shim is refused. */
int cv_shim_add(const char *dir, const char *prog, const char *exe,
		struct cv_err *err);

/* Remove our shim of `prog` (CV_ENOTFOUND when there is none). */
int cv_shim_remove(const char *dir, const char *prog, struct cv_err *err);

/* Push the name of every shim of dir onto names (none when no folder). */
void cv_shim_list(const char *dir, struct cv_strv *names);

/* 1 when an executable `prog` is in a folder of PATH other than dir (the
 * program the shim will run). */
int cv_shim_target_on_path(const char *prog, const char *dir);

/* ---- a version as the engines of a GPU fleet take it: the container
 * view (env.c), the flags of Pyxis, Apptainer and a Kubernetes Pod
 * (engine.c), a CDI spec (cdi.c); the OCI image and the EasyBuild tree
 * are the install wing's. Every one puts the version at the same place,
 * so one lock means one layout. ---- */

/* Where a container finds a version: CV_CTR_ROOT/<id>, and each of its
 * dependency folders beside it (CV_CTR_ROOT/deps/<name>), as the store
 * keeps them. */
#define CV_CTR_ROOT "/opt/cudnn"

/* ---- env.c: the container view of a version ---------------------------- */

struct cv_ctr_mount {
	char *host; /* the folder on this machine */
	char *ctr;  /* where the container sees it */
};
struct cv_ctr_view {
	char id[64];
	char platform[32];
	char sha256[65]; /* of the archive it came from */
	/* the version's folder first, then its dependencies' */
	struct cv_ctr_mount m[1 + CV_MAX_DEPS];
	size_t nm;
	/* inside the container: CUDNN_PATH, CUDNN_HOME, LD_LIBRARY_PATH */
	struct cv_env env;
};
/* The view of installed `id`. CV_ENOTFOUND when it is not installed;
 * CV_EUSAGE for a Windows build; CV_ERROR (hint: --deps always) when a
 * library it loads was found outside the store, where no container can
 * see it. */
int cv_env_container(struct cv_ctr_view *out, const struct cv_store *st,
		     const char *id, struct cv_err *err);
void cv_env_container_release(struct cv_ctr_view *v);
/* The value of `name` in v->env, or NULL. */
const char *cv_env_container_get(const struct cv_ctr_view *v, const char *name);

/* ---- engine.c: the flags of one engine ----------------------------------- */

enum cv_engine {
	CV_ENGINE_PYXIS = 0, /* srun --container-mounts=SRC:DST:ro,... */
	CV_ENGINE_APPTAINER, /* apptainer exec --bind ... --env ... */
	CV_ENGINE_K8S,       /* a Pod's image volume and its mount */
};
/* "pyxis" / "apptainer" / "k8s"; CV_EUSAGE otherwise. */
int cv_engine_parse(const char *s, int *out, struct cv_err *err);
/* Append what `engine` takes to give a container view v. For k8s,
 * `image` is the image reference the volume pulls (that `export oci`
 * wrote and the site pushed). A path the engine would split (Pyxis: ':',
 * ',' and white space, which enroot's mount table splits; Apptainer: ':'
 * and ',') is CV_EUSAGE naming it, never a broken mount. */
int cv_engine_emit(struct cv_buf *b, int engine, const struct cv_ctr_view *v,
		   const char *image, struct cv_err *err);

/* ---- cdi.c: a CDI spec ----------------------------------------------- */

#define CV_CDI_KIND "cudnnvm.dev/cudnn"
/* 1 when `s` is a name CDI takes for a device: letters, digits, '-',
 * '_', '.', ':', starting and ending with a letter or digit. */
int cv_cdi_name_valid(const char *s);
/* The CDI spec (kind CV_CDI_KIND) with one device per view, named
 * `prefix` + id, whose containerEdits mount the version and its
 * dependencies read-only and set its paths (xmalloc'd JSON text). */
int cv_cdi_spec(const struct cv_ctr_view *views, size_t n, const char *prefix,
		char **out, struct cv_err *err);

#endif
