/* install_int.h: what the files of the install wing (and their unit tests)
 * share; no other wing includes it. */
#ifndef CUDNNVM_INSTALL_INSTALL_INT_H
#define CUDNNVM_INSTALL_INSTALL_INT_H

#include "base/base.h"
#include "install/backend_int.h"
#include "install/install.h"
#include "release/release.h"
#include "store/store.h"

/* Where Debian builds no mingw copies of libarchive and libdeflate
 * (Windows), the install wing does without them: a zip is read by the
 * project's reader (extract_zip.c) and inflated by zlib alone. */
#ifdef _WIN32
#define CV_NO_LIBARCHIVE 1
#define CV_NO_LIBDEFLATE 1
#endif

#ifndef CV_NO_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

struct archive;
struct archive_entry;
struct cv_index;
struct cv_remote;
struct cv_sha256;
struct cv_store;
struct cv_zip_stream;
struct libdeflate_decompressor;

/* ---- cache.c: the download cache ------------------------------------ */

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
	/* Threads that decode a many-block xz stream (or inflate a zip's
	 * files); 0: auto (cv_xz_auto_threads, cv_inflate_threads). */
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

/* The threads a many-block xz stream is decoded on, [install] threads
 * being auto, on `cores` usable cores (extract_tar.c says why). */
unsigned cv_xz_auto_threads(unsigned cores);

/* The threads a zip's or a wheel's files are inflated on: `asked` ([install]
 * threads or --jobs), else (0, auto) the cores this process may run on (its
 * affinity mask, as a batch job's slot or taskset sets it), not every core
 * of the machine. A tar.xz's decoder is handed the setting as it is and
 * applies cv_xz_auto_threads. */
unsigned cv_inflate_threads(unsigned asked);

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

/* pins.c: sha256 of NVIDIA's published manifests. CV_EDATA "possible
 * tampering" when `name` is pinned and the bytes hash differently. */
int cv_pins_check(const char *name, const char *data, size_t len,
		  struct cv_err *err);

/* The pinned hash of a manifest name, or NULL. */
const char *cv_pins_lookup(const char *name);

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

int cv_index_read(struct cv_index *ix, size_t i, cv_manifest_parse_fn parse,
		  void *arg, struct cv_err *err);

int cv_resolve(struct cv_index *ix, const struct cv_resolve_req *req,
	       struct cv_resolved *out, struct cv_err *err);

/* ---- deps_install.c: cuDNN's own dependencies into the store ----------- */

/* What req->version needs for req->platform on the CUDA redist tree, as
 * cv_deps_ensure would download it there (nothing found on this machine
 * or in the store counts, nothing is downloaded): for a lock. */
int cv_deps_resolve(const struct cv_deps_req *req,
		    struct cv_dep_file out[CV_MAX_DEPS], int *n,
		    struct cv_err *err);

/* ---- cublas_channel.c: cuBLAS's own channel, before the CUDA tree ------ */

/* The channel's client in *rem (made once), and with `listing` its
 * listing in *ix: 0; 1 when the channel is not to be had (told to
 * req->fallback: the CUDA tree answers); <0 on an error. Without
 * `listing` (a lock names the archive) a channel that cannot be derived
 * is an error. */
int cv_cublas_open(const struct cv_deps_req *req, int listing,
		   struct cv_remote **rem, struct cv_index **ix,
		   struct cv_err *err);

/* The CUDA tree answers for cuBLAS instead: `why` told to req->fallback
 * in one line; returns 1. */
int cv_cublas_fall_back(const struct cv_deps_req *req,
			const struct cv_err *why);

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

/* Parse one project page (JSON or HTML) of `page_url`: the wheels it
 * lists for `platform` (NULL: all Linux ones), unsorted. */
int cv_pypi_parse(const char *page_url, const char *data, size_t len, int cuda,
		  const char *platform, struct cv_wheel **out, size_t *n,
		  struct cv_err *err);

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

/* extract_stream.c: a wheel unpacked while it is still being written to
 * `path` (the scheme is described there). start: <0 when its threads
 * cannot start; *out NULL: unpack it the usual way once it is whole. `grew`
 * tells how many bytes the file holds now; `finish` with whole = 1 (all bytes
 * in, hash checked) checks the result against the central directory, redoing it
 * from the directory where they differ; with whole = 0 it only stops the
 * threads. */
int cv_zip_stream_start(const char *path, const char *dest,
			const struct cv_extract_limits *lim, int threads,
			struct cv_zip_stream **out, struct cv_err *err);

void cv_zip_stream_grew(struct cv_zip_stream *z, uint64_t bytes);

int cv_zip_stream_finish(struct cv_zip_stream *z, int whole,
			 struct cv_err *err);

/* remote.c: GET a small document (listing, manifest) into `out`, at most
 * `max` bytes, with the client's retries. */
int cv_remote_get(struct cv_remote *r, const char *url, size_t max,
		  struct cv_buf *out, struct cv_err *err);

/* GET n small documents at once (cv_transport_get_many: libcurl's multi
 * interface, bounded, connections reused, HTTP/2 multiplexed where
 * offered): outs[i] or
 * errs[i] for each. Returns CV_EINTR when interrupted, else 0 or the code
 * of one failure. */
int cv_remote_get_many(struct cv_remote *r, char *const *urls, size_t n,
		       size_t max, struct cv_buf *outs, struct cv_err *errs);

/* cv_remote_get with an Accept header (a simple index's PEP 691 JSON). */
int cv_remote_get_accept(struct cv_remote *r, const char *url,
			 const char *accept, size_t max, struct cv_buf *out,
			 struct cv_err *err);

/* The size of `url` from a HEAD request; CV_EDATA when it gives none. */
int cv_remote_size(struct cv_remote *r, const char *url, uint64_t *size,
		   struct cv_err *err);

/* cv_url_resolve: backend_int.h */

/* 1 unless [remote] verify_pins = no. */
int cv_remote_verify_pins(const struct cv_remote *r);

/* rank.c: the releases a resolver passes over because the GPU has no
 * code in them (cv_machine_arch_fits), for the mirror's and the index's
 * resolvers alike: the newest and oldest of them, and why the oldest. */
struct cv_passed_over {
	int any_gpu; /* --force: nothing is passed over */
	char newest[48], oldest[48], why[256];
};

/* 1 when release v (named label, NULL: v written out) is passed over and
 * noted in p, 0 when it may be taken. */
int cv_passed_over(struct cv_passed_over *p, const struct cv_version *v,
		   const char *label);

/* One warning line, once `taken` was chosen, naming those passed over. */
void cv_passed_over_warn(const struct cv_passed_over *p, const char *taken);

/* The refusal when every release the spec matches was passed over:
 * CV_ERROR (exit 1), before any download; the caller adds the hint. */
int cv_passed_over_refuse(const struct cv_passed_over *p, struct cv_err *err);

/* index.c: the client an index reads with. */
struct cv_remote *cv_index_remote(const struct cv_index *ix);

/* ---- rank.c: the one walk of both resolvers and both listers ----------
 * A source (NVIDIA's listing, a wheel index) offers its releases newest
 * first, one at a time; the walk holds each to the spec, the GPU and the
 * CUDA major wanted, and picks or lists the builds. */

#define CV_RANK_MAX_CUDA 8

/* One release a source offers and its builds for the platform. */
struct cv_candidate {
	size_t at;                 /* the source's own index of it */
	struct cv_version version; /* what the spec is held to */
	const char *label;         /* its name in notes; NULL: version */
	const char *has;           /* the builds it has, for an error */
	int ncuda;                 /* its builds, newest major first */
	int cuda[CV_RANK_MAX_CUDA];
	/* why a build cannot be installed, or NULL */
	const char *bad[CV_RANK_MAX_CUDA];
};

/* next() fills *c with the next release and returns 1, 0 after the last,
 * <0 with err; what c points to lives until the next call. */
struct cv_rank_source {
	int (*next)(void *arg, struct cv_candidate *c, struct cv_err *err);
	void *arg;
};

struct cv_rank_req {
	const struct cv_version *spec; /* NULL: every release */
	int cuda; /* the major wanted, 0: each release's newest */
	/* the major came from the machine: take the newest older one when
	 * no release has a build of it */
	int fallback;
	/* the source offers older majors only after every build of the
	 * wanted one (a wheel index: one project per major), so the first
	 * older build found is the one to take */
	int fallback_first;
	/* notes the releases this GPU has no code in and skips them; NULL
	 * (the listers): none is skipped */
	struct cv_passed_over *passed;
	int newest_only; /* cv_rank_each: the newest release with a build */
};

enum { CV_RANK_NONE = 0, CV_RANK_TAKEN = 1, CV_RANK_BAD = 2 };

struct cv_rank_pick {
	size_t at;     /* the release taken (TAKEN, BAD) */
	int cuda;      /* and its build's major */
	int fell_back; /* older than the major wanted */
	char bad[256]; /* BAD: why the wanted build cannot be installed */
	/* NONE: a release held to the spec and the GPU lacked the build;
	 * the first such, its label and the builds it has */
	int matched;
	size_t first_at;
	char first[48], first_has[128];
	size_t fallback_at; /* internal: the older build noted */
	int fallback_cuda;
};

/* The build to take: CV_RANK_TAKEN, CV_RANK_NONE (pick says why; the
 * caller words the error), CV_RANK_BAD (the wanted build of the newest
 * matching release is damaged), <0 from the source. */
int cv_rank_best(const struct cv_rank_source *src,
		 const struct cv_rank_req *req, struct cv_rank_pick *pick,
		 struct cv_err *err);

/* Each build of each matching release (of major req->cuda, 0: all) that
 * can be installed, newest first: visit() nonzero stops (*stopped set).
 * How many were visited, <0 from the source. */
int cv_rank_each(const struct cv_rank_source *src,
		 const struct cv_rank_req *req,
		 int (*visit)(void *arg, const struct cv_candidate *c, int k),
		 void *arg, int *stopped, struct cv_err *err);

/* resolve.c: the mirror's releases as the walk's source, newest first,
 * each manifest read when the walk reaches it (one whose listing name
 * cannot match the spec is never fetched). With skipped set (a lister),
 * a manifest that cannot be read is handed to it and passed (Ctrl-C
 * still stops the walk). w->m is the release last given. */
struct cv_mirror_walk {
	struct cv_index *ix;
	const struct cv_version *spec;
	const char *platform;
	void (*skipped)(void *arg, const struct cv_err *err);
	void *skipped_arg;
	size_t i;
	struct cv_manifest m;
	int loaded;
	char has[128];
};

void cv_mirror_walk_init(struct cv_mirror_walk *w, struct cv_index *ix,
			 const struct cv_version *spec, const char *platform);

int cv_mirror_walk_next(void *arg, struct cv_candidate *c, struct cv_err *err);

void cv_mirror_walk_release(struct cv_mirror_walk *w);

/* pypi.c: a list of wheels (cv_pypi_list) as the walk's source, each
 * wheel one release with one build; with `older` set, the lists of the
 * older majors follow it, each fetched when reached (one the index
 * cannot give is passed). w->w[c->at] is the wheel last given. */
struct cv_wheel_walk {
	struct cv_wheel *w; /* the list walked now */
	size_t n, i;
	struct cv_remote *r; /* for the older lists */
	const char *index, *platform;
	int older; /* the next older major to fetch, 0: none */
	int own;   /* w is an older list, freed by the walk */
};

int cv_wheel_walk_next(void *arg, struct cv_candidate *c, struct cv_err *err);

/* artifact.c: the checks cv_artifact_init makes, for an artifact filled
 * by hand; id gets the install id. */
int cv_artifact_check(const struct cv_artifact *art, char id[64],
		      struct cv_err *err);

/* 1 once cv_remote_interrupt() ran (Ctrl-C). */
int cv_remote_interrupted(void);

int cv_remote_retries(const struct cv_remote *r);

/* The transport request of one transfer of `url` from r: the URL (with
 * the mirror's credentials when it is on the mirror's host), TLS, proxy,
 * timeout, file:// for a file:// mirror, and a stop on Ctrl-C or once
 * *abort is set (NULL: none); released by cv_http_request_release. */
void cv_http_request(const struct cv_remote *r, struct cv_transport_req *q,
		     const char *url, atomic_int *abort);
void cv_http_request_release(struct cv_transport_req *q);

/* Sleep 250 ms << attempt (at most 4 s); 1 when interrupted or *abort. */
int cv_http_backoff(int attempt, atomic_int *abort);

/* One clear line for a failed transfer; returns its code. */
int cv_http_error(const struct cv_remote *r,
		  const struct cv_transport_resp *resp, const char *url,
		  struct cv_err *err);

#define EXTRACT_MAX_ENTRIES 100000

#define EXTRACT_MAX_TOTAL (16ULL << 30)

#define EXTRACT_MAX_PATH 1024

#define EXTRACT_MAX_DEPTH 32

/* Start writing a file back to disk every WRITEBACK_STEP bytes of it and
 * once it is finished, so that the sync before publishing waits for little
 * more than the last few MiB. */
#define WRITEBACK_STEP (32 << 20)

/* The names written so far, to refuse duplicates. */
struct nameset {
	char **slot;
	size_t cap, n;
};

/* A cv_source that libarchive reads; its own error is kept, so that it
 * is reported as it was rather than as libarchive's EIO. */
struct feed {
	struct cv_source *src;
	struct cv_err err;
	int failed;
};

/* The raw archive bytes, with the first block read ahead to tell the
 * format; `nread` counts every byte taken from the source (read on the
 * decompressing thread, checked on the writing one). */
struct peek {
	struct cv_source *inner;
	const void *buf;
	ssize_t len;
	int used;
	atomic_uint_fast64_t nread;
};

/* One extraction's policy state: limits, the top folder, the names seen,
 * the bytes allowed, and where its error goes. */
struct ectx {
	struct feed in;
	struct peek *raw;
	struct archive *ar, *aw;
	struct cv_extract_limits lim;
	char top[256];
	int have_top;
	int zip;
	int pipeline; /* a decompressing thread feeds x.in */
	uint64_t entries, total;
	struct nameset names;
	struct cv_err *err;
};

/* One entry of a zip file, as the central directory (or, while a wheel
 * streams in, its local header) says. */
struct zip_job {
	char *rel; /* the name to write, NULL: skipped */
	int64_t size;
	int64_t data; /* where its bytes start in the file */
	int64_t hdr;  /* where its local header starts; -1: not known */
	char *name;   /* streamed: the name in that header */
	int dir;
	int thread;
	/* from the local header, for libdeflate (extract_zip_locate) */
	int inflatable;
	uint64_t csize; /* the deflated bytes at `data` */
	uint32_t crc;   /* the CRC-32 of the inflated ones */
};

/* extract_zip.c: the project's zip reader, which needs no libarchive
 * (the only one on Windows): the central directory's entries, in the
 * order of their local headers, each checked against its local header. */
struct zip_listed {
	char *name;
	int type; /* XE_FILE, XE_DIR, XE_LINK (a Unix link or a reparse
		   * point) or XE_OTHER (a device, FIFO or socket) */
	uint64_t size, csize;
	uint32_t crc, method, flags;
	int64_t data; /* where its bytes start */
};
int extract_zip_list(int fd, struct zip_listed **out, size_t *n,
		     struct cv_err *err);
void extract_zip_list_free(struct zip_listed *v, size_t n);
/* cv_extract_zip_file with the project's reader (on Linux too, for its
 * tests). */
int cv_extract_zip_file_own(const char *path, const char *dest,
			    const struct cv_extract_limits *limits, int threads,
			    struct cv_err *err);

/* extract_policy.c */
void extract_ctx_init(struct ectx *x, struct peek *raw,
		      const struct cv_extract_limits *limits,
		      struct cv_err *err);

void extract_ctx_release(struct ectx *x);

/* Where the engines write: the working folder becomes dest (entry names
 * are relative to it) and the umask 022, the way back kept in *back. */
struct extract_place {
	int oldcwd;
	mode_t oldmask;
};

int extract_enter(const char *dest, struct extract_place *back,
		  struct cv_err *err);

/* Back to where extract_enter was called; r, or the error of the way
 * back when r is 0. */
int extract_leave(struct extract_place *back, int r, struct cv_err *err);

/* One entry as the policy sees it, whoever read it (libarchive, or the
 * zip reader of extract_zip.c where there is no libarchive). */
enum { XE_OTHER, XE_FILE, XE_DIR, XE_LINK };
struct xentry {
	const char *name;
	int type;             /* XE_* */
	int64_t size;         /* -1: not known */
	const char *symlink;  /* XE_LINK: its target */
	const char *hardlink; /* not NULL: a hard link */
};

/* 0: write the entry as *rel (malloc'd), 1: skip it, <0: refuse the
 * archive with x->err set. */
int extract_policy_entry(struct ectx *x, const struct xentry *e, char **rel);

/* extract_tar.c: extract_policy_entry for a libarchive entry, its pathname
 * rewritten and its owner and modes normalised when it is to be written. */
int extract_policy(struct ectx *x, struct archive_entry *e);

int extract_reject(struct ectx *x, const char *name, const char *why);

uint64_t extract_bytes_allowed(const struct ectx *x);

void extract_safe_name(const char *s, char *out, size_t n);

int extract_feed_error(struct archive *a, const struct feed *f,
		       struct cv_err *err);

void extract_writeback(int dirfd, const char *rel);

/* Add lib64 -> lib where the layout wants it, then walk the finished tree:
 * every link must resolve inside it, only files, folders and links, modes
 * 0644 and 0755. */
int extract_check_tree(const char *dest, struct cv_err *err);

/* A message for a failed pthread_create's return value. */
int extract_thread_error(int rc, struct cv_err *err);

/* extract_zip.c: unpack the zip `path` into `dest` (the cwd is not
 * changed for the caller) from its central directory; see there for
 * `streamed` and `whole`. */
int extract_zip_unpack(const char *path, const char *dest,
		       const struct cv_extract_limits *limits, int threads,
		       const struct zip_job *streamed, size_t nstreamed,
		       int whole, struct cv_err *err);

void extract_jobs_free(struct zip_job *jobs, size_t n);

/* Read the local header at `hdr` of the zip open at `fd`: where the entry
 * after it starts (*next; -1 when the header cannot tell), and, when it
 * agrees with `j` (its data at j->data, j->size bytes inflated, the name
 * j->name unless that is NULL) and
 * libdeflate can take it (deflated, not encrypted, sizes in the header),
 * j->inflatable, j->csize and j->crc. <0: no local header there. */
int extract_zip_locate(int fd, int64_t hdr, struct zip_job *j, int64_t *next);

/* While a wheel streams in, the bytes of the file are waited for and the
 * bytes written counted against the stream's caps: `wait` returns once
 * the file holds `end` bytes (0) or the stream gives up (-1); `wrote`
 * counts `n` more bytes about to be written (-1: over the caps). */
struct inflate_feed {
	int (*wait)(void *ud, uint64_t end);
	int (*wrote)(void *ud, uint64_t n);
	void *ud;
};
/* Inflate entry `j` of the zip open at `fd` into the new, empty file
 * `outfd` in bounded chunks (zlib), or in one call of libdeflate `d` when
 * it is small (d may be NULL), checking its size, where its deflate
 * stream ends and its CRC-32. `feed` NULL: the whole file is there.
 * 0: done; <0: err set, naming `rel`. */
int extract_inflate(struct libdeflate_decompressor *d, int fd,
		    const struct zip_job *j, int outfd, const char *rel,
		    const struct inflate_feed *feed, struct cv_err *err);

/* resolve.c: what both resolvers (NVIDIA's mirror, a package index) do
 * first: the spec without its CUDA part, the CUDA major this machine
 * wants (how: where it came from), the platform, and the record of
 * releases passed over for the GPU. 0 or <0 with err. */
int cv_resolve_begin(const struct cv_resolve_req *req, struct cv_version *spec,
		     int *cuda, char *how, size_t howlen, char platform[32],
		     struct cv_passed_over *passed, struct cv_err *err);

/* download.c, side by side: start the transfer of d now, before anything
 * reads it (the install's other archives download while one unpacks); the
 * bytes go to the cache partial, which the fetcher's reader then follows
 * as it grows. Nothing to do (0) for a verified archive in the cache, a
 * complete partial, or a transfer started already. */
int cv_download_prefetch(struct cv_download *d, struct cv_err *err);
/* Downloads side by side counted as one, for one progress display: the
 * bytes received by its members (and by members dropped, before they are
 * freed) against the sum of their sizes. received's argument is the
 * group, untyped to fit a progress display's poll. */
struct cv_download_group *cv_download_group_new(void);
void cv_download_group_add(struct cv_download_group *g, struct cv_download *d);
void cv_download_group_drop(struct cv_download_group *g, struct cv_download *d);
uint64_t cv_download_group_received(void *g);
uint64_t cv_download_group_total(struct cv_download_group *g);
void cv_download_group_free(struct cv_download_group *g);

#endif
