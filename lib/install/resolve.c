/* resolve.c: a spec -> the newest release on the mirror that has a build
 * for the platform and CUDA major, and that build's archive: the mirror's
 * releases walked (cv_mirror_walk_next, which list-remote's lister walks
 * too) and ranked by the one walk of rank.c. */
#include "base/base.h"
#include "install/install_int.h"
#include "machine/machine.h"
#include "release/release.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
fill(struct cv_resolved *out, const struct cv_manifest *m,
     const struct cv_release_file *f, const char *mirror)
{
	const char *base = strrchr(f->relative_path, '/');

	memset(out, 0, sizeof *out);
	out->art.version = m->version;
	out->art.version.cuda = f->cuda;
	snprintf(out->art.platform, sizeof out->art.platform, "%s",
		 f->platform);
	memcpy(out->art.sha256, f->sha256, sizeof out->art.sha256);
	out->art.size = f->size;
	base = base ? base + 1 : f->relative_path;
	if (strlen(base) < sizeof out->art.filename)
		memcpy(out->art.filename, base, strlen(base) + 1);
	out->url = cv_manifest_url(mirror, f->relative_path);
	snprintf(out->art.source, sizeof out->art.source, "%s", out->url);
	snprintf(out->label, sizeof out->label, "%s", m->label);
	/* what a lock file records (lib/install/lock_resolve.c) */
	snprintf(out->relative_path, sizeof out->relative_path, "%s",
		 f->relative_path);
	snprintf(out->manifest, sizeof out->manifest, "%s", m->name);
	memcpy(out->manifest_sha256, m->sha256, sizeof out->manifest_sha256);
}

int
cv_resolve_begin(const struct cv_resolve_req *req, struct cv_version *spec,
		 int *cuda, char *how, size_t howlen, char platform[32],
		 struct cv_passed_over *passed, struct cv_err *err)
{
	int rc;

	/* every output defined on every path, an early error's too */
	*cuda = 0;
	platform[0] = '\0';
	memset(spec, 0, sizeof *spec);
	memset(passed, 0, sizeof *passed);
	passed->any_gpu = req->any_gpu;
	if (req->spec != NULL) {
		*spec = *req->spec;
		spec->cuda = 0;
	}
	if (cv_machine_get(CV_MACHINE_GPU)->bad[0])
		return cv_err_set(err, CV_EUSAGE, "%s",
				  cv_machine_get(CV_MACHINE_GPU)->bad);
	*cuda = cv_machine_want_cuda(req->spec != NULL ? req->spec->cuda : 0,
				     req->cuda, how, howlen, err);
	if (*cuda < 0)
		return *cuda;
	if (req->platform != NULL && *req->platform) {
		if (!cv_platform_valid(req->platform))
			return cv_err_set(err, CV_EUSAGE,
					  "unknown platform '%.40s' (use "
					  "linux-x86_64, linux-sbsa, "
					  "linux-aarch64 or windows-x86_64)",
					  req->platform);
		snprintf(platform, 32, "%s", req->platform);
	} else if ((rc = cv_platform_detect(platform, err)) < 0)
		return rc;
	return 0;
}

/* ---- the mirror's releases as the ranking walk's candidates ------------ */

void
cv_mirror_walk_init(struct cv_mirror_walk *w, struct cv_index *ix,
		    const struct cv_version *spec, const char *platform)
{
	memset(w, 0, sizeof *w);
	w->ix = ix;
	w->spec = spec;
	w->platform = platform;
}

void
cv_mirror_walk_release(struct cv_mirror_walk *w)
{
	if (w->loaded)
		cv_manifest_release(&w->m);
	w->loaded = 0;
}

/* The builds of the loaded manifest for the platform, newest major
 * first, each as cv_manifest_find gives it. */
static void
builds_of(struct cv_mirror_walk *w, struct cv_candidate *c)
{
	for (size_t i = 0; i < w->m.nfiles; i++) {
		const struct cv_release_file *f = &w->m.files[i];
		int at = 0;

		if (strcmp(f->platform, w->platform) != 0)
			continue;
		while (at < c->ncuda && c->cuda[at] > f->cuda)
			at++;
		if ((at < c->ncuda && c->cuda[at] == f->cuda) ||
		    c->ncuda == CV_RANK_MAX_CUDA)
			continue;
		memmove(&c->cuda[at + 1], &c->cuda[at],
			(size_t)(c->ncuda - at) * sizeof c->cuda[0]);
		c->cuda[at] = f->cuda;
		c->ncuda++;
	}
	for (int k = 0; k < c->ncuda; k++)
		c->bad[k] =
			cv_manifest_find(&w->m, w->platform, c->cuda[k])->bad;
}

int
cv_mirror_walk_next(void *arg, struct cv_candidate *c, struct cv_err *err)
{
	struct cv_mirror_walk *w = arg;
	int rc;

	for (; w->i < cv_index_count(w->ix); w->i++) {
		const struct cv_version *name = cv_index_version(w->ix, w->i);
		struct cv_err merr = CV_ERR_INIT;

		/* the listing name may be shorter or longer than the spec */
		if (w->spec != NULL && !cv_version_matches(w->spec, name) &&
		    !cv_version_matches(name, w->spec))
			continue;
		cv_mirror_walk_release(w);
		if ((rc = cv_index_manifest(w->ix, w->i, &w->m, &merr)) < 0) {
			/* one bad manifest does not hide the others from a
			 * lister; Ctrl-C stops it */
			if (w->skipped != NULL && merr.code != CV_EINTR) {
				w->skipped(w->skipped_arg, &merr);
				continue;
			}
			if (err != NULL)
				*err = merr;
			return rc;
		}
		w->loaded = 1;
		c->at = w->i++;
		c->version = w->m.version;
		c->label = w->m.label;
		cv_manifest_variants(&w->m, w->platform, w->has, sizeof w->has);
		c->has = w->has;
		builds_of(w, c);
		return 1;
	}
	return 0;
}

/* The refusal when every release matching the spec lacks code for this
 * GPU: before any download, with the newest listed release that has it
 * as the command to run instead. */
static int
refuse_for_gpu(struct cv_index *ix, const struct cv_resolve_req *req,
	       const struct cv_passed_over *p, struct cv_err *err)
{
	char why[256], opts[96] = "";

	cv_passed_over_refuse(p, err);
	if (req->cuda > 0)
		snprintf(opts, sizeof opts, " --cuda %d", req->cuda);
	if (req->platform != NULL && *req->platform &&
	    cv_platform_valid(req->platform))
		snprintf(opts + strlen(opts), sizeof opts - strlen(opts),
			 " --platform %s", req->platform);
	for (size_t i = 0; i < cv_index_count(ix); i++) {
		const struct cv_version *v = cv_index_version(ix, i);
		char s[64];

		if (cv_machine_arch_fits(v, why, sizeof why) != 1)
			continue;
		cv_version_format(v, s, sizeof s);
		return cv_err_hint(err, "cudnnvm install %s%s", s, opts);
	}
	return err->code;
}

/* No build to take: the error that says why, and what to run instead. */
static int
resolve_none(struct cv_index *ix, const struct cv_resolve_req *req,
	     const struct cv_rank_pick *pick, const struct cv_version *spec,
	     int cuda, const char *platform, const char *how,
	     const struct cv_passed_over *passed, struct cv_err *err)
{
	const char *mirror = cv_remote_mirror(cv_index_remote(ix));

	if (!pick->matched && passed->oldest[0] != '\0')
		return refuse_for_gpu(ix, req, passed, err);
	if (!pick->matched) {
		char s[64] = "";
		if (req->spec != NULL)
			cv_version_format(spec, s, sizeof s);
		return cv_err_set(err, CV_ENOTFOUND,
				  "no cuDNN release %s%son the mirror %s; see "
				  "'cudnnvm list-remote'",
				  s, *s ? " " : "", mirror);
	}
	if (cuda == 0)
		return cv_err_set(err, CV_ENOTFOUND,
				  "cuDNN %s has no build for %s; choose "
				  "another platform with --platform",
				  pick->first, platform);
	return cv_err_set(err, CV_ENOTFOUND,
			  "cuDNN %s has no build for cuda%d on %s; builds "
			  "exist for: %s (cuda%d from %s; choose with --cuda)",
			  pick->first, cuda, platform,
			  pick->first_has[0] ? pick->first_has : "none", cuda,
			  how[0] ? how : "the environment");
}

int
cv_resolve(struct cv_index *ix, const struct cv_resolve_req *req,
	   struct cv_resolved *out, struct cv_err *err)
{
	struct cv_passed_over passed;
	struct cv_version spec;
	struct cv_mirror_walk w;
	struct cv_rank_pick pick;
	struct cv_rank_req rq;
	struct cv_rank_source src;
	const struct cv_release_file *f;
	char platform[32], how[PATH_MAX + 64] = "";
	int cuda, rc;
	const char *mirror = cv_remote_mirror(cv_index_remote(ix));

	memset(out, 0, sizeof *out);
	if ((rc = cv_resolve_begin(req, &spec, &cuda, how, sizeof how, platform,
				   &passed, err)) < 0)
		return rc;
	memset(&rq, 0, sizeof rq);
	rq.spec = req->spec != NULL ? &spec : NULL;
	rq.cuda = cuda;
	/* the machine's major (not one the user named) may fall back to an
	 * older variant when no release matching the spec has a build for
	 * it: a cuda12 build runs on a CUDA 13 driver, never the reverse */
	rq.fallback = cuda > 0 && (req->spec == NULL || req->spec->cuda == 0) &&
		      req->cuda <= 0;
	rq.passed = &passed;
	cv_mirror_walk_init(&w, ix, rq.spec, platform);
	src.next = cv_mirror_walk_next;
	src.arg = &w;
	rc = cv_rank_best(&src, &rq, &pick, err);
	if (rc == CV_RANK_BAD)
		rc = cv_err_set(err, CV_EDATA,
				"manifest %s: %s; this build cannot be "
				"installed",
				w.m.name, pick.bad);
	if (rc != CV_RANK_TAKEN) {
		cv_mirror_walk_release(&w);
		return rc < 0 ? rc
			      : resolve_none(ix, req, &pick, &spec, cuda,
					     platform, how, &passed, err);
	}
	/* the fallback's manifest is read again: the walk went past it */
	if (pick.fell_back) {
		cv_mirror_walk_release(&w);
		if ((rc = cv_index_manifest(ix, pick.at, &w.m, err)) < 0)
			return rc;
		w.loaded = 1;
	}
	f = cv_manifest_find(&w.m, platform, pick.cuda);
	if (f == NULL || f->bad[0]) {
		rc = cv_err_set(err, CV_EDATA, "manifest %s changed while read",
				w.m.name);
		cv_mirror_walk_release(&w);
		return rc;
	}
	fill(out, &w.m, f, mirror);
	cv_passed_over_warn(&passed, w.m.label);
	if (pick.fell_back)
		cv_warn("cuDNN %s has no build for cuda%d (this machine's "
			"CUDA comes from %s); took its cuda%d build, which a "
			"CUDA %d driver runs too; --cuda N chooses another",
			w.m.label, cuda, how, pick.cuda, cuda);
	cv_mirror_walk_release(&w);
	return 0;
}

int
cv_resolve_fresh(struct cv_index **ix, const struct cv_resolve_req *req,
		 struct cv_resolved *out, struct cv_err *err)
{
	int r = cv_resolve(*ix, req, out, err), again;
	struct cv_err miss;

	if (r != CV_ENOTFOUND)
		return r;
	miss = *err;
	again = cv_index_reread(ix, err);
	if (again < 0)
		return again;
	if (again == 0) {
		*err = miss;
		return r;
	}
	return cv_resolve(*ix, req, out, err);
}

void
cv_resolved_release(struct cv_resolved *res)
{
	free(res->url);
	res->url = NULL;
}
