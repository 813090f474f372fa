/* validate.c: run the probe (probe.c) in a child process with a clean
 * environment and turn what it reports, or how it died, into the five
 * steps of doc/SPEC.md. A crash, abort or hang inside cuDNN becomes a `fail`
 * naming the signal and what the child was doing. */
#include "base/base.h"
#include "machine/machine.h"
#include "store/store.h"
#include "validate/validate_int.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* SEGV for SIGSEGV: glibc's sigabbrev_np (2.32) where the build has it,
 * else the signals a crashing check process dies of */
#if defined(__GLIBC__)
#define HAVE_SIGABBREV __GLIBC_PREREQ(2, 32)
#else
#define HAVE_SIGABBREV 0
#endif

static const char *
sig_abbrev(int sig)
{
#if HAVE_SIGABBREV
	const char *a = sigabbrev_np(sig);

	return a ? a : "?";
#elif defined(_WIN32)
	/* what the C runtime has of them (child_win32.c names a crash so) */
	static const struct {
		int sig;
		const char *name;
	} names[] = { { SIGSEGV, "SEGV" }, { SIGABRT, "ABRT" },
		      { SIGFPE, "FPE" },   { SIGILL, "ILL" },
		      { SIGTERM, "TERM" }, { SIGINT, "INT" } };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].sig == sig)
			return names[i].name;
	return "?";
#else
	static const struct {
		int sig;
		const char *name;
	} names[] = {
		{ SIGSEGV, "SEGV" }, { SIGABRT, "ABRT" }, { SIGBUS, "BUS" },
		{ SIGFPE, "FPE" },   { SIGILL, "ILL" },   { SIGKILL, "KILL" },
		{ SIGTERM, "TERM" }, { SIGINT, "INT" },   { SIGHUP, "HUP" },
		{ SIGPIPE, "PIPE" }, { SIGQUIT, "QUIT" }, { SIGTRAP, "TRAP" },
		{ SIGSYS, "SYS" },   { SIGXCPU, "XCPU" }, { SIGALRM, "ALRM" },
		{ SIGUSR1, "USR1" }, { SIGUSR2, "USR2" }
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].sig == sig)
			return names[i].name;
	return "?";
#endif
}

/* strsignal's words ("Segmentation fault"); Windows's C library has no
 * strsignal, and its crash is an exception the child's end names as one
 * of these */
static const char *
sig_text(int sig)
{
#ifdef _WIN32
	return sig == SIGSEGV   ? "access violation"
	       : sig == SIGABRT ? "aborted"
	       : sig == SIGFPE  ? "arithmetic exception"
	       : sig == SIGILL  ? "illegal instruction"
				: "terminated";
#else
	return strsignal(sig);
#endif
}

static void
copy_str(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

/* ---- the child -------------------------------------------------------- */

struct reader {
	struct cv_validation *v;
	const struct cv_validate_opts *opts;
	struct cv_buf line;
	int last_step;
	char last_what[512];
	int done;
};

static void
take_line(struct reader *r, const char *s)
{
	struct cv_json *o = cv_json_loads(s, 0, NULL);
	const char *k = cv_json_string_value(cv_json_object_get(o, "k"));
	int step = (int)cv_json_integer_value(cv_json_object_get(o, "step"));

	if (r->opts->on_line != NULL)
		r->opts->on_line(r->opts->payload, s);
	if (k == NULL) {
		cv_json_decref(o);
		return;
	}
	if (strcmp(k, "phase") == 0 && step >= 0 && step < CV_NSTEPS) {
		r->last_step = step;
		copy_str(r->last_what, sizeof r->last_what,
			 cv_json_string_value(cv_json_object_get(o, "what")));
	} else if (strcmp(k, "step") == 0 && step >= 0 && step < CV_NSTEPS) {
		r->v->step[step].status = cv_check_from_name(
			cv_json_string_value(cv_json_object_get(o, "status")));
		copy_str(r->v->step[step].reason,
			 sizeof r->v->step[step].reason,
			 cv_json_string_value(cv_json_object_get(o, "reason")));
	} else if (strcmp(k, "fact") == 0) {
		const char *name =
			cv_json_string_value(cv_json_object_get(o, "name"));
		struct cv_json *val = cv_json_object_get(o, "value");
		if (name == NULL)
			;
		else if (strcmp(name, "cudnn_version") == 0)
			r->v->cudnn_version = (long)cv_json_integer_value(val);
		else if (strcmp(name, "cudart_version") == 0)
			r->v->cudart_version = (long)cv_json_integer_value(val);
		else if (strcmp(name, "driver_version") == 0)
			r->v->driver_version = (int)cv_json_integer_value(val);
		else if (strcmp(name, "cc_major") == 0)
			r->v->cc_major = (int)cv_json_integer_value(val);
		else if (strcmp(name, "cc_minor") == 0)
			r->v->cc_minor = (int)cv_json_integer_value(val);
		else if (strcmp(name, "gpu") == 0)
			copy_str(r->v->gpu, sizeof r->v->gpu,
				 cv_json_string_value(val));
		else if (strcmp(name, "max_err") == 0)
			r->v->max_err = cv_json_number_value(val);
	} else if (strcmp(k, "done") == 0)
		r->done = 1;
	cv_json_decref(o);
}

static void
feed(struct reader *r, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n') {
			take_line(r, r->line.buf);
			cv_buf_reset(&r->line);
		} else if (cv_buf_add(&r->line, data + i, 1) < 0)
			cv_buf_reset(&r->line);
	}
}

/* The last non-empty line the child printed on stderr (cuDNN's own
 * "Invalid handle. Cannot load symbol cublasLtCreate", say). */
static void
last_line(const struct cv_buf *b, char *out, size_t n)
{
	size_t end = b->len, start;

	while (end > 0 && (b->buf[end - 1] == '\n' || b->buf[end - 1] == ' '))
		end--;
	start = end;
	while (start > 0 && b->buf[start - 1] != '\n')
		start--;
	if (end - start > n - 1)
		start = end - (n - 1);
	memcpy(out, b->buf + start, end - start);
	out[end - start] = '\0';
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
}

static char **
child_env(const char *libdir, const char *deps, const char *cublaslt)
{
	char **envp = xcalloc(8, sizeof *envp);
	struct cv_buf ld = CV_BUF_INIT;
	const char *test = getenv("CUDNNVM_TEST_CUDA_LIBDIRS");
	const char *vis = getenv("CUDA_VISIBLE_DEVICES");
	int n = 0;
#ifdef _WIN32
	/* The child loads cuDNN by full path from its folder only (the
	 * search of probe_win32.c takes no PATH): what it needs here is what
	 * any Windows process needs of its environment, SystemRoot, and the
	 * system folders as its PATH. */
	const char *root = getenv("SystemRoot");

	(void)libdir;
	(void)deps;
	(void)cublaslt;
	(void)test;
	cv_buf_release(&ld);
	root = root != NULL ? root : "C:\\Windows";
	envp[n++] = xasprintf("SystemRoot=%s", root);
	envp[n++] = xasprintf("PATH=%s\\System32;%s", root, root);
#else

	/* as every activation gives it: the version, then what it loads */
	cv_buf_addf(&ld, "LD_LIBRARY_PATH=%s", libdir);
	if (deps != NULL)
		cv_buf_addf(&ld, ":%s", deps);
	if (cublaslt != NULL) {
		const char *slash = strrchr(cublaslt, '/');
		if (slash != NULL)
			cv_buf_addf(&ld, ":%.*s", (int)(slash - cublaslt),
				    cublaslt);
	}
	if (test != NULL && *test)
		cv_buf_addf(&ld, ":%s", test);
	envp[n++] = cv_buf_detach(&ld);
	envp[n++] = xstrdup("PATH=/usr/local/bin:/usr/bin:/bin");
#endif
	envp[n++] = xstrdup("LC_ALL=C");
	/* The GPUs the user chose are the ones to prove. */
	if (vis != NULL)
		envp[n++] = xasprintf("CUDA_VISIBLE_DEVICES=%s", vis);
	envp[n] = NULL;
	return envp;
}

static void
free_vec(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

/* cv_child's on_out: the child's JSON lines; stop once it said "done". */
static int
feed_child(void *arg, const char *data, size_t n)
{
	struct reader *r = arg;

	feed(r, data, n);
	return r->done;
}

/* Run the probe child and read its verdict into v. 1 when the result is
 * transient (a timeout: not cached), 0 otherwise, <0 on error. */
static int
run_child(const char *exe, char **argv, char **envp, unsigned timeout_s,
	  const struct cv_validate_opts *opts, struct cv_validation *v,
	  struct cv_err *err)
{
	struct reader r = {
		v, opts, CV_BUF_INIT, CV_STEP_FILES, "starting", 0
	};
	struct cv_buf errbuf = CV_BUF_INIT;
	struct cv_child child = CV_CHILD_INIT;
	int status, sig, timed_out;
	char tail[300];

	errbuf.max = 1 << 20;
	r.line.max = 1 << 20;
	child.path = exe;
	child.argv = (const char *const *)argv;
	child.envp = envp;
	child.flags = CV_CHILD_STDIN_NULL;
	child.timeout_s = timeout_s;
	child.err = &errbuf;
	/* Once the child has said all it had to say it is not waited for:
	 * its exit tears the CUDA context down (150 ms measured on an H200),
	 * which nobody needs to wait for. */
	child.on_out = feed_child;
	child.arg = &r;
	child.stop = opts->stop;
	/* a child that cannot be started is a failed step, said like one */
	status = cv_child_run(&child, NULL);
	sig = child.signal;
	timed_out = child.timed_out;
	if (r.line.len)
		take_line(&r, r.line.buf);
	cv_buf_release(&r.line);
	last_line(&errbuf, tail, sizeof tail);
	cv_buf_release(&errbuf);
	if (status == CV_EINTR || (opts->stop != NULL && *opts->stop))
		return cv_err_set(err, CV_EINTR, "interrupted");

	if (timed_out || sig || !r.done) {
		char why[600];

		if (timed_out)
			snprintf(why, sizeof why,
				 "no answer after %u s while %s; the process "
				 "was killed",
				 timeout_s, r.last_what);
		else if (sig)
			snprintf(why, sizeof why,
				 "the check process died of SIG%s (%s) while "
				 "%s%s%s",
				 sig_abbrev(sig), sig_text(sig), r.last_what,
				 *tail ? "; it printed: " : "", tail);
		else if (status < 0)
			snprintf(why, sizeof why,
				 "cannot run the check process %.400s", exe);
		else
			snprintf(why, sizeof why,
				 "the check process exited with status %d "
				 "while %s%s%s",
				 status, r.last_what,
				 *tail ? "; it printed: " : "", tail);
		if (v->step[r.last_step].status == CV_CHECK_NONE ||
		    v->step[r.last_step].status == CV_CHECK_PASS) {
			v->step[r.last_step].status = CV_CHECK_FAIL;
			copy_str(v->step[r.last_step].reason,
				 sizeof v->step[r.last_step].reason, why);
		}
		for (int i = 0; i < CV_NSTEPS; i++)
			if (v->step[i].status == CV_CHECK_NONE) {
				v->step[i].status = CV_CHECK_SKIP;
				copy_str(v->step[i].reason,
					 sizeof v->step[i].reason,
					 "not reached");
			}
		return timed_out ? 1 : 0;
	}
	for (int i = 0; i < CV_NSTEPS; i++)
		if (v->step[i].status == CV_CHECK_NONE) {
			v->step[i].status = CV_CHECK_FAIL;
			copy_str(v->step[i].reason, sizeof v->step[i].reason,
				 "the check process gave no result");
		}
	return 0;
}

void
cv_validate_opts_default(struct cv_validate_opts *o, const struct cv_store *st,
			 const char *self_exe, int no_gpu)
{
	const char *t = getenv("CUDNNVM_VALIDATE_TIMEOUT");
	char *end = NULL;
	long secs = t != NULL ? strtol(t, &end, 10) : 0;

	o->self_exe = self_exe;
	o->cache_dir = cv_store_cache_dir(st);
	o->no_gpu = no_gpu;
	if (t != NULL && end != t && *end == '\0' && secs > 0 && secs < 86400)
		o->timeout_s = (unsigned)secs;
}

/* Run the probe child over the libraries of `libdir` as the install
 * `inst` (its version and CUDA variant are what the child checks). */
static int
run_probe(char *libdir, const char *deps, const struct cv_installed *inst,
	  char *cublaslt, const struct cv_validate_opts *opts,
	  struct cv_validation *out, struct cv_err *err)
{
	char major[16], expect[32], cuda[32], self[PATH_MAX];
	char **envp, **argv;
	const char *exe;
	int argc = 0, r, nextra = 0;

	while (opts->extra_args != NULL && opts->extra_args[nextra] != NULL)
		nextra++;
	exe = opts->self_exe;
	if (exe == NULL) {
		if ((r = cv_child_self(self, err)) < 0)
			return cv_err_prefix(err, "validate: ");
		exe = self;
	}
	snprintf(major, sizeof major, "%lu", inst->version.part[0]);
	snprintf(expect, sizeof expect, "%ld",
		 cv_version_cudnn_number(&inst->version));
	snprintf(cuda, sizeof cuda, "%d", inst->version.cuda);
	argv = xcalloc(16 + (size_t)nextra, sizeof *argv);
	argv[argc++] = (char *)"cudnnvm";
	argv[argc++] = (char *)"validate-probe";
	argv[argc++] = (char *)"--libdir";
	argv[argc++] = libdir;
	argv[argc++] = (char *)"--major";
	argv[argc++] = major;
	argv[argc++] = (char *)"--expect";
	argv[argc++] = expect;
	argv[argc++] = (char *)"--cuda";
	argv[argc++] = cuda;
	if (cublaslt != NULL) {
		argv[argc++] = (char *)"--cublaslt";
		argv[argc++] = cublaslt;
	}
	if (opts->no_gpu)
		argv[argc++] = (char *)"--no-gpu";
	for (int i = 0; i < nextra; i++)
		argv[argc++] = opts->extra_args[i];
	argv[argc] = NULL;
	envp = child_env(libdir, deps, cublaslt);
	r = run_child(exe, argv, envp, opts->timeout_s ? opts->timeout_s : 120,
		      opts, out, err);
	free(argv);
	free_vec(envp);
	return r;
}

int
cv_validate_identity(const char *libdir, int major, const char *self_exe,
		     long *cudnn_version, long *cudart_version,
		     struct cv_err *err)
{
	struct cv_validate_opts opts = CV_VALIDATE_OPTS_INIT;
	struct cv_installed inst;
	struct cv_validation out;
	char *dir = xstrdup(libdir);
	int r;

	/* The child reports what the library says before it compares it
	 * with the install: an install of no version and no variant
	 * learns the library's own answers and nothing more. */
	memset(&inst, 0, sizeof inst);
	snprintf(inst.id, sizeof inst.id, "identity");
	inst.version.nparts = 3;
	inst.version.part[0] = (unsigned long)major;
	opts.self_exe = self_exe;
	opts.no_gpu = 1;
	opts.timeout_s = 60;
	memset(&out, 0, sizeof out);
	r = run_probe(dir, NULL, &inst, NULL, &opts, &out, err);
	free(dir);
	if (r < 0)
		return r;
	*cudnn_version = out.cudnn_version;
	*cudart_version = out.cudart_version;
	if (out.cudart_version <= 0)
		return cv_err_set(err, CV_ENOTFOUND,
				  "the cuDNN in '%s' did not load: %s", libdir,
				  out.step[CV_STEP_VERSION].reason);
	return 0;
}

/* The lib folders of the dependencies the version keeps in its store
 * (':'-joined, or NULL), and in *cublaslt the store's libcublasLt.so.N
 * when it keeps one (else NULL: found the machine's way). */
static char *
dep_dirs(const char *dir, const struct cv_installed *inst, const char *so,
	 char **cublaslt)
{
	struct cv_buf b = CV_BUF_INIT;

	*cublaslt = NULL;
	for (int i = 0; i < inst->ndeps; i++) {
		char *lib = cv_store_dep_libdir(dir, &inst->deps[i]);
		if (lib == NULL)
			continue;
		cv_buf_addf(&b, "%s%s", b.len ? ":" : "", lib);
		if (*cublaslt == NULL &&
		    strcmp(inst->deps[i].name, "libcublas") == 0) {
			char *p = cv_path_join(lib, so);
			if (cv_machine_lib_loads(p, so))
				*cublaslt = p;
			else
				free(p);
		}
		free(lib);
	}
	return b.len ? cv_buf_detach(&b) : (cv_buf_release(&b), NULL);
}

int
cv_validate(const char *dir, const struct cv_installed *inst,
	    const struct cv_validate_opts *opts, struct cv_validation *out,
	    struct cv_err *err)
{
	struct cv_validate_opts def = CV_VALIDATE_OPTS_INIT;
	char *libdir, *cublaslt, *key = NULL, cuda[32], *deps;
	int r, transient, nextra = 0;

	if (opts == NULL)
		opts = &def;
	memset(out, 0, sizeof *out);
	copy_str(out->id, sizeof out->id, inst->id);
	if (inst->version.part[0] < 7 || inst->version.cuda <= 0)
		return cv_err_set(err, CV_EDATA,
				  "validate %s: cannot validate cuDNN %lu "
				  "(7 or newer, with a CUDA variant)",
				  inst->id, inst->version.part[0]);
#ifdef _WIN32
	snprintf(cuda, sizeof cuda, "cublasLt64_%d.dll", inst->version.cuda);
#else
	snprintf(cuda, sizeof cuda, "libcublasLt.so.%d", inst->version.cuda);
#endif
	deps = dep_dirs(dir, inst, cuda, &cublaslt);
	if (cublaslt == NULL)
		cublaslt = cv_machine_find_lib(cuda);
	while (opts->extra_args != NULL && opts->extra_args[nextra] != NULL)
		nextra++;
	if (opts->cache_dir != NULL && nextra == 0) {
		key = cv_validate_cache_key(dir, inst->id, opts->no_gpu,
					    cublaslt);
		if (cv_validate_cache_get(opts->cache_dir, key, out) == 0) {
			free(key);
			free(cublaslt);
			free(deps);
			return 0;
		}
		memset(out, 0, sizeof *out);
		copy_str(out->id, sizeof out->id, inst->id);
	}
#ifdef _WIN32
	/* the DLLs' folder: bin, or bin\x64 from 9.18 */
	libdir = cv_store_dll_dir(dir, &inst->version);
#else
	libdir = cv_path_join(dir, "lib");
#endif
	r = run_probe(libdir, deps, inst, cublaslt, opts, out, err);
	free(libdir);
	free(cublaslt);
	free(deps);
	if (r < 0) {
		free(key);
		return r;
	}
	transient = r == 1;
	/* Only a clean result is kept: a fail is re-checked next time. */
	if (key != NULL && !transient && cv_validation_failed(out) < 0)
		cv_validate_cache_put(opts->cache_dir, key, out);
	free(key);
	return 0;
}
