/* rank.c: the one walk over what a source offers, newest first, that both
 * resolvers (NVIDIA's manifests, a wheel index) and both listers of
 * list-remote make: the spec, the GPU, the CUDA major wanted and the
 * fallback to an older one. A source gives its releases one at a time
 * (struct cv_rank_source): the walk reads no more of them than it needs,
 * so a manifest that is not needed is never fetched. */
#include "base/base.h"
#include "install/install_int.h"
#include "machine/machine.h"

#include <stdio.h>
#include <string.h>

/* ---- the releases this GPU has no code in ------------------------------ */

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

/* ---- the walk ------------------------------------------------------------ */

static int
bad(const struct cv_candidate *c, int k)
{
	return c->bad[k] != NULL && c->bad[k][0] != '\0';
}

/* The build of c to take for the wanted major `want` (0: c's newest one
 * that can be installed): its slot, -1 when c has none. */
static int
wanted_build(const struct cv_candidate *c, int want)
{
	for (int k = 0; k < c->ncuda; k++)
		if (want ? c->cuda[k] == want : !bad(c, k))
			return k;
	return -1;
}

/* The newest build of c older than `want` that can be installed: a
 * cuda12 build runs on a CUDA 13 driver, never the reverse. */
static int
older_build(const struct cv_candidate *c, int want)
{
	int best = -1;

	for (int k = 0; k < c->ncuda; k++)
		if (!bad(c, k) && c->cuda[k] < want &&
		    (best < 0 || c->cuda[k] > c->cuda[best]))
			best = k;
	return best;
}

/* 1 when c is a release the walk considers at all. */
static int
considered(const struct cv_rank_req *req, const struct cv_candidate *c)
{
	if (req->spec != NULL && !cv_version_matches(req->spec, &c->version))
		return 0;
	return req->passed == NULL ||
	       !cv_passed_over(req->passed, &c->version, c->label);
}

int
cv_rank_best(const struct cv_rank_source *src, const struct cv_rank_req *req,
	     struct cv_rank_pick *pick, struct cv_err *err)
{
	struct cv_candidate c;
	int r;

	memset(pick, 0, sizeof *pick);
	pick->fallback_at = (size_t)-1;
	for (;;) {
		int k;

		memset(&c, 0, sizeof c);
		if ((r = src->next(src->arg, &c, err)) <= 0)
			break;
		if (!considered(req, &c))
			continue;
		if ((k = wanted_build(&c, req->cuda)) >= 0) {
			pick->at = c.at;
			pick->cuda = c.cuda[k];
			snprintf(pick->bad, sizeof pick->bad, "%s",
				 bad(&c, k) ? c.bad[k] : "");
			return *pick->bad ? CV_RANK_BAD : CV_RANK_TAKEN;
		}
		if (req->fallback && pick->fallback_cuda == 0 &&
		    (k = older_build(&c, req->cuda)) >= 0) {
			pick->fallback_at = c.at;
			pick->fallback_cuda = c.cuda[k];
			/* older majors come only after every wanted one */
			if (req->fallback_first)
				break;
		}
		if (!pick->matched) {
			pick->matched = 1;
			pick->first_at = c.at;
			snprintf(pick->first, sizeof pick->first, "%s",
				 c.label ? c.label : "");
			snprintf(pick->first_has, sizeof pick->first_has, "%s",
				 c.has ? c.has : "");
		}
	}
	if (r < 0)
		return r;
	if (pick->fallback_cuda > 0) {
		pick->at = pick->fallback_at;
		pick->cuda = pick->fallback_cuda;
		pick->fell_back = 1;
		return CV_RANK_TAKEN;
	}
	return CV_RANK_NONE;
}

int
cv_rank_each(const struct cv_rank_source *src, const struct cv_rank_req *req,
	     int (*visit)(void *arg, const struct cv_candidate *c, int k),
	     void *arg, int *stopped, struct cv_err *err)
{
	struct cv_candidate c;
	int r, shown = 0;

	*stopped = 0;
	for (;;) {
		int here = 0;

		memset(&c, 0, sizeof c);
		if ((r = src->next(src->arg, &c, err)) < 0)
			return r;
		if (r == 0)
			break;
		if (!considered(req, &c))
			continue;
		for (int k = 0; k < c.ncuda; k++) {
			if ((req->cuda && c.cuda[k] != req->cuda) || bad(&c, k))
				continue;
			here++;
			if (visit(arg, &c, k)) {
				*stopped = 1;
				return shown + here;
			}
		}
		shown += here;
		if (shown && req->newest_only)
			break;
	}
	return shown;
}
