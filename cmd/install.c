/* install.c: `cudnnvm install <spec> ...` (from the mirror) and
 * `cudnnvm install --archive FILE --sha256 HEX [--version V --cuda N]`
 * (offline, from a local NVIDIA archive). */
#include "cmd.h"
#include "ui.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct install_args {
	const char *spec;     /* remote: the spec */
	const char *archive;  /* --archive FILE */
	const char *sha256;   /* --sha256 HEX */
	const char *version;  /* --version V */
	const char *cuda;     /* --cuda N */
	const char *platform; /* --platform P */
	const char *mirror;   /* --mirror URL: NVIDIA's redist mirror */
	const char *index;    /* --index URL: the simple index of pypi */
	const char *source;   /* --source nvidia|pypi */
	int force, even_if_in_use, no_validate, refresh;
	int keep;           /* --keep: keep the verified archive in the cache */
	int deps;           /* --deps: enum cv_deps_mode; -1: [install] deps */
	int locked, frozen; /* --locked, --frozen */
	unsigned jobs;      /* --jobs N; 0: [install] threads */
	struct cmd_ctx *ctx;
};

/* [install] keep_archives, raised to yes by --keep */
static int
keep_of(const struct install_args *a)
{
	int keep = a->ctx->cfg.keep_archives;

	return a->keep && keep == CV_KEEP_NO ? CV_KEEP_YES : keep;
}

static void
note_already(const struct cv_store *st, const char *id)
{
	char *dir = cv_store_dir(st, id);

	ui_note("cuDNN %s is already installed in %s", id, dir);
	free(dir);
}

/* What both forms do once cv_store_install succeeded: say so, then
 * validate and activate a new install as configured. */
static int
installed(const struct cv_config *cfg, struct cv_store *st, const char *id,
	  int already, const struct install_args *a)
{
	struct cv_gate_opts g = CV_GATE_OPTS_INIT;
	struct cv_err err = CV_ERR_INIT;
	struct cv_verdict v;
	int r;

	if (already) {
		note_already(st, id);
		return 0;
	}
	if (!cmd_g.quiet) {
		char *dir = cv_store_dir(st, id);
		printf("installed cuDNN %s in %s\n", id, dir);
		free(dir);
	}
	if (cv_modulefiles_refresh(st, &err) < 0)
		ui_warn("module files not updated: %s; run 'cudnnvm modulefiles'",
			err.msg);
	g.no_validate = a->no_validate || !cfg->validate;
	g.installed = 1;
	g.probe_exe = cmd_g.probe_exe;
	r = cv_gate_check(cfg, st, id, &g, &v, &err);
	return ui_verdict(r, &err, &v);
}

/* Progress on a terminal: the file fetcher wrapped to count bytes (read on
 * the install's reading thread; ui_progress only writes to stderr). */
struct progress {
	struct cv_fetcher inner;
	struct cv_source src;
	uint64_t done, total;
};

static ssize_t
progress_read(void *ctx, const void **buf, struct cv_err *err)
{
	struct progress *p = ctx;
	ssize_t n = p->src.read(p->src.ctx, buf, err);

	if (n > 0) {
		p->done += (uint64_t)n;
		ui_progress(NULL, p->done, p->total);
	}
	return n;
}

static int
progress_open(void *arg, struct cv_source *src, struct cv_err *err)
{
	struct progress *p = arg;
	int r = p->inner.open(p->inner.arg, &p->src, err);

	if (r == 0) {
		src->read = progress_read;
		src->ctx = p;
	}
	return r;
}

static void
progress_close(void *arg, int ok)
{
	struct progress *p = arg;

	p->inner.close(p->inner.arg, ok);
	ui_progress_done();
}

/* ---- remote install ----------------------------------------------------- */
static void
on_sigint(int sig)
{
	static volatile sig_atomic_t seen;
	int saved = errno;

	/* The first Ctrl-C stops the download cleanly (partial kept, exit
	 * 130); a second one, e.g. while waiting on a lock, ends the process
	 * at once (the store is crash-safe either way). */
	if (seen) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	seen = 1;
	cv_remote_interrupt();
	errno = saved;
}

/* The remote form's arguments: the spec, --cuda, --platform. */
static int
remote_args(const struct install_args *a, struct cv_version *spec, int *cuda)
{
	struct cv_err err = CV_ERR_INIT;

	if (cv_spec_parse(spec, a->spec, &err) < 0)
		return cmd_fail(&err);
	if (a->cuda != NULL && cv_cuda_major_parse(a->cuda, cuda) < 0)
		return cmd_usage_error("install",
				       "--cuda needs a CUDA major such as 12");
	if (spec->cuda && *cuda && spec->cuda != *cuda)
		return cmd_usage_error("install",
				       "the spec and --cuda disagree");
	if (a->platform != NULL && !cv_platform_valid(a->platform))
		return cmd_usage_error(
			"install",
			"unknown platform '%.40s' (linux-x86_64, linux-sbsa, "
			"linux-aarch64, windows-x86_64)",
			a->platform);
	return 0;
}

/* The artifact spec names on the source, and the remote to fetch it. */
static int
resolve(const struct install_args *a, const struct cv_resolve_req *req,
	int source, struct cv_remote **rem, struct cv_index **ix,
	struct cv_resolved *res, struct cv_err *err)
{
	const struct cv_config *cfg = &a->ctx->cfg;
	const char *index;
	/* `latest` asks what is newest now: a day-old listing would say
	 * a release already here is the newest */
	int latest = req->spec == NULL || req->spec->nparts == 0, r;

	if (source == CV_SOURCE_PYPI) {
		/* the same id from a wheel is the same version: the download,
		 * the hash in the stream and the publish are the archive's */
		if ((r = cv_pypi_index(cfg, a->index, &index, err)) < 0 ||
		    (r = cv_remote_new_index(rem, cfg, index, err)) < 0)
			return r;
		return cv_pypi_resolve(*rem, cv_remote_mirror(*rem), req, res,
				       err);
	}
	if ((r = cv_remote_new(rem, cfg, a->mirror, err)) < 0 ||
	    (r = cv_index_open(ix, *rem, cv_store_cache_dir(a->ctx->st),
			       a->refresh || latest, err)) < 0)
		return r;
	return cv_resolve_fresh(ix, req, res, err);
}

/* A download that draws its progress on a terminal: the archive's and,
 * the same way, each dependency's. */
struct shown_fetch {
	struct cv_fetcher inner;
	struct cv_download *dl;
	const struct cv_artifact *art;
	const char *url;
};

static int
shown_open(void *arg, struct cv_source *src, struct cv_err *err)
{
	struct shown_fetch *w = arg;
	const char *file = w->art->filename, *slash;
	char *host;
	int r = w->inner.open(w->inner.arg, src, err);

	if (r < 0 || cmd_g.quiet || !ui_is_tty() ||
	    !cv_download_fetching(w->dl))
		return r;
	slash = strrchr(w->url, '/');
	if (!*file && slash != NULL)
		file = slash + 1;
	ui_download_begin(file, w->art->size);
	host = cv_url_host(w->url);
	cv_download_progress(w->dl, ui_progress, NULL);
	ui_progress_watch(cv_download_received, w->dl, w->art->size, host);
	free(host);
	return r;
}

static void
shown_close(void *arg, int ok)
{
	struct shown_fetch *w = arg;

	w->inner.close(w->inner.arg, ok);
	ui_progress_done();
}

static uint64_t
shown_size(void *arg)
{
	struct shown_fetch *w = arg;

	return w->inner.size ? w->inner.size(w->inner.arg) : 0;
}

/* *fetch, the download dl of art from url, made one that shows itself */
static void
shown_wrap(struct shown_fetch *w, struct cv_download *dl,
	   const struct cv_artifact *art, const char *url,
	   struct cv_fetcher *fetch)
{
	w->inner = *fetch;
	w->dl = dl;
	w->art = art;
	w->url = url;
	fetch->open = shown_open;
	fetch->close = shown_close;
	fetch->arg = w;
	fetch->size = w->inner.size ? shown_size : NULL;
}

static void
dep_show(void *payload, struct cv_download *dl, const struct cv_artifact *art,
	 const char *url, struct cv_fetcher *fetch)
{
	shown_wrap(payload, dl, art, url, fetch);
}

static void
dep_fetching(void *payload, const struct cv_dep *dep,
	     const struct cv_artifact *art)
{
	char size[32];

	(void)payload;
	/* before a byte of it comes: what, why, how big, and how not to */
	ui_size(size, sizeof size, art->size);
	if (!cmd_g.quiet)
		ui_note("cuDNN loads %s %s (CUDA %d) beside itself: downloading "
			"%s (%s) into the store first (--deps never skips it)",
			dep->name, dep->version, dep->cuda, art->filename,
			size);
}

/* What build `v` loads beside itself, found or installed (cv_deps_ensure);
 * the use locks in *held stay until the version is published. */
static int
ensure_deps(const struct install_args *a, const struct cv_version *v,
	    const char *platform, const char *pypi_index,
	    const struct cv_dep_file *locked, int nlocked,
	    struct cv_dep deps[CV_MAX_DEPS], int *ndeps,
	    struct cv_deps_held *held, struct cv_err *err)
{
	const struct cv_config *cfg = &a->ctx->cfg;
	struct cv_deps_req req;
	struct shown_fetch shown;
	int r;

	memset(&req, 0, sizeof req);
	req.st = a->ctx->st;
	req.cfg = cfg;
	/* --mirror names NVIDIA's redist mirror only (--index the index) */
	req.cudnn_mirror = a->mirror;
	req.version = v;
	req.pypi_index = pypi_index;
	req.locked = locked;
	req.nlocked = nlocked;
	req.platform = platform;
	req.mode = a->deps >= 0 ? a->deps : cfg->deps;
	req.refresh = a->refresh;
	req.offline = a->archive != NULL;
	req.keep_archives = keep_of(a);
	req.opts.nowait = cmd_g.nowait;
	req.opts.waiting = ui_waiting;
	req.opts.threads = a->jobs ? a->jobs : cfg->threads;
	req.fetching = dep_fetching;
	req.show = dep_show;
	req.payload = &shown;
	r = cv_deps_ensure(&req, deps, ndeps, held, err);
	if ((r == CV_ECONFIG || r == CV_ENOTFOUND || r == CV_ENETWORK) &&
	    req.mode == CV_DEPS_AUTO) {
		/* not to be had here (no CUDA tree, offline): the cuDNN is
		 * still worth having (a toolkit may come later), and
		 * validation names what it lacks; bad bytes are an error */
		char id[64];
		cv_version_format_id(v, id, sizeof id);
		ui_warn("%s; cuDNN %s will not run until it is found", err->msg,
			id);
		cv_err_hint(err, "cudnnvm install %s --deps always", id);
		ui_hints(err);
		*err = (struct cv_err)CV_ERR_INIT;
		*ndeps = 0;
		r = 0;
	}
	return r;
}

/* An installed version whose dependencies were never recorded (installed
 * with --deps never, or before cudnnvm kept them): asked for with --deps
 * auto|always, get them and record them. */
static int
deps_for_installed(const struct install_args *a, const char *id)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_installed inst;
	struct cv_dep deps[CV_MAX_DEPS];
	struct cv_deps_held held;
	const char *index;
	int n = 0, r;

	if (a->deps < 0 || a->deps == CV_DEPS_NEVER ||
	    !cv_store_has_own(a->ctx->st, id) ||
	    cv_store_get(a->ctx->st, id, &inst, &err) < 0)
		return 0;
	/* a wheel's dependencies from the same index, when one is set */
	if (strcmp(inst.origin, "pypi") != 0 ||
	    cv_pypi_index(&a->ctx->cfg, a->index, &index, NULL) < 0)
		index = NULL;
	if ((r = ensure_deps(a, &inst.version, inst.platform, index, NULL, 0,
			     deps, &n, &held, &err)) == 0)
		r = cv_store_set_deps(a->ctx->st, id, deps, n, &err);
	cv_deps_release(&held);
	if (r < 0)
		return cmd_fail(&err);
	for (int i = 0; i < n; i++)
		if (!cmd_g.quiet)
			printf("cuDNN %s loads %s from %s\n", id, deps[i].name,
			       deps[i].dir);
	return 0;
}

/* The download's fetcher, wrapped so that a terminal sees what is fetched
 * only once the install opens it: a version already here (in this store
 * or the system's) and a verified archive in the cache fetch nothing and
 * show nothing. */
/* Download, verify and install res in one pass. A damaged cached
 * download is dropped and fetched once more. */
static int
fetch_install(const struct install_args *a, struct cv_remote *rem,
	      const struct cv_resolved *res, const char *id,
	      const struct cv_dep *deps, int ndeps, int *already,
	      struct cv_err *err)
{
	const struct cv_config *cfg = &a->ctx->cfg;
	struct cv_install_opts opts = CV_INSTALL_OPTS_INIT;
	struct cv_download *dl = NULL;
	struct shown_fetch shown;
	struct cv_fetcher fetch;
	int r;

	opts.force = a->force;
	opts.even_if_in_use = a->even_if_in_use;
	opts.nowait = cmd_g.nowait;
	opts.waiting = ui_waiting;
	opts.threads = a->jobs ? a->jobs : cfg->threads;
	opts.deps = deps;
	opts.ndeps = ndeps;
	for (int attempt = 0;; attempt++) {
		if ((r = cv_download_new(&dl, rem, &res->art, res->url,
					 cv_store_cache_dir(a->ctx->st),
					 keep_of(a), err)) < 0)
			return r;
		cv_download_fetcher(dl, &fetch);
		shown_wrap(&shown, dl, &res->art, res->url, &fetch);
		r = cv_store_install(a->ctx->st, &res->art, &fetch, &opts,
				     already, err);
		ui_progress_done();
		if (!(r == CV_EDATA && cv_download_used_cache(dl) &&
		      attempt == 0))
			break;
		/* spliced or damaged cache: one clean retry */
		cv_download_discard(dl);
		cv_download_free(dl);
		dl = NULL;
		if (!cmd_g.quiet)
			ui_warn("the cached download of %s was damaged; "
				"downloading it again",
				id);
		*err = (struct cv_err)CV_ERR_INIT;
	}
	cv_download_free(dl);
	if (r == CV_EDATA && strstr(err->msg, res->url) == NULL) {
		/* say where the bad bytes came from */
		size_t n = strlen(err->msg);
		snprintf(err->msg + n, sizeof err->msg - n, " (from %s)",
			 res->url);
	}
	return r;
}

/* Ctrl-C aborts the transfers in flight (and the install with them). */
static void
catch_sigint(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

/* What res loads beside it (locked[0..nlocked) from a lock), then res
 * itself; a failure leaves no dependency that nothing needs. */
static int
deps_then_fetch(const struct install_args *a, struct cv_remote *rem,
		const struct cv_resolved *res, const char *id,
		const char *pypi_index, const struct cv_dep_file *locked,
		int nlocked, int *already, struct cv_err *err)
{
	struct cv_dep deps[CV_MAX_DEPS];
	struct cv_deps_held held = { { 0 }, 0 };
	int r, ndeps = 0;

	if ((r = ensure_deps(a, &res->art.version, res->art.platform,
			     pypi_index, locked, nlocked, deps, &ndeps, &held,
			     err)) == 0)
		r = fetch_install(a, rem, res, id, deps, ndeps, already, err);
	cv_deps_release(&held);
	if (r < 0)
		cv_store_deps_collect(a->ctx->st);
	return r;
}

/* Resolve the spec on the mirror, then download, verify and install. */
static int
install_remote(const struct install_args *a)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_config *cfg = &a->ctx->cfg;
	struct cv_remote *rem = NULL;
	struct cv_index *ix = NULL;
	struct cv_resolved res;
	struct cv_resolve_req req;
	struct cv_version spec;
	const char *from;
	char id[64], *host;
	int r, already = 0, cuda = 0, source = -1;

	memset(&res, 0, sizeof res);
	if ((r = remote_args(a, &spec, &cuda)) != 0 ||
	    (r = cmd_need(a->ctx, CMD_STORE_RW)) != 0 ||
	    (r = cmd_source_of("install", a->source, a->mirror, a->index,
			       cfg->source, &source)) != 0)
		return r;
	/* A full install id already here (its CUDA major in the spec or
	 * from --cuda) needs no network at all. */
	if (!a->force && spec.nparts == 4 && (spec.cuda || cuda)) {
		struct cv_version full = spec;
		full.cuda = spec.cuda ? spec.cuda : cuda;
		cv_version_format_id(&full, id, sizeof id);
		if (cv_store_has(a->ctx->st, id)) {
			note_already(a->ctx->st, id);
			return deps_for_installed(a, id);
		}
	}
	catch_sigint();
	req.spec = &spec;
	req.cuda = cuda ? cuda : cfg->cuda;
	req.platform = a->platform ? a->platform : cfg->platform;
	req.any_gpu = a->force;
	if (source != CV_SOURCE_PYPI ||
	    cv_pypi_index(cfg, a->index, &from, &err) < 0)
		from = a->mirror ? a->mirror : cfg->mirror;
	err = (struct cv_err)CV_ERR_INIT;
	host = cv_url_host(from);
	ui_wait_begin("%s to answer (the release listing and manifest)", host);
	free(host);
	r = resolve(a, &req, source, &rem, &ix, &res, &err);
	ui_wait_end();
	if (r == 0) {
		cv_version_format_id(&res.art.version, id, sizeof id);
		if (cmd_g.verbose)
			ui_note("%s resolves to cuDNN %s for %s: %s (%llu "
				"bytes, sha256 %s)",
				a->spec, id, res.art.platform, res.url,
				(unsigned long long)res.art.size,
				res.art.sha256);
		if (cv_store_has(a->ctx->st, id) && !a->force)
			already = 1;
		else
			r = deps_then_fetch(a, rem, &res, id,
					    source == CV_SOURCE_PYPI
						    ? cv_remote_mirror(rem)
						    : NULL,
					    NULL, 0, &already, &err);
	}
	r = r < 0 ? cmd_fail(&err) : installed(cfg, a->ctx->st, id, already, a);
	if (r == 0 && already)
		r = deps_for_installed(a, id);
	cv_resolved_release(&res);
	cv_index_free(ix);
	cv_remote_free(rem);
	return r;
}
/* ---- end of remote install ---------------------------------------------- */

/* The version and CUDA major of --archive: what its name says (an NVIDIA
 * archive or wheel), overridden by --version. */
static int
archive_version(const struct install_args *a, struct cv_artifact *named,
		struct cv_version *version)
{
	struct cv_err err = CV_ERR_INIT;

	/* what the name says, overridden by --version, --cuda, --platform */
	memset(named, 0, sizeof *named);
	if (cv_wheel_from_filename(named, a->archive) == 0) {
		/* one of NVIDIA's wheels, e.g. from a pip cache */
	} else if (cv_artifact_from_filename(named, a->archive, &err) < 0) {
		if (a->version == NULL || a->cuda == NULL)
			return cmd_fail(&err);
		memset(named, 0, sizeof *named);
	}
	*version = named->version;
	if (a->version != NULL) {
		if (cv_version_parse(version, a->version, &err) < 0)
			return cmd_fail(&err);
		if (version->nparts != 4)
			return cmd_usage_error(
				"install",
				"--version needs the full archive version, e.g. 9.13.0.50");
		if (version->cuda == 0)
			version->cuda = named->version.cuda;
	}
	return 0;
}

/* The artifact --archive installs, and its install id. */
static int
archive_artifact(const struct install_args *a, int cuda,
		 struct cv_artifact *art, char id[64])
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_artifact named;
	struct cv_version version;
	int r;

	memset(&version, 0, sizeof version);
	if ((r = archive_version(a, &named, &version)) != 0)
		return r;
	if (cuda)
		version.cuda = cuda;
	if (version.cuda == 0)
		return cmd_usage_error("install",
				       "pass --cuda N for this archive");
	if (cv_local_archive(a->archive, &version, a->platform, &named,
			     a->sha256, art, &err) < 0)
		return cmd_fail(&err);
	cv_version_format_id(&art->version, id, 64);
	return 0;
}

static int install_archive(const struct install_args *a);

/* --archive without --sha256: the checksum NVIDIA published for that file
 * name, from a manifest an earlier list-remote or install cached. */
static int
cached_checksum(const struct install_args *a)
{
	struct install_args with = *a;
	char sha[65], from[4096];
	int r;

	if ((r = cmd_need(a->ctx, CMD_STORE_RW)) != 0)
		return r;
	if (!cv_manifest_cached_sha256(cv_store_cache_dir(a->ctx->st),
				       a->archive, sha, from))
		return cmd_usage_error(
			"install",
			"--archive needs --sha256 HEX (the archive's published "
			"checksum; no cached manifest lists this file name)");
	ui_note("sha256 %s, from the cached manifest %s", sha, from);
	with.sha256 = sha;
	return install_archive(&with);
}

static int
install_archive(const struct install_args *a)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_install_opts opts = CV_INSTALL_OPTS_INIT;
	struct cv_artifact art;
	struct cv_fetcher fetch, wrapped;
	struct progress prog;
	struct cv_config *cfg = &a->ctx->cfg;
	struct cv_store *st = NULL;
	struct cv_dep deps[CV_MAX_DEPS];
	struct cv_deps_held held = { { 0 }, 0 };
	char id[64];
	int r, already = 0, cuda = 0, ndeps = 0;

	if (a->sha256 == NULL)
		return cached_checksum(a);
	if (!cv_sha256_valid_hex(a->sha256))
		return cmd_usage_error("install",
				       "--sha256 must be 64 hex digits");
	if (a->cuda != NULL && cv_cuda_major_parse(a->cuda, &cuda) < 0)
		return cmd_usage_error("install",
				       "--cuda needs a CUDA major such as 12");
	memset(&art, 0, sizeof art);
	if ((r = archive_artifact(a, cuda, &art, id)) != 0)
		return r;

	if ((r = cmd_need(a->ctx, CMD_STORE_RW)) != 0)
		return r;
	st = a->ctx->st;
	opts.force = a->force;
	opts.even_if_in_use = a->even_if_in_use;
	opts.nowait = cmd_g.nowait;
	opts.waiting = ui_waiting;
	opts.threads = a->jobs ? a->jobs : cfg->threads;
	if (!a->force && cv_store_has(st, id)) {
		note_already(st, id);
		return deps_for_installed(a, id);
	}
	if ((r = ensure_deps(a, &art.version, art.platform, NULL, NULL, 0, deps,
			     &ndeps, &held, &err)) < 0) {
		cv_store_deps_collect(st);
		return cmd_fail(&err);
	}
	opts.deps = deps;
	opts.ndeps = ndeps;
	cv_fetcher_file(&fetch, a->archive);
	prog.inner = fetch;
	prog.done = 0;
	prog.total = art.size;
	wrapped.open = progress_open;
	wrapped.close = progress_close;
	wrapped.arg = &prog;
	r = cv_store_install(st, &art, ui_is_tty() ? &wrapped : &fetch, &opts,
			     &already, &err);
	cv_fetcher_file_free(&fetch);
	cv_deps_release(&held);
	if (r < 0)
		cv_store_deps_collect(st);
	r = r < 0 ? cmd_fail(&err) : installed(cfg, st, id, already, a);
	return r;
}

/* The build a lock names for this machine (or --platform), downloaded
 * from the mirror and held to the lock's sha256 and size: no manifest is
 * read, so a newer build on the mirror changes nothing. */
static int
install_lock_build(struct install_args *a, const struct cv_lock *lk,
		   const char *path)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_config *cfg = &a->ctx->cfg;
	struct cv_remote *rem = NULL;
	struct cv_resolved res;
	struct cv_dep_file locked[CV_MAX_DEPS];
	char platform[32];
	int r, already = 0, nlocked = 0;

	memset(&res, 0, sizeof res);
	if (!a->force && cv_store_has(a->ctx->st, lk->id)) {
		note_already(a->ctx->st, lk->id);
		return 0;
	}
	if ((r = cmd_need(a->ctx, CMD_STORE_RW)) != 0)
		return r;
	if (a->platform != NULL || (cfg->platform && *cfg->platform))
		snprintf(platform, sizeof platform, "%s",
			 a->platform ? a->platform : cfg->platform);
	else if (cv_platform_detect(platform, &err) < 0)
		return cmd_fail(&err);
	catch_sigint();
	if ((r = cv_remote_new(&rem, cfg, a->mirror, &err)) == 0 &&
	    (r = cv_lock_artifact(lk, platform, cv_remote_mirror(rem), &res,
				  &err)) == 0) {
		if (!cmd_g.quiet)
			ui_note("installing %s, which %s locks", lk->id, path);
		cv_lock_deps_files(cv_lock_entry(lk, platform), locked,
				   &nlocked);
		r = deps_then_fetch(a, rem, &res, lk->id, NULL, locked, nlocked,
				    &already, &err);
	}
	r = r < 0 ? cmd_fail(&err)
		  : installed(cfg, a->ctx->st, lk->id, already, a);
	cv_resolved_release(&res);
	cv_remote_free(rem);
	return r;
}

/* --locked and --frozen: only the build the pin's lock names. --locked
 * also needs the lock to lock the pin as it reads now. */
static int
install_from_lock(struct install_args *a, const struct cv_active *act, int r,
		  struct cv_err *err)
{
	struct cv_lock lk;
	char path[4096];

	if (act->origin != CV_ORIGIN_FILE && act->origin != CV_ORIGIN_LOCK)
		return cmd_usage_error(
			"install",
			"--%s installs the build cudnnvm.lock names, and there "
			"is no pin file here (.cudnn-version or .tool-versions "
			"cudnn line) to find it by",
			a->locked ? "locked" : "frozen");
	if (r < 0 && r != CV_ENOTFOUND)
		return cmd_fail(err);
	cv_lock_path(act->file, path);
	*err = (struct cv_err)CV_ERR_INIT;
	r = cv_lock_read(path, &lk, err);
	if (r == CV_ENOTFOUND) {
		cv_err_set(err, CV_ERROR, "no %s beside %s", CV_LOCK_FILE,
			   act->file);
		cv_err_hint(err, "cudnnvm lock");
		return cmd_fail(err);
	}
	if (r < 0)
		return cmd_fail(err);
	if (a->locked && !cv_lock_matches(&lk, &act->version)) {
		cv_err_set(err, CV_ERROR,
			   "%s is stale: it locks %s, %s pins %s", path,
			   lk.spec, act->file, act->spec);
		cv_err_hint(err, "cudnnvm lock");
		return cmd_fail(err);
	}
	return install_lock_build(a, &lk, path);
}

/* `install` with no spec, as pyenv, nvm and mise do: the version chosen
 * for this folder (CUDNNVM_VERSION or the nearest pin file). */
static int
install_pinned(struct install_args *a, char spec[64])
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_active act;
	struct cv_store *st = NULL;
	int r;

	if ((r = cmd_need(a->ctx, CMD_STORE)) != 0)
		return r;
	st = a->ctx->st;
	r = cv_active_resolve(st, NULL, &act, NULL, NULL, &err);
	if (a->locked || a->frozen)
		return install_from_lock(a, &act, r, &err);
	if (r == 0 && act.origin != CV_ORIGIN_GLOBAL && !a->force) {
		note_already(st, act.id);
		return 0;
	}
	if (act.origin == CV_ORIGIN_LOCK) {
		struct cv_lock lk;
		if (cv_lock_read(act.lock, &lk, &err) < 0)
			return cmd_fail(&err);
		return install_lock_build(a, &lk, act.lock);
	}
	if (act.origin != CV_ORIGIN_ENV && act.origin != CV_ORIGIN_FILE) {
		if (r < 0 && act.origin == CV_ORIGIN_NONE &&
		    err.code != CV_ENOTFOUND)
			return cmd_fail(&err);
		return cmd_usage_error(
			"install",
			"which version? no pin file here (.cudnn-version or "
			".tool-versions cudnn line) names one; e.g. 'cudnnvm "
			"install 9'");
	}
	if (r < 0 && r != CV_ENOTFOUND)
		return cmd_fail(&err);
	memcpy(spec, act.spec, sizeof act.spec);
	if (!cmd_g.quiet)
		ui_note("installing %s, the version %s names", spec,
			act.origin == CV_ORIGIN_ENV ? "CUDNNVM_VERSION"
						    : act.file);
	a->spec = spec;
	return install_remote(a);
}

/* --jobs N: 1..CV_MAX_THREADS, else 0. */
static unsigned
parse_jobs(const char *s)
{
	char *end;
	unsigned long n;

	if (*s < '1' || *s > '9')
		return 0;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || n > CV_MAX_THREADS)
		return 0;
	return (unsigned)n;
}

/* The options into *a (install_opts in cmd/table.c); *ind: the first
 * operand. */
static int
parse(int argc, char **argv, struct install_args *a, int *ind)
{
	struct cmd_opts o;
	int c;

	/* --mirror is global (cmd/table.c): every command sees one mirror */
	a->mirror = cmd_g.mirror;
	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0) {
		switch (c) {
		case 'a':
			a->archive = o.arg;
			break;
		case 'x':
			a->sha256 = o.arg;
			break;
		case 'V':
			a->version = o.arg;
			break;
		case 'c':
			a->cuda = o.arg;
			break;
		case 'p':
			a->platform = o.arg;
			break;
		case 'I':
			a->index = o.arg;
			break;
		case 'S':
			a->source = o.arg;
			break;
		case 'f':
			a->force = 1;
			break;
		case 'u':
			a->even_if_in_use = 1;
			break;
		case 'n':
			a->no_validate = 1;
			break;
		case 'r':
			a->refresh = 1;
			break;
		case 'D':
			if (cv_deps_mode_parse(o.arg, &a->deps) < 0)
				return cmd_usage_error(
					"install",
					"--deps takes auto, always or never");
			break;
		case 'L':
			a->locked = 1;
			break;
		case 'k':
			a->keep = 1;
			break;
		case 'F':
			a->frozen = 1;
			break;
		case 'j':
			if ((a->jobs = parse_jobs(o.arg)) == 0)
				return cmd_usage_error(
					"install",
					"--jobs needs a number of threads, 1-%d",
					CV_MAX_THREADS);
			break;
		}
	}
	*ind = o.ind;
	return c < 0 ? o.status : 0;
}

int
cmd_install(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct install_args a;
	char spec[64];
	int r, ind = 1;

	memset(&a, 0, sizeof a);
	a.ctx = ctx;
	a.deps = -1;
	if ((r = parse(argc, argv, &a, &ind)) != 0)
		return r;
	if (a.archive != NULL) {
		if (a.locked || a.frozen)
			return cmd_usage_error(
				"install",
				"--locked and --frozen go with no spec, not "
				"--archive");
		if (a.source != NULL)
			return cmd_usage_error(
				"install",
				"--source goes with <spec>, not --archive");
		if (ind != argc)
			return cmd_usage_error(
				"install",
				"give either <spec> or --archive FILE, not both");
		return install_archive(&a);
	}
	if (ind + 1 < argc)
		return cmd_usage_error("install", "give one spec");
	if ((a.locked || a.frozen) && (ind != argc || a.source != NULL))
		return cmd_usage_error("install",
				       "--locked and --frozen install the "
				       "build the pin's cudnnvm.lock names: "
				       "give no spec or --source");
	if (a.locked && a.frozen)
		return cmd_usage_error("install",
				       "give --locked or --frozen, not both");
	if (a.sha256 != NULL || a.version != NULL)
		return cmd_usage_error(
			"install",
			"--sha256 and --version go with --archive FILE");
	if (ind == argc)
		return install_pinned(&a, spec);
	a.spec = argv[ind];
	return install_remote(&a);
}
