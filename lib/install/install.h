/* install.h: the face of the install wing, what only the helper runs: the
 * network, hashing, the sources (NVIDIA's mirror, a package index),
 * extraction, import, mirror and lock filling. Only what cmd/ and the wings
 * above call; the rest is in install_int.h. */
#ifndef CUDNNVM_INSTALL_INSTALL_H
#define CUDNNVM_INSTALL_INSTALL_H

#include "base/base.h"
#include "release/release.h"
#include "store/store.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cv_download;
struct cv_ctr_view;
struct cv_download_group;
/* index.c: the mirror's releases (redistrib_<version>.json names) */
struct cv_index;
struct cv_remote; /* remote.c: the HTTPS client (libcurl) */
struct cv_store;

/* ---- config.c: INI files with inih (see doc/SPEC.md) ------------------- */

/* The simple index for source = pypi: `flag` (--mirror) or [remote] index.
 * There is no built-in one: a site names its PyPI mirror or proxy, or the
 * public index's /simple/ URL. CV_ECONFIG when neither is set. */
int cv_pypi_index(const struct cv_config *cfg, const char *flag,
		  const char **out, struct cv_err *err);

/* ---- cache.c: the download cache ------------------------------------ */

/* Install `art` into the store in one pass: bytes from the fetcher are
 * hashed and extracted together into .staging; the version is published by
 * one rename only when size and sha256 match. *already is set to 1 when it
 * was installed before (nothing fetched). */
int cv_store_install(struct cv_store *st, const struct cv_artifact *art,
		     const struct cv_fetcher *fetch,
		     const struct cv_install_opts *opts, int *already,
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

/* 1 when s is exactly 64 hex digits (either case). */
int cv_sha256_valid_hex(const char *s);

/* ---- manifest.c / remote.c / resolve.c: NVIDIA's mirror ---------------- */

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

/* 1 when the bytes came (partly) from a cached partial or archive. */
int cv_download_used_cache(const struct cv_download *d);

/* Bytes of the archive received so far (from any thread; `d` is a struct
 * cv_download, untyped so that it fits ui_progress_watch's poll). */
uint64_t cv_download_received(void *d);

/* Delete the cached bytes of this artifact (before a clean retry). */
void cv_download_discard(struct cv_download *d);

void cv_download_free(struct cv_download *d);

/* Read the listing (cached for a day in cache_dir, or refreshed). */
int cv_index_open(struct cv_index **out, struct cv_remote *r,
		  const char *cache_dir, int refresh, struct cv_err *err);

void cv_index_free(struct cv_index *ix);

/* resolve.c: a spec -> one archive of one release. */
struct cv_resolve_req {
	const struct cv_version *spec; /* NULL: newest */
	int cuda;                      /* --cuda / config; 0 = auto */
	const char *platform;          /* --platform / config; NULL = auto */
	int any_gpu; /* --force: take a release the GPU has no code for */
};

/* cv_resolve, and on a miss against a cached listing, once more after
 * cv_index_reread (which may replace *ix). */
int cv_resolve_fresh(struct cv_index **ix, const struct cv_resolve_req *req,
		     struct cv_resolved *out, struct cv_err *err);

void cv_resolved_release(struct cv_resolved *res);

/* ---- deps_install.c: cuDNN's own dependencies into the store ----------- */

/* One dependency archive chosen on its channel (the CUDA redist tree, or
 * cuBLAS's own): component, version, path relative to that tree, sha256,
 * size and the channel (what a lock records). */
struct cv_dep_file {
	char name[32];
	char version[32];
	char url[512];
	char sha256[65];
	uint64_t size;
	char channel[8]; /* CV_CHANNEL_CUDA or CV_CHANNEL_CUBLAS */
	/* the tree's manifest it was chosen from (redistrib_12.8.1.json);
	 * "" when a lock named it */
	char manifest[64];
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
	/* deps_install.c: the cuDNN archive's download, started
	 * (cv_download_prefetch) beside the dependencies' when any is
	 * downloaded; NULL: none */
	struct cv_download *beside;
	/* not NULL: every download started joins it (beside too), and
	 * `downloading` is called once they all run, for one display */
	struct cv_download_group *group;
	void (*downloading)(void *payload, struct cv_download_group *g);
	/* not NULL: told, in one line, why cuBLAS comes from the CUDA tree
	 * rather than its own channel (missing, or no release that fits) */
	void (*fallback)(void *payload, const char *why);
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

/* What installing req->version on req->platform would download beside
 * it (list-remote --deps): each dependency neither the store holds nor,
 * under deps = auto, this machine has, as chosen on its channel (cuBLAS's
 * own first, then the CUDA tree). Nothing is downloaded. */
int cv_deps_preview(const struct cv_deps_req *req,
		    struct cv_dep_file out[CV_MAX_DEPS], int *n,
		    struct cv_err *err);

/* ---- pypi.c: NVIDIA's cuDNN wheels on a Python package index ----------- */

/* A spec -> the newest matching wheel, as an artifact to install (its size
 * asked of the server when the index does not give it). */
int cv_pypi_resolve(struct cv_remote *r, const char *index,
		    const struct cv_resolve_req *req, struct cv_resolved *out,
		    struct cv_err *err);

/* Version, CUDA major and platform from a wheel's file name
 * (nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl), with
 * art->wheel set; -1 for any other name. */
int cv_wheel_from_filename(struct cv_artifact *art, const char *filename);

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

/* Copy exactly what a lock names into `dir`: its manifest (held to the
 * lock's sha256) and each platform's archive (held to the lock's sha256
 * and size, which must be the manifest's). */
int cv_mirror_lock(struct cv_remote *r, const char *dir,
		   const struct cv_lock *lk, const struct cv_mirror_opts *o,
		   struct cv_err *err);

/* Copy the dependency archives (cuBLAS, nvrtc) the lock names, each held
 * to the lock's sha256 and size, from its channel (cv_deps_cuda_mirror,
 * cv_deps_cublas_mirror of cfg and `cudnn_mirror`) to the same tree beside
 * `dir` (.../cudnn/redist -> .../cuda/redist, .../cublas/redist), so that
 * `install --frozen` from the copy gets them too. CV_EUSAGE before
 * anything is copied when dir names no cudnn/redist folder. */
int cv_mirror_lock_deps(const struct cv_config *cfg, const char *cudnn_mirror,
			const char *dir, const struct cv_lock *lk,
			const struct cv_mirror_opts *o, struct cv_err *err);

/* With `dir` ending in cudnn/redist: beside it, what installing each build
 * of `specs` that cv_mirror_specs copied would download with it (the
 * dependencies as cv_deps_resolve chooses them: cuBLAS from its channel,
 * else the CUDA tree; nvrtc from the tree), each tree's manifest byte for
 * byte and the archive, verified, at their paths; so that the copy serves
 * a plain `install` as the mirror does. Another dir: nothing (0). A tree
 * that cannot be had is reported through o->progress ("skipped"). */
int cv_mirror_specs_deps(const struct cv_deps_req *tmpl, struct cv_index *ix,
			 const char *dir, const struct cv_version *specs,
			 size_t nspecs, const struct cv_mirror_opts *o,
			 struct cv_err *err);

/* Re-hash every archive the manifests in `dir` name; *bad counts those
 * whose size or sha256 differ. */
int cv_mirror_verify(const char *dir, const struct cv_mirror_opts *o,
		     size_t *bad, struct cv_err *err);

struct cv_build {
	char id[64];         /* 9.13.0.50-cuda12 */
	char version[48];    /* 9.13.0.50 */
	const char *release; /* the mirror's release label; NULL for a wheel */
	int cuda;
	const char *platform;
	uint64_t size; /* 0: not known */
	const char *sha256, *url;
	int installed; /* in st */
	int fits;      /* cv_machine_fits: 1, 0, or -1 when nothing is known */
	char fit_reason[512];
	int needs_arch; /* the compute capability (75: 7.5) the GPU lacks, 0 */
};

struct cv_builds_req {
	const struct cv_version *spec; /* NULL: every release */
	int cuda;                      /* 0: every CUDA major */
	const char *platform;
	int refresh; /* re-read the mirror's listing now */
	/* --mirror (cv_builds_nvidia) or --index (cv_builds_pypi); NULL:
	 * the configuration's */
	const char *from;
	/* each build, valid during the call; nonzero ends the walk */
	int (*build)(void *arg, const struct cv_build *b);
	/* a release whose manifest cannot be read (the walk goes on) */
	void (*skipped)(void *arg, const struct cv_err *why);
	void *arg;
};

/* The builds of NVIDIA's mirror ([remote] mirror) that match req. A spec
 * of no release of a cached listing re-reads it once (a release may be
 * published since); `latest` stops after the newest release with a build.
 * Returns how many builds were shown, or <0 with err. *bad gets the code
 * of a skipped manifest (CV_EDATA first), 0 when none was. */
int cv_builds_nvidia(const struct cv_config *cfg, const struct cv_store *st,
		     const struct cv_builds_req *req, int *bad,
		     struct cv_err *err);

/* The same for the wheels of the simple index ([remote] index). */
int cv_builds_pypi(const struct cv_config *cfg, const struct cv_store *st,
		   const struct cv_builds_req *req, struct cv_err *err);

/* The builds of `source` (enum cv_source_kind), through its row of the
 * install wing's backend table: cv_builds_nvidia, or cv_builds_pypi (with
 * *bad 0). */
int cv_builds(int source, const struct cv_config *cfg,
	      const struct cv_store *st, const struct cv_builds_req *req,
	      int *bad, struct cv_err *err);

/* The artifact of the file at `path` with `version` (4 parts and the CUDA
 * major) and `sha256`. `named` is what its name said (zeroed when it said
 * nothing); the platform is `platform`, else the name's, else windows for
 * a .zip and linux-x86_64 otherwise. Errors: the file is missing or a
 * folder, its path does not resolve, or what makes cv_artifact_init fail. */
int cv_local_archive(const char *path, const struct cv_version *version,
		     const char *platform, const struct cv_artifact *named,
		     const char *sha256, struct cv_artifact *art,
		     struct cv_err *err);

/* The published sha256 of the NVIDIA archive `file` (by its name:
 * platform, version, CUDA major) from a manifest an earlier list-remote or
 * install cached under <cache_dir>/manifests/: 1 with sha and the
 * manifest's path in from, 0 when none lists that file. */
int cv_manifest_cached_sha256(const char *cache_dir, const char *file,
			      char sha[65], char from[4096]);

/* ---- lock_resolve.c (helper only) --------------------------------------- */

/* Resolve req (this machine's platform) through cv_resolve_fresh, then
 * the same build for every platform of `platforms`, into *out, locking
 * `spec`. Each platform must have that build: CV_ENOTFOUND names the
 * one that lacks it. */
int cv_lock_resolve(struct cv_index **ix, const struct cv_resolve_req *req,
		    const struct cv_version *spec, const char *const *platforms,
		    size_t nplatforms, struct cv_lock *out, struct cv_err *err);

/* The download of the lock's `platform` entry from `mirror`, as cv_resolve
 * gives one. CV_ENOTFOUND (hint: lock --platform) when the lock has no
 * entry for it; CV_EDATA when the archive's name disagrees with the id. */
int cv_lock_artifact(const struct cv_lock *lk, const char *platform,
		     const char *mirror, struct cv_resolved *out,
		     struct cv_err *err);

/* Fill each platform's deps: the old lock's when it locked the same
 * build there, else what cv_deps_resolve chooses from the CUDA redist tree
 * with `tmpl` (st, cfg, mirror, mode; version and platform are set here).
 * Under deps = auto a platform it cannot resolve keeps none, and the
 * first such error goes to *skipped; under always it fails. */
int cv_lock_resolve_deps(struct cv_lock *lk, const struct cv_lock *old,
			 const struct cv_deps_req *tmpl, struct cv_err *skipped,
			 struct cv_err *err);

/* An entry's dependencies as install takes them (cv_deps_req.locked). */
void cv_lock_deps_files(const struct cv_lock_entry *e, struct cv_dep_file *out,
			int *n);

/* 1 when both locks name the same build with the same bytes on every
 * platform they share (and the same manifest); else 0, with the first
 * difference in why. */
int cv_lock_same_build(const struct cv_lock *a, const struct cv_lock *b,
		       char *why, size_t n);

/* ---- run.c: the install use case ---------------------------------------- */

/* What `install` is asked for: a spec on a source, a local archive, or the
 * build a lock names. */
enum cv_install_what {
	CV_INSTALL_SPEC = 1,
	CV_INSTALL_ARCHIVE,
	CV_INSTALL_LOCK
};
struct cv_install_request {
	int what;                   /* enum cv_install_what */
	const char *spec;           /* SPEC: as the user wrote it */
	const char *archive;        /* ARCHIVE: the file */
	const char *sha256;         /* ARCHIVE: NULL: from a cached manifest */
	const char *version;        /* ARCHIVE: overrides what its name says */
	const struct cv_lock *lock; /* LOCK: the lock, read */
	const char *lock_path;      /* LOCK: where it was read */
	int cuda;                   /* --cuda; 0: not given */
	const char *platform; /* NULL: the configuration's, or this machine */
	const char *mirror;   /* NVIDIA's redist mirror; NULL: configured */
	const char *index;    /* the package index; NULL: configured */
	int source;           /* enum cv_source_kind */
	int force, even_if_in_use, refresh, nowait, verbose;
	int locked, frozen; /* no spec: only the build the pin's lock names */
	int deps;           /* enum cv_deps_mode; -1: [install] deps */
	unsigned jobs;      /* 0: [install] threads */
	/* --layout easybuild --prefix DIR --accept-eula: then also the tree
	 * EESSI's host_injections takes (cv_easybuild_install) */
	const char *layout, *layout_prefix;
	int accept_eula;
	int keep; /* --keep: keep the verified archive in the cache */
};
struct cv_install_result {
	char id[64];
	int already; /* it was installed: nothing was fetched */
	/* already installed, and its dependencies were got and recorded now
	 * (asked for with deps auto or always) */
	int deps_added;
	struct cv_dep deps[CV_MAX_DEPS];
	int ndeps;
	/* the error is about the request itself (exit 64, with the usage) */
	int usage;
};
/* Install what req asks for into st: resolve it on its source (a row of
 * the backend table per source), get what it loads beside itself, then
 * download, verify and publish it in one pass, retrying a damaged cached
 * download once. 0 with res filled, or <0 with err. */
int cv_install_run(struct cv_store *st, const struct cv_config *cfg,
		   const struct cv_install_request *req, const struct cv_ui *ui,
		   struct cv_install_result *res, struct cv_err *err);
/* `install` with no spec, as pyenv, nvm and mise do: what the pin here
 * (CUDNNVM_VERSION or the nearest pin file, and the cudnnvm.lock beside
 * it) asks for. 1 when that version is installed already (res->id), 0
 * with pin filled for cv_install_run, <0 with err (res->usage). */
struct cv_install_pin {
	int what;             /* CV_INSTALL_SPEC or CV_INSTALL_LOCK */
	char spec[64];        /* SPEC: as the pin reads */
	char named_by[4096];  /* SPEC: the pin file, or CUDNNVM_VERSION */
	struct cv_lock lock;  /* LOCK */
	char lock_path[4096]; /* LOCK */
};
int cv_install_pinned(const struct cv_store *st,
		      const struct cv_install_request *req,
		      struct cv_install_pin *pin, struct cv_install_result *res,
		      struct cv_err *err);

/* ---- export_oci.c (helper only): an OCI image layout -------------------- */

struct cv_oci_result {
	char manifest[72]; /* sha256:<hex> of the image manifest */
	char layer[72];    /* of the compressed layer */
	char diff_id[72];  /* of the uncompressed layer */
	uint64_t layer_size;
	char ref[128]; /* the tag it is named by in index.json */
};
/* 1 when `s` is a reference name an OCI layout's index takes (the
 * grammar of org.opencontainers.image.ref.name's tag part). */
int cv_oci_ref_valid(const char *s);
/* Write the image of view v into the OCI image layout `dir` (made when
 * missing or empty; an existing layout keeps its other images, one of
 * the same `ref` replaced). Its one layer holds the version at
 * CV_CTR_ROOT/<id> and its dependency folders beside it, written in
 * sorted order with uid/gid 0, fixed times and a gzip header without a
 * time or name, so the same build gives the same digests anywhere. A
 * folder that is not empty and not an OCI layout is refused
 * (CV_EUSAGE). */
int cv_oci_export(const struct cv_ctr_view *v, const char *dir, const char *ref,
		  struct cv_oci_result *out, struct cv_err *err);

/* The build the pin's cudnnvm.lock locks (lock: its path), when it is
 * installed from exactly the bytes the lock names for its platform:
 * CV_ENOTFOUND (hint: install --frozen) when it is not installed,
 * CV_EDATA when other bytes are. */
int cv_oci_locked_id(const struct cv_store *st, char id[64], char lock[4096],
		     struct cv_err *err);

/* ---- easybuild.c (helper only): an EESSI host_injections tree ---------- */

/* Copy installed `id` (its folder, LICENSE included, without the store's
 * own cudnnvm.json) into <prefix>/software/cuDNN/<ver>/, <ver> being
 * <version>-CUDA-<major> as EasyBuild names it, with the easybuild/
 * folder EasyBuild leaves there: the easyconfig it amounts to (source,
 * sha256, accept_eula) and where it came from. EESSI's own module finds
 * it there. Made beside and renamed into place; an existing folder is
 * replaced only with force (CV_ERROR otherwise). *where gets the folder
 * (xmalloc'd). */
int cv_easybuild_install(const struct cv_store *st, const char *id,
			 const char *prefix, int force, char **where,
			 struct cv_err *err);

#endif
