/* lock_resolve.c: a lock filled from the mirror's manifests, and a lock
 * entry turned back into a download. Every choice of a build is
 * cv_resolve's: the pin for this machine's platform first, then that exact
 * build (version and CUDA major) for each other platform, so a lock never
 * names two different builds. Nothing here downloads an archive. Linked
 * into the helper only (it reaches the index and libcurl). */
#include "base/base.h"
#include "install/install_int.h"
#include "release/release.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
entry_from(struct cv_lock_entry *e, const struct cv_resolved *res)
{
	memset(e, 0, sizeof *e);
	snprintf(e->platform, sizeof e->platform, "%s", res->art.platform);
	snprintf(e->url, sizeof e->url, "%s", res->relative_path);
	memcpy(e->sha256, res->art.sha256, sizeof e->sha256);
	e->size = res->art.size;
}

/* The same build on another platform; a platform without it is named. */
static int
resolve_other(struct cv_index **ix, const struct cv_resolved *first,
	      const char *platform, struct cv_lock *out, struct cv_err *err)
{
	struct cv_resolve_req req;
	struct cv_resolved res;
	struct cv_lock_entry e;
	int r;

	memset(&req, 0, sizeof req);
	req.spec = &first->art.version; /* 4 parts and the CUDA major */
	req.cuda = first->art.version.cuda;
	req.platform = platform;
	/* the build is chosen already; this GPU is not that machine's */
	req.any_gpu = 1;
	r = cv_resolve_fresh(ix, &req, &res, err);
	if (r == 0 && strcmp(res.manifest, first->manifest) != 0)
		r = cv_err_set(err, CV_EDATA,
			       "%s and %s both list cuDNN %s; cannot lock one",
			       res.manifest, first->manifest, out->id);
	if (r < 0) {
		cv_resolved_release(&res);
		if (r == CV_ENOTFOUND)
			cv_err_prefix(err, "cannot lock %s for %s: ", out->id,
				      platform);
		return r;
	}
	entry_from(&e, &res);
	cv_resolved_release(&res);
	if (cv_lock_add(out, &e) < 0)
		return cv_err_set(err, CV_EUSAGE, "too many platforms");
	return 0;
}

int
cv_lock_resolve(struct cv_index **ix, const struct cv_resolve_req *req,
		const struct cv_version *spec, const char *const *platforms,
		size_t nplatforms, struct cv_lock *out, struct cv_err *err)
{
	struct cv_resolved first;
	struct cv_lock_entry e;
	int r;

	memset(out, 0, sizeof *out);
	if ((r = cv_resolve_fresh(ix, req, &first, err)) < 0)
		return r;
	cv_version_format_id(spec, out->spec, sizeof out->spec);
	out->spec_v = *spec;
	cv_version_format_id(&first.art.version, out->id, sizeof out->id);
	out->id_v = first.art.version;
	snprintf(out->source, sizeof out->source, "nvidia");
	snprintf(out->manifest_url, sizeof out->manifest_url, "%s",
		 first.manifest);
	memcpy(out->manifest_sha256, first.manifest_sha256,
	       sizeof out->manifest_sha256);
	entry_from(&e, &first);
	cv_lock_add(out, &e);
	for (size_t i = 0; i < nplatforms && r == 0; i++)
		if (cv_lock_entry(out, platforms[i]) == NULL)
			r = resolve_other(ix, &first, platforms[i], out, err);
	cv_resolved_release(&first);
	if (r < 0)
		memset(out, 0, sizeof *out);
	return r;
}

int
cv_lock_artifact(const struct cv_lock *lk, const char *platform,
		 const char *mirror, struct cv_resolved *out,
		 struct cv_err *err)
{
	const struct cv_lock_entry *e = cv_lock_entry(lk, platform);
	struct cv_artifact named;
	char have[160];

	memset(out, 0, sizeof *out);
	if (e == NULL) {
		cv_lock_platforms(lk, have, sizeof have);
		cv_err_set(err, CV_ENOTFOUND,
			   "%s locks %s for %s only, not for %s", CV_LOCK_FILE,
			   lk->id, have, platform);
		return cv_err_hint(err, "cudnnvm lock --platform %s", platform);
	}
	/* the install id comes from the lock, the bytes from the archive:
	 * both must name the same build */
	memset(&named, 0, sizeof named);
	if (cv_artifact_from_filename(&named, e->url, NULL) < 0 ||
	    strcmp(named.platform, platform) != 0 ||
	    cv_version_cmp(&named.version, &lk->id_v) != 0 ||
	    named.version.cuda != lk->id_v.cuda)
		return cv_err_set(err, CV_EDATA,
				  "%s: platforms.%s.url names another build "
				  "than %s",
				  CV_LOCK_FILE, platform, lk->id);
	out->art = named;
	memcpy(out->art.sha256, e->sha256, sizeof out->art.sha256);
	out->art.size = e->size;
	out->url = cv_manifest_url(mirror, e->url);
	snprintf(out->art.source, sizeof out->art.source, "%s", out->url);
	snprintf(out->relative_path, sizeof out->relative_path, "%s", e->url);
	snprintf(out->manifest, sizeof out->manifest, "%s", lk->manifest_url);
	memcpy(out->manifest_sha256, lk->manifest_sha256,
	       sizeof out->manifest_sha256);
	cv_version_format(&lk->id_v, out->label, sizeof out->label);
	return 0;
}

int
cv_lock_same_build(const struct cv_lock *a, const struct cv_lock *b, char *why,
		   size_t n)
{
	if (strcmp(a->id, b->id) != 0) {
		snprintf(why, n, "%s, not %s", b->id, a->id);
		return 0;
	}
	if (strcmp(a->manifest_url, b->manifest_url) != 0 ||
	    strcmp(a->manifest_sha256, b->manifest_sha256) != 0) {
		snprintf(why, n, "its manifest %s changed", b->manifest_url);
		return 0;
	}
	for (size_t i = 0; i < a->n; i++) {
		const struct cv_lock_entry *x = &a->entries[i],
					   *y = cv_lock_entry(b, x->platform);
		if (y != NULL &&
		    (strcmp(x->url, y->url) != 0 ||
		     strcmp(x->sha256, y->sha256) != 0 || x->size != y->size)) {
			snprintf(why, n, "its %s archive changed", x->platform);
			return 0;
		}
	}
	return 1;
}

int
cv_lock_resolve_deps(struct cv_lock *lk, const struct cv_lock *old,
		     const struct cv_deps_req *tmpl, struct cv_err *skipped,
		     struct cv_err *err)
{
	for (size_t i = 0; i < lk->n; i++) {
		struct cv_lock_entry *e = &lk->entries[i];
		const struct cv_lock_entry *was =
			old != NULL && strcmp(old->id, lk->id) == 0
				? cv_lock_entry(old, e->platform)
				: NULL;
		struct cv_dep_file f[CV_MAX_DEPS];
		struct cv_deps_req req = *tmpl;
		struct cv_err why = CV_ERR_INIT;
		int n = 0, r;

		e->ndeps = 0;
		/* a build kept keeps its dependencies' releases too */
		if (was != NULL && was->ndeps > 0) {
			memcpy(e->deps, was->deps, sizeof e->deps);
			e->ndeps = was->ndeps;
			continue;
		}
		req.version = &lk->id_v;
		req.platform = e->platform;
		if ((r = cv_deps_resolve(&req, f, &n, &why)) < 0) {
			if (r == CV_EINTR || tmpl->mode == CV_DEPS_ALWAYS) {
				*err = why;
				return r;
			}
			/* auto: the lock holds the build; a machine without
			 * the dependency gets it as install would */
			if (skipped != NULL && skipped->code == 0)
				*skipped = why;
			continue;
		}
		for (int k = 0; k < n && k < CV_LOCK_MAX_DEPS; k++) {
			struct cv_lock_dep *d = &e->deps[e->ndeps++];
			snprintf(d->name, sizeof d->name, "%s", f[k].name);
			snprintf(d->version, sizeof d->version, "%s",
				 f[k].version);
			snprintf(d->url, sizeof d->url, "%s", f[k].url);
			memcpy(d->sha256, f[k].sha256, sizeof d->sha256);
			d->size = f[k].size;
			snprintf(d->channel, sizeof d->channel, "%s",
				 f[k].channel);
		}
	}
	return 0;
}

void
cv_lock_deps_files(const struct cv_lock_entry *e, struct cv_dep_file *out,
		   int *n)
{
	*n = 0;
	for (size_t i = 0; i < e->ndeps && i < CV_MAX_DEPS; i++) {
		struct cv_dep_file *f = &out[(*n)++];
		snprintf(f->name, sizeof f->name, "%s", e->deps[i].name);
		snprintf(f->version, sizeof f->version, "%s",
			 e->deps[i].version);
		snprintf(f->url, sizeof f->url, "%s", e->deps[i].url);
		memcpy(f->sha256, e->deps[i].sha256, sizeof f->sha256);
		f->size = e->deps[i].size;
		snprintf(f->channel, sizeof f->channel, "%s",
			 e->deps[i].channel[0] ? e->deps[i].channel
					       : CV_CHANNEL_CUDA);
	}
}
