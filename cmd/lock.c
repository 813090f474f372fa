/* lock.c: `cudnnvm lock [--platform P]... [--upgrade] [--check]
 * [--mirror URL]` writes, refreshes or checks cudnnvm.lock beside the
 * project's pin, from the mirror's manifests only (no archive is
 * downloaded). */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "install/install.h"
#include "release/release.h"
#include "store/store.h"
#include "ui.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct lock_args {
	const char *platforms[CV_LOCK_MAX_PLATFORMS];
	size_t nplatforms;
	const char *mirror;
	int upgrade, check;
};

/* The pin this folder's lock locks, and the lock's path. */
struct project {
	char pin[4096], spec[64], lock[4096], here[32];
	struct cv_version pin_v;
};

static int
find_project(const struct cmd_ctx *ctx, struct project *p)
{
	struct cv_err err = CV_ERR_INIT;
	char cwd[PATH_MAX];
	int r;

	if (getcwd(cwd, sizeof cwd) == NULL) {
		cv_err_errno(&err, cv_code_from_errno(errno),
			     "cannot read the working folder");
		return cmd_fail(&err);
	}
	if ((r = cv_pin_find(cwd, p->pin, p->spec, NULL, NULL, &err)) < 0)
		return cmd_fail(&err);
	if (r == 0)
		return cmd_usage_error(
			"lock",
			"no pin file here or above (.cudnn-version or a "
			".tool-versions cudnn line) to lock; pin one first, "
			"e.g. 'cudnnvm use 9'");
	if (cv_version_parse(&p->pin_v, p->spec, &err) < 0)
		return cmd_fail(&err);
	cv_lock_path(p->pin, p->lock);
	/* this machine's entry is always locked: the one it installs */
	if (ctx->cfg.platform != NULL && *ctx->cfg.platform)
		snprintf(p->here, sizeof p->here, "%s", ctx->cfg.platform);
	else if (cv_platform_detect(p->here, &err) < 0)
		return cmd_fail(&err);
	return 0;
}

/* A platform the lock lacks, or NULL. */
static const char *
missing_platform(const struct cv_lock *lk, const struct project *p,
		 const struct lock_args *a)
{
	if (cv_lock_entry(lk, p->here) == NULL)
		return p->here;
	for (size_t i = 0; i < a->nplatforms; i++)
		if (cv_lock_entry(lk, a->platforms[i]) == NULL)
			return a->platforms[i];
	return NULL;
}

/* --check: 0 when the lock locks the pin (any build the pin admits) for
 * this platform and each --platform; 1 when not; 65 when unreadable. */
static int
check(const struct project *p, const struct lock_args *a)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_lock lk;
	const char *lacks;
	char plats[160];
	int r = cv_lock_read(p->lock, &lk, &err);

	if (r == CV_ENOTFOUND) {
		cv_err_set(&err, CV_ERROR, "no %s beside %s", CV_LOCK_FILE,
			   p->pin);
		cv_err_hint(&err, "cudnnvm lock");
		return cmd_fail(&err);
	}
	if (r < 0)
		return cmd_fail(&err);
	if (!cv_lock_matches(&lk, &p->pin_v)) {
		cv_err_set(&err, CV_ERROR,
			   "%s is stale: it locks %s, %s pins %s", p->lock,
			   lk.spec, p->pin, p->spec);
		cv_err_hint(&err, "cudnnvm lock");
		return cmd_fail(&err);
	}
	if ((lacks = missing_platform(&lk, p, a)) != NULL) {
		cv_err_set(&err, CV_ERROR, "%s locks no build for %s", p->lock,
			   lacks);
		cv_err_hint(&err, "cudnnvm lock --platform %s", lacks);
		return cmd_fail(&err);
	}
	cv_lock_platforms(&lk, plats, sizeof plats);
	if (!cmd_g.quiet)
		ui_print(stdout, "%s locks %s as %s (%s)", p->lock, lk.spec,
			 lk.id, plats);
	return 0;
}

/* The platforms to lock: --platform, then those the old lock has. */
static size_t
platforms(const struct lock_args *a, const struct cv_lock *old,
	  const char **out)
{
	size_t n = 0;

	for (size_t i = 0; i < a->nplatforms; i++)
		out[n++] = a->platforms[i];
	for (size_t i = 0; old != NULL && i < old->n; i++)
		out[n++] = old->entries[i].platform;
	return n;
}

/* Resolve the new lock from the manifests. keep: the old lock's build,
 * checked against what the mirror serves now. */
/* cuBLAS's channel could not answer: said once for all platforms. */
static void
lock_fallback(void *payload, const char *why)
{
	static int said;

	(void)payload;
	if (!said++)
		ui_note("%s; cuBLAS comes from the CUDA redist tree instead",
			why);
}

static int
resolve(struct cmd_ctx *ctx, const struct project *p, const struct lock_args *a,
	const struct cv_lock *old, int keep, struct cv_lock *lk,
	struct cv_err *err)
{
	const char *plats[2 * CV_LOCK_MAX_PLATFORMS];
	struct cv_remote *rem = NULL;
	struct cv_index *ix = NULL;
	struct cv_resolve_req req;
	char why[160];
	int r;

	memset(&req, 0, sizeof req);
	req.spec = keep ? &old->id_v : &p->pin_v;
	req.cuda = keep ? 0 : ctx->cfg.cuda;
	req.platform = p->here;
	if ((r = cv_remote_new(&rem, &ctx->cfg, a->mirror, err)) == 0 &&
	    (r = cv_index_open(&ix, rem, cv_store_cache_dir(ctx->st),
			       a->upgrade, err)) == 0)
		r = cv_lock_resolve(&ix, &req, &p->pin_v, plats,
				    platforms(a, old, plats), lk, err);
	cv_index_free(ix);
	cv_remote_free(rem);
	if (r == 0) {
		/* what the build loads beside it, from the CUDA tree */
		struct cv_deps_req dr;
		struct cv_err skipped = CV_ERR_INIT;
		memset(&dr, 0, sizeof dr);
		dr.fallback = lock_fallback;
		dr.st = ctx->st;
		dr.cfg = &ctx->cfg;
		dr.cudnn_mirror = a->mirror;
		dr.mode = ctx->cfg.deps;
		dr.refresh = a->upgrade;
		r = cv_lock_resolve_deps(lk, old, &dr, &skipped, err);
		if (r == 0 && skipped.code != 0) {
			ui_warn("%s; the lock names no dependencies for it",
				skipped.msg);
			ui_hints(&skipped);
		}
	}
	if (r == 0 && keep && !cv_lock_same_build(old, lk, why, sizeof why)) {
		cv_err_set(err, CV_EDATA,
			   "the mirror no longer serves what %s locks: %s",
			   p->lock, why);
		r = cv_err_hint(err, "cudnnvm lock --upgrade");
	}
	return r;
}

static int
write_locked(struct cmd_ctx *ctx, const struct project *p,
	     const struct lock_args *a)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_lock old, lk;
	char plats[160], *before = NULL, *after;
	int r, have_old, keep;

	r = cv_lock_read(p->lock, &old, &err);
	if (r < 0 && r != CV_ENOTFOUND)
		ui_warn("%s; writing it anew", err.msg);
	have_old = r == 0;
	keep = have_old && !a->upgrade && cv_lock_matches(&old, &p->pin_v);
	err = (struct cv_err)CV_ERR_INIT;
	if (resolve(ctx, p, a, have_old ? &old : NULL, keep, &lk, &err) < 0)
		return cmd_fail(&err);
	if (have_old)
		before = cv_lock_text(&old);
	after = cv_lock_text(&lk);
	cv_lock_platforms(&lk, plats, sizeof plats);
	if (before != NULL && strcmp(before, after) == 0)
		r = 0; /* untouched: the hooks see no change */
	else
		r = cv_lock_write(p->lock, &lk, &err);
	if (r < 0)
		r = cmd_fail(&err);
	else if (!cmd_g.quiet)
		/* the project's path may hold anything: escaped */
		ui_print(stdout, "%s %s as %s for %s in %s",
			 before != NULL && strcmp(before, after) == 0
				 ? "already locked"
				 : "locked",
			 lk.spec, lk.id, plats, p->lock);
	free(before);
	free(after);
	return r;
}

/* Read, resolve and write back under the lock's hold, so that two runs at
 * once (each adding a platform) both land. */
static int
write_lock(struct cmd_ctx *ctx, const struct project *p,
	   const struct lock_args *a)
{
	struct cv_err err = CV_ERR_INIT;
	int r, held;

	if (cv_lock_hold(p->lock, &held, &err) < 0)
		return cmd_fail(&err);
	r = write_locked(ctx, p, a);
	cv_lock_release(held);
	return r;
}

int
cmd_lock(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct lock_args a;
	struct project p;
	struct cmd_opts o;
	int c, r;

	memset(&a, 0, sizeof a);
	memset(&p, 0, sizeof p);
	a.mirror = cmd_g.mirror; /* a global option */
	cmd_opts_init(&o, argc, argv);
	/* lock_opts in cmd/table.c */
	while ((c = cmd_opts_next(&o)) > 0) {
		if (c == 'p') {
			if (!cv_platform_valid(o.arg))
				return cmd_usage_error(
					"lock",
					"unknown platform '%.40s' (linux-x86_64, "
					"linux-sbsa, linux-aarch64, "
					"windows-x86_64)",
					o.arg);
			if (a.nplatforms == CV_LOCK_MAX_PLATFORMS)
				return cmd_usage_error(
					"lock", "too many --platform options");
			a.platforms[a.nplatforms++] = o.arg;
		} else if (c == 'u')
			a.upgrade = 1;
		else if (c == 'k')
			a.check = 1;
	}
	if (c < 0)
		return o.status;
	if (o.ind != argc)
		return cmd_usage_error("lock",
				       "takes no operands: it locks this "
				       "folder's pin");
	if (a.check && a.upgrade)
		return cmd_usage_error("lock",
				       "--check reads the lock; --upgrade "
				       "rewrites it: give one");
	if ((r = find_project(ctx, &p)) != 0)
		return r;
	return a.check ? check(&p, &a) : write_lock(ctx, &p, &a);
}
