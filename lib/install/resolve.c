/* resolve.c: a spec -> the newest release on the mirror that has a build
 * for the platform and CUDA major, and that build's archive. */
#include "base/base.h"
#include "install/install_int.h"
#include "machine/machine.h"
#include "release/release.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The newest usable variant of a platform, 0 when none. */
static int
newest_variant(const struct cv_manifest *m, const char *platform)
{
	int best = 0;

	for (size_t i = 0; i < m->nfiles; i++)
		if (!m->files[i].bad[0] && m->files[i].cuda > best &&
		    strcmp(m->files[i].platform, platform) == 0)
			best = m->files[i].cuda;
	return best;
}

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
cv_passed_over(struct cv_passed_over *p, const struct cv_version *v,
	       const char *label)
{
	char why[sizeof p->why];
	struct cv_version release = *v;

	if (p->any_gpu || cv_machine_arch_fits(v, why, sizeof why) != 0)
		return 0;
	release.cuda = 0;
	if (label != NULL)
		snprintf(p->oldest, sizeof p->oldest, "%s", label);
	else
		cv_version_format(&release, p->oldest, sizeof p->oldest);
	if (p->newest[0] == '\0')
		memcpy(p->newest, p->oldest, sizeof p->newest);
	snprintf(p->why, sizeof p->why, "%s", why);
	return 1;
}

void
cv_passed_over_warn(const struct cv_passed_over *p, const char *taken)
{
	if (p->oldest[0] == '\0')
		return;
	if (strcmp(p->newest, p->oldest) == 0)
		cv_warn("took cuDNN %s, not %s: it %s; --force takes it", taken,
			p->oldest, p->why);
	else
		cv_warn("took cuDNN %s, not %s to %s: %s %s; --force takes "
			"them",
			taken, p->newest, p->oldest, p->oldest, p->why);
}

int
cv_passed_over_refuse(const struct cv_passed_over *p, struct cv_err *err)
{
	return cv_err_set(err, CV_ERROR,
			  "cuDNN %s %s; --force installs it anyway", p->oldest,
			  p->why);
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

int
cv_resolve(struct cv_index *ix, const struct cv_resolve_req *req,
	   struct cv_resolved *out, struct cv_err *err)
{
	struct cv_passed_over passed;
	struct cv_version spec;
	char platform[32], how[PATH_MAX + 64] = "", first[32] = "",
					  variants[128] = "";
	int cuda, rc, from_machine, fallback_cuda = 0;
	size_t fallback = 0;
	const char *mirror = cv_remote_mirror(cv_index_remote(ix));

	memset(out, 0, sizeof *out);
	if ((rc = cv_resolve_begin(req, &spec, &cuda, how, sizeof how, platform,
				   &passed, err)) < 0)
		return rc;

	/* the machine's major (not one the user named) may fall back to an
	 * older variant when no release matching the spec has a build for
	 * it: a cuda12 build runs on a CUDA 13 driver, never the reverse */
	from_machine = cuda > 0 &&
		       (req->spec == NULL || req->spec->cuda == 0) &&
		       req->cuda <= 0;
	for (size_t i = 0; i < cv_index_count(ix); i++) {
		struct cv_manifest m;
		const struct cv_release_file *f;
		int want = cuda;
		const struct cv_version *name = cv_index_version(ix, i);

		/* the listing name may be shorter or longer than the spec */
		if (req->spec != NULL && !cv_version_matches(&spec, name) &&
		    !cv_version_matches(name, &spec))
			continue;
		if ((rc = cv_index_manifest(ix, i, &m, err)) < 0)
			return rc;
		if ((req->spec != NULL &&
		     !cv_version_matches(&spec, &m.version)) ||
		    cv_passed_over(&passed, &m.version, m.label)) {
			cv_manifest_release(&m);
			continue;
		}
		if (want == 0)
			want = newest_variant(&m, platform);
		f = want ? cv_manifest_find(&m, platform, want) : NULL;
		if (f != NULL && f->bad[0]) {
			rc = cv_err_set(err, CV_EDATA,
					"manifest %s: %s; this build cannot be "
					"installed",
					m.name, f->bad);
			cv_manifest_release(&m);
			return rc;
		}
		if (f != NULL) {
			fill(out, &m, f, mirror);
			cv_passed_over_warn(&passed, m.label);
			cv_manifest_release(&m);
			return 0;
		}
		if (from_machine && fallback_cuda == 0) {
			for (size_t k = 0; k < m.nfiles; k++)
				if (!m.files[k].bad[0] &&
				    m.files[k].cuda < cuda &&
				    m.files[k].cuda > fallback_cuda &&
				    strcmp(m.files[k].platform, platform) == 0)
					fallback_cuda = m.files[k].cuda;
			if (fallback_cuda > 0)
				fallback = i;
		}
		if (first[0] == '\0') {
			snprintf(first, sizeof first, "%s", m.label);
			cv_manifest_variants(&m, platform, variants,
					     sizeof variants);
		}
		cv_manifest_release(&m);
	}
	if (fallback_cuda > 0) {
		struct cv_manifest m;
		const struct cv_release_file *f;

		if ((rc = cv_index_manifest(ix, fallback, &m, err)) < 0)
			return rc;
		f = cv_manifest_find(&m, platform, fallback_cuda);
		if (f == NULL || f->bad[0]) {
			cv_manifest_release(&m);
			return cv_err_set(err, CV_EDATA,
					  "manifest %s changed while read",
					  m.name);
		}
		fill(out, &m, f, mirror);
		cv_passed_over_warn(&passed, m.label);
		cv_warn("cuDNN %s has no build for cuda%d (this machine's "
			"CUDA comes from %s); took its cuda%d build, which a "
			"CUDA %d driver runs too; --cuda N chooses another",
			m.label, cuda, how, fallback_cuda, cuda);
		cv_manifest_release(&m);
		return 0;
	}
	if (first[0] == '\0' && passed.oldest[0] != '\0')
		return refuse_for_gpu(ix, req, &passed, err);
	if (first[0] == '\0') {
		char s[64] = "";
		if (req->spec != NULL)
			cv_version_format(&spec, s, sizeof s);
		return cv_err_set(err, CV_ENOTFOUND,
				  "no cuDNN release %s%son the mirror %s; see "
				  "'cudnnvm list-remote'",
				  s, *s ? " " : "", mirror);
	}
	if (cuda == 0)
		return cv_err_set(err, CV_ENOTFOUND,
				  "cuDNN %s has no build for %s; choose "
				  "another platform with --platform",
				  first, platform);
	return cv_err_set(err, CV_ENOTFOUND,
			  "cuDNN %s has no build for cuda%d on %s; builds "
			  "exist for: %s (cuda%d from %s; choose with --cuda)",
			  first, cuda, platform,
			  variants[0] ? variants : "none", cuda,
			  how[0] ? how : "the environment");
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
