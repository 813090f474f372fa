/* store.h: the face of the store wing, the store: its layout and trust, the
 * staging and publishing of a version, the global link, system mode, the
 * cache, what is in use, and the fixes the hints name. Only what cmd/ and
 * the wings above call; the rest is in store_int.h. */
#ifndef CUDNNVM_STORE_STORE_H
#define CUDNNVM_STORE_STORE_H

#include "base/base.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cv_store;
struct cv_validation;
struct cv_json;

/* ---- store.c: the store, locks, staging, publish ----------------------- */

/* Which store a version lives in: the one named by --store or
 * CUDNNVM_STORE, the user's own store, or the system store. */
enum cv_store_kind { CV_STORE_EXPLICIT, CV_STORE_USER, CV_STORE_SYSTEM };

/* "store", "user", "system" */
const char *cv_store_kind_name(int kind);

/* What cuDNN itself loads at run time, beside it: cuBLAS/cuBLASLt and nvrtc
 * of its CUDA major (see deps.c). */
enum cv_deps_mode {
	CV_DEPS_AUTO = 0, /* install what this machine cannot find */
	CV_DEPS_ALWAYS,   /* install into the store even when found */
	CV_DEPS_NEVER     /* record nothing, install nothing */
};

#define CV_MAX_DEPS 2

/* One dependency of an installed version, as its cudnnvm.json records it. */
struct cv_dep {
	char name[32];    /* NVIDIA's component: libcublas, cuda_nvrtc */
	char version[32]; /* the component's own version: 13.0.2.14 */
	int cuda;         /* its CUDA major */
	/* in_store: "deps/libcublas-13.0.2.14", relative to the root of the
	 * store that holds the version (one copy shared by every version
	 * that needs it); else the folder where it was found (a toolkit) */
	char dir[1024];
	int in_store;
	char sha256[65]; /* of the archive it came from; "" when found */
	uint64_t size;
};

/* One library package a build needs (deps.c). */
struct cv_dep_need {
	const char *component;  /* NVIDIA's component: libcublas, cuda_nvrtc */
	const char *lib_prefix; /* what its lib/ keeps: libcublas*.so* */
	char soname[32];        /* what cuDNN asks the loader for */
	char soname2[32];       /* a second one from the same package, or "" */
};

/* Metadata of one installed version (its cudnnvm.json). */
struct cv_installed {
	int store;                 /* enum cv_store_kind: where it was found */
	char id[64];               /* 9.13.0.50-cuda12 */
	struct cv_version version; /* 4 parts, cuda set */
	char platform[32];
	char sha256[65];
	uint64_t size;
	char source[1024];     /* url or file path of the archive */
	char installed_at[32]; /* RFC 3339 UTC */
	/* "nvidia" (an NVIDIA archive) or "pypi" (a wheel): the same id
	 * from either is the same version */
	char origin[16];
	/* the libraries cuDNN itself loads, as decided at install */
	struct cv_dep deps[CV_MAX_DEPS];
	int ndeps;
};

/* Open the store: `flag_store` (--store) or CUDNNVM_STORE alone, each
 * exactly one store. Else two stores make one view: the system store
 * (cfg->system_store_path, default /opt/cudnn) and the user's own store
 * (cfg->store_path, default $XDG_DATA_HOME/cudnnvm). Whoever may write
 * the system store (root) gets it alone; anyone else writes their own
 * store and reads the system store beside it, never changing it. The path
 * is resolved once (a symlinked store works) and used through its
 * descriptor. A store that another user could change (the root, a folder
 * above it, its private folders) or whose private folders are links is
 * refused (CV_ESTORE) for reading too. With `for_write`, create the
 * writable store (0755 whatever the umask), refuse a hostile layout and
 * sweep abandoned staging. */
int cv_store_open(struct cv_store **out, const struct cv_config *cfg,
		  const char *flag_store, int for_write, struct cv_err *err);

void cv_store_free(struct cv_store *st);

/* How every lock of the store waits: with nowait a busy lock is
 * CV_ELOCKED; else waiting(payload, what) is called once before blocking,
 * `what` saying what the holder does and, when known, "(held by pid N)". */
void cv_store_set_lock_wait(struct cv_store *st, int nowait,
			    void (*waiting)(void *payload, const char *what),
			    void *payload);

/* 0 when version folder <root>/<id> (if it exists) is a real folder that
 * only this user or root controls, and so are its lib/, lib/x64/,
 * include/, bin/ and bin/x64/ (where present) and the files in them; else
 * CV_ESTORE naming the first that is not, with the command that fixes it.
 * Lookup, activation and validation refuse a version another user could change.
 */
int cv_store_check_trusted(const struct cv_store *st, const char *id,
			   struct cv_err *err);

/* What cv_store_check_trusted found wrong, for doctor. */
struct cv_trust {
	char path[4096]; /* the first folder or file at fault */
	long uid;        /* its owner */
	int other_owner; /* 1: owned by another user; 0: writable by others */
	int not_folder;  /* 1: a folder of the layout is not a real folder */
};

/* 1 and *t filled when version `id` fails that check, 0 when it passes. */
int cv_store_trust(const struct cv_store *st, const char *id,
		   struct cv_trust *t);

/* Absolute root of the store this process writes (borrowed). */
const char *cv_store_root(const struct cv_store *st);

/* Root of the read-only system store seen beside it, or NULL when the
 * view is one store. */
const char *cv_store_system_root(const struct cv_store *st);

/* 1 when `id` is installed in that read-only system store: this process
 * may use it but never change or remove it. */
int cv_store_in_system(const struct cv_store *st, const char *id);

/* The folder of install `id`, <root>/<id> (xmalloc'd; free it), in the
 * system store when that holds it, else in the writable one. The one
 * place that knows where a version lives. */
char *cv_store_dir(const struct cv_store *st, const char *id);

/* The user's own copy of `id` that the system store's copy hides (the
 * view resolves to the system's): its folder (xmalloc'd), else NULL. */
char *cv_store_hidden_dir(const struct cv_store *st, const char *id);

/* 1 when `id` is installed in either store of the view: <root>/<id> is a
 * real folder (not a link) holding its cudnnvm.json, the marker a publish
 * makes true in one rename. The only test of "installed" (lookup,
 * global, install, uninstall). */
int cv_store_has(const struct cv_store *st, const char *id);

/* cv_store_has in the writable store alone, never the system store
 * beside it: what install, import and uninstall may replace or remove. */
int cv_store_has_own(const struct cv_store *st, const char *id);

/* Absolute cache folder for downloads (borrowed). */
const char *cv_store_cache_dir(const struct cv_store *st);

/* Installed versions of the view, newest first, each id once (the
 * system store's copy when both hold it); *out is an xmalloc'd array. */
int cv_store_list(const struct cv_store *st, struct cv_installed **out,
		  size_t *n, struct cv_err *err);

/* Look up one install id; CV_ENOTFOUND when absent. */
int cv_store_get(const struct cv_store *st, const char *id,
		 struct cv_installed *out, struct cv_err *err);

/* A filter of installed builds by version (cv_store_pick, hints). */
typedef int (*cv_accept_fn)(void *payload, const struct cv_version *v);

/* Of the installed builds accept() takes, the one cv_store_find's rule
 * picks (the newest of this machine's CUDA major, else the newest),
 * silently: 1 and id set, else 0. Folder names only; the machine is read
 * only when builds of several majors are taken. */
int cv_store_pick(const struct cv_store *st, cv_accept_fn accept, void *payload,
		  char id[64]);

/* The id of the newest installed version that a spec matches; CV_ENOTFOUND
 * with a hint to install when none does. Reads folder names and the chosen
 * version's marker only, never each version's metadata, so its cost does
 * not grow with what the store holds (the prompt hook calls it). */
int cv_store_find(const struct cv_store *st, const struct cv_version *spec,
		  char id[64], struct cv_err *err);

/* The id the writable store's `current` points at; CV_ENOTFOUND when
 * unset. */
int cv_store_global_get(const struct cv_store *st, char id[64],
			struct cv_err *err);

/* The default version: the writable store's `current`, else the system
 * store's (*from_system set to 1). CV_ENOTFOUND when neither is set. */
int cv_store_default_get(const struct cv_store *st, char id[64],
			 int *from_system, struct cv_err *err);

/* The id in `target`, a link's text, when it is <system root>/<id>: the
 * way a user's current names a version of the system store. NULL for
 * anything else (the view has no system store, another folder). */
const char *cv_store_system_link_id(const struct cv_store *st,
				    const char *target);

/* 1 when the writable store's current names a version of the system
 * store (which its administrator may since have removed). */
int cv_store_global_in_system(const struct cv_store *st);

/* Atomically re-point the writable store's current (id NULL: remove it;
 * CV_SYSTEM: a link to "system", a default of no version, which the
 * system store's default does not replace);
 * a version of the system store is linked by its absolute path. */
int cv_store_global_set(struct cv_store *st, const char *id,
			struct cv_err *err);

/* 0 when no running process maps a file of <root>/<id> (as far as
 * /proc/<pid>/maps may be read); else CV_ERROR naming the processes and
 * what removing (replacing: replacing) the version would do to them. */
int cv_store_check_unused(const struct cv_store *st, const char *id,
			  int replacing, struct cv_err *err);

/* Remove an installed version under its lock, then the dependency folders
 * no installed version needs any more (cv_store_deps_collect). */
int cv_store_uninstall(struct cv_store *st, const char *id, struct cv_err *err);

/* The library folders of the dependencies install `id` keeps in a store
 * (<root>/deps/<name>/lib, ':'-joined, in its cudnnvm.json's order), for
 * every activation to put right after the version's own lib/: *out NULL
 * when it has none. CV_ESTORE when one is missing or could be changed by
 * another user, with the command that installs it again. */
int cv_store_dep_path(const struct cv_store *st, const char *id, char **out,
		      struct cv_err *err);

/* The "deps" array cudnnvm.json and list --json give: name, version, cuda,
 * then dir (in the store: sha256, size) or found (outside it). */
struct cv_json *cv_store_deps_json(const struct cv_installed *inst);

/* Record `deps` in the cudnnvm.json of the writable store's `id` (written
 * atomically under the version's lock). */
int cv_store_set_deps(struct cv_store *st, const char *id,
		      const struct cv_dep *deps, int n, struct cv_err *err);

/* ---- store.c: a Windows version's layout ---- */
/* Where NVIDIA's Windows zips keep cuDNN's DLLs, below a version's
 * folder: "bin/x64" from cuDNN 9.18 (the zips moved them there), "bin"
 * before; include/ and lib/x64/ (the import libraries) alike in both. */
const char *cv_store_dll_subdir(const struct cv_version *v);

/* <version_dir>/<cv_store_dll_subdir(v)> (xmalloc'd): the folder PATH and
 * the validation child get for a Windows version. */
char *cv_store_dll_dir(const char *version_dir, const struct cv_version *v);

/* The lib folder of dependency `dep` of the version in `version_dir`
 * (<root>/<id>), when it is in that store: <root>/<dep->dir>/lib, else
 * NULL (xmalloc'd). Names it only: cv_store_dep_path checks it. */
char *cv_store_dep_libdir(const char *version_dir, const struct cv_dep *dep);

/* Remove the writable store's dependency folders that no version's
 * cudnnvm.json names and no install in flight holds; how many. */
int cv_store_deps_collect(struct cv_store *st);

/* ---- cache.c: the download cache ------------------------------------ */

/* Files and bytes; `stale`: the archives no installed version came from. */
struct cv_cache_usage {
	size_t files;
	uint64_t bytes;
	size_t stale;
	uint64_t stale_bytes;
};

/* What cudnnvm wrote in the cache folder (cv_store_cache_dir). */
int cv_cache_usage(const struct cv_store *st, struct cv_cache_usage *u,
		   struct cv_err *err);

/* Remove the kept archives (<cache>/downloads/<sha256>.archive) that no
 * installed version of the view came from; only the one of `sha256` when
 * not NULL (uninstall's own). *freed gets what went. */
int cv_cache_prune(const struct cv_store *st, const char *sha256,
		   struct cv_cache_usage *freed, struct cv_err *err);

/* Remove what cudnnvm wrote in the cache (cv_inventory_add: downloads and
 * partials named by their sha256, the mirror's cached listings and
 * manifests, validation results); anything else there stays, each named
 * in `left` with the reason. */
int cv_cache_clean(const struct cv_store *st, struct cv_cache_usage *freed,
		   struct cv_strv *left, struct cv_err *err);

/* Opens the byte source once the version lock is held and the version is
 * known not to be installed (so nothing is downloaded twice). */
struct cv_fetcher {
	int (*open)(void *arg, struct cv_source *src, struct cv_err *err);
	void (*close)(void *arg, int ok); /* ok: bytes verified */
	void *arg;
	/* Once open: how many bytes the source will give, for an artifact
	 * whose size was not known up front (0: still unknown). NULL: the
	 * source cannot tell. */
	uint64_t (*size)(void *arg);
};

struct cv_install_opts {
	int force; /* reinstall over an existing version */
	/* with force: replace it even while running processes map it */
	int even_if_in_use;
	int nowait; /* CV_ELOCKED instead of waiting on a busy lock */
	/* Called while waiting on a lock held by another process. */
	void (*waiting)(void *payload, const char *what);
	void *payload;
	/* Threads that decode the archive; 0: the usable cores. */
	unsigned threads;
	/* what the version's cudnnvm.json records as its dependencies */
	const struct cv_dep *deps;
	int ndeps;
	/* a dependency archive (cv_store_install_dep) whose lib/ must keep
	 * need->soname (and soname2) under that very SONAME, else it is
	 * refused (cuBLAS's channel: one component per archive); NULL: what
	 * the SONAME rule keeps is enough */
	const struct cv_dep_need *dep_require;
};

#define CV_INSTALL_OPTS_INIT                          \
	{                                             \
		0, 0, 0, NULL, NULL, 0, NULL, 0, NULL \
	}

/* ---- activation: link.c, activate.c, env.c, shell.c -------------------- */

/* What a pin or the global holds for "no cudnnvm version here": the
 * framework's own cuDNN or the system's (pyenv's and nvm's word). A
 * cv_pin_set of spec NULL pins it. */
#define CV_SYSTEM "system"

/* hint.c: the arguments of a `cudnnvm install` that installs `spec` as
 * printed: the spec, plus --cuda N when the spec names no CUDA major and
 * the release (as its cached manifest says) has no build for the detected
 * one. Reads cached files only; for error messages. */
void cv_install_hint(const struct cv_store *st, const struct cv_version *spec,
		     char *buf, size_t n);

/* `eval "$(cudnnvm env ID)"`: how a fix makes a build active in the shell
 * it is typed in (works without the hook `cudnnvm shell` needs). */
char *cv_hint_switch(const char *id);

/* The command that makes a version the global default when none is: the
 * newest installed build of this machine's CUDA, else the newest release. */
char *cv_hint_pick_global(const struct cv_store *st);

/* The newest installed build accept() takes, this machine's CUDA major
 * first: 1 and id set, else 0. st may be NULL (then 0). */
int cv_hint_installed(const struct cv_store *st, cv_accept_fn accept,
		      void *payload, char id[64]);

/* The command line that makes a build matching spec active here: switch to
 * an installed one, else install (with --cuda N where needed) and switch.
 * xmalloc'd. */
char *cv_hint_activate(const struct cv_store *st,
		       const struct cv_version *spec);

/* `cudnnvm install SPEC [--cuda N] && eval "$(cudnnvm env SPEC[-cudaN])"`:
 * installs a build and makes the same one active (cuda 0: none named). */
char *cv_hint_install_then_switch(const char *spec, int cuda);

/* The same for "cuDNN major.minor or a newer major.x". */
char *cv_hint_at_least(const struct cv_store *st, int major, int minor);

/* The command that fixes validation step `failed` of install `id` when the
 * store can: a library cuDNN loads beside itself (cuBLASLt, cuBLAS,
 * nvrtc) not found -> `cudnnvm install <id> --deps always`; else NULL
 * (xmalloc'd). */
char *cv_hint_validation(const struct cv_store *st, const char *id,
			 const struct cv_validation *v, int failed);

/* What makes version `id` trusted again after cv_store_trust found `t`:
 * `chmod go-w PATH` for a mode, else a reinstall (`install --force`, or
 * `uninstall --force` and `import` again for an imported one). */
char *cv_store_trust_fix(const struct cv_store *st, const char *id,
			 const struct cv_trust *t);

/* ---- validate.c / doctor.c: proof that a version works ----------------- */

/* The five steps of doc/SPEC.md "Validation". */
enum cv_step {
	CV_STEP_FILES,
	CV_STEP_VERSION,
	CV_STEP_PROVENANCE,
	CV_STEP_DRIVER,
	CV_STEP_GPU,
	CV_NSTEPS
};

struct cv_step_result {
	int status;       /* enum cv_check */
	char reason[600]; /* "" for a plain pass */
};

/* What validating one install found. */
struct cv_validation {
	char id[64];
	struct cv_step_result step[CV_NSTEPS];
	long cudnn_version;  /* cudnnGetVersion(), 0 when not reached */
	long cudart_version; /* cudnnGetCudartVersion() */
	int driver_version;  /* cuDriverGetVersion(), 0 when none */
	char gpu[128];       /* device name, "" when none */
	int cc_major, cc_minor;
	double max_err; /* convolution vs CPU reference */
	int cached;     /* 1 when read from the cache */
};

/* ---- sysmode.c: system mode (ld.so.conf.d + ldconfig) ----------------- */

/* /etc/ld.so.conf.d/cudnnvm.conf */
const char *cv_sysmode_conf_path(void);

/* 1 when cudnnvm wrote it (the folder it names into libdir, may be NULL),
 * 0 when someone else did, 2 when absent, <0 on error. */
int cv_sysmode_read(char *libdir, size_t n, struct cv_err *err);

/* As root: make `id` the store's default and name <store>/current/lib in
 * the conf file, then run ldconfig. CV_EPERM for others, CV_ESTORE for a
 * store a non-root user could change, a conf file cudnnvm did not write,
 * or a version whose lib/ holds a library other than cuDNN. */
int cv_store_global_system(struct cv_store *st, const char *id,
			   struct cv_err *err);

/* 1 when our conf file names <store_root>/current/lib. */
int cv_sysmode_names(const char *store_root);

/* As root: remove our conf file (absent: nothing to do) and run ldconfig. */
int cv_sysmode_disable(struct cv_err *err);

/* 1 when opened for writing (created, checked, swept). */
int cv_store_writable(const struct cv_store *st);

/* Lock names: <root>/.locks/<name>.lock. */
int cv_store_lock(const struct cv_store *st, const char *name, int nowait,
		  void (*waiting)(void *, const char *), void *payload, int *fd,
		  struct cv_err *err);

/* Read and check <dir>/cudnnvm.json. */
int cv_store_read_meta(const char *dir, struct cv_installed *out,
		       struct cv_err *err);

/* The newest dependency folder deps/<component>-<M.*> of CUDA major M in
 * the writable store: 1 and *dep filled from its cudnnvm-dep.json, else 0. */
int cv_store_dep_find(const struct cv_store *st, const char *component,
		      int cuda, struct cv_dep *dep);

/* The lock a use of dependency (component, cuda) holds shared from the
 * moment it is chosen until the version that needs it is published, so
 * that cv_store_deps_collect (which takes it exclusively, never waiting)
 * cannot remove it in between. */
void cv_store_dep_lockname(const char *component, int cuda, char *out,
			   size_t n);

int cv_store_dep_lock_shared(const struct cv_store *st, const char *component,
			     int cuda, int *fd, struct cv_err *err);

/* ---- txn.c: one publish into the store ---------------------------------
 * Every writer of a version or a dependency folder goes through it:
 * begin (the name's lock), stage (a staging folder the inventory knows as
 * cudnnvm's own), extract into cv_store_txn_path(), commit (the record,
 * every file fsync'd, one rename under the store lock), abort. */

enum cv_store_txn_kind {
	CV_STORE_TXN_VERSION, /* <root>/<id>, its record cudnnvm.json */
	CV_STORE_TXN_DEP      /* <root>/deps/<folder>, cudnnvm-dep.json */
};

struct cv_store_txn;

/* How begin waits on a busy lock (as cv_store_lock); NULL: as the store
 * waits (cv_store_set_lock_wait). */
struct cv_store_txn_wait {
	int nowait;
	void (*waiting)(void *payload, const char *what);
	void *payload;
};

/* What commit writes and where it publishes: a version's record (its id
 * names the folder) or a dependency's (its dir, "deps/<folder>"). */
struct cv_store_record {
	const struct cv_installed *version; /* CV_STORE_TXN_VERSION */
	const struct cv_dep *dep;           /* CV_STORE_TXN_DEP */
};

/* Take the lock of what is to be published, waiting as `wait` says
 * (CV_ELOCKED when busy and nowait): a version's lock (`name` its id; the
 * one uninstall takes), or for a dependency (`name` its component, `cuda`
 * its CUDA major) the lock one installer of that pair holds. Whether it is
 * there already is the caller's to ask, under this lock. */
int cv_store_txn_begin(struct cv_store *st, enum cv_store_txn_kind kind,
		       const char *name, int cuda,
		       const struct cv_store_txn_wait *wait,
		       struct cv_store_txn **txn, struct cv_err *err);

/* Make the staging folder (for a dependency <root>/deps/ first). With
 * `replace`, commit exchanges it with the installed folder of that name
 * (else a folder already there fails the commit). */
int cv_store_txn_stage(struct cv_store_txn *txn, int replace,
		       struct cv_err *err);

/* The staging folder to fill (absolute); NULL before stage. */
const char *cv_store_txn_path(const struct cv_store_txn *txn);

/* Write the record into staging, then publish it as cv_store_publish
 * does (fsync, one renameat2, fsync of the store). */
int cv_store_txn_commit(struct cv_store_txn *txn,
			const struct cv_store_record *rec, struct cv_err *err);

/* End it, committed or not (NULL: nothing): remove its own staging folder
 * (after an exchange, the replaced version) and its owner lock, release
 * the lock begin took, free it. Every path out of a transaction, errors
 * and Ctrl-C's included, ends here; after a commit nothing published is
 * touched. */
void cv_store_txn_abort(struct cv_store_txn *txn);

/* ---- inventory.c: what cudnnvm may delete. Every removal of a folder
 * that a user could have pointed somewhere shared (the store, the cache,
 * the data and configuration folders) asks it: it names only what cudnnvm
 * can prove it wrote and leaves the rest, saying why. ---- */

/* What a folder is to cudnnvm; a root may be several at once (the
 * default store is also the data folder). */
enum {
	CV_INV_STORE = 1,  /* versions, deps/, .locks/, .staging/, current */
	CV_INV_CACHE = 2,  /* downloads/, manifests/, validate/ */
	CV_INV_DATA = 4,   /* shims/, the venv list */
	CV_INV_CONFIG = 8, /* config.ini */
	CV_INV_HOOK = 16,  /* the prompt hook's stamps */
	/* the root itself stays even when empty (cache clean) */
	CV_INV_KEEP_ROOT = 32,
};

enum cv_inv_how {
	CV_INV_TREE, /* a folder cudnnvm wrote whole: removed with its files */
	CV_INV_FILE, /* a file or link */
	CV_INV_DIR,  /* a folder of cudnnvm's entries: removed once empty */
};

struct cv_inv_item {
	char *path;
	int how;   /* enum cv_inv_how */
	int shown; /* 0 inside a folder that goes whole (said once) */
};

struct cv_inventory {
	struct cv_inv_item *v; /* children before their folder */
	size_t n, cap;
	char **left; /* "path: left in place (why)" */
	size_t nleft;
};

/* Add what of `root` (taken as `kinds`) cudnnvm may remove; what it may
 * not goes to inv->left with the reason. A root that is not this user's
 * or does not exist adds nothing. */
void cv_inventory_add(struct cv_inventory *inv, const char *root, int kinds);
/* Remove the items, in order: trees and files, then each folder only
 * while it is empty (something that appeared since is left and named in
 * `left`). Each failure's message goes to failed; CV_ERROR then. */
int cv_inventory_apply(struct cv_inventory *inv, struct cv_strv *failed);
void cv_inventory_release(struct cv_inventory *inv);

/* The proofs, one per kind of entry, for the callers that remove one
 * entry at a time (uninstall, the dependency collection, cache prune). */
/* name, in the folder dirfd, is an installed version: a real folder named
 * by an install id holding a regular cudnnvm.json. */
int cv_inventory_is_version(int dirfd, const char *name);
/* name, in <store>/deps, is a dependency folder: a real folder holding a
 * regular cudnnvm-dep.json. */
int cv_inventory_is_dep(int depsfd, const char *name);
/* name, in <cache>/downloads, is a download: <sha256>.archive or
 * <sha256>.partial. */
int cv_inventory_is_download(const char *name);

/* store.c: dependency records read from bytes, as the store reads them
 * (a version's "deps" array, a folder's cudnnvm-dep.json); the fuzzer's
 * entry too. 0, or -1 for anything but the format exactly. */
int cv_store_deps_parse(const char *text, size_t n, struct cv_installed *out);
/* A cudnnvm-dep.json, for the dependency folder deps/<folder>. */
int cv_store_dep_record_parse(const char *text, size_t n, const char *folder,
			      struct cv_dep *dep);
/* The dependency folder deps/<component>-<version> of the writable store:
 * 1 and *dep from its record, else 0. */
int cv_store_dep_get(const struct cv_store *st, const char *component,
		     const char *version, struct cv_dep *dep);

/* hint.c, confirmed fixes (doctor): as cv_hint_activate and
 * cv_hint_pick_global, but NULL unless the store holds the build or a
 * cached manifest lists it for this platform and CUDA major, so that no
 * fix names a build that does not exist. */
char *cv_hint_activate_known(const struct cv_store *st,
			     const struct cv_version *spec);
char *cv_hint_pick_global_known(const struct cv_store *st);

#endif
