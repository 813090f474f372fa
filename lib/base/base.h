/* base.h: the face of the base wing, what every wing stands on: errors as
 * values, memory, buffers, paths, files, locks and children, the version
 * grammar, URLs, shell quoting, the configuration and
 * the platform name. Only what cmd/ and the wings above call; the rest is in
 * base_int.h. */
#ifndef CUDNNVM_BASE_BASE_H
#define CUDNNVM_BASE_BASE_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

/* mingw's PATH_MAX is MAX_PATH (260): a store past it (which base's Win32
 * face reaches in the \\?\ form) would be cut in every PATH_MAX buffer;
 * Windows's paths go to 32767 UTF-16 units, Linux's buffers are 4096 */
#ifdef _WIN32
#include <limits.h>
#undef PATH_MAX
#define PATH_MAX 4096
#endif

struct cv_buf;
struct cv_pipe;
struct cv_pump;
struct cv_stat;
struct stat;

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

#define CV_ERR_MSGSIZE 1024

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
/* 1 when v is a dotted release of a library cuDNN loads (13.0.2.14):
 * digits, each dot between two of them, any number of parts. */
int cv_version_dotted(const char *v);

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
	/* [remote] cublas_mirror: cuBLAS's own channel; NULL: derived from
	 * mirror (cv_deps_cublas_mirror) */
	char *cublas_mirror;
	int deps; /* [install] deps: enum cv_deps_mode */
	/* where mirror and ca_file came from, for messages: "remote.mirror",
	 * "CUDNNVM_MIRROR", "--mirror", "SSL_CERT_FILE" ... (static text) */
	const char *mirror_from, *ca_from;
	/* verify_pins = mirror: the files' [remote] mirror, whose own
	 * manifests are taken as they are (NULL otherwise) */
	char *pins_mirror;
};

enum cv_keep { CV_KEEP_NO = 0, CV_KEEP_YES = 1, CV_KEEP_ALWAYS = 2 };

/* The most threads [install] threads and install --jobs take. */
#define CV_MAX_THREADS 1024

/* Where versions come from: NVIDIA's redist mirror or a Python index
 * serving NVIDIA's nvidia-cudnn-cuN wheels. */
enum cv_source_kind { CV_SOURCE_NVIDIA = 0, CV_SOURCE_PYPI = 1 };

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

/* "auto" / "always" / "never"; -1 otherwise. */
int cv_config_deps_mode(const char *s, int *out);

/* ---- cache.c: the download cache ------------------------------------ */

/* A pull source of archive bytes (a file, or a download in flight).
 * read() sets *buf and returns its length, 0 at the end, <0 on error. */
struct cv_source {
	ssize_t (*read)(void *ctx, const void **buf, struct cv_err *err);
	void *ctx;
};

/* ---- manifest.c / remote.c / resolve.c: NVIDIA's mirror ---------------- */

/* platform.c: what this machine is. */
/* 1 for a platform name NVIDIA publishes (linux-x86_64, linux-sbsa, ...). */
/* The cores this process may run on (its CPU affinity), at least 1. */
unsigned cv_usable_cores(void);

int cv_platform_valid(const char *p);

/* The machine's hardware name as the kernel gives it (x86_64, aarch64:
 * what Python's platform_machine compares against) into out; -1 when it
 * cannot be told. */
int cv_os_machine(char *out, size_t n);

/* linux-x86_64 / linux-sbsa / linux-aarch64 (Jetson); CV_ENOTFOUND else. */
int cv_platform_detect(char out[32], struct cv_err *err);

/* "host:port" of url, without its credentials (a file:// URL: its path),
 * for saying whom a command waits for; malloc'd. */
char *cv_url_host(const char *url);

/* ---- activation: link.c, activate.c, env.c, shell.c -------------------- */

/* s quoted for a POSIX shell ('...'), to paste into a printed command. */
char *cv_shell_quote_word(const char *s);

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

/* ---- test hook ---------------------------------------------------------- */

/* When CUDNNVM_TEST_CHECKPOINT equals `name`, create the file named by
 * CUDNNVM_TEST_CHECKPOINT_FILE (if set) and park the process in pause() so
 * a test can kill it there; with CUDNNVM_TEST_CHECKPOINT_RESUME naming a
 * FIFO, wait there instead until the test has written into it and closed
 * it, then go on. Costs one getenv otherwise. */
void cv_checkpoint(const char *name);

#define CV_CHILD_SEARCH_PATH 0x1 /* argv[0] without a slash: look in PATH */

#define CV_CHILD_STDIN_NULL 0x2 /* stdin from /dev/null */

#define CV_CHILD_STDERR_NULL 0x4 /* stderr to /dev/null (when not kept) */

struct cv_child {
	const char *const *argv; /* argv[0] is the program, unless path */
	const char *path;        /* NULL: argv[0] */
	char *const *envp;       /* NULL: this process's environment */
	unsigned flags;          /* CV_CHILD_* */
	unsigned timeout_s;      /* 0: none; else SIGKILL once it passes */
	/* stdout and stderr kept here (NULL: inherited). A buffer with a
	 * max that fills starts over, so it holds the tail. */
	struct cv_buf *out, *err;
	/* Or stdout handed over as it arrives: a nonzero return stops the
	 * reading there and the child is left to finish on its own (reaped
	 * when it is already gone). */
	int (*on_out)(void *arg, const char *data, size_t n);
	void *arg;
	/* Polled while waiting: once set, the child is killed (CV_EINTR). */
	volatile sig_atomic_t *stop;
	/* Set by cv_child_run. */
	int timed_out; /* killed because timeout_s passed */
	int signal;    /* the signal that ended it, 0 when it exited */
	int left;      /* on_out stopped the reading; not waited for */
};

#define CV_CHILD_INIT \
	{             \
		0     \
	}

/* This executable's path (PATH_MAX bytes), for a child that must be the
 * same cudnnvm; CV_ERROR when /proc/self/exe cannot be read. */
int cv_child_self(char *buf, struct cv_err *err);

/* Start c->argv and wait for it. Returns its exit status (0..255), 128+N
 * when signal N ended it (a timeout is 128+SIGKILL with timed_out set),
 * 0 when on_out stopped early; or a negative cv_code with err set when it
 * could not be started (its exec failing included), CV_EINTR on *stop. */
int cv_child_run(struct cv_child *c, struct cv_err *err);

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

extern char cv_buf_empty[];

#define CV_BUF_INIT                   \
	{                             \
		0, 0, 0, cv_buf_empty \
	}

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

/* url.c: mirror URLs. The URL without its "user:pass@" (xmalloc'd); the
 * "user:pass" alone (xmalloc'd, NULL when none); why `url` cannot be a
 * mirror (NULL when it can: https:// with a host, or file://). */
char *cv_url_redact(const char *url);

char *cv_url_userinfo(const char *url);

const char *cv_url_mirror_problem(const char *url);

/* Join two path parts with one separator, the platform's: '/', on Windows
 * '\\' (xmalloc'd). */
char *cv_path_join(const char *a, const char *b);

/* basename.c: path's last part, after '/' (and '\\' on Windows); path
 * itself when it has no separator */
const char *cv_path_base(const char *path);

/* path's last separator ('/', and '\\' on Windows: cv_path_join's there),
 * NULL when it has none */
const char *cv_path_last_sep(const char *path);

/* fs.c: file-system helpers (cv_fs_mkdirs and cv_fs_write_atomic are
 * public, in cudnnvm.h). */
/* rm -rf of `name` under dirfd (AT_FDCWD ok), never following links. */
int cv_fs_rmtree_at(int dirfd, const char *name, struct cv_err *err);

int cv_fs_rmtree(const char *path, struct cv_err *err);

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

/* Who besides this user and root could change what `sb` describes: 0
 * nobody; 'u' it belongs to another user; 'g' its group, 'o' every user
 * may write it (a sticky folder allowed with sticky_ok: others may add
 * names there, not replace ours). */
int cv_fs_foreign_writer(const struct cv_stat *sb, int sticky_ok);

/* The folders above `path`, nearest first, up to and including /: for
 * each, check(folder, its stat, payload) with stat() (lstat() with
 * nofollow), or with sb NULL and errno set when that failed. The first
 * non-zero return ends the walk and is returned; 0 when all passed. Who
 * may change a folder decides what its children hold, so every trust
 * check walks up the same way. */
int cv_fs_walk_up(const char *path, int nofollow,
		  int (*check)(const char *dir, const struct cv_stat *sb,
			       void *payload),
		  void *payload);

void cv_fs_unlock(int fd);

/* 1 when another process holds the flock of the existing lock file
 * `path` (it is looked at, never created or taken); 0 when nobody does,
 * or there is no such file. */
int cv_fs_lock_busy(const char *path);

/* pipe.c: a bounded queue of buffers between two threads. The
 * producer takes a free buffer (cv_pipe_get: NULL once aborted), fills it
 * and cv_pipe_put's it, and finally cv_pipe_close's the pipe (err: why it
 * ended early, or NULL). The consumer's cv_pipe_take returns the next
 * buffer (valid until the next take), 0 at the end, <0 with err. */
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
int cv_pump_start(struct cv_source *src, struct cv_pipe *pipe,
		  struct cv_pump **out, struct cv_err *err);

void cv_pump_join(struct cv_pump *pu);

/* interrupt.c: the first Ctrl-C calls first() (it must only set flags
 * that the work in flight polls); a second ends the process. */
void cv_interrupt_catch(void (*first)(void));

/* What a line for the user is. */
enum cv_say { CV_SAY_NOTE, CV_SAY_WARN, CV_SAY_ERROR, CV_SAY_HINT };
/* What the user sees while long work runs (an install, its downloads):
 * lib never prints, the front end fills this; any member may be NULL. */
struct cv_ui {
	void *payload;
	/* a line: CV_SAY_NOTE, CV_SAY_WARN, or a CV_SAY_HINT for the warning
	 * before it */
	void (*say)(void *payload, int kind, const char *text);
	/* a lock held by another process */
	void (*waiting)(void *payload, const char *what);
	/* the source's host is asked for its listing, and has answered */
	void (*wait_begin)(void *payload, const char *host);
	void (*wait_end)(void *payload);
	/* bytes of `file` are fetched (not from the cache) */
	void (*download)(void *payload, const char *file, uint64_t size);
	/* a bar for bytes that arrive: received(ctx) counts them (host: who
	 * is waited for when they stall; NULL: not said) */
	void (*watch)(void *payload, uint64_t (*received)(void *), void *ctx,
		      uint64_t total, const char *host);
	void (*progress)(void *payload, uint64_t done, uint64_t total);
	void (*progress_done)(void *payload);
	/* a size as the display writes it ("1.2 GiB"); NULL: bytes */
	void (*size)(char *out, size_t n, uint64_t bytes);
};

/* fs.c: whose project files may decide anything. 1 (and *uid) when the
 * file or folder `path` of dirfd (not followed) belongs to a user other
 * than this one and root. */
int cv_fs_foreign_at(int dirfd, const char *path, long *uid);
/* 1 when <dir>/<file> or the folder dir (of dirfd) is another user's: a
 * pin, lock or .venv to pass over; says so once (cv_warn), naming it as
 * `shown`. */
int cv_fs_project_foreign(int dirfd, const char *dir, const char *file,
			  const char *shown);
/* An exclusive flock on the folder `dir` itself (waits): what a
 * read-modify-write of a file there holds, as the file is replaced by a
 * rename and cannot carry the lock. cv_fs_unlock releases it. */
int cv_fs_lock_dir(const char *dir, int *fd, struct cv_err *err);

/* fs.c, streams and sorted walks (the OCI export, the EasyBuild tree):
 * a file written through a hidden temporary beside `path` and renamed
 * into place by commit (to `path` or another name in that folder, as a
 * blob named by its digest once it is known); abort removes it. */
struct cv_fs_stream;
int cv_fs_stream_open(const char *path, mode_t mode, struct cv_fs_stream **out,
		      struct cv_err *err);
int cv_fs_stream_write(struct cv_fs_stream *s, const void *data, size_t len,
		       struct cv_err *err);
int cv_fs_stream_commit(struct cv_fs_stream *s, const char *path,
			struct cv_err *err);
void cv_fs_stream_abort(struct cv_fs_stream *s);
/* Every entry under `root`, depth first, the names of each folder in
 * bytewise order, a folder before what it holds; lstat'd, never followed
 * through a link. `rel` is the path below root. A non-zero return of
 * visit ends the walk and is returned. */
typedef int (*cv_fs_visit_fn)(const char *rel, const char *full,
			      const struct cv_stat *sb, void *payload,
			      struct cv_err *err);
int cv_fs_walk_sorted(const char *root, cv_fs_visit_fn visit, void *payload,
		      struct cv_err *err);
/* The regular file at `path` (never through a link), 64 KiB at a time. */
int cv_fs_read_each(const char *path,
		    int (*chunk)(const void *data, size_t len, void *payload,
				 struct cv_err *err),
		    void *payload, struct cv_err *err);
/* The target of link `path` into buf (NUL-terminated). */
int cv_fs_readlink(const char *path, char *buf, size_t n, struct cv_err *err);
int cv_fs_symlink(const char *target, const char *path, struct cv_err *err);
int cv_fs_rename(const char *from, const char *to, struct cv_err *err);
/* Every file and folder under `dir` on disk (fsync'd, files before the
 * folders that name them, links not followed): what a writer does before
 * the rename that makes a tree visible. */
int cv_fs_sync_tree(const char *dir, struct cv_err *err);

/* ---- file_posix.c, dl_posix.c, proc_posix.c: the OS as the wings above
 * base see it. No POSIX type or constant crosses this face, so another
 * platform is one more set of these files. Unless said otherwise a call
 * returns 0 (or a handle, a length) on success and -1 with errno set on
 * failure, errno being what callers already tell ENOENT and EEXIST by.
 * Handles are ints; CV_AT_CWD as a folder handle means the working
 * folder. Every handle base opens is closed in children (close-on-exec). */
#define CV_AT_CWD (-100)

/* What a name is; CV_KIND_NONE where a listing does not say (stat it). */
enum cv_kind {
	CV_KIND_NONE = 0,
	CV_KIND_FILE,  /* a regular file */
	CV_KIND_DIR,   /* a folder */
	CV_KIND_LINK,  /* a symbolic link */
	CV_KIND_OTHER, /* a FIFO, socket or device */
};

/* What callers look at in a stat: identity (dev, ino) for same-file
 * checks, the owner for trust checks, permission bits, size, times. */
struct cv_stat {
	int kind;      /* enum cv_kind */
	unsigned perm; /* permission bits, 07777 */
	long uid;      /* the owner */
	uint64_t size; /* bytes */
	int64_t mtime; /* seconds since the epoch */
	long mtime_ns; /* and nanoseconds */
	int64_t atime; /* last access, seconds */
	uint64_t dev, ino;
};

/* Stat `name` of folder handle dir (CV_AT_CWD: a path), through a link at
 * the end or (nofollow) of the link itself. */
int cv_os_stat_at(int dir, const char *name, int nofollow, struct cv_stat *st);
/* cv_os_stat_at(CV_AT_CWD, path, 0/1, st): stat and lstat. */
int cv_os_stat(const char *path, struct cv_stat *st);
int cv_os_lstat(const char *path, struct cv_stat *st);
/* The file open at handle fd. */
int cv_os_fstat(int fd, struct cv_stat *st);
/* 1 when a and b are one file (same dev and ino). */
int cv_os_same_file(const struct cv_stat *a, const struct cv_stat *b);

/* Flags of cv_os_open: access (READ, WRITE or both), then how. */
#define CV_OPEN_READ     0x001
#define CV_OPEN_WRITE    0x002
#define CV_OPEN_CREATE   0x004 /* create when missing, with `mode` */
#define CV_OPEN_EXCL     0x008 /* with CREATE: fail (EEXIST) if it is there */
#define CV_OPEN_TRUNC    0x010 /* empty it */
#define CV_OPEN_APPEND   0x020 /* every write at the end */
#define CV_OPEN_NOFOLLOW 0x040 /* a link at the last part: fail (ELOOP) */
#define CV_OPEN_DIR      0x080 /* a folder, as a handle for the *_at calls */
#define CV_OPEN_NONBLOCK 0x100 /* a FIFO in its place cannot hang the open */
#define CV_OPEN_NOCTTY   0x200 /* a terminal does not become ours */
#define CV_OPEN_PATH     0x400 /* a handle to find names by, not to read */

/* Open `name` of folder handle dir: the handle, or -1 with errno. */
int cv_os_open_at(int dir, const char *name, unsigned flags, unsigned mode);
int cv_os_open(const char *path, unsigned flags, unsigned mode);
/* read(2)/write(2)/pread(2) on a handle: the bytes moved, 0 at the end,
 * -1 with errno (EINTR included: the caller decides whether to retry). */
long cv_os_read(int fd, void *buf, size_t n);
long cv_os_pread(int fd, void *buf, size_t n, uint64_t off);
long cv_os_write(int fd, const void *buf, size_t n);
long cv_os_pwrite(int fd, const void *buf, size_t n, uint64_t off);
/* All n bytes or -1 with errno (EINTR retried, a 0-byte write is EIO). */
int cv_os_write_all(int fd, const void *buf, size_t n);
/* Up to n-1 bytes of the whole file at fd from its current offset,
 * NUL-terminated: the bytes read or -1 with errno (EINTR retried). */
long cv_os_read_full(int fd, char *buf, size_t n);
int cv_os_close(int fd);
/* Flush the file's data and metadata to the disk (fsync). */
int cv_os_sync(int fd);
/* Start writing the file's dirty pages back without waiting (Linux
 * sync_file_range; a no-op where the platform has none). */
void cv_os_writeback(int fd, uint64_t off, uint64_t len);
/* A file's length and offset, for a download that starts its file over:
 * cv_os_truncate cuts (or extends with zeros) the file open at fd to len
 * bytes, leaving the offset alone (ftruncate); cv_os_seek puts the
 * offset at off bytes from the start (lseek SEEK_SET). 0 or -1 with
 * errno. */
int cv_os_truncate(int fd, uint64_t len);
int cv_os_seek(int fd, uint64_t off);

/* Remove the file (or, with dir, the empty folder) `name` of dir. */
int cv_os_remove_at(int dir, const char *name, int is_dir);
int cv_os_unlink(const char *path);
int cv_os_rmdir(const char *path);
int cv_os_mkdir_at(int dir, const char *name, unsigned mode);
int cv_os_mkdir(const char *path, unsigned mode);
/* Rename from (of fromdir) to to (of todir), replacing a file there. */
int cv_os_rename_at(int fromdir, const char *from, int todir, const char *to);
/* The same, but never replacing what is at `to` (EEXIST); ENOSYS/EINVAL
 * where the kernel or file system cannot do it atomically. */
int cv_os_rename_noreplace(int fromdir, const char *from, int todir,
			   const char *to);
/* Swap the two names atomically, both of which must exist (the same
 * ENOSYS/EINVAL where that cannot be done). */
int cv_os_rename_exchange(int fromdir, const char *from, int todir,
			  const char *to);
/* A symbolic link `name` (of dir) to target. */
int cv_os_symlink_at(const char *target, int dir, const char *name);
/* The target of link `name` of dir into buf, NUL-terminated: its length,
 * or -1 with errno (ENAMETOOLONG when it does not fit in n-1 bytes). */
long cv_os_readlink_at(int dir, const char *name, char *buf, size_t n);
long cv_os_readlink(const char *path, char *buf, size_t n);
/* Set the permission bits of `name` of dir (never through a link with
 * nofollow, where the platform can), or of the open fd. */
int cv_os_chmod_at(int dir, const char *name, unsigned perm, int nofollow);
int cv_os_fchmod(int fd, unsigned perm);
/* Set the access and change times of `name` of dir (the link itself with
 * nofollow), or of the open fd, both to *t (struct timespec, C11). */
int cv_os_set_times_at(int dir, const char *name, const struct timespec *t,
		       int nofollow);
int cv_os_fset_times(int fd, const struct timespec *t);
/* A new file of a unique name made from tmpl, whose last six characters
 * are XXXXXX (replaced), created 0600 without following a link: its
 * handle, or -1 with errno. */
int cv_os_mkstemp(char *tmpl);

/* What cv_os_access asks. */
#define CV_ACCESS_EXISTS 0
#define CV_ACCESS_READ   0x1
#define CV_ACCESS_WRITE  0x2
#define CV_ACCESS_EXEC   0x4
/* or'd in: judged by the effective ids (what a write will be judged by),
 * not the real ones; of a link at the last part itself */
#define CV_ACCESS_EFFECTIVE 0x10
#define CV_ACCESS_NOFOLLOW  0x20
/* 0 when this process (its real ids) may do `what` to path (or name of
 * dir), -1 with errno otherwise. */
int cv_os_access(const char *path, int what);
int cv_os_access_at(int dir, const char *name, int what);
/* The absolute path of path, links and dots resolved, into buf (n bytes):
 * buf, or NULL with errno. */
char *cv_os_realpath(const char *path, char *buf, size_t n);
/* The working folder (xmalloc'd), NULL with errno. */
char *cv_os_getcwd(void);
/* Make path, or the folder open at fd, the working folder. */
int cv_os_chdir(const char *path);
int cv_os_fchdir(int fd);
/* Set the mask of permission bits new files do not get: the old one. */
unsigned cv_os_umask(unsigned mask);
/* The paths matching the shell pattern, sorted, appended to out: how many
 * (0 when none or on an error). */
size_t cv_os_glob(const char *pattern, struct cv_strv *out);

/* A folder's names, "." and ".." left out, in the file system's order. */
struct cv_dir;
/* Open the folder path (following links), or name of dir (never through
 * a link at name with nofollow): NULL with errno. */
struct cv_dir *cv_dir_open(const char *path);
struct cv_dir *cv_dir_open_at(int dir, const char *name, int nofollow);
/* A listing of the folder handle fd, which it takes over (closed by
 * cv_dir_close; left open when this fails). */
struct cv_dir *cv_dir_adopt(int fd);
/* The next name (valid until the next call) and its kind into *kind
 * (may be NULL; CV_KIND_NONE when the file system does not say); NULL
 * at the end, errno left alone, or on an error, errno set (a caller that
 * tells them apart zeroes errno first). */
const char *cv_dir_next(struct cv_dir *d, int *kind);
/* The listing's folder handle, for the *_at calls on its names. */
int cv_dir_fd(const struct cv_dir *d);
/* Start again from the first name. */
void cv_dir_rewind(struct cv_dir *d);
void cv_dir_close(struct cv_dir *d);

/* Dynamic loading. cv_dl_open: the library at path (or a bare name the
 * loader searches), its symbols bound now; global: its symbols serve the
 * libraries loaded after it. NULL on failure, cv_dl_error then says why
 * (NULL when nothing failed since the last call). */
void *cv_dl_open(const char *path, int global);
void *cv_dl_sym(void *lib, const char *name);
const char *cv_dl_error(void);
void cv_dl_close(void *lib);
/* The file the loaded code at addr comes from, as the loader names it,
 * into buf: 0, or -1 when no loaded object holds addr. */
int cv_dl_file_of(const void *addr, char *buf, size_t n);
/* Each object loaded in this process (the main program's "" included),
 * its path to fn; a non-zero return stops the walk and is returned. */
int cv_dl_each_loaded(int (*fn)(const char *path, void *payload),
		      void *payload);

/* This process: its real and effective user, its id and its parent's. */
long cv_os_uid(void);
long cv_os_euid(void);
long cv_os_pid(void);
long cv_os_ppid(void);
/* Set the variable name of this process's environment to value (NULL:
 * remove it), as a child started after inherits it. */
int cv_os_setenv(const char *name, const char *value);
/* 1 when a process `pid` exists (ours or another user's), 0 when none
 * has that id. */
int cv_os_pid_alive(long pid);

/* What the ported base files (fs.c, child.c, interrupt.c, platform.c,
 * shell.c, mantext.c) ask of the OS. cv_os_lock: a lock on the open
 * handle fd, exclusive or shared, waiting for it unless CV_LOCK_NOWAIT
 * (then -1 with EWOULDBLOCK while another holds it); it goes with the
 * handle's close. Two handles contend even in one process: flock's open
 * file on POSIX, LockFileEx's handle on Win32 (a folder's lock there is
 * a mutex named by the folder, which the thread holding it takes again).
 * ENOLCK: the file system has no locks. */
#define CV_LOCK_EX     0x1
#define CV_LOCK_SH     0x2
#define CV_LOCK_NOWAIT 0x4
int cv_os_lock(int fd, unsigned how);
/* The pid holding a lock on the file open at fd, 0 when it cannot be
 * told (Linux's /proc/locks; Windows does not say). */
long cv_os_lock_holder(int fd);
/* The file name of process pid's program ("bash", "pwsh.exe") into buf:
 * 0, or -1 when it cannot be read. */
int cv_os_process_name(long pid, char *buf, size_t n);
/* This executable's path into buf (n bytes): 0 or -1 with errno. */
int cv_os_self(char *buf, size_t n);
/* The family NVIDIA's platform names start with: "linux" or "windows". */
const char *cv_os_family(void);
/* The separator of PATH's folders (':' or ';') and what a program's file
 * name ends with ("" or ".exe"). */
char cv_os_path_list_sep(void);
const char *cv_os_exe_suffix(void);
/* The cores this process may run on, at least 1. */
unsigned cv_os_cores(void);
/* Call fn at each interrupt from the terminal (SIGINT; Ctrl-C or
 * Ctrl-Break on a Windows console), outside the work it interrupts: a
 * signal handler, a thread of its own on Windows. fn returns 1 when it
 * took the interrupt, 0 for the default, which ends the process at once
 * as the interrupt would have (SIGINT's own death, exit 0xC000013A). */
void cv_os_on_interrupt(int (*fn)(void));
/* cudnnvm's folder of a kind (enum cv_os_place) where this platform keeps
 * it, xmalloc'd: from the environment where it names an absolute folder,
 * else (Windows) from the known folders of the system; NULL when neither
 * says. */
enum cv_os_place {
	CV_PLACE_USER_DATA,      /* $XDG_DATA_HOME/cudnnvm (~/.local/share),
				  * %LOCALAPPDATA%\cudnnvm */
	CV_PLACE_MACHINE_DATA,   /* /opt/cudnn, %ProgramData%\cudnnvm */
	CV_PLACE_USER_CACHE,     /* $XDG_CACHE_HOME/cudnnvm (~/.cache),
				  * %LOCALAPPDATA%\cudnnvm\cache */
	CV_PLACE_USER_CONFIG,    /* $XDG_CONFIG_HOME/cudnnvm (~/.config),
				  * %APPDATA%\cudnnvm */
	CV_PLACE_MACHINE_CONFIG, /* /etc/cudnnvm, %ProgramData%\cudnnvm */
};
char *cv_os_place(int place);
/* 1 when c parts a path's names here: '/', and on Windows '\\' too. */
int cv_os_is_sep(int c);
/* 1 when path is absolute here ("/x"; on Windows also "C:\x", "\\srv"). */
int cv_os_is_absolute(const char *path);

/* config.c: `cudnnvm config`, over the one table of keys the reader uses.
 * Keys are "section.name". verify_pins = mirror checks the built-in pins
 * everywhere except on the files' own [remote] mirror. */
enum cv_pins_mode { CV_PINS_NO = 0, CV_PINS_YES = 1, CV_PINS_MIRROR = 2 };
/* The i-th key as "section.name" into buf (NULL past the last). */
const char *cv_config_key(size_t i, char *buf, size_t n);
/* The value cfg holds for key, as config set takes it ("" when unset);
 * CV_EUSAGE naming the closest key for an unknown one. */
int cv_config_value(const struct cv_config *cfg, const char *key, char **out,
		    struct cv_err *err);
/* A mirror given on the command line (--mirror) over the loaded config. */
int cv_config_set_mirror(struct cv_config *cfg, const char *url,
			 const char *from, struct cv_err *err);
/* The user's file: $XDG_CONFIG_HOME/cudnnvm/config.ini, else under
 * ~/.config; NULL with neither (CV_ECONFIG). */
char *cv_config_user_path(struct cv_err *err);
/* Set key to value (value NULL: remove its line) in the file at path,
 * keeping every other line and comment, written with cv_fs_write_atomic.
 * Refused, writing nothing: an unknown key or a bad value (CV_EUSAGE), a
 * file that is a symbolic link or not the caller's (CV_EPERM), a file that
 * would not read back. *changed: whether the file changed. */
int cv_config_edit(const char *path, const char *key, const char *value,
		   int *changed, struct cv_err *err);
/* url.c: whether two mirror URLs name one folder (a trailing '/' aside) */
int cv_url_same_mirror(const char *a, const char *b);

/* mantext.c: the man page's text for `help <command>` where man(1) is
 * absent. cv_man_command_text: 1 and CMD's entry of the page (xmalloc'd,
 * in *out) when no man is on PATH and the page that make install renders
 * (<datadir>/cudnnvm.1.txt, found from this executable's place) has it;
 * else 0. cv_path_has_program: 1 when an executable NAME is on PATH. */
int cv_man_command_text(const char *cmd, char **out);
int cv_path_has_program(const char *name);

/* ---- term.c: terminals -------------------------------------------------- */

/* cv_os_isatty: 1 when fd (0, 1, 2) is a terminal (on Windows a console).
 * cv_os_term_colors: 1 when it is one that shows ANSI colours, turning the
 * Windows console's virtual-terminal mode on when it is off. */
int cv_os_isatty(int fd);

int cv_os_term_colors(int fd);

/* ---- exec.c: a program in this process's place ------------------------ */

/* Run argv[0] (looked for on PATH) with argv, this environment and these
 * standard streams, its exit status becoming this process's: POSIX
 * execvp, which returns only when it cannot start; on Windows
 * CreateProcessW, waited for, returning its exit code (>= 0), which the
 * caller ends with. -1 when it cannot start, errno ENOENT when not
 * found. */
int cv_os_exec(char *const *argv);

/* ---- json*.c: JSON values (json_jansson.c, json_jsmn.c the backends) ---
 * One face, two backends: jansson on Linux, jsmn's tokenizer under a tree
 * of base's own on Windows (Debian builds no mingw jansson). The names and
 * the rules are jansson's, so that what reads or writes stored metadata,
 * locks and --json output behaves and prints the same over either:
 * - a value is counted: a constructor gives one reference, cv_json_decref
 *   drops one (NULL is ignored); cv_json_*_new and "o" of cv_json_pack
 *   take the caller's reference, even when they fail; getters lend theirs
 *   (valid while the container holds the value);
 * - objects keep their members in insertion order (document order when
 *   parsed); setting a key that is there replaces its value in place;
 * - strings are UTF-8, checked when made, and may hold NUL (stringn);
 * - cv_json_dumps writes jansson's bytes for the flags below (a free()able
 *   string; NULL for a value that is not an array or object). */
struct cv_json;

enum cv_json_type {
	CV_JSON_OBJECT,
	CV_JSON_ARRAY,
	CV_JSON_STRING,
	CV_JSON_INTEGER,
	CV_JSON_REAL,
	CV_JSON_TRUE,
	CV_JSON_FALSE,
	CV_JSON_NULL,
};

/* where a document did not parse: line and column from 1 (-1 when the
 * failure was not in the text, e.g. the file did not open), position the
 * byte offset, text jansson's sentence ("end of file expected near 'x'") */
struct cv_json_error {
	int line, column;
	int position;
	char source[80];
	char text[160];
};

/* parse flags */
#define CV_JSON_REJECT_DUPLICATES 0x1
#define CV_JSON_DECODE_ANY        0x4 /* a top-level value that is no container */
#define CV_JSON_ALLOW_NUL         0x10 /* "\u0000" in strings */
/* dump flags: indent n (0..31) spaces a level, newlines between members;
 * without COMPACT ", " and ": " separate */
#define CV_JSON_INDENT(n) ((n)&0x1F)
#define CV_JSON_COMPACT   0x20
#define CV_JSON_SORT_KEYS 0x80 /* members by their keys' bytes */

struct cv_json *cv_json_loadb(const char *buf, size_t len, size_t flags,
			      struct cv_json_error *error);
struct cv_json *cv_json_loads(const char *s, size_t flags,
			      struct cv_json_error *error);
/* the regular file at path (cv_fs_read_each: never through a link) */
struct cv_json *cv_json_load_file(const char *path, size_t flags,
				  struct cv_json_error *error);
char *cv_json_dumps(const struct cv_json *v, size_t flags);

struct cv_json *cv_json_incref(struct cv_json *v);
void cv_json_decref(struct cv_json *v);

enum cv_json_type cv_json_typeof(const struct cv_json *v);
/* 0 for NULL */
int cv_json_is_object(const struct cv_json *v);
int cv_json_is_array(const struct cv_json *v);
int cv_json_is_string(const struct cv_json *v);
int cv_json_is_integer(const struct cv_json *v);
int cv_json_is_real(const struct cv_json *v);
int cv_json_is_number(const struct cv_json *v);
int cv_json_is_true(const struct cv_json *v);
int cv_json_is_false(const struct cv_json *v);
int cv_json_is_boolean(const struct cv_json *v);
int cv_json_is_null(const struct cv_json *v);

/* getters: NULL, "", 0 or 0.0 for a value of another type (or NULL) */
struct cv_json *cv_json_object_get(const struct cv_json *o, const char *key);
size_t cv_json_object_size(const struct cv_json *o);
size_t cv_json_array_size(const struct cv_json *a);
struct cv_json *cv_json_array_get(const struct cv_json *a, size_t i);
const char *cv_json_string_value(const struct cv_json *s);
size_t cv_json_string_length(const struct cv_json *s);
int64_t cv_json_integer_value(const struct cv_json *i);
double cv_json_real_value(const struct cv_json *r);
/* an integer or a real as a double */
double cv_json_number_value(const struct cv_json *n);

/* the members of o in order: an iterator (NULL past the last), its key
 * and value; the key's iterator again (what the foreach walks by) */
void *cv_json_object_iter(struct cv_json *o);
void *cv_json_object_iter_next(struct cv_json *o, void *iter);
const char *cv_json_object_iter_key(void *iter);
struct cv_json *cv_json_object_iter_value(void *iter);
void *cv_json_object_key_to_iter(const char *key);

/* for each member (the object is not changed meanwhile) */
#define cv_json_object_foreach(o, key, value)                          \
	for ((key) = cv_json_object_iter_key(cv_json_object_iter(o));  \
	     (key) && ((value) = cv_json_object_iter_value(            \
			       cv_json_object_key_to_iter(key)));      \
	     (key) = cv_json_object_iter_key(cv_json_object_iter_next( \
		     (o), cv_json_object_key_to_iter(key))))
#define cv_json_array_foreach(a, index, value)                         \
	for ((index) = 0; (index) < cv_json_array_size(a) &&           \
			  ((value) = cv_json_array_get((a), (index))); \
	     (index)++)

/* builders: NULL for a string that is not UTF-8 (or a NaN or infinite
 * real) */
struct cv_json *cv_json_object(void);
struct cv_json *cv_json_array(void);
struct cv_json *cv_json_string(const char *s);
struct cv_json *cv_json_stringn(const char *s, size_t len);
struct cv_json *cv_json_integer(int64_t i);
struct cv_json *cv_json_real(double d);
struct cv_json *cv_json_true(void);
struct cv_json *cv_json_false(void);
struct cv_json *cv_json_boolean(int b);
struct cv_json *cv_json_null(void);

/* 0, or -1 (o not an object, key not UTF-8, value NULL): _new takes the
 * reference to value either way, set adds one of its own */
int cv_json_object_set_new(struct cv_json *o, const char *key,
			   struct cv_json *value);
int cv_json_object_set(struct cv_json *o, const char *key,
		       struct cv_json *value);
/* 0, or -1 when key is not there */
int cv_json_object_del(struct cv_json *o, const char *key);
/* every member of other set in o; other's reference taken */
int cv_json_object_update_new(struct cv_json *o, struct cv_json *other);
int cv_json_array_append_new(struct cv_json *a, struct cv_json *value);
int cv_json_array_append(struct cv_json *a, struct cv_json *value);

/* jansson's json_pack for the forms the callers use: { } [ ] around
 * "s:" keys and values s (char *), s? (char *, NULL: null), i (int),
 * I (int64_t), b (int), f (double), n, o (struct cv_json *, taken),
 * O (struct cv_json *, referenced); ',' ':' and spaces between. NULL when
 * a value cannot be made (an s or o that is NULL), every o taken still. */
struct cv_json *cv_json_pack(const char *fmt, ...);

/* "jansson/2.14" or "jsmn/1.1.0": the backend built in */
const char *cv_json_library(void);

/* ---- mem.c: GNU's byte searches, on every C library ------------------- */

/* memmem, memrchr (and strcasestr, below): glibc's, or the same answers where
 * the C library lacks them (mingw-w64's). */
void *cv_memmem(const void *hay, size_t n, const void *needle, size_t k);

void *cv_memrchr(const void *s, int c, size_t n);

/* strcasestr: the first place needle is in hay, ASCII case folded */
char *cv_strcasestr(const char *hay, const char *needle);

/* ---- junction_win32.c: Windows folder junctions ------------------------ */

#ifdef _WIN32
/* Make path a junction to the folder target (absolute once resolved), or
 * with retarget, rewrite the junction at path to target in place (one
 * file-system operation: readers see the old target or the new). -1 with
 * errno: EEXIST (path is there), ENOENT/ENOTDIR (no such folder), EINVAL
 * (retarget of no junction), ENOSYS (the file system has no reparse
 * points: FAT, or wine 8). */
int cv_os_junction(const char *path, const char *target, int retarget);
#endif

#endif
