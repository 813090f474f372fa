/* cudnnvm.h: the public interface of libcudnnvm, the only lib header cmd/
 * may include. lib/ never prints or exits: every fallible function returns
 * 0 or a negative cv_code and fills the struct cv_err passed last. */
#ifndef CUDNNVM_H
#define CUDNNVM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define CV_VERSION_STRING "0.1.0"
/* buildinfo.c: the commit the binaries were built from ("unknown" outside
 * a git checkout, unless make was given COMMIT=), and "inih 55, jansson
 * 2.14, libcurl ..., libarchive ..., OpenSSL ..., liblzma ..., libdeflate
 * ...": the libraries' versions it was built against. */
const char *cv_build_commit(void);
const char *cv_build_libraries(void);

/* suggest.c: "did you mean": the known name closest to a mistyped one,
 * when it is close enough to be what was meant.
 *
 *	struct cv_suggest s = CV_SUGGEST_INIT("mirrror");
 *	cv_suggest_consider(&s, "mirror"); ...
 *	near = cv_suggest_result(&s);   (NULL: none is close) */
struct cv_suggest {
	const char *typed, *best;
	size_t dist;
};
#define CV_SUGGEST_INIT(typed)            \
	{                                 \
		(typed), NULL, (size_t)-1 \
	}
void cv_suggest_consider(struct cv_suggest *s, const char *name);
const char *cv_suggest_result(const struct cv_suggest *s);

/* ---- err.c: errors as values ------------------------------------------ */

/* Each code maps to one documented exit status (cv_exit_status). */
enum cv_code {
	CV_OK = 0,
	CV_ERROR = -1,      /* generic failure: exit 1 */
	CV_ENOTFOUND = -2,  /* not installed / not in a manifest: exit 1 */
	CV_EUSAGE = -3,     /* usage or bad spec: exit 64 */
	CV_EDATA = -4,      /* bad manifest, checksum, size, archive: 65 */
	CV_ENETWORK = -5,   /* network or server error: 69 */
	CV_ESTORE = -6,     /* store not writable / hostile store: 73 */
	CV_EIO = -7,        /* I/O error, disk full: 74 */
	CV_ELOCKED = -8,    /* lock busy with --no-wait: 75 */
	CV_EPERM = -9,      /* permission denied: 77 */
	CV_ECONFIG = -10,   /* config error: 78 */
	CV_EINTR = -11,     /* interrupted: 130 */
	CV_EVALIDATE = -12, /* validation failed: exit 1 */
};

#define CV_ERR_MSGSIZE  1024
#define CV_ERR_HINTSIZE 512
struct cv_err {
	int code;                 /* enum cv_code */
	char msg[CV_ERR_MSGSIZE]; /* one line, no trailing newline */
	/* commands that fix it, each ending in '\n'; "" when none */
	char hint[CV_ERR_HINTSIZE];
};
#define CV_ERR_INIT           \
	{                     \
		CV_OK, "", "" \
	}

/* Record an error and return `code`: `return cv_err_set(err, ...)`.
 * err may be NULL. */
int cv_err_set(struct cv_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Same, appending ": strerror(errno)" (errno read on entry). */
int cv_err_errno(struct cv_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Add a command that fixes the error just set, printed on a line of its
 * own after it ("hint: cudnnvm install 9.1"); returns err->code so that
 * `return cv_err_hint(err, ...)` follows a cv_err_set. A hint that does
 * not fit whole is left out, never cut. */
int cv_err_hint(struct cv_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prepend context ("install 9.1.0: ") to the message; returns err->code. */
int cv_err_prefix(struct cv_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Map an errno from a failed store write to a code (ENOSPC->EIO, ...). */
int cv_code_from_errno(int errnum);
/* Where warnings made while the work goes on are sent (the front end
 * prints them); without a sink they are dropped. */
void cv_warn_sink(void (*sink)(void *payload, const char *msg), void *payload);
/* 1 when a sink is installed: a warning would be seen. */
int cv_warn_enabled(void);
/* Send one warning line to the sink, once per process per text. */
void cv_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The documented exit status for a code (0, 1, 64, 65, ...). */
int cv_exit_status(int code);

/* ---- version.c: the spec grammar of doc/SPEC.md ------------------------ */

#define CV_VERSION_MAXPARTS 4
struct cv_version {
	int nparts;                              /* 1..4 */
	unsigned long part[CV_VERSION_MAXPARTS]; /* missing parts are 0 */
	int cuda; /* CUDA major, 0 when not given */
};

/* Parse a spec: ^[0-9]{1,3}(\.[0-9]{1,5}){0,3}(-cuda[0-9]{1,3})?$, ASCII
 * only, no leading zeros beyond a single "0". CV_EUSAGE on anything else;
 * the message quotes the input safely. */
int cv_version_parse(struct cv_version *out, const char *s, struct cv_err *err);
/* A spec as a command takes it: cv_version_parse's grammar, or `latest`
 * (optionally latest-cudaN), the newest version, which is nparts 0 (it
 * matches every version). cv_version_format writes it back as "latest".
 * Pin files and CUDNNVM_VERSION take cv_version_parse's grammar only. */
int cv_spec_parse(struct cv_version *out, const char *s, struct cv_err *err);
/* Parse an install id: a full 4-part version with -cudaN (9.13.0.50-cuda12).
 */
int cv_install_id_parse(struct cv_version *out, const char *s,
			struct cv_err *err);
/* Numeric order of the version parts (cuda ignored): <0, 0, >0. Missing
 * parts count as 0 only after all given parts compare equal and the
 * shorter one sorts first. */
int cv_version_cmp(const struct cv_version *a, const struct cv_version *b);
/* 1 when `v` has every leading part of `spec` (and the same cuda, when the
 * spec names one). */
int cv_version_matches(const struct cv_version *spec,
		       const struct cv_version *v);
/* "9.13.0.50" (parts only), or "9.13.0.50-cuda12" with the cuda part. */
void cv_version_format(const struct cv_version *v, char *buf, size_t n);
void cv_version_format_id(const struct cv_version *v, char *buf, size_t n);
/* The value cudnnGetVersion() returns for this version: M*1000+m*100+p
 * below 9, M*10000+m*100+p from 9 on. */
long cv_version_cudnn_number(const struct cv_version *v);
/* A --cuda value: a CUDA major, 1..999, no sign or leading zero, into
 * *out; -1 when malformed. */
int cv_cuda_major_parse(const char *s, int *out);
/* `<spec> --cuda N` as one spec: N (a --cuda value, NULL when not given)
 * becomes the spec's -cudaN. CV_EUSAGE when N is malformed or the spec
 * names another major. */
int cv_spec_with_cuda(struct cv_version *spec, const char *cuda_arg,
		      struct cv_err *err);

/* ---- config.c: INI files with inih (see doc/SPEC.md) ------------------- */

struct cv_config {
	/* the system file's [store] path: the system store (NULL: /opt/cudnn)
	 */
	char *system_store_path;
	/* the user's own store: a user config, --config or CUDNNVM_STORE
	 * (NULL: $XDG_DATA_HOME/cudnnvm) */
	char *store_path;
	int store_only;   /* CUDNNVM_STORE: store_path is the one store */
	char *cache_path; /* NULL: default */
	char *mirror;     /* never NULL after load */
	char *ca_file;    /* NULL: system CAs */
	char *proxy;      /* NULL: environment */
	long timeout;     /* seconds without progress */
	int retries;
	int cuda;       /* 0 = auto */
	char *platform; /* NULL = auto */
	int validate;   /* 1/0 */
	/* enum cv_keep: a verified archive is kept in the cache while
	 * its version is installed (yes), never (no) or also after (always) */
	int keep_archives;
	int verify_pins;
	unsigned threads; /* archive decoding threads; 0 = usable cores */
	int source;       /* [remote] source: enum cv_source_kind */
	char *pypi_index; /* [remote] index: a PEP 503/691 simple index */
	/* [remote] cuda_mirror: NVIDIA's CUDA redist tree, for cuDNN's own
	 * dependencies; NULL: derived from mirror (cv_deps_cuda_mirror) */
	char *cuda_mirror;
	int deps; /* [install] deps: enum cv_deps_mode */
};
enum cv_keep { CV_KEEP_NO = 0, CV_KEEP_YES = 1, CV_KEEP_ALWAYS = 2 };
/* The most threads [install] threads and install --jobs take. */
#define CV_MAX_THREADS 1024

/* Where versions come from: NVIDIA's redist mirror or a Python index
 * serving NVIDIA's nvidia-cudnn-cuN wheels. */
enum cv_source_kind { CV_SOURCE_NVIDIA = 0, CV_SOURCE_PYPI = 1 };
/* The simple index for source = pypi: `flag` (--mirror) or [remote] index.
 * There is no built-in one: a site names its PyPI mirror or proxy, or the
 * public index's /simple/ URL. CV_ECONFIG when neither is set. */
int cv_pypi_index(const struct cv_config *cfg, const char *flag,
		  const char **out, struct cv_err *err);
/* "nvidia" / "pypi" -> enum cv_source_kind; CV_EUSAGE otherwise. */
int cv_source_parse(const char *s, int *out, struct cv_err *err);

/* Read /etc/cudnnvm/config.ini, $XDG_CONFIG_HOME/cudnnvm/config.ini, then
 * `explicit_file` (or $CUDNNVM_CONFIG), then the environment
 * (CUDNNVM_STORE, CUDNNVM_MIRROR). Errors name file:line, code CV_ECONFIG.
 * The system file's [store] path lands in system_store_path, the others'
 * in store_path. The system file's folder may be moved with
 * CUDNNVM_SYSCONFDIR (tests). */
int cv_config_load(struct cv_config *cfg, const char *explicit_file,
		   struct cv_err *err);
/* Parse one INI buffer over cfg (later wins). `name` is used in messages. */
int cv_config_parse_buffer(struct cv_config *cfg, const char *name,
			   const char *data, size_t len, struct cv_err *err);
void cv_config_init(struct cv_config *cfg);
void cv_config_release(struct cv_config *cfg);

/* ---- fs.c: files cudnnvm writes ---------------------------------------- */

/* mkdir -p with `mode` for the folders it creates; CV_ESTORE when the
 * path exists and is not a folder. */
int cv_fs_mkdirs(const char *path, mode_t mode, struct cv_err *err);
/* Replace `path` with `len` bytes of `data` and permissions `mode`
 * atomically: a hidden temporary beside it (created O_EXCL, never through
 * a link), written, fsync'd, renamed over path. Readers see the old file
 * or the new one, never a part; a failure leaves no temporary behind. */
int cv_fs_write_atomic(const char *path, const void *data, size_t len,
		       mode_t mode, struct cv_err *err);
/* The first n-1 bytes of the regular file `name` (relative to dirfd, or
 * AT_FDCWD), NUL-terminated into buf: opened without blocking and checked
 * on its descriptor, so a FIFO in its place cannot hang the caller; with
 * nofollow a link is refused too. The bytes read, or -1 with errno (EINVAL
 * for a file that is not regular). */
ssize_t cv_fs_read_head(int dirfd, const char *name, int nofollow, char *buf,
			size_t n);

/* ---- store.c: the store, locks, staging, publish ----------------------- */

struct cv_store; /* opaque */

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
/* "auto" / "always" / "never"; -1 otherwise. */
int cv_deps_mode_parse(const char *s, int *out);
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
 * include/ and bin/ (where present) and the files in them; else CV_ESTORE
 * naming the first that is not, with the command that fixes it. Lookup,
 * activation and validation refuse a version another user could change. */
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
/* The kind of that store (enum cv_store_kind). */
int cv_store_kind(const struct cv_store *st);
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
struct json_t *cv_store_deps_json(const struct cv_installed *inst);
/* Record `deps` in the cudnnvm.json of the writable store's `id` (written
 * atomically under the version's lock). */
int cv_store_set_deps(struct cv_store *st, const char *id,
		      const struct cv_dep *deps, int n, struct cv_err *err);
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
/* What the cache folder (cv_store_cache_dir) holds. */
int cv_cache_usage(const struct cv_store *st, struct cv_cache_usage *u,
		   struct cv_err *err);
/* Remove the kept archives (<cache>/downloads/<sha256>.archive) that no
 * installed version of the view came from; only the one of `sha256` when
 * not NULL (uninstall's own). *freed gets what went. */
int cv_cache_prune(const struct cv_store *st, const char *sha256,
		   struct cv_cache_usage *freed, struct cv_err *err);
/* Remove the folders cudnnvm writes in the cache: downloads (partials
 * too), the mirror's cached listings and manifests, validation results. */
int cv_cache_clean(const struct cv_store *st, struct cv_cache_usage *freed,
		   struct cv_err *err);

/* A pull source of archive bytes (a file, or a download in flight).
 * read() sets *buf and returns its length, 0 at the end, <0 on error. */
struct cv_source {
	ssize_t (*read)(void *ctx, const void **buf, struct cv_err *err);
	void *ctx;
};

/* What is being installed. */
struct cv_artifact {
	struct cv_version version; /* 4 parts and cuda */
	char platform[32];         /* linux-x86_64, windows-x86_64, ... */
	char sha256[65];           /* expected, lower-case hex */
	uint64_t size;             /* expected bytes, 0 = unknown */
	char filename[256];        /* the archive's base name */
	char source[1024];         /* url or path, recorded in cudnnvm.json */
	/* 1: one of NVIDIA's nvidia-cudnn-cuN wheels, unpacked from
	 * nvidia/cudnn/ into the archive layout (cv_extract_limits.wheel) */
	int wheel;
};

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
};
#define CV_INSTALL_OPTS_INIT                    \
	{                                       \
		0, 0, 0, NULL, NULL, 0, NULL, 0 \
	}

/* Install `art` into the store in one pass: bytes from the fetcher are
 * hashed and extracted together into .staging; the version is published by
 * one rename only when size and sha256 match. *already is set to 1 when it
 * was installed before (nothing fetched). */
int cv_store_install(struct cv_store *st, const struct cv_artifact *art,
		     const struct cv_fetcher *fetch,
		     const struct cv_install_opts *opts, int *already,
		     struct cv_err *err);

/* Install a dependency archive (`art`: NVIDIA's <component>-<platform>-
 * <version>-archive.tar.xz, sha256 and size from its manifest) as
 * <store>/<dep->dir> in one verified pass like a version's, keeping only
 * lib/<lib_prefix>*.so* and LICENSE, then fill dep's sha256 and size. When
 * that release is in the store already, nothing is fetched. */
int cv_store_install_dep(struct cv_store *st, const struct cv_artifact *art,
			 struct cv_dep *dep, const char *lib_prefix,
			 const struct cv_fetcher *fetch,
			 const struct cv_install_opts *opts,
			 struct cv_err *err);

/* Make an artifact whose invariants hold: `version` has 4 parts and a CUDA
 * major, `platform` is a safe name, `sha256` is 64 hex digits (stored
 * lower case), the strings fit. CV_EUSAGE saying what is wrong. size 0:
 * unknown. */
int cv_artifact_init(struct cv_artifact *art, const struct cv_version *version,
		     const char *platform, const char *sha256, uint64_t size,
		     const char *filename, const char *source,
		     struct cv_err *err);
/* Guess version, cuda major and platform from NVIDIA's archive name
 * cudnn-<platform>-<version>_cuda<N>-archive.{tar.xz,zip}. */
int cv_artifact_from_filename(struct cv_artifact *art, const char *filename,
			      struct cv_err *err);

/* A fetcher reading the local archive `path` (opened only by fetch->open,
 * i.e. under the version lock). Free with cv_fetcher_file_free. */
void cv_fetcher_file(struct cv_fetcher *fetch, const char *path);
void cv_fetcher_file_free(struct cv_fetcher *fetch);

/* ---- sha256.c: streaming SHA-256 with OpenSSL EVP ---------------------- */

struct cv_sha256; /* opaque */
struct cv_sha256 *cv_sha256_new(void);
void cv_sha256_update(struct cv_sha256 *h, const void *data, size_t len);
/* Writes 64 lower-case hex digits and a NUL into hex[65]. */
void cv_sha256_final(struct cv_sha256 *h, char hex[65]);
void cv_sha256_free(struct cv_sha256 *h);
/* 1 when s is exactly 64 hex digits (either case). */
int cv_sha256_valid_hex(const char *s);
/* Hash a whole file. */
int cv_sha256_file(const char *path, char hex[65], struct cv_err *err);

/* ---- extract_*.c: safe extraction with libarchive ---------------------- */

struct cv_extract_limits {
	uint64_t max_entries;
	uint64_t max_total_bytes;
	size_t max_path;
	int max_depth;
	/* When the archive's size is not known up front (a FIFO, a pipe):
	 * the bytes written may not pass max_ratio times the archive bytes
	 * read so far, once past ratio_floor. 0: no such cap. */
	unsigned max_ratio;
	uint64_t ratio_floor;
	/* Called with the archive's top folder name before any entry is
	 * written; a negative return refuses the archive. NULL: any name. */
	int (*check_top)(void *payload, const char *top, struct cv_err *err);
	void *payload;
	/* Threads that decode a many-block xz stream; 0: the usable cores. */
	unsigned threads;
	/* 1: a wheel. Only nvidia/cudnn/{lib,include}/ and the dist-info's
	 * license are written (as lib/, include/, LICENSE); other Python
	 * files are skipped, anything else or any link refuses the wheel. */
	int wheel;
	/* A wheel: called once its central directory has been read, with
	 * the name of its one .dist-info folder and the text of the WHEEL
	 * file in it (either NULL when the wheel has none); a negative return
	 * refuses the wheel. NULL: not checked. */
	int (*check_dist_info)(void *payload, const char *dist_info,
			       const char *wheel_text, struct cv_err *err);
	/* Not NULL: a dependency's archive (cuBLAS, nvrtc), of which only
	 * lib/<dep_lib_prefix>*.so* and the top LICENSE are written; its
	 * static libraries, headers and stubs are skipped. */
	const char *dep_lib_prefix;
};

/* Extract a tar.xz/tar.gz/zip stream into the empty folder `dest`,
 * stripping the single top folder and normalising old cuda/include,
 * cuda/lib64 layouts. Unsafe entries fail with CV_EDATA naming the entry.
 * `limits` may be NULL for the defaults. */
int cv_extract(struct cv_source *src, const char *dest,
	       const struct cv_extract_limits *limits, struct cv_err *err);
/* Extract the zip file `path` (a wheel, with limits->wheel) into the empty
 * folder `dest` on `threads` threads: the policy runs over the whole
 * central directory before anything is written. */
int cv_extract_zip_file(const char *path, const char *dest,
			const struct cv_extract_limits *limits, int threads,
			struct cv_err *err);

/* ---- manifest.c / remote.c / resolve.c: NVIDIA's mirror ---------------- */

#define CV_MANIFEST_MAX_BYTES (16u << 20)   /* a manifest or listing */
#define CV_ARCHIVE_MAX_BYTES  (64ULL << 30) /* a manifest `size` */
#define CV_DEFAULT_MIRROR \
	"https://developer.download.nvidia.com/compute/cudnn/redist/"

/* One cudnn archive of a manifest: (platform, cudaN) -> file. */
struct cv_release_file {
	char platform[32];
	int cuda;                /* CUDA major */
	char relative_path[512]; /* validated, relative to the mirror */
	char sha256[65];         /* lower-case hex */
	uint64_t size;
	char bad[256]; /* non-empty: why the entry is unusable (field path) */
};

/* A parsed redistrib_<version>.json (only the "cudnn" product). */
struct cv_manifest {
	char name[64];  /* redistrib_9.13.0.json */
	char label[32]; /* release_label, e.g. 9.13.0 */
	char release_date[16];
	struct cv_version version; /* cudnn.version, 4 parts */
	struct cv_release_file *files;
	size_t nfiles;
	char sha256[65]; /* of the bytes read (set by cv_index_manifest) */
};

/* Parse manifest bytes (both NVIDIA shapes). CV_EDATA with the byte offset
 * for bad JSON, or with the field path for a bad required field. Odd
 * entries are kept with `bad` set rather than failing the whole file. */
int cv_manifest_parse(struct cv_manifest *m, const char *name, const char *data,
		      size_t len, struct cv_err *err);
void cv_manifest_release(struct cv_manifest *m);
/* The entry for (platform, cuda), or NULL. */
const struct cv_release_file *cv_manifest_find(const struct cv_manifest *m,
					       const char *platform, int cuda);
/* "cuda12, cuda13": the variants the release has for `platform`. */
void cv_manifest_variants(const struct cv_manifest *m, const char *platform,
			  char *buf, size_t n);
/* From the CUDA redistrib manifest `name` (redistrib_13.0.2.json: one
 * object per component, no cuda_variant level), `component`'s file for
 * `platform` (cuda: the release's CUDA major) and its version. CV_ENOTFOUND
 * when the release has none, CV_EDATA for bad JSON or a bad field. */
int cv_manifest_component(const char *name, const char *data, size_t len,
			  const char *component, const char *platform, int cuda,
			  struct cv_release_file *out, char version[32],
			  struct cv_err *err);
/* Check a relative_path: no scheme, host, "..", '%', '\\', '?', '#',
 * control bytes or leading '/'. */
int cv_manifest_check_path(const char *rel, struct cv_err *err);
/* mirror base + relative path, with exactly one '/' between (xmalloc'd). */
char *cv_manifest_url(const char *mirror, const char *rel);

/* pins.c: sha256 of NVIDIA's published manifests. CV_EDATA "possible
 * tampering" when `name` is pinned and the bytes hash differently. */
int cv_pins_check(const char *name, const char *data, size_t len,
		  struct cv_err *err);
/* The pinned hash of a manifest name, or NULL. */
const char *cv_pins_lookup(const char *name);

/* platform.c: what this machine is. */
/* 1 for a platform name NVIDIA publishes (linux-x86_64, linux-sbsa, ...). */
/* The cores this process may run on (its CPU affinity), at least 1. */
unsigned cv_usable_cores(void);
int cv_platform_valid(const char *p);
/* linux-x86_64 / linux-sbsa / linux-aarch64 (Jetson); CV_ENOTFOUND else. */
int cv_platform_detect(char out[32], struct cv_err *err);
/* machine.c: the one model of this machine's CUDA stack, found lazily and
 * once per process; each fact says where it came from. */
struct cv_fact {
	int major, minor;  /* 0.0: not known */
	char source[24];   /* CUDA_HOME, CUDA_PATH, nvcc, /usr/local/cuda,
			    * libcudart, driver, override */
	char detail[4096]; /* the file or command that said it */
};
struct cv_machine {
	struct cv_fact toolkit;  /* the CUDA toolkit's version */
	struct cv_fact driver;   /* the newest CUDA the driver runs */
	char driver_version[32]; /* "580.65.06", "" when no driver */
	struct cv_fact gpu_arch; /* the lowest compute capability */
	char bad[160];           /* a malformed CUDNNVM_OVERRIDE_* */
};
#define CV_MACHINE_TOOLKIT 0x1
#define CV_MACHINE_DRIVER  0x2
#define CV_MACHINE_GPU     0x4
#define CV_MACHINE_ALL     0x7
/* The facts asked for in `what` (CV_MACHINE_*), each found once. The
 * overrides CUDNNVM_OVERRIDE_CUDA (toolkit), CUDNNVM_OVERRIDE_DRIVER_CUDA
 * and CUDNNVM_OVERRIDE_GPU_ARCH replace what the machine says. */
const struct cv_machine *cv_machine_get(unsigned what);
/* The CUDA version a toolkit folder states in its own files (version.json,
 * version.txt, include/cuda.h, lib64/libcudart.so.N), nothing run; 1 and
 * detail (the file) set, else 0. */
int cv_machine_toolkit_files(const char *home, int *major, int *minor,
			     char *detail, size_t n);
/* Forget what was found (tests, and a process that changed its env). */
void cv_machine_forget(void);
/* The CUDA major a build without -cudaN means here: the toolkit's, else
 * the newest the driver runs, else 0 (how is then ""). `how` gets a
 * phrase saying where it came from. CV_EUSAGE (<0) for a malformed
 * override. */
int cv_machine_cuda(char *how, size_t n, struct cv_err *err);
/* The CUDA major a request means, in the one order every command uses:
 * the spec's -cudaN, else --cuda (or the config's cuda), else
 * cv_machine_cuda. 0 when nothing says; <0 for a malformed override. */
int cv_machine_want_cuda(int spec_cuda, int flag_cuda, char *how, size_t n,
			 struct cv_err *err);
/* The newest CUDA major.minor a driver version ("580.65.06") runs; 0 when
 * it is older than any known or malformed. */
int cv_machine_driver_cuda(const char *version, int *major, int *minor);
/* The oldest driver version that runs any CUDA `cuda`.x ("525.60.13"),
 * NULL for a major older than 11 or newer than known. */
const char *cv_machine_min_driver(int cuda);
/* Whether the build of release v for CUDA major `cuda` is the one for this
 * machine: 1 (the major install would take), 0 (another major, newer than
 * the driver runs, or a release without code for the GPU's compute
 * capability), -1 (nothing known here: no toolkit, no driver); why says
 * so, and says when no GPU is known. */
int cv_machine_fits(const struct cv_version *v, int cuda, char *why, size_t n);
/* The lowest compute capability (major * 10 + minor: 75 for 7.5) NVIDIA's
 * support matrices list for cuDNN release v; 0 when not recorded. The one
 * table of it. */
int cv_machine_cudnn_min_arch(const struct cv_version *v);
/* The newest cuDNN release line (9.10) that supports compute capability
 * `arch` (major * 10 + minor); 0 when every recorded line does or none is
 * known to. */
int cv_machine_cudnn_last_for_arch(int arch, int *major, int *minor);
/* Whether release v has code for the lowest compute capability of this
 * machine's GPUs (only CUDNNVM_OVERRIDE_GPU_ARCH says it outside the probe
 * child, which alone starts the driver): 1, 0 (why names what it needs,
 * the GPU's and the last release for it), -1 (no GPU known, or the
 * release's capabilities not recorded: nothing ruled out). */
int cv_machine_arch_fits(const struct cv_version *v, char *why, size_t n);
/* Every fact with its source, for doctor --json and current --json. */
struct json_t *cv_machine_json(void);

/* remote.c: the HTTPS client (libcurl). */
struct cv_remote; /* opaque */
/* A client for `mirror` (NULL: cfg->mirror) with cfg's ca_file, proxy,
 * timeout and retries. Only https:// mirrors, or file:// ones. */
int cv_remote_new(struct cv_remote **out, const struct cv_config *cfg,
		  const char *mirror, struct cv_err *err);
/* The same for the simple index of source = pypi (`index`, never NULL):
 * its messages call it the index. One [remote] ca_file, proxy, timeout
 * and retries serve both: a site's private CA signs both its hosts. */
int cv_remote_new_index(struct cv_remote **out, const struct cv_config *cfg,
			const char *index, struct cv_err *err);
void cv_remote_free(struct cv_remote *r);
const char *cv_remote_mirror(const struct cv_remote *r);
/* Async-signal-safe: abort transfers in flight with CV_EINTR. */
void cv_remote_interrupt(void);

/* download.c: a download of one archive, cached by sha256 in `cache_dir`:
 * a verified archive is read back from the cache (no network), a partial is
 * resumed with a Range request. The fetcher's source yields the bytes while
 * they arrive; close(ok) keeps (keep_archives) or drops the file. */
struct cv_download; /* opaque */
int cv_download_new(struct cv_download **out, struct cv_remote *r,
		    const struct cv_artifact *art, const char *url,
		    const char *cache_dir, int keep, struct cv_err *err);
void cv_download_fetcher(struct cv_download *d, struct cv_fetcher *f);
/* Called from the reading thread with bytes done / total. */
void cv_download_progress(struct cv_download *d,
			  void (*fn)(void *, uint64_t, uint64_t),
			  void *payload);
/* Once open: 1 when bytes are fetched over the network (0 when the cache
 * holds them all). */
int cv_download_fetching(const struct cv_download *d);
/* "host:port" of url, without its credentials (a file:// URL: its path),
 * for saying whom a command waits for; malloc'd. */
char *cv_url_host(const char *url);
/* 1 when the bytes came (partly) from a cached partial or archive. */
int cv_download_used_cache(const struct cv_download *d);
/* Bytes of the archive received so far (from any thread; `d` is a struct
 * cv_download, untyped so that it fits ui_progress_watch's poll). */
uint64_t cv_download_received(void *d);
/* Delete the cached bytes of this artifact (before a clean retry). */
void cv_download_discard(struct cv_download *d);
void cv_download_free(struct cv_download *d);

/* index.c: the mirror's releases (redistrib_<version>.json names). */
struct cv_index; /* opaque */
/* Read the listing (cached for a day in cache_dir, or refreshed). */
int cv_index_open(struct cv_index **out, struct cv_remote *r,
		  const char *cache_dir, int refresh, struct cv_err *err);
void cv_index_free(struct cv_index *ix);
/* When *ix was read from the cached listing, read the mirror's listing
 * again into a new index that replaces it (a release published since the
 * listing was cached). 1 when replaced; 0 when *ix was already fresh or
 * the mirror did not answer (then *ix is kept); CV_EINTR on interrupt. */
int cv_index_reread(struct cv_index **ix, struct cv_err *err);
/* Release names, newest first ("9.13.0", "8.9.7.29"). */
size_t cv_index_count(const struct cv_index *ix);
const char *cv_index_name(const struct cv_index *ix, size_t i);
const struct cv_version *cv_index_version(const struct cv_index *ix, size_t i);
/* Fetch every uncached manifest whose release matches `spec` (either way
 * round; NULL: all) at once, for cv_index_manifest to take. Only an
 * interrupt fails here; other errors wait for cv_index_manifest. */
int cv_index_prefetch(struct cv_index *ix, const struct cv_version *spec,
		      struct cv_err *err);
/* Fetch (or read from the cache) and parse release i, pins checked. */
int cv_index_manifest(struct cv_index *ix, size_t i, struct cv_manifest *m,
		      struct cv_err *err);
/* The same with another parser (a CUDA redistrib manifest's): the bytes
 * are cached only once parse() took them. */
typedef int (*cv_manifest_parse_fn)(void *arg, const char *name,
				    const char *data, size_t len,
				    struct cv_err *err);
int cv_index_read(struct cv_index *ix, size_t i, cv_manifest_parse_fn parse,
		  void *arg, struct cv_err *err);

/* resolve.c: a spec -> one archive of one release. */
struct cv_resolve_req {
	const struct cv_version *spec; /* NULL: newest */
	int cuda;                      /* --cuda / config; 0 = auto */
	const char *platform;          /* --platform / config; NULL = auto */
	int any_gpu; /* --force: take a release the GPU has no code for */
};
struct cv_resolved {
	struct cv_artifact art; /* version, platform, sha256, size, ... */
	char *url;              /* xmalloc'd */
	char label[32];         /* release label, e.g. 9.13.0 */
	/* where it came from: the archive's path on the mirror, the
	 * manifest's name and the sha256 of the manifest's bytes (NVIDIA
	 * only; empty for a wheel) */
	char relative_path[512];
	char manifest[64];
	char manifest_sha256[65];
};
int cv_resolve(struct cv_index *ix, const struct cv_resolve_req *req,
	       struct cv_resolved *out, struct cv_err *err);
/* cv_resolve, and on a miss against a cached listing, once more after
 * cv_index_reread (which may replace *ix). */
int cv_resolve_fresh(struct cv_index **ix, const struct cv_resolve_req *req,
		     struct cv_resolved *out, struct cv_err *err);
void cv_resolved_release(struct cv_resolved *res);

/* ---- deps_install.c: cuDNN's own dependencies into the store ----------- */

/* One dependency archive chosen on the CUDA redist tree: component,
 * version, path relative to that tree, sha256 and size (what a lock
 * records). */
struct cv_dep_file {
	char name[32];
	char version[32];
	char url[512];
	char sha256[65];
	uint64_t size;
};

struct cv_deps_req {
	struct cv_store *st; /* writable */
	const struct cv_config *cfg;
	const char *cudnn_mirror; /* --mirror, or NULL */
	/* not NULL: the cuDNN came from this index (source = pypi), and so
	 * do its dependencies (nvidia-cublas-cu12, nvidia-cuda-nvrtc, ...) */
	const char *pypi_index;
	const struct cv_version *version; /* the cuDNN build, cuda set */
	const char *platform;             /* linux-x86_64, ... */
	int mode;                         /* enum cv_deps_mode */
	int refresh; /* re-read the CUDA mirror's listing */
	/* auto from an offline install (--archive): what the store and the
	 * machine have, nothing downloaded (always still downloads) */
	int offline;
	int keep_archives;
	struct cv_install_opts opts; /* threads, locks */
	/* the lock's choice for this platform: a component listed here is
	 * that release (the store's copy only when it is the same one) */
	const struct cv_dep_file *locked;
	int nlocked;
	/* called before a dependency is downloaded */
	void (*fetching)(void *payload, const struct cv_dep *dep,
			 const struct cv_artifact *art);
	void *payload;
};
/* Use locks held from cv_deps_ensure until the version is published. */
struct cv_deps_held {
	int fds[CV_MAX_DEPS];
	int n;
};
/* Decide, per dependency of req->version: a copy in the store; else (auto)
 * one this machine's loader finds (recorded where); else the newest release
 * of its CUDA major that the driver runs, installed into <store>/deps/.
 * out gets what the version's cudnnvm.json records. */
int cv_deps_ensure(const struct cv_deps_req *req,
		   struct cv_dep out[CV_MAX_DEPS], int *n,
		   struct cv_deps_held *held, struct cv_err *err);
void cv_deps_release(struct cv_deps_held *held);
/* What req->version needs for req->platform on the CUDA redist tree, as
 * cv_deps_ensure would download it there (nothing found on this machine
 * or in the store counts, nothing is downloaded): for a lock. */
int cv_deps_resolve(const struct cv_deps_req *req,
		    struct cv_dep_file out[CV_MAX_DEPS], int *n,
		    struct cv_err *err);

/* ---- pypi.c: NVIDIA's cuDNN wheels on a Python package index ----------- */

/* One installable wheel of nvidia-cudnn-cuN. */
struct cv_wheel {
	struct cv_version version; /* 4 parts, cuda = N of the project */
	char platform[32];         /* linux-x86_64 or linux-sbsa */
	char filename[256];
	char *url; /* absolute https (or file:// for a file:// index) */
	char sha256[65];
	uint64_t size; /* 0 when the index does not say */
};
/* The wheels of nvidia-cudnn-cu<cuda> (cuda 0: cu11, cu12 and cu13) on the
 * simple index `index` (PEP 691 JSON asked for, PEP 503 HTML taken too)
 * for `platform`, newest first; yanked files and files without a sha256
 * are left out. *out is xmalloc'd; free with cv_wheels_free. */
int cv_pypi_list(struct cv_remote *r, const char *index, int cuda,
		 const char *platform, struct cv_wheel **out, size_t *n,
		 struct cv_err *err);
void cv_wheels_free(struct cv_wheel *w, size_t n);
/* The wheels of one project (PEP 503 normal form: nvidia-cublas-cu12,
 * nvidia-cuda-nvrtc) for `platform`, newest first, versions as published
 * (2 to 4 parts) with cuda set to `cuda`: a CUDA library cuDNN loads. */
int cv_pypi_list_project(struct cv_remote *r, const char *index,
			 const char *project, int cuda, const char *platform,
			 struct cv_wheel **out, size_t *n, struct cv_err *err);
/* A spec -> the newest matching wheel, as an artifact to install (its size
 * asked of the server when the index does not give it). */
int cv_pypi_resolve(struct cv_remote *r, const char *index,
		    const struct cv_resolve_req *req, struct cv_resolved *out,
		    struct cv_err *err);
/* Parse one project page (JSON or HTML) of `page_url`: the wheels it
 * lists for `platform` (NULL: all Linux ones), unsorted. */
int cv_pypi_parse(const char *page_url, const char *data, size_t len, int cuda,
		  const char *platform, struct cv_wheel **out, size_t *n,
		  struct cv_err *err);
/* Version, CUDA major and platform from a wheel's file name
 * (nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl), with
 * art->wheel set; -1 for any other name. */
int cv_wheel_from_filename(struct cv_artifact *art, const char *filename);
/* That a wheel's .dist-info folder `dist_info` (NULL: none) names the
 * project and version of its file name `filename`, and that the Tag lines
 * of its WHEEL file `wheel_text` (NULL: none) are the tags the file name
 * gives, no more and no fewer (PEP 427); CV_EDATA, "unsafe wheel", else. */
int cv_wheel_check_dist_info(const char *filename, const char *dist_info,
			     const char *wheel_text, struct cv_err *err);
/* In an unpacked wheel's lib/: rename each libX.so.M to libX.so.M.m.p
 * and link libX.so.M and libX.so to it, as NVIDIA's archives ship them. */
int cv_wheel_links(const char *dir, const struct cv_version *v,
		   struct cv_err *err);

/* ---- activation: link.c, activate.c, env.c, shell.c -------------------- */

/* activate.c: which version is active and why (doc/SPEC.md "Choosing the
 * active version"). Pin files are read safely: a regular file of at most
 * CV_PIN_MAX bytes holding one spec, never a path or URL. */
#define CV_PIN_MAX       4096
#define CV_PIN_FILE      ".cudnn-version"
#define CV_TOOL_VERSIONS ".tool-versions"

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
	 * or global default named (lib/gate.c): id is the venv's pin,
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

/* Read one pin file (tool_versions: a .tool-versions, whose `cudnn` line is
 * taken). Returns 1 with spec set, 0 when a .tool-versions names no cudnn,
 * or CV_EDATA with a one-line reason (not a regular file, too big, a path,
 * a URL, not a spec). */
int cv_pin_read(const char *path, int tool_versions, char spec[64],
		struct cv_err *err);
/* The nearest pin from `dir` (absolute) up to /. Returns 1 with file and
 * spec set, 0 when there is none. */
int cv_pin_find(const char *dir, char file[4096], char spec[64],
		cv_seen_fn seen, void *payload, struct cv_err *err);
/* Write <dir>/.cudnn-version holding `spec` atomically. */
int cv_pin_write(const char *dir, const struct cv_version *spec,
		 struct cv_err *err);
/* Pin `spec` for folder `dir`, where the pin search will read it: the
 * `cudnn` line of <dir>/.tool-versions when that file has one and there
 * is no <dir>/.cudnn-version (only that line changes), else
 * <dir>/.cudnn-version. `file` gets the path written. */
int cv_pin_set(const char *dir, const struct cv_version *spec, char file[4096],
	       struct cv_err *err);
/* What a pin or the global holds for "no cudnnvm version here": the
 * framework's own cuDNN or the system's (pyenv's and nvm's word). A
 * cv_pin_set of spec NULL pins it. */
#define CV_SYSTEM "system"
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
 * version is not installed (with the install hint). */
int cv_active_resolve(const struct cv_store *st, const char *cwd,
		      struct cv_active *out, cv_seen_fn seen, void *payload,
		      struct cv_err *err);
/* The install id `spec` resolves to, or with spec NULL the version active
 * in the working folder. */
int cv_active_id(const struct cv_store *st, const struct cv_version *spec,
		 char id[64], struct cv_err *err);
/* Resolve a parsed spec to an installed id (a full id is checked
 * directly); CV_ENOTFOUND says how to install it. */
int cv_active_find(const struct cv_store *st, const struct cv_version *spec,
		   char id[64], struct cv_err *err);

/* hint.c: the arguments of a `cudnnvm install` that installs `spec` as
 * printed: the spec, plus --cuda N when the spec names no CUDA major and
 * the release (as its cached manifest says) has no build for the detected
 * one. Reads cached files only; for error messages. */
void cv_install_hint(const struct cv_store *st, const struct cv_version *spec,
		     char *buf, size_t n);
/* `eval "$(cudnnvm env ID)"`: how a fix makes a build active in the shell
 * it is typed in (works without the hook `cudnnvm shell` needs). */
char *cv_hint_switch(const char *id);
/* s quoted for a POSIX shell ('...'), to paste into a printed command. */
char *cv_hint_quote(const char *s);
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
struct cv_validation;
/* The command that fixes validation step `failed` of install `id` when the
 * store can: a library cuDNN loads beside itself (cuBLASLt, cuBLAS,
 * nvrtc) not found -> `cudnnvm install <id> --deps always`; else NULL
 * (xmalloc'd). */
char *cv_hint_validation(const struct cv_store *st, const char *id,
			 const struct cv_validation *v, int failed);
/* What makes version `id` trusted again after cv_store_trust found `t`:
 * `chmod go-w PATH` for a mode, else a reinstall (`install --force`, or
 * `uninstall --force` and `import` again for an imported one). */
char *cv_hint_trust_fix(const struct cv_store *st, const char *id,
			const struct cv_trust *t);

/* env.c: the variables of a version (doc/SPEC.md "The environment of a
 * version"): a list of assignments, value NULL meaning unset. */
struct cv_env_var {
	char *name;
	char *value;
};
struct cv_env {
	struct cv_env_var *v;
	size_t n, alloc;
};
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

/* shell.c: quoting and scripts per shell. */
enum cv_shell {
	CV_SHELL_SH = 0, /* sh, bash, zsh, dash, ksh */
	CV_SHELL_BASH,
	CV_SHELL_ZSH,
	CV_SHELL_FISH,
	CV_SHELL_PWSH,
	CV_SHELL_CMD,
	CV_SHELL_CSH, /* csh, tcsh */
};
struct cv_buf; /* lib/internal.h; cmd/ uses it through cv_text_* */
struct cv_buf *cv_text_new(void);
const char *cv_text_str(const struct cv_buf *b);
int cv_text_add(struct cv_buf *b, const char *s, size_t n);
void cv_text_free(struct cv_buf *b);
/* "bash" -> CV_SHELL_BASH ...; CV_EUSAGE for an unknown name. */
int cv_shell_parse(const char *name, int *shell, struct cv_err *err);
/* The shell running this process (its parent; sh when not a known shell). */
int cv_shell_guess(void);
/* The line of `shell`'s startup file that loads the integration, e.g.
 * eval "$(cudnnvm init bash)" (bash for sh and unknown shells). */
const char *cv_shell_init_line(int shell);
/* Append `s` quoted for the shell. CV_EDATA when the shell cannot carry it
 * (cmd: newline or "). */
int cv_shell_quote(struct cv_buf *b, int shell, const char *s,
		   struct cv_err *err);
/* Append one assignment (value NULL: unset), exported or shell-local. */
int cv_shell_set(struct cv_buf *b, int shell, const char *name,
		 const char *value, int exported, struct cv_err *err);
/* Append every assignment of e. */
int cv_shell_emit(struct cv_buf *b, int shell, const struct cv_env *e,
		  struct cv_err *err);
/* buf.c: a growable list of strings (copies); allocation cannot fail, as
 * everywhere in lib/ (out of memory aborts). */
struct cv_strv {
	char **v;
	size_t n, alloc;
};
#define CV_STRV_INIT       \
	{                  \
		NULL, 0, 0 \
	}
void cv_strv_push(struct cv_strv *l, const char *s);
void cv_strv_release(struct cv_strv *l);

/* ---- implode.c: remove everything cudnnvm wrote for this user -------- */

struct cv_implode {
	struct cv_strv paths;   /* folders to remove, each this user's */
	struct cv_strv venvs;   /* environments whose blocks come out */
	struct cv_strv startup; /* "file:line: text" lines that load it */
	int sysmode;            /* root: system mode names this store */
};
/* What implode would remove: the writable store when this user owns it,
 * the cache, $XDG_DATA_HOME/cudnnvm (shims, the venv list),
 * $XDG_CONFIG_HOME/cudnnvm, the hook's stamps, the venv blocks, system
 * mode's loader file (root); and the startup-file lines to edit. */
void cv_implode_plan(const struct cv_store *st, struct cv_implode *p);
/* Do it; each failure's message is appended to failed (CV_ERROR). */
int cv_implode(const struct cv_implode *p, struct cv_strv *failed);
void cv_implode_release(struct cv_implode *p);

/* Append template `tpl` to b, each placeholder of `vars` (pairs of "@NAME@"
 * and its value, ended by NULL) replaced by the value quoted for `shell`.
 * The shim and venv scripts are made with it. */
int cv_shell_expand(struct cv_buf *b, const char *tpl, int shell,
		    const char *const *vars, struct cv_err *err);
/* Append a list variable (bash/zsh array, fish list). */
int cv_shell_set_list(struct cv_buf *b, int shell, const char *name,
		      char *const *items, size_t n, struct cv_err *err);
/* The integration `cudnnvm init <shell>` prints; CV_EUSAGE when the shell
 * has none. `exe` is the absolute path of cudnnvm, which the hook calls. */
int cv_shell_init_script(struct cv_buf *b, int shell, const char *exe,
			 struct cv_err *err);

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
enum cv_check { CV_CHECK_NONE, CV_CHECK_PASS, CV_CHECK_FAIL, CV_CHECK_SKIP };

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
};
/* Run the probe, writing one JSON object per line to `fd`. Returns 0. */
int cv_probe_run(const struct cv_probe_args *a, int fd);

/* Decoders shared with the tests. */
long cv_probe_decode(long v, int *maj, int *min, int *patch);
int cv_probe_min_driver(int cuda); /* driver API version, 0 unknown */
/* 1 when compute capability cc_major.cc_minor is supported by cuDNN
 * `major.minor`; *need gets the minimum as major*10+minor. */
int cv_probe_cc_ok(int major, int minor, int cc_major, int cc_minor, int *need);

/* validate_cache.c: results per install id, driver, GPU and the identity
 * (dev, inode, size, mtime) of every lib/libcudnn* file. */
char *cv_validate_cache_key(const char *dir, const char *id, int no_gpu,
			    const char *cublaslt);
int cv_validate_cache_get(const char *cache_dir, const char *key,
			  struct cv_validation *out);
void cv_validate_cache_put(const char *cache_dir, const char *key,
			   const struct cv_validation *v);
/* Another kind of result kept beside a version's validation (kind "":
 * the validation itself; ".frameworks": validate --frameworks), under the
 * same rule: used only when its key is byte-identical. NULL when none. */
struct json_t;
struct json_t *cv_validate_cache_get_json(const char *cache_dir,
					  const char *key, const char *kind);
void cv_validate_cache_put_json(const char *cache_dir, const char *key,
				const char *kind, struct json_t *result);
/* One "label=path:dev:inode:size:mtime:mode" line of a key (none when the
 * path cannot be stat'ed). */
struct cv_buf;
void cv_validate_key_identity(struct cv_buf *b, const char *label,
			      const char *path);
/* Parse the JSON of cv_validation_json back. 0 or -1. */
int cv_validation_from_json(const char *text, struct cv_validation *out);

/* index_cached.c: the release versions ("9.13.0") of the mirror listings
 * cached under cache_dir, newest first, without the network: an
 * xmalloc'd array of xmalloc'd names; returns their number. */
size_t cv_index_cached_versions(const char *cache_dir, char ***names);

/* doctor.c: findings about the store and the environment. */
enum cv_level { CV_LEVEL_OK, CV_LEVEL_WARN, CV_LEVEL_ERROR };
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
/* Collect findings (xmalloc'd array). Never fails: an unreadable thing is
 * itself a finding. */
void cv_doctor_run(const struct cv_doctor_ctx *ctx, struct cv_finding **out,
		   size_t *n);
void cv_findings_free(struct cv_finding *f, size_t n);
/* The classic error messages: the cause and fix of `msg`, with the
 * versions and file names it holds read out of it. 1 and *out filled
 * (release it), or 0 when no known message matches. */
struct cv_explanation {
	const char *pattern; /* the catalogue entry that matched */
	char *cause, *fix;
};
/* The cause of a pasted error message and the fix, built from what st
 * (may be NULL) holds and this machine needs; 0 when no entry matches. */
int cv_doctor_explain(const struct cv_store *st, const char *msg,
		      struct cv_explanation *out);
void cv_explanation_release(struct cv_explanation *e);
size_t cv_doctor_catalogue_size(void);

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

const char *cv_dtype_name(int dtype);   /* fp32, fp16, bf16 */
const char *cv_layout_name(int layout); /* nchw, nhwc */
/* "fp16" -> CV_DTYPE_FP16 (and the layouts); CV_EUSAGE otherwise. */
int cv_dtype_parse(const char *s, int *out, struct cv_err *err);
int cv_layout_parse(const char *s, int *out, struct cv_err *err);
/* Floating-point operations of one forward pass (2 per multiply-add). */
double cv_layer_flops(const struct cv_layer *l);
/* Output height and width. */
int cv_layer_out_h(const struct cv_layer *l);
int cv_layer_out_w(const struct cv_layer *l);

/* A layer set: a built-in name ("resnet50") or a file. Each layer comes
 * once per dtype bit of `dtypes` (1 << CV_DTYPE_*) and layout bit of
 * `layouts`, unless the file line names its own. *out is xmalloc'd. */
int cv_bench_layers(const char *set, unsigned dtypes, unsigned layouts,
		    struct cv_layer **out, size_t *n, struct cv_err *err);
/* The most layers a set may have once swept (CV_EDATA past it). */
#define CV_BENCH_MAX_LAYERS 1024
/* The shapes-file form of a set: `text` (len bytes, one layer a line)
 * under the file name `name` for messages; as cv_bench_layers. */
int cv_bench_shapes_parse(const char *text, size_t len, const char *name,
			  unsigned dtypes, unsigned layouts,
			  struct cv_layer **out, size_t *n, struct cv_err *err);
/* The built-in set names, NULL-ended. */
const char *const *cv_bench_sets(void);
/* One line of a shapes file: "name N C H W K R S stride pad dilation
 * groups [dtype [layout]]" (commas or blanks). 1 with *l set (*has_dtype,
 * *has_layout tell what the line named), 0 for a blank or # line, or
 * CV_EDATA saying which field is wrong. */
int cv_layer_parse(const char *line, struct cv_layer *l, int *has_dtype,
		   int *has_layout, struct cv_err *err);
/* The compact form the bench child is given (no name), and back. */
void cv_layer_encode(const struct cv_layer *l, char *buf, size_t n);
int cv_layer_decode(const char *s, struct cv_layer *l);

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
/* ---- modulefile.c: Lmod / Environment Modules files ------------------- */

enum cv_modfmt { CV_MODFMT_LUA, CV_MODFMT_TCL };
/* "lua" / "tcl"; CV_EUSAGE otherwise. */
int cv_modulefile_format_parse(const char *s, int *fmt, struct cv_err *err);
/* Append the module file of install `inst` of the store at `root`: the
 * variables cv_env_build sets (lists prepended, scalars pushed so unload
 * restores them), CUDNNVM_VERSION, and `conflict cudnn`. */
struct cv_buf;
int cv_modulefile_text(struct cv_buf *out, const struct cv_store *st,
		       const struct cv_installed *inst, int fmt,
		       struct cv_err *err);
/* The same from its parts: `env` as cv_env_build made it. Any value, id
 * or platform holding a character either language reads specially
 * (quotes, braces, brackets, $, backslash, control characters) or a name
 * that is not a variable's is refused with CV_EDATA, nothing appended
 * that could be read otherwise. */
int cv_modulefile_render(struct cv_buf *out, int fmt, const char *id, int cuda,
			 const char *platform, const struct cv_env *env,
			 struct cv_err *err);
/* Write <outdir>/cudnn/<id>[.lua] for each of list[0..n), a .version
 * naming default_id (NULL: none), and drop our files of other ids. A
 * folder or file cudnnvm did not write is refused (CV_ESTORE). */
int cv_modulefiles_write(const char *outdir, const struct cv_store *st,
			 const struct cv_installed *list, size_t n,
			 const char *default_id, int fmt, struct cv_err *err);
/* 1 with *fmt set when <outdir>/cudnn was written by cudnnvm, else 0. */
int cv_modulefiles_format_of(const char *outdir, int *fmt);
/* The same for every installed version of st, the global version the
 * default; *n gets how many. outdir NULL: <store>/modulefiles. */
int cv_modulefiles_write_store(const struct cv_store *st, const char *outdir,
			       int fmt, size_t *n, struct cv_err *err);
/* After an install or uninstall: rewrite <store>/modulefiles when cudnnvm
 * wrote it (in the format it has); 0 when there is nothing to do. */
int cv_modulefiles_refresh(const struct cv_store *st, struct cv_err *err);

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
int cv_sysmode_enable(struct cv_store *st, const char *id, struct cv_err *err);
/* 1 when our conf file names <store_root>/current/lib. */
int cv_sysmode_names(const char *store_root);
/* Write the ld.so.conf.d file for `id` as current (when it differs): the
 * store's current/lib and the folders of the dependencies `id` keeps in the
 * store, which follow it. */
int cv_sysmode_write_conf(const struct cv_store *st, const char *id,
			  struct cv_err *err);
/* CV_ESTORE unless every ELF file of `libdir` is a libcudnn by the SONAME
 * the loader cache would file it under (and no glibc-hwcaps/ is there). */
int cv_sysmode_check_libdir(const char *libdir, struct cv_err *err);
/* Rebuild the loader cache (ldconfig -X: no links made). */
int cv_sysmode_reload(struct cv_err *err);
/* As root: remove our conf file (absent: nothing to do) and run ldconfig. */
int cv_sysmode_disable(struct cv_err *err);

/* ---- import.c: adopt a hand-installed cuDNN -------------------------- */

struct cv_import_opts {
	const char *version;   /* --version: must agree with the files; may add
				  the 4th part (default 0) */
	int cuda;              /* --cuda; 0: from the folder's toolkit files,
				  the wheel's name, else the library itself */
	const char *probe_exe; /* the binary the probe child runs (NULL:
				  this one) */
};
/* Copy the cuDNN of `dir` (headers, libcudnn* with their symlink chains)
 * into the store under the id its header and library name give; records
 * the source and each file's sha256 in <id>/import.json. CV_ENOTFOUND for
 * no cuDNN, CV_EDATA for two majors, a broken or escaping symlink chain,
 * or headers and libraries that disagree. */
int cv_import(struct cv_store *st, const char *dir,
	      const struct cv_import_opts *o, char id[64], struct cv_err *err);

/* ---- mirror.c: an offline copy of the redist tree --------------------- */

struct cv_mirror_opts {
	int cuda;             /* only this CUDA major; 0: every variant */
	const char *platform; /* NULL: this machine's */
	/* told about each archive: "fetched", "present", "ok", "BAD",
	 * "retry", or "refused" with "<manifest>: <why>" for its path */
	void (*progress)(void *payload, const char *what, const char *path);
	void *payload;
};
/* Copy the manifests of the releases `specs` name and their archives
 * (verified) into `dir`, laid out as the mirror lays them out; archives
 * already there are kept. */
int cv_mirror_specs(struct cv_index *ix, const char *dir,
		    const struct cv_version *specs, size_t nspecs,
		    const struct cv_mirror_opts *o, struct cv_err *err);
struct cv_lock;
/* Copy exactly what a lock names into `dir`: its manifest (held to the
 * lock's sha256) and each platform's archive (held to the lock's sha256
 * and size, which must be the manifest's). */
int cv_mirror_lock(struct cv_remote *r, const char *dir,
		   const struct cv_lock *lk, const struct cv_mirror_opts *o,
		   struct cv_err *err);
/* Re-hash every archive the manifests in `dir` name; *bad counts those
 * whose size or sha256 differ. */
int cv_mirror_verify(const char *dir, const struct cv_mirror_opts *o,
		     size_t *bad, struct cv_err *err);
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
/* 1 when a framework of e states a cuDNN need or e holds its own copy. */
int cv_fw_env_uses_cudnn(const struct cv_fw_env *e);
/* 1 when the program execvp would run for cmd is a python of e's bin/
 * folder, or a script whose "#!" line names one (directly or through
 * env): a start that can import e's frameworks. */
int cv_fw_env_runs(const struct cv_fw_env *e, const char *cmd);
/* 1 when version v (4 parts and cuda) can be loaded by f. */
int cv_framework_fits(const struct cv_framework *f, const struct cv_version *v);
/* "cuDNN 9.x \u2265 9.19 built for CUDA 13" */
void cv_framework_need_text(const struct cv_framework *f, char *buf, size_t n);
/* The version of a build that fits, without its CUDA major (need.cuda):
 * "9.19" */
void cv_framework_install_spec(const struct cv_framework *f, char *buf,
			       size_t n);
/* The `cudnnvm install` arguments of a version that fits: "9.19 --cuda 13" */
void cv_framework_install_hint(const struct cv_framework *f, char *buf,
			       size_t n);

/* ---- test hook ---------------------------------------------------------- */

/* When CUDNNVM_TEST_CHECKPOINT equals `name`, create the file named by
 * CUDNNVM_TEST_CHECKPOINT_FILE (if set) and park the process in pause() so
 * a test can kill it there. Costs one getenv otherwise. */
void cv_checkpoint(const char *name);

/* ---- modules with a header of their own -------------------------------- */

#include "builds.h"
#include "child.h"
#include "fw_probe.h"
#include "gate.h"
#include "hook.h"
#include "local_archive.h"
#include "lock.h"
#include "preload.h"
#include "shim.h"
#include "uninstall.h"
#include "venv.h"

/* mantext.c: the man page's text for `help <command>` where man(1) is
 * absent. cv_man_command_text: 1 and CMD's entry of the page (xmalloc'd,
 * in *out) when no man is on PATH and the page that make install renders
 * (<datadir>/cudnnvm.1.txt, found from this executable's place) has it;
 * else 0. cv_path_has_program: 1 when an executable NAME is on PATH. */
int cv_man_command_text(const char *cmd, char **out);
int cv_path_has_program(const char *name);

#endif
