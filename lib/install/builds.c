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
	for (size_t i = 0; i < n; i++) {
		struct cv_build b;

		if (req->spec != NULL &&
		    !cv_version_matches(req->spec, &w[i].version))
			continue;
		memset(&b, 0, sizeof b);
		cv_version_format_id(&w[i].version, b.id, sizeof b.id);
		cv_version_format(&w[i].version, b.version, sizeof b.version);
		b.cuda = w[i].version.cuda;
		b.platform = w[i].platform;
		b.size = w[i].size;
		b.sha256 = w[i].sha256;
		b.url = w[i].url;
		b.installed = cv_store_has(st, b.id);
		b.fits = cv_machine_fits(&w[i].version, b.cuda, b.fit_reason,
					 sizeof b.fit_reason);
		b.needs_arch = needs_arch(&w[i].version);
		shown++;
		if (req->build(req->arg, &b))
			break;
	}
	r = shown;
out:
	cv_wheels_free(w, n);
	cv_remote_free(rem);
	return r;
}

/* The builds of one release for the platform, newest CUDA major first. */
static int
release_builds(const struct cv_remote *rem, const struct cv_store *st,
	       const struct cv_manifest *m, const struct cv_builds_req *req)
{
	int shown = 0;

	for (int cu = 999; cu > 0; cu--) {
		const struct cv_release_file *f;
		struct cv_version v = m->version;
		struct cv_build b;
		char *url;
		int stop;

		if (req->cuda && cu != req->cuda)
			continue;
		f = cv_manifest_find(m, req->platform, cu);
		if (f == NULL || f->bad[0])
			continue;
		memset(&b, 0, sizeof b);
		v.cuda = cu;
		cv_version_format_id(&v, b.id, sizeof b.id);
		cv_version_format(&m->version, b.version, sizeof b.version);
		url = cv_manifest_url(cv_remote_mirror(rem), f->relative_path);
		b.release = m->label;
		b.cuda = cu;
		b.platform = req->platform;
		b.size = f->size;
		b.sha256 = f->sha256;
		b.url = url;
		b.installed = cv_store_has(st, b.id);
		b.fits = cv_machine_fits(&m->version, b.cuda, b.fit_reason,
					 sizeof b.fit_reason);
		b.needs_arch = needs_arch(&m->version);
		shown++;
		stop = req->build(req->arg, &b);
		free(url);
		if (stop)
			return -shown - 1;
	}
	return shown;
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
	const struct cv_version *spec = req->spec;
	int r, shown = 0;

	for (size_t i = 0; i < cv_index_count(ix); i++) {
		struct cv_manifest m;
		struct cv_err merr = CV_ERR_INIT;
		const struct cv_version *name = cv_index_version(ix, i);

		/* the listing name may be shorter or longer than the spec */
		if (spec != NULL && !cv_version_matches(spec, name) &&
		    !cv_version_matches(name, spec))
			continue;
		if (cv_index_manifest(ix, i, &m, &merr) < 0) {
			if (merr.code == CV_EINTR) {
				*err = merr;
				return CV_EINTR;
			}
			/* one bad manifest does not hide the others */
			req->skipped(req->arg, &merr);
			if (!*bad || merr.code == CV_EDATA)
				*bad = merr.code;
			continue;
		}
		r = spec != NULL && !cv_version_matches(spec, &m.version)
			    ? 0
			    : release_builds(rem, st, &m, req);
		cv_manifest_release(&m);
		shown += r < 0 ? -r - 1 : r;
		if (r < 0 || (shown && spec != NULL && spec->nparts == 0))
			break; /* latest: the newest release only */
	}
	return shown;
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
