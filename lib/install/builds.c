/* builds.c: walk what a source offers, release by release, for
 * list-remote: which builds there are and which are installed. */
#include "base/base.h"
#include "install/install_int.h"
#include "machine/machine.h"
#include "release/release.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when a release of the listing may match spec (its name may be
 * shorter or longer than the spec). */
static int
lists(const struct cv_index *ix, const struct cv_version *spec)
{
	for (size_t i = 0; i < cv_index_count(ix); i++) {
		const struct cv_version *name = cv_index_version(ix, i);
		if (cv_version_matches(spec, name) ||
		    cv_version_matches(name, spec))
			return 1;
	}
	return 0;
}

/* The compute capability release v needs when this GPU lacks it, else 0. */
static int
needs_arch(const struct cv_version *v)
{
	char why[256];

	return cv_machine_arch_fits(v, why, sizeof why) == 0
		       ? cv_machine_cudnn_min_arch(v)
		       : 0;
}

/* What the listers' visitors read beside the build they are given. */
struct wheel_view {
	const struct cv_store *st;
	const struct cv_builds_req *req;
	const struct cv_wheel_walk *ww;
};

static int
wheel_build(void *arg, const struct cv_candidate *c, int k)
{
	const struct wheel_view *view = arg;
	const struct cv_wheel *w = &view->ww->w[c->at];
	struct cv_build b;

	(void)k;
	memset(&b, 0, sizeof b);
	cv_version_format_id(&w->version, b.id, sizeof b.id);
	cv_version_format(&w->version, b.version, sizeof b.version);
	b.cuda = w->version.cuda;
	b.platform = w->platform;
	b.size = w->size;
	b.sha256 = w->sha256;
	b.url = w->url;
	b.installed = cv_store_has(view->st, b.id);
	b.fits = cv_machine_fits(&w->version, b.cuda, b.fit_reason,
				 sizeof b.fit_reason);
	b.needs_arch = needs_arch(&w->version);
	return view->req->build(view->req->arg, &b);
}

int
cv_builds_pypi(const struct cv_config *cfg, const struct cv_store *st,
	       const struct cv_builds_req *req, struct cv_err *err)
{
	struct cv_remote *rem = NULL;
	struct cv_wheel *w = NULL;
	size_t n = 0;
	int shown = 0, r = 0;
	const char *index;

	if ((r = cv_pypi_index(cfg, req->from, &index, err)) < 0 ||
	    (r = cv_remote_new_index(&rem, cfg, index, err)) < 0 ||
	    (r = cv_pypi_list(rem, cv_remote_mirror(rem), req->cuda,
			      req->platform, &w, &n, err)) < 0)
		goto out;
	{
		struct cv_wheel_walk ww = { w, n, 0, NULL, NULL, NULL, 0, 0 };
		struct cv_rank_source src = { cv_wheel_walk_next, &ww };
		struct cv_rank_req rq = { .spec = req->spec };
		struct wheel_view view = { st, req, &ww };
		int stopped;

		shown = cv_rank_each(&src, &rq, wheel_build, &view, &stopped,
				     err);
	}
	r = shown;
out:
	cv_wheels_free(w, n);
	cv_remote_free(rem);
	return r;
}

struct mirror_view {
	const struct cv_remote *rem;
	const struct cv_store *st;
	const struct cv_builds_req *req;
	const struct cv_mirror_walk *mw;
	int *bad;
};

/* One build of a release, as list-remote shows it. */
static int
mirror_build(void *arg, const struct cv_candidate *c, int k)
{
	const struct mirror_view *view = arg;
	const struct cv_manifest *m = &view->mw->m;
	const struct cv_release_file *f;
	struct cv_version v = m->version;
	struct cv_build b;
	char *url;
	int stop;

	f = cv_manifest_find(m, view->req->platform, c->cuda[k]);
	memset(&b, 0, sizeof b);
	v.cuda = c->cuda[k];
	cv_version_format_id(&v, b.id, sizeof b.id);
	cv_version_format(&m->version, b.version, sizeof b.version);
	url = cv_manifest_url(cv_remote_mirror(view->rem), f->relative_path);
	b.release = m->label;
	b.cuda = v.cuda;
	b.platform = view->req->platform;
	b.size = f->size;
	b.sha256 = f->sha256;
	b.url = url;
	b.installed = cv_store_has(view->st, b.id);
	b.fits = cv_machine_fits(&m->version, b.cuda, b.fit_reason,
				 sizeof b.fit_reason);
	b.needs_arch = needs_arch(&m->version);
	stop = view->req->build(view->req->arg, &b);
	free(url);
	return stop;
}

/* A manifest that cannot be read: said, and the others still listed. */
static void
mirror_skipped(void *arg, const struct cv_err *merr)
{
	const struct mirror_view *view = arg;

	view->req->skipped(view->req->arg, merr);
	if (!*view->bad || merr->code == CV_EDATA)
		*view->bad = merr->code;
}

/* The listing, read once more when it names no release of spec, and
 * every manifest fetched at once (a cold listing costs a few round trips
 * rather than one per release). */
static int
open_listing(struct cv_index **ix, struct cv_remote *rem,
	     const struct cv_store *st, const struct cv_builds_req *req,
	     struct cv_err *err)
{
	int r = cv_index_open(ix, rem, cv_store_cache_dir(st), req->refresh,
			      err);

	if (r == 0 && req->spec != NULL && !lists(*ix, req->spec))
		r = cv_index_reread(ix, err);
	if (r == 0)
		r = cv_index_prefetch(*ix, req->spec, err);
	return r;
}

/* Each build of the listing's releases that match req; how many were
 * shown, or <0 with err. */
static int
walk(struct cv_index *ix, struct cv_remote *rem, const struct cv_store *st,
     const struct cv_builds_req *req, int *bad, struct cv_err *err)
{
	struct cv_mirror_walk mw;
	struct mirror_view view = { rem, st, req, &mw, bad };
	struct cv_rank_source src = { cv_mirror_walk_next, &mw };
	/* latest: the newest release only */
	struct cv_rank_req rq = { .spec = req->spec,
				  .cuda = req->cuda,
				  .newest_only = req->spec != NULL &&
						 req->spec->nparts == 0 };
	int r, stopped;

	cv_mirror_walk_init(&mw, ix, req->spec, req->platform);
	mw.skipped = mirror_skipped;
	mw.skipped_arg = &view;
	r = cv_rank_each(&src, &rq, mirror_build, &view, &stopped, err);
	cv_mirror_walk_release(&mw);
	return r;
}

int
cv_builds_nvidia(const struct cv_config *cfg, const struct cv_store *st,
		 const struct cv_builds_req *req, int *bad, struct cv_err *err)
{
	struct cv_remote *rem = NULL;
	struct cv_index *ix = NULL;
	int r;

	*bad = 0;
	if ((r = cv_remote_new(&rem, cfg, req->from, err)) < 0 ||
	    (r = open_listing(&ix, rem, st, req, err)) < 0)
		goto out;
	r = walk(ix, rem, st, req, bad, err);
	/* a spec the cached listing has no build for (latest-cuda11 when
	 * its releases lack one) reads it once more, as a miss does */
	if (r == 0 && req->spec != NULL &&
	    (r = cv_index_reread(&ix, err)) == 1 &&
	    (r = cv_index_prefetch(ix, req->spec, err)) == 0)
		r = walk(ix, rem, st, req, bad, err);
out:
	cv_index_free(ix);
	cv_remote_free(rem);
	return r;
}
