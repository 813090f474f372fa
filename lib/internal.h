/* internal.h: helpers shared by lib/ modules and unit tests; not public. */
#ifndef CUDNNVM_INTERNAL_H
#define CUDNNVM_INTERNAL_H

#include "cudnnvm.h"

#include <stdarg.h>
#include <sys/stat.h>
#include <sys/types.h>

/* xalloc.c: allocation that cannot fail (OOM aborts, as in git/tmux). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

/* buf.c: a growable, always NUL-terminated byte string (git strbuf). */
struct cv_buf {
	size_t alloc, len, max; /* max 0 = unbounded */
	char *buf;              /* never NULL after init */
};
#define CV_BUF_INIT                   \
	{                             \
		0, 0, 0, cv_buf_empty \
	}
extern char cv_buf_empty[];
/* Appends fail with CV_EDATA once max would be exceeded. */
int cv_buf_add(struct cv_buf *b, const void *data, size_t len);
int cv_buf_adds(struct cv_buf *b, const char *s);
int cv_buf_addf(struct cv_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cv_buf_reset(struct cv_buf *b);
char *cv_buf_detach(struct cv_buf *b);
/* The length of the well-formed UTF-8 sequence at s (1 for ASCII, the NUL
 * included), 0 when the bytes there are not UTF-8. */
size_t cv_utf8_seq(const unsigned char *s);
void cv_buf_release(struct cv_buf *b);

/* ldcache.c: call fn for every "soname => path" line of `ldconfig -p`
 * (nothing when ldconfig is missing or takes over 5 seconds). */
typedef void (*cv_ldcache_fn)(void *payload, const char *soname,
			      const char *path);
void cv_ldcache_each(cv_ldcache_fn fn, void *payload);

/* elf.c: the SONAME the ELF file open on fd declares, into out (n bytes,
 * NUL-terminated), read as ldconfig reads it. CV_ELF_SONAME when found;
 * CV_ELF_NO_SONAME for an ELF file without one (ldconfig takes its file
 * name); CV_ELF_NOT_ELF; CV_ELF_BAD for an ELF file this reader cannot
 * follow (another byte order, a name longer than n, a bad offset). */
enum { CV_ELF_SONAME, CV_ELF_NO_SONAME, CV_ELF_NOT_ELF, CV_ELF_BAD };
int cv_elf_soname(int fd, char *out, size_t n);
/* Call fn once for each DT_NEEDED name of the ELF file open on fd, in the
 * file's order, after every one of them was read: the number of names
 * (0 also for a file without a dynamic section), or -CV_ELF_NOT_ELF or
 * -CV_ELF_BAD (then fn was never called: more than CV_ELF_MAX_NEEDED, a
 * name of CV_ELF_NAME_MAX bytes or more, an empty one, a bad offset). */
#define CV_ELF_MAX_NEEDED 256
#define CV_ELF_NAME_MAX   256
typedef void (*cv_elf_name_fn)(void *payload, const char *name);
int cv_elf_needed(int fd, cv_elf_name_fn fn, void *payload);

/* url.c: mirror URLs. The URL without its "user:pass@" (xmalloc'd); the
 * "user:pass" alone (xmalloc'd, NULL when none); why `url` cannot be a
 * mirror (NULL when it can: https:// with a host, or file://). */
char *cv_url_redact(const char *url);
char *cv_url_userinfo(const char *url);
const char *cv_url_mirror_problem(const char *url);
/* url.c: whether two mirror URLs name one folder (a trailing '/' aside) */
int cv_url_same_mirror(const char *a, const char *b);

/* path.c */
/* index_cached.c: the next redistrib_<version>.json name of a mirror
 * listing at or after p: the version's text in buf and parsed in *ver (at
 * least major.minor); returns where to go on from, NULL when none is left.
 * index.c (a fetched listing) and the cached-listing reader share it. */
const char *cv_listing_next(const char *p, char buf[32],
			    struct cv_version *ver);

/* modulefile.c: a module's help text, %s the install id (the fuzz
 * oracle expects it too) */
#define CV_MODULE_HELP                                                      \
	"NVIDIA cuDNN %s from the cudnnvm store: sets LD_LIBRARY_PATH, "    \
	"CPATH, LIBRARY_PATH and CUDNN_HOME (and the other CUDNN_* paths) " \
	"for it, and CUDNNVM_VERSION, so cudnnvm's commands and its shell " \
	"hook agree. 'cudnnvm list' shows what is installed, 'cudnnvm "     \
	"validate' proves it loads.\n"

/* Join two path parts with one slash (xmalloc'd). */
char *cv_path_join(const char *a, const char *b);

/* fs.c: file-system helpers (cv_fs_mkdirs and cv_fs_write_atomic are
 * public, in cudnnvm.h). */
/* rm -rf of `name` under dirfd (AT_FDCWD ok), never following links. */
int cv_fs_rmtree_at(int dirfd, const char *name, struct cv_err *err);
int cv_fs_rmtree(const char *path, struct cv_err *err);
/* Take an exclusive flock on `path` (created 0644, O_CLOEXEC). Busy lock:
 * with nowait CV_ELOCKED, else call waiting(payload, what) once and block.
 * *fd gets the descriptor to pass to cv_fs_unlock. */
int cv_fs_lock(const char *path, int nowait,
	       void (*waiting)(void *payload, const char *what), void *payload,
	       const char *what, int *fd, struct cv_err *err);
/* Non-blocking try: 1 acquired, 0 busy, <0 error. */
int cv_fs_trylock(const char *path, int *fd, struct cv_err *err);
/* The same on `name` under the folder descriptor dirfd (never through a
 * link at name); `shown` is the path messages give. When it waits, `what`
 * passed to waiting() ends in " (held by pid N)" when the holder is known. */
int cv_fs_lock_at(int dirfd, const char *name, const char *shown, int nowait,
		  void (*waiting)(void *payload, const char *what),
		  void *payload, const char *what, int *fd, struct cv_err *err);
int cv_fs_trylock_at(int dirfd, const char *name, const char *shown, int *fd,
		     struct cv_err *err);
/* A shared flock (blocking): many holders at once, none while someone holds
 * it exclusively (a use that a collector's trylock must not break). */
int cv_fs_lock_shared_at(int dirfd, const char *name, const char *shown,
			 int *fd, struct cv_err *err);
/* The pid holding a flock on the file open at fd, 0 when unknown. */
long cv_fs_lock_holder(int fd);
/* Who besides this user and root could change what `sb` describes: 0
 * nobody; 'u' it belongs to another user; 'g' its group, 'o' every user
 * may write it (a sticky folder allowed with sticky_ok: others may add
 * names there, not replace ours). */
int cv_fs_foreign_writer(const struct stat *sb, int sticky_ok);
/* The folders above `path`, nearest first, up to and including /: for
 * each, check(folder, its stat, payload) with stat() (lstat() with
 * nofollow), or with sb NULL and errno set when that failed. The first
 * non-zero return ends the walk and is returned; 0 when all passed. Who
 * may change a folder decides what its children hold, so every trust
 * check walks up the same way. */
int cv_fs_walk_up(const char *path, int nofollow,
		  int (*check)(const char *dir, const struct stat *sb,
			       void *payload),
		  void *payload);
void cv_fs_unlock(int fd);

/* pipe.c: a bounded queue of buffers between two threads. The
 * producer takes a free buffer (cv_pipe_get: NULL once aborted), fills it
 * and cv_pipe_put's it, and finally cv_pipe_close's the pipe (err: why it
 * ended early, or NULL). The consumer's cv_pipe_take returns the next
 * buffer (valid until the next take), 0 at the end, <0 with err. */
/* extract_stream.c: a wheel unpacked while it is still being written to
 * `path` (the scheme is described there). start: <0 when its threads
 * cannot start; *out NULL: unpack it the usual way once it is whole. `grew`
 * tells how many bytes the file holds now; `finish` with whole = 1 (all bytes
 * in, hash checked) checks the result against the central directory, redoing it
 * from the directory where they differ; with whole = 0 it only stops the
 * threads. */
struct cv_zip_stream;
int cv_zip_stream_start(const char *path, const char *dest,
			const struct cv_extract_limits *lim, int threads,
			struct cv_zip_stream **out, struct cv_err *err);
void cv_zip_stream_grew(struct cv_zip_stream *z, uint64_t bytes);
int cv_zip_stream_finish(struct cv_zip_stream *z, int whole,
			 struct cv_err *err);

struct cv_pipe;
struct cv_pipe *cv_pipe_new(size_t nbufs, size_t bufsize);
void cv_pipe_free(struct cv_pipe *p);
size_t cv_pipe_bufsize(const struct cv_pipe *p);
char *cv_pipe_get(struct cv_pipe *p);
void cv_pipe_put(struct cv_pipe *p, char *b, size_t len);
void cv_pipe_unget(struct cv_pipe *p, char *b);
void cv_pipe_close(struct cv_pipe *p, const struct cv_err *err);
ssize_t cv_pipe_take(struct cv_pipe *p, const void **buf, struct cv_err *err);
/* cv_pipe_take as a cv_source read function (ctx: the pipe). */
ssize_t cv_pipe_read(void *pipe, const void **buf, struct cv_err *err);
/* Consumer gives up: the producer's next cv_pipe_get returns NULL. */
void cv_pipe_abort(struct cv_pipe *p);
/* A thread that reads `src` to its end into `pipe`, then closes it; <0
 * when the thread cannot start. */
struct cv_pump;
int cv_pump_start(struct cv_source *src, struct cv_pipe *pipe,
		  struct cv_pump **out, struct cv_err *err);
void cv_pump_join(struct cv_pump *pu);

/* store.c internals shared with install.c and link.c; the struct itself
 * stays private to store.c. */
/* O_DIRECTORY descriptor on the root, -1 when the store does not exist. */
int cv_store_dirfd(const struct cv_store *st);
/* link.c: the error for a `current` that is not a symbolic link, with the
 * hint that moves it out of the way. Returns CV_ESTORE. */
int cv_store_current_not_link(struct cv_err *err, const char *root);
/* 1 when opened for writing (created, checked, swept). */
int cv_store_writable(const struct cv_store *st);
/* Lock names: <root>/.locks/<name>.lock. */
int cv_store_lock(const struct cv_store *st, const char *name, int nowait,
		  void (*waiting)(void *, const char *), void *payload, int *fd,
		  struct cv_err *err);
/* A fresh staging folder <root>/.staging/<tag>.<pid>.<rand> (0755) owned
 * by this process (its lock held in *lockfd). *name: xmalloc'd base name. */
int cv_store_staging_new(struct cv_store *st, const char *tag, char **name,
			 int *lockfd, struct cv_err *err);
/* Delete a staging folder and release its lock. */
void cv_store_staging_drop(struct cv_store *st, const char *name, int lockfd);
/* Absolute path of staging folder `name` (xmalloc'd). */
char *cv_store_staging_path(const struct cv_store *st, const char *name);
/* Publish staging folder `name` as <root>/<id>: fsync each of its files
 * and folders, then one renameat2 under the store lock (replace: exchange
 * with the installed one, which is left in staging to be dropped), then
 * fsync the store folder. */
int cv_store_publish(struct cv_store *st, const char *name, const char *id,
		     int replace, struct cv_err *err);
/* Write <dir>/cudnnvm.json for `inst` (fsync'd). */
int cv_store_write_meta(const char *dir, const struct cv_installed *inst,
			struct cv_err *err);
/* Read and check <dir>/cudnnvm.json. */
int cv_store_read_meta(const char *dir, struct cv_installed *out,
		       struct cv_err *err);
/* Make <root>/deps (0755) for a dependency's publish. */
int cv_store_deps_mkdir(struct cv_store *st, struct cv_err *err);
/* The newest dependency folder deps/<component>-<M.*> of CUDA major M in
 * the writable store: 1 and *dep filled from its cudnnvm-dep.json, else 0. */
int cv_store_dep_find(const struct cv_store *st, const char *component,
		      int cuda, struct cv_dep *dep);
/* Write <dir>/cudnnvm-dep.json for a dependency folder about to be
 * published (its record, read back by cv_store_dep_find). */
int cv_store_dep_write_meta(const char *dir, const struct cv_dep *dep,
			    struct cv_err *err);
/* The lock a use of dependency (component, cuda) holds shared from the
 * moment it is chosen until the version that needs it is published, so
 * that cv_store_deps_collect (which takes it exclusively, never waiting)
 * cannot remove it in between. */
void cv_store_dep_lockname(const char *component, int cuda, char *out,
			   size_t n);
int cv_store_dep_lock_shared(const struct cv_store *st, const char *component,
			     int cuda, int *fd, struct cv_err *err);

/* remote.c: GET a small document (listing, manifest) into `out`, at most
 * `max` bytes, with the client's retries. */
struct cv_remote;
int cv_remote_get(struct cv_remote *r, const char *url, size_t max,
		  struct cv_buf *out, struct cv_err *err);
/* GET n small documents at once (libcurl's multi interface: bounded,
 * connections reused, HTTP/2 multiplexed where offered): outs[i] or
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
/* `ref` resolved against `base` as a browser would (libcurl's URL API);
 * xmalloc'd, NULL when either does not parse. */
char *cv_url_resolve(const char *base, const char *ref);
/* 1 unless [remote] verify_pins = no. */
int cv_remote_verify_pins(const struct cv_remote *r);
/* resolve.c: the releases a resolver passes over because the GPU has no
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
struct cv_index;
struct cv_remote *cv_index_remote(const struct cv_index *ix);

/* validate.c: find a CUDA library (libcublasLt.so.13) the way validation
 * does: library path, $CUDA_HOME, /usr/local/cuda*, system folders,
 * ld.so.cache. xmalloc'd path or NULL. */
char *cv_validate_find_lib(const char *soname);

/* cudnnConvolutionFwdAlgoPerf_t (48 bytes on LP64), which probe.c and
 * bench_probe.c read without any cuDNN header. */
struct cv_cudnn_fwd_perf {
	int algo, status;
	float time;
	size_t memory;
	int determinism, math_type, reserved[3];
};

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

/* probe.c: write one JSON object (taking its reference) as a line. */
struct json_t;
void cv_probe_emit(int fd, struct json_t *o);
/* bench_probe.c: inside the validation child once step 5 passed (its
 * CUDA context current): time a->layers, one JSON line each. 0 when the
 * layers ran (whatever their outcome). */
int cv_probe_bench(const struct cv_probe_args *a, void *cudnn, void *cuda,
		   int dev, int fd);

#endif
