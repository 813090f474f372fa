/* run.c: the install use case, one entry for every form of `install`: a
 * spec resolved on a source (NVIDIA's mirror or a package index, each a
 * row of the backend table below), a local archive, or the build a lock
 * names. Each form ends in the same steps: what the build loads beside
 * itself (cv_deps_ensure), then the verified download and install, with
 * one retry of a damaged cached download and the source named in a data
 * error, then the collection of dependencies nothing needs after a
 * failure. What the user sees goes through struct cv_ui: lib
 * never prints. */
#include "install/install_int.h"
#include "python/python.h"
#include "release/release.h"
#include "store/store.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One run of cv_install_run: what every step below reads. */
struct cv_install_run {
	struct cv_store *st;
	const struct cv_config *cfg;
	const struct cv_install_request *req;
	const struct cv_ui *ui;
};

static int install_archive(const struct cv_install_run *run,
			   struct cv_install_result *res, struct cv_err *err);

static void say(const struct cv_ui *ui, int kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void
say(const struct cv_ui *ui, int kind, const char *fmt, ...)
{
	va_list ap;
	char *text;

	if (ui == NULL || ui->say == NULL)
		return;
	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	ui->say(ui->payload, kind, text);
	free(text);
}

/* A usage error: the request itself cannot be installed as given. */
static int
usage(struct cv_install_result *res, struct cv_err *err, const char *text)
{
	res->usage = 1;
	return cv_err_set(err, CV_EUSAGE, "%s", text);
}

static void
opts_of(const struct cv_install_run *run, struct cv_install_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->force = run->req->force;
	opts->even_if_in_use = run->req->even_if_in_use;
	opts->nowait = run->req->nowait;
	opts->waiting = run->ui ? run->ui->waiting : NULL;
	opts->payload = run->ui ? run->ui->payload : NULL;
	opts->threads = run->req->jobs ? run->req->jobs : run->cfg->threads;
}

/* The version is here already: nothing is fetched. */
static void
already_here(const struct cv_install_run *run, struct cv_install_result *res)
{
	char *dir = cv_store_dir(run->st, res->id);

	res->already = 1;
	say(run->ui, CV_SAY_NOTE, "cuDNN %s is already installed in %s",
	    res->id, dir);
	free(dir);
}

/* [install] keep_archives, raised to yes by --keep */
static int
keep_of(const struct cv_install_run *run)
{
	int keep = run->cfg->keep_archives;

	return run->req->keep && keep == CV_KEEP_NO ? CV_KEEP_YES : keep;
}

/* ---- what a build loads beside itself ------------------------------------ */

/* What the dependencies' downloads show: payload of cv_deps_req. */
struct deps_view {
	const struct cv_ui *ui;
	/* one display shows the downloads side by side: the cuDNN archive's
	 * own open then adds none */
	int group_shown;
};

static void
dep_fetching(void *payload, const struct cv_dep *dep,
	     const struct cv_artifact *art)
{
	const struct deps_view *view = payload;

	char size[32];

	/* before a byte of it comes: what, why, how big, and how not to */
	if (view->ui != NULL && view->ui->size != NULL)
		view->ui->size(size, sizeof size, art->size);
	else
		snprintf(size, sizeof size, "%llu bytes",
			 (unsigned long long)art->size);
	say(view->ui, CV_SAY_NOTE,
	    "cuDNN loads %s %s (CUDA %d) beside itself: downloading %s (%s) "
	    "into the store first (--deps never skips it)",
	    dep->name, dep->version, dep->cuda, art->filename, size);
}

/* cuBLAS's own channel could not answer: one line, and on it goes. */
static void
dep_fallback(void *payload, const char *why)
{
	const struct deps_view *view = payload;

	say(view->ui, CV_SAY_NOTE,
	    "%s; cuBLAS comes from the CUDA redist tree instead", why);
}

/* The downloads of the dependencies and of the cuDNN archive all run:
 * one line and one bar for them together. */
static void
deps_downloading(void *payload, struct cv_download_group *g)
{
	struct deps_view *view = payload;
	const struct cv_ui *ui = view->ui;
	uint64_t total = cv_download_group_total(g);

	if (ui == NULL || ui->watch == NULL)
		return;
	say(ui, CV_SAY_NOTE,
	    "downloading them side by side with cuDNN (%.1f MB in all)",
	    (double)total / 1e6);
	ui->watch(ui->payload, cv_download_group_received, g, total, NULL);
	view->group_shown = 1;
}

/* What build `v` loads beside itself, found or installed (cv_deps_ensure);
 * the use locks in *held stay until the version is published. `beside`:
 * the cuDNN archive's download, started with theirs; `group`: the display
 * they share (both may be NULL). */
static int
ensure_deps(const struct cv_install_run *run, const struct cv_version *v,
	    const char *platform, const char *pypi_index,
	    const struct cv_dep_file *locked, int nlocked,
	    struct cv_dep deps[CV_MAX_DEPS], int *ndeps,
	    struct cv_deps_held *held, struct cv_download *beside,
	    struct cv_download_group *group, struct deps_view *view,
	    struct cv_err *err)
{
	const struct cv_install_request *rq = run->req;
	struct cv_deps_req req;
	int r;

	memset(&req, 0, sizeof req);
	req.st = run->st;
	req.cfg = run->cfg;
	/* --mirror names NVIDIA's redist mirror only (--index the index) */
	req.cudnn_mirror = rq->mirror;
	req.version = v;
	req.pypi_index = pypi_index;
	req.locked = locked;
	req.nlocked = nlocked;
	req.platform = platform;
	req.mode = rq->deps >= 0 ? rq->deps : run->cfg->deps;
	req.refresh = rq->refresh;
	req.offline = rq->what == CV_INSTALL_ARCHIVE;
	req.keep_archives = keep_of(run);
	opts_of(run, &req.opts);
	req.fetching = dep_fetching;
	req.beside = beside;
	req.group = group;
	req.downloading = deps_downloading;
	req.fallback = dep_fallback;
	req.payload = view;
	r = cv_deps_ensure(&req, deps, ndeps, held, err);
	if ((r == CV_ECONFIG || r == CV_ENOTFOUND || r == CV_ENETWORK) &&
	    req.mode == CV_DEPS_AUTO) {
		/* not to be had here (no CUDA tree, offline): the cuDNN is
		 * still worth having (a toolkit may come later), and
		 * validation names what it lacks; bad bytes are an error */
		char id[64];
		cv_version_format_id(v, id, sizeof id);
		say(run->ui, CV_SAY_WARN,
		    "%s; cuDNN %s will not run until it is found", err->msg,
		    id);
		say(run->ui, CV_SAY_HINT, "cudnnvm install %s --deps always",
		    id);
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
deps_for_installed(const struct cv_install_run *run, const char *id,
		   struct cv_install_result *res, struct cv_err *err)
{
	const struct cv_install_request *rq = run->req;
	struct cv_installed inst;
	struct cv_deps_held held;
	struct deps_view view = { run->ui, 0 };
	const char *index;
	int r;

	if (rq->deps < 0 || rq->deps == CV_DEPS_NEVER ||
	    !cv_store_has_own(run->st, id) ||
	    cv_store_get(run->st, id, &inst, NULL) < 0)
		return 0;
	/* a wheel's dependencies from the same index, when one is set */
	if (strcmp(inst.origin, "pypi") != 0 ||
	    cv_pypi_index(run->cfg, rq->index, &index, NULL) < 0)
		index = NULL;
	if ((r = ensure_deps(run, &inst.version, inst.platform, index, NULL, 0,
			     res->deps, &res->ndeps, &held, NULL, NULL, &view,
			     err)) == 0)
		r = cv_store_set_deps(run->st, id, res->deps, res->ndeps, err);
	cv_deps_release(&held);
	if (r == 0)
		res->deps_added = 1;
	return r;
}

/* ---- the verified download ----------------------------------------------- */

/* The download's fetcher, wrapped so that the user sees what is fetched
 * only once the install opens it: a version already here (in this store
 * or the system's) and a verified archive in the cache fetch nothing and
 * show nothing. */
struct shown_fetch {
	struct cv_fetcher inner;
	struct cv_download *dl;
	const struct cv_resolved *res;
	const struct cv_ui *ui;
	const int *group_shown; /* the downloads show as one already */
};

static int
shown_open(void *arg, struct cv_source *src, struct cv_err *err)
{
	struct shown_fetch *w = arg;
	const char *file = w->res->art.filename, *slash;
	char *host;
	int r = w->inner.open(w->inner.arg, src, err);

	if (r < 0 || w->ui == NULL || w->ui->download == NULL ||
	    !cv_download_fetching(w->dl) || *w->group_shown)
		return r;
	slash = strrchr(w->res->url, '/');
	if (!*file && slash != NULL)
		file = slash + 1;
	host = cv_url_host(w->res->url);
	if (w->ui->progress != NULL)
		cv_download_progress(w->dl, w->ui->progress, w->ui->payload);
	w->ui->download(w->ui->payload, file, w->res->art.size);
	if (w->ui->watch != NULL)
		w->ui->watch(w->ui->payload, cv_download_received, w->dl,
			     w->res->art.size, host);
	free(host);
	return r;
}

static void
progress_done(const struct cv_ui *ui)
{
	if (ui != NULL && ui->progress_done != NULL)
		ui->progress_done(ui->payload);
}

static void
shown_close(void *arg, int ok)
{
	struct shown_fetch *w = arg;

	w->inner.close(w->inner.arg, ok);
	progress_done(w->ui);
}

static uint64_t
shown_size(void *arg)
{
	struct shown_fetch *w = arg;

	return w->inner.size ? w->inner.size(w->inner.arg) : 0;
}

/* Download, verify and install res in one pass (through `first`, its
 * download started already, when not NULL: freed here). A damaged cached
 * download is dropped and fetched once more. */
static int
fetch_install(const struct cv_install_run *run, struct cv_remote *rem,
	      const struct cv_resolved *res, const char *id,
	      const struct cv_dep *deps, int ndeps, struct cv_download *first,
	      const int *group_shown, int *already, struct cv_err *err)
{
	struct cv_install_opts opts;
	struct cv_download *dl = NULL;
	struct shown_fetch shown;
	struct cv_fetcher fetch;
	int r;

	opts_of(run, &opts);
	opts.deps = deps;
	opts.ndeps = ndeps;
	for (int attempt = 0;; attempt++) {
		if (attempt == 0 && first != NULL)
			dl = first;
		else if ((r = cv_download_new(&dl, rem, &res->art, res->url,
					      cv_store_cache_dir(run->st),
					      keep_of(run), err)) < 0)
			return r;
		cv_download_fetcher(dl, &shown.inner);
		shown.dl = dl;
		shown.res = res;
		shown.ui = run->ui;
		shown.group_shown = group_shown;
		fetch.open = shown_open;
		fetch.close = shown_close;
		fetch.arg = &shown;
		fetch.size = shown.inner.size ? shown_size : NULL;
		r = cv_store_install(run->st, &res->art, &fetch, &opts, already,
				     err);
		progress_done(run->ui);
		if (!(r == CV_EDATA && cv_download_used_cache(dl) &&
		      attempt == 0))
			break;
		/* spliced or damaged cache: one clean retry */
		cv_download_discard(dl);
		cv_download_free(dl);
		dl = NULL;
		say(run->ui, CV_SAY_WARN,
		    "the cached download of %s was damaged; downloading it "
		    "again",
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

/* What res loads beside it (locked[0..nlocked) from a lock), then res
 * itself; a failure leaves no dependency that nothing needs. */
static int
deps_then_fetch(const struct cv_install_run *run, struct cv_remote *rem,
		const struct cv_resolved *res, const char *id,
		const char *pypi_index, const struct cv_dep_file *locked,
		int nlocked, int *already, struct cv_err *err)
{
	struct cv_dep deps[CV_MAX_DEPS];
	struct cv_deps_held held = { { 0 }, 0 };
	struct deps_view view = { run->ui, 0 };
	struct cv_download *dl = NULL;
	struct cv_download_group *group = cv_download_group_new();
	int r, ndeps = 0;

	/* its download starts beside its dependencies' (any error of the
	 * kind shows again when fetch_install opens it) */
	if (cv_download_new(&dl, rem, &res->art, res->url,
			    cv_store_cache_dir(run->st), keep_of(run),
			    NULL) < 0)
		dl = NULL;
	if ((r = ensure_deps(run, &res->art.version, res->art.platform,
			     pypi_index, locked, nlocked, deps, &ndeps, &held,
			     dl, group, &view, err)) == 0)
		r = fetch_install(run, rem, res, id, deps, ndeps, dl,
				  &view.group_shown, already, err);
	else {
		progress_done(run->ui);
		cv_download_free(dl);
	}
	cv_download_group_free(group);
	cv_deps_release(&held);
	if (r < 0)
		cv_store_deps_collect(run->st);
	return r;
}

/* ---- the sources ----------------------------------------------------------
 * One row per source: how to reach it (`from` names it to the user, and
 * what it is waited for), the artifact a spec names there, and the builds
 * list-remote shows; the resolver and the lister of a row both walk the
 * source's releases through the one ranking walk (rank.c), fed by that
 * source's own walk of them (cv_mirror_walk_next, cv_wheel_walk_next). */
struct source_backend {
	int source; /* enum cv_source_kind */
	const char *(*from)(const struct cv_install_run *run);
	int (*resolve)(const struct cv_install_run *run,
		       const struct cv_resolve_req *req, struct cv_remote **rem,
		       struct cv_index **ix, struct cv_resolved *res,
		       struct cv_err *err);
	/* the package index a build's dependencies come from, or NULL */
	const char *(*deps_index)(struct cv_remote *rem);
	int (*builds)(const struct cv_config *cfg, const struct cv_store *st,
		      const struct cv_builds_req *req, int *bad,
		      struct cv_err *err);
};

static const char *
nvidia_from(const struct cv_install_run *run)
{
	return run->req->mirror ? run->req->mirror : run->cfg->mirror;
}

static int
nvidia_resolve(const struct cv_install_run *run,
	       const struct cv_resolve_req *req, struct cv_remote **rem,
	       struct cv_index **ix, struct cv_resolved *res,
	       struct cv_err *err)
{
	/* `latest` asks what is newest now: a day-old listing would say
	 * a release already here is the newest */
	int latest = req->spec == NULL || req->spec->nparts == 0, r;

	if ((r = cv_remote_new(rem, run->cfg, run->req->mirror, err)) < 0 ||
	    (r = cv_index_open(ix, *rem, cv_store_cache_dir(run->st),
			       run->req->refresh || latest, err)) < 0)
		return r;
	return cv_resolve_fresh(ix, req, res, err);
}

static const char *
nvidia_deps_index(struct cv_remote *rem)
{
	(void)rem;
	return NULL;
}

static const char *
pypi_from(const struct cv_install_run *run)
{
	const char *index;

	if (cv_pypi_index(run->cfg, run->req->index, &index, NULL) < 0)
		return nvidia_from(run);
	return index;
}

static int
pypi_resolve(const struct cv_install_run *run, const struct cv_resolve_req *req,
	     struct cv_remote **rem, struct cv_index **ix,
	     struct cv_resolved *res, struct cv_err *err)
{
	const char *index;
	int r;

	(void)ix;
	/* the same id from a wheel is the same version: the download, the
	 * hash in the stream and the publish are the archive's */
	if ((r = cv_pypi_index(run->cfg, run->req->index, &index, err)) < 0 ||
	    (r = cv_remote_new_index(rem, run->cfg, index, err)) < 0)
		return r;
	return cv_pypi_resolve(*rem, cv_remote_mirror(*rem), req, res, err);
}

static const char *
pypi_deps_index(struct cv_remote *rem)
{
	return cv_remote_mirror(rem);
}

/* an index has no manifests that could be skipped */
static int
pypi_builds(const struct cv_config *cfg, const struct cv_store *st,
	    const struct cv_builds_req *req, int *bad, struct cv_err *err)
{
	*bad = 0;
	return cv_builds_pypi(cfg, st, req, err);
}

static const struct source_backend backends[] = {
	{ CV_SOURCE_NVIDIA, nvidia_from, nvidia_resolve, nvidia_deps_index,
	  cv_builds_nvidia },
	{ CV_SOURCE_PYPI, pypi_from, pypi_resolve, pypi_deps_index,
	  pypi_builds },
};

static const struct source_backend *
backend_of(int source)
{
	for (size_t i = 0; i < sizeof backends / sizeof *backends; i++)
		if (backends[i].source == source)
			return &backends[i];
	return &backends[0];
}

int
cv_builds(int source, const struct cv_config *cfg, const struct cv_store *st,
	  const struct cv_builds_req *req, int *bad, struct cv_err *err)
{
	return backend_of(source)->builds(cfg, st, req, bad, err);
}

/* ---- the forms ----------------------------------------------------------- */

/* A spec resolved on its source, then downloaded, verified, installed. */
static int
install_spec(const struct cv_install_run *run, struct cv_install_result *res,
	     struct cv_err *err)
{
	const struct cv_install_request *rq = run->req;
	const struct source_backend *be = backend_of(rq->source);
	struct cv_remote *rem = NULL;
	struct cv_index *ix = NULL;
	struct cv_resolved found;
	struct cv_resolve_req req;
	struct cv_version spec;
	char *host;
	int r;

	if ((r = cv_spec_parse(&spec, rq->spec, err)) < 0)
		return r;
	/* A full install id already here (its CUDA major in the spec or
	 * from --cuda) needs no network at all. */
	if (!rq->force && spec.nparts == 4 && (spec.cuda || rq->cuda)) {
		struct cv_version full = spec;
		full.cuda = spec.cuda ? spec.cuda : rq->cuda;
		cv_version_format_id(&full, res->id, sizeof res->id);
		if (cv_store_has(run->st, res->id)) {
			already_here(run, res);
			return deps_for_installed(run, res->id, res, err);
		}
	}
	memset(&found, 0, sizeof found);
	memset(&req, 0, sizeof req);
	req.spec = &spec;
	req.cuda = rq->cuda ? rq->cuda : run->cfg->cuda;
	req.platform = rq->platform ? rq->platform : run->cfg->platform;
	req.any_gpu = rq->force;
	host = cv_url_host(be->from(run));
	if (run->ui != NULL && run->ui->wait_begin != NULL)
		run->ui->wait_begin(run->ui->payload, host);
	free(host);
	r = be->resolve(run, &req, &rem, &ix, &found, err);
	if (run->ui != NULL && run->ui->wait_end != NULL)
		run->ui->wait_end(run->ui->payload);
	if (r == 0) {
		cv_version_format_id(&found.art.version, res->id,
				     sizeof res->id);
		if (rq->verbose)
			say(run->ui, CV_SAY_NOTE,
			    "%s resolves to cuDNN %s for %s: %s (%llu bytes, "
			    "sha256 %s)",
			    rq->spec, res->id, found.art.platform, found.url,
			    (unsigned long long)found.art.size,
			    found.art.sha256);
		if (cv_store_has(run->st, res->id) && !rq->force)
			already_here(run, res);
		else if ((r = deps_then_fetch(run, rem, &found, res->id,
					      be->deps_index(rem), NULL, 0,
					      &res->already, err)) == 0 &&
			 res->already)
			already_here(run, res);
	}
	if (r == 0 && res->already)
		r = deps_for_installed(run, res->id, res, err);
	cv_resolved_release(&found);
	cv_index_free(ix);
	cv_remote_free(rem);
	return r;
}

/* The build a lock names for this machine (or --platform), downloaded
 * from the mirror and held to the lock's sha256 and size: no manifest is
 * read, so a newer build on the mirror changes nothing. */
static int
install_locked(const struct cv_install_run *run, struct cv_install_result *res,
	       struct cv_err *err)
{
	const struct cv_install_request *rq = run->req;
	const struct cv_lock *lk = rq->lock;
	struct cv_remote *rem = NULL;
	struct cv_resolved found;
	struct cv_dep_file locked[CV_MAX_DEPS];
	char platform[32];
	int r, nlocked = 0;

	memset(&found, 0, sizeof found);
	snprintf(res->id, sizeof res->id, "%s", lk->id);
	if (!rq->force && cv_store_has(run->st, lk->id)) {
		already_here(run, res);
		return 0;
	}
	if (rq->platform != NULL || (run->cfg->platform && *run->cfg->platform))
		snprintf(platform, sizeof platform, "%s",
			 rq->platform ? rq->platform : run->cfg->platform);
	else if ((r = cv_platform_detect(platform, err)) < 0)
		return r;
	if ((r = cv_remote_new(&rem, run->cfg, rq->mirror, err)) == 0 &&
	    (r = cv_lock_artifact(lk, platform, cv_remote_mirror(rem), &found,
				  err)) == 0) {
		say(run->ui, CV_SAY_NOTE, "installing %s, which %s locks",
		    lk->id, rq->lock_path);
		cv_lock_deps_files(cv_lock_entry(lk, platform), locked,
				   &nlocked);
		r = deps_then_fetch(run, rem, &found, lk->id, NULL, locked,
				    nlocked, &res->already, err);
		if (r == 0 && res->already)
			already_here(run, res);
	}
	cv_resolved_release(&found);
	cv_remote_free(rem);
	return r;
}

/* --layout easybuild: EESSI may not redistribute cuDNN, so each site
 * copies it into host_injections, having accepted NVIDIA's licence. */
static int
layout_check(const struct cv_install_request *req,
	     struct cv_install_result *res, struct cv_err *err)
{
	if (req->layout == NULL && req->layout_prefix == NULL &&
	    !req->accept_eula)
		return 0;
	if (req->layout == NULL || strcmp(req->layout, "easybuild") != 0)
		return usage(res, err,
			     "--prefix and --accept-eula go with --layout "
			     "easybuild");
	if (req->layout_prefix == NULL || *req->layout_prefix == '\0')
		return usage(res, err,
			     "--layout easybuild needs --prefix DIR (EESSI's "
			     "host_injections folder)");
	if (req->what == CV_INSTALL_ARCHIVE)
		return usage(res, err,
			     "--layout easybuild goes with <spec> or the pin, "
			     "not --archive");
	if (req->accept_eula)
		return 0;
	cv_err_set(err, CV_EUSAGE,
		   "installing cuDNN for EESSI needs --accept-eula: NVIDIA's "
		   "licence does not let EESSI redistribute cuDNN, so each "
		   "site installs it and accepts the licence (the LICENSE "
		   "file the build carries) itself");
	return cv_err_hint(err,
			   "cudnnvm install %s --prefix %s --layout easybuild "
			   "--accept-eula",
			   req->spec ? req->spec : "", req->layout_prefix);
}

/* After the install: the tree under the layout's prefix. */
static int
layout_copy(const struct cv_install_run *run, struct cv_install_result *res,
	    struct cv_err *err)
{
	char *where = NULL;
	int r;

	if (run->req->layout == NULL)
		return 0;
	r = cv_easybuild_install(run->st, res->id, run->req->layout_prefix,
				 run->req->force, &where, err);
	if (r == 0)
		say(run->ui, CV_SAY_NOTE, "copied cuDNN %s for EESSI into %s",
		    res->id, where);
	free(where);
	return r;
}

int
cv_install_run(struct cv_store *st, const struct cv_config *cfg,
	       const struct cv_install_request *req, const struct cv_ui *ui,
	       struct cv_install_result *res, struct cv_err *err)
{
	struct cv_install_run run = { st, cfg, req, ui };
	int r;

	memset(res, 0, sizeof *res);
	if ((r = layout_check(req, res, err)) < 0)
		return r;
	switch (req->what) {
	case CV_INSTALL_SPEC:
		r = install_spec(&run, res, err);
		break;
	case CV_INSTALL_LOCK:
		r = install_locked(&run, res, err);
		break;
	case CV_INSTALL_ARCHIVE:
		r = install_archive(&run, res, err);
		break;
	default:
		return usage(res, err, "nothing to install");
	}
	return r < 0 ? r : layout_copy(&run, res, err);
}

/* ---- a local archive ------------------------------------------------------
 */

/* The version and CUDA major of the archive: what its name says (an
 * NVIDIA archive or wheel), overridden by the request's version. */
static int
archive_version(const struct cv_install_request *rq, struct cv_artifact *named,
		struct cv_version *version, struct cv_install_result *res,
		struct cv_err *err)
{
	int r;

	memset(named, 0, sizeof *named);
	if (cv_wheel_from_filename(named, rq->archive) == 0) {
		/* one of NVIDIA's wheels, e.g. from a pip cache */
	} else if ((r = cv_artifact_from_filename(named, rq->archive, err)) <
		   0) {
		if (rq->version == NULL || rq->cuda == 0)
			return r;
		*err = (struct cv_err)CV_ERR_INIT;
		memset(named, 0, sizeof *named);
	}
	*version = named->version;
	if (rq->version != NULL) {
		if ((r = cv_version_parse(version, rq->version, err)) < 0)
			return r;
		if (version->nparts != 4)
			return usage(res, err,
				     "--version needs the full archive "
				     "version, e.g. 9.13.0.50");
		if (version->cuda == 0)
			version->cuda = named->version.cuda;
	}
	return 0;
}

/* Progress of a local archive: the file fetcher wrapped to count bytes
 * (read on the install's reading thread). */
struct progress {
	struct cv_fetcher inner;
	struct cv_source src;
	uint64_t done, total;
	const struct cv_ui *ui;
};

static ssize_t
progress_read(void *ctx, const void **buf, struct cv_err *err)
{
	struct progress *p = ctx;
	ssize_t n = p->src.read(p->src.ctx, buf, err);

	if (n > 0) {
		p->done += (uint64_t)n;
		p->ui->progress(p->ui->payload, p->done, p->total);
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
	progress_done(p->ui);
}

/* The artifact the archive installs: its name, the request and the
 * checksum (given, or from a manifest an earlier list-remote or install
 * cached). */
static int
archive_artifact(const struct cv_install_run *run, struct cv_artifact *art,
		 struct cv_install_result *res, struct cv_err *err)
{
	const struct cv_install_request *rq = run->req;
	struct cv_artifact named;
	struct cv_version version;
	char sha[65], from[4096];
	const char *sha256 = rq->sha256;
	int r;

	if (sha256 == NULL) {
		if (!cv_manifest_cached_sha256(cv_store_cache_dir(run->st),
					       rq->archive, sha, from))
			return usage(res, err,
				     "--archive needs --sha256 HEX (the "
				     "archive's published checksum; no cached "
				     "manifest lists this file name)");
		say(run->ui, CV_SAY_NOTE,
		    "sha256 %s, from the cached manifest %s", sha, from);
		sha256 = sha;
	}
	memset(&version, 0, sizeof version);
	if ((r = archive_version(rq, &named, &version, res, err)) != 0)
		return r;
	if (rq->cuda)
		version.cuda = rq->cuda;
	if (version.cuda == 0)
		return usage(res, err, "pass --cuda N for this archive");
	if ((r = cv_local_archive(rq->archive, &version, rq->platform, &named,
				  sha256, art, err)) < 0)
		return r;
	cv_version_format_id(&art->version, res->id, sizeof res->id);
	return 0;
}

static int
install_archive(const struct cv_install_run *run, struct cv_install_result *res,
		struct cv_err *err)
{
	struct cv_install_opts opts;
	struct cv_artifact art;
	struct cv_fetcher fetch, wrapped;
	struct progress prog;
	struct cv_dep deps[CV_MAX_DEPS];
	struct cv_deps_held held = { { 0 }, 0 };
	struct deps_view view = { run->ui, 0 };
	int r, ndeps = 0;

	memset(&art, 0, sizeof art);
	if ((r = archive_artifact(run, &art, res, err)) != 0)
		return r;
	if (!run->req->force && cv_store_has(run->st, res->id)) {
		already_here(run, res);
		return deps_for_installed(run, res->id, res, err);
	}
	if ((r = ensure_deps(run, &art.version, art.platform, NULL, NULL, 0,
			     deps, &ndeps, &held, NULL, NULL, &view, err)) <
	    0) {
		cv_store_deps_collect(run->st);
		return r;
	}
	opts_of(run, &opts);
	opts.deps = deps;
	opts.ndeps = ndeps;
	cv_fetcher_file(&fetch, run->req->archive);
	prog.inner = fetch;
	prog.done = 0;
	prog.total = art.size;
	prog.ui = run->ui;
	wrapped.open = progress_open;
	wrapped.close = progress_close;
	wrapped.arg = &prog;
	wrapped.size = NULL;
	r = cv_store_install(run->st, &art,
			     run->ui != NULL && run->ui->progress != NULL
				     ? &wrapped
				     : &fetch,
			     &opts, &res->already, err);
	if (r == 0 && res->already)
		already_here(run, res);
	cv_fetcher_file_free(&fetch);
	cv_deps_release(&held);
	if (r < 0)
		cv_store_deps_collect(run->st);
	return r;
}

/* ---- no spec: the pin here ------------------------------------------------
 */

/* --locked and --frozen: only the build the pin's lock names. --locked
 * also needs the lock to lock the pin as it reads now. */
static int
pinned_lock(const struct cv_install_request *req, const struct cv_active *act,
	    int r, struct cv_install_pin *pin, struct cv_install_result *res,
	    struct cv_err *err)
{
	if (act->origin != CV_ORIGIN_FILE && act->origin != CV_ORIGIN_LOCK) {
		*err = (struct cv_err)CV_ERR_INIT;
		return usage(res, err,
			     req->locked ? "--locked installs the build "
					   "cudnnvm.lock names, and there is "
					   "no pin file here (.cudnn-version "
					   "or .tool-versions cudnn line) to "
					   "find it by"
					 : "--frozen installs the build "
					   "cudnnvm.lock names, and there is "
					   "no pin file here (.cudnn-version "
					   "or .tool-versions cudnn line) to "
					   "find it by");
	}
	if (r < 0 && r != CV_ENOTFOUND)
		return r;
	cv_lock_path(act->file, pin->lock_path);
	*err = (struct cv_err)CV_ERR_INIT;
	r = cv_lock_read(pin->lock_path, &pin->lock, err);
	if (r == CV_ENOTFOUND) {
		cv_err_set(err, CV_ERROR, "no %s beside %s", CV_LOCK_FILE,
			   act->file);
		return cv_err_hint(err, "cudnnvm lock");
	}
	if (r < 0)
		return r;
	if (req->locked && !cv_lock_matches(&pin->lock, &act->version)) {
		cv_err_set(
			err, CV_ERROR, "%s is stale: it locks %s, %s pins %s",
			pin->lock_path, pin->lock.spec, act->file, act->spec);
		return cv_err_hint(err, "cudnnvm lock");
	}
	pin->what = CV_INSTALL_LOCK;
	return 0;
}

int
cv_install_pinned(const struct cv_store *st,
		  const struct cv_install_request *req,
		  struct cv_install_pin *pin, struct cv_install_result *res,
		  struct cv_err *err)
{
	struct cv_active act;
	int r;

	memset(pin, 0, sizeof *pin);
	memset(res, 0, sizeof *res);
	r = cv_active_resolve(st, NULL, &act, NULL, NULL, err);
	if (req->locked || req->frozen)
		return pinned_lock(req, &act, r, pin, res, err);
	/* a layout's tree is made even of a version installed already */
	if (r == 0 && act.origin != CV_ORIGIN_GLOBAL && !req->force &&
	    req->layout == NULL) {
		snprintf(res->id, sizeof res->id, "%s", act.id);
		res->already = 1;
		return 1;
	}
	if (act.origin == CV_ORIGIN_LOCK) {
		snprintf(pin->lock_path, sizeof pin->lock_path, "%s", act.lock);
		if ((r = cv_lock_read(act.lock, &pin->lock, err)) < 0)
			return r;
		pin->what = CV_INSTALL_LOCK;
		return 0;
	}
	if (act.origin != CV_ORIGIN_ENV && act.origin != CV_ORIGIN_FILE) {
		if (r < 0 && act.origin == CV_ORIGIN_NONE &&
		    err->code != CV_ENOTFOUND)
			return r;
		*err = (struct cv_err)CV_ERR_INIT;
		return usage(res, err,
			     "which version? no pin file here (.cudnn-version "
			     "or .tool-versions cudnn line) names one; e.g. "
			     "'cudnnvm install 9'");
	}
	if (r < 0 && r != CV_ENOTFOUND)
		return r;
	*err = (struct cv_err)CV_ERR_INIT;
	memcpy(pin->spec, act.spec, sizeof act.spec);
	snprintf(pin->named_by, sizeof pin->named_by, "%s",
		 act.origin == CV_ORIGIN_ENV ? "CUDNNVM_VERSION" : act.file);
	pin->what = CV_INSTALL_SPEC;
	return 0;
}
