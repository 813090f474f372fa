/* mirror.c: `cudnnvm mirror <dir> <spec>... [--cuda N] [--platform P]
 * [--mirror URL] [--verify]` builds or checks an offline redist mirror for
 * air-gapped sites. */
#include "base/base.h"
#include "cmd.h"
#include "install/install.h"
#include "release/release.h"
#include "store/store.h"
#include "ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
report(void *payload, const char *what, const char *path)
{
	(void)payload;
	if (!cmd_g.quiet)
		printf("%-8s %s\n", what, path);
}

static void
deps_fallback(void *payload, const char *why)
{
	(void)payload;
	if (!cmd_g.quiet)
		ui_note("%s; cuBLAS comes from the CUDA redist tree instead",
			why);
}

/* Copy the releases of specs from the mirror into dir, and beside it what
 * installing them adds (cuBLAS, nvrtc). */
static int
copy(struct cmd_ctx *ctx, const char *dir, const struct cv_version *specs,
     size_t nspecs, const char *mirror, int refresh,
     const struct cv_mirror_opts *mo)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_remote *rem = NULL;
	struct cv_index *ix = NULL;
	struct cv_deps_req dr;
	int r = 0;

	memset(&dr, 0, sizeof dr);
	dr.st = ctx->st;
	dr.cfg = &ctx->cfg;
	dr.cudnn_mirror = mirror;
	dr.refresh = refresh;
	dr.fallback = deps_fallback;
	if (cv_remote_new(&rem, &ctx->cfg, mirror, &err) < 0 ||
	    cv_index_open(&ix, rem, cv_store_cache_dir(ctx->st), refresh,
			  &err) < 0 ||
	    cv_mirror_specs(ix, dir, specs, nspecs, mo, &err) < 0 ||
	    cv_mirror_specs_deps(&dr, ix, dir, specs, nspecs, mo, &err) < 0)
		r = cmd_fail(&err);
	cv_index_free(ix);
	cv_remote_free(rem);
	return r;
}

/* --from-lock FILE: what the lock names, nothing else. */
static int
from_lock(struct cmd_ctx *ctx, const char *file, const char *dir,
	  const char *mirror, const struct cv_mirror_opts *mo)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_remote *rem = NULL;
	struct cv_lock lk;
	int r = 0;

	/* the dependencies first: their destinations are checked before
	 * any copy begins that install --frozen could not find */
	if (cv_lock_read(file, &lk, &err) < 0 ||
	    cv_remote_new(&rem, &ctx->cfg, mirror, &err) < 0 ||
	    cv_mirror_lock_deps(&ctx->cfg, mirror, dir, &lk, mo, &err) < 0 ||
	    cv_mirror_lock(rem, dir, &lk, mo, &err) < 0) {
		if (err.code == CV_EUSAGE) {
			char *f = cv_shell_quote_word(file),
			     *d = cv_shell_quote_word(dir);
			cv_err_hint(&err,
				    "cudnnvm mirror --from-lock %s "
				    "%s/compute/cudnn/redist",
				    f, d);
			free(f);
			free(d);
		}
		r = cmd_fail(&err);
	}
	cv_remote_free(rem);
	if (r == 0 && !cmd_g.quiet)
		printf("mirror ready with %s: use it with 'mirror = file://%s' "
		       "or serve the folder over HTTPS\n",
		       lk.id, dir);
	return r;
}

/* --verify: every archive of dir against its manifest. */
static int
verify_dir(const char *dir, const struct cv_mirror_opts *mo)
{
	struct cv_err err = CV_ERR_INIT;
	size_t bad = 0;

	if (cv_mirror_verify(dir, mo, &bad, &err) < 0)
		return cmd_fail(&err);
	if (bad == 0)
		return 0;
	cv_err_set(
		&err, CV_EDATA,
		"%zu archive%s in %s differ%s from the manifests; delete %s and run 'cudnnvm mirror' again",
		bad, bad == 1 ? "" : "s", dir, bad == 1 ? "s" : "",
		bad == 1 ? "it" : "them");
	return cmd_fail(&err);
}

int
cmd_mirror(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cmd_opts o;
	struct cv_mirror_opts mo = { 0, NULL, report, NULL };
	struct cv_version *specs = NULL;
	const char *mirror = cmd_g.mirror, *dir, *lock = NULL;
	size_t nspecs = 0;
	int c, r = 0, verify = 0, refresh = 0;

	cmd_opts_init(&o, argc, argv);
	/* mirror_opts in cmd/table.c */
	while ((c = cmd_opts_next(&o)) > 0) {
		switch (c) {
		case 'c':
			if (cv_cuda_major_parse(o.arg, &mo.cuda) < 0)
				return cmd_usage_error(
					"mirror",
					"--cuda wants a CUDA major such as 12");
			break;
		case 'p':
			if (!cv_platform_valid(o.arg))
				return cmd_usage_error(
					"mirror", "unknown platform '%.40s'",
					o.arg);
			mo.platform = o.arg;
			break;
		case 'v':
			verify = 1;
			break;
		case 'r':
			refresh = 1;
			break;
		case 'l':
			lock = o.arg;
			break;
		}
	}
	if (c < 0)
		return o.status;
	if (lock != NULL && (argc - o.ind != 1 || verify || refresh ||
			     mo.cuda || mo.platform != NULL))
		return cmd_usage_error(
			"mirror",
			"--from-lock FILE takes one folder, and the lock "
			"chooses the builds (no spec, --cuda, --platform, "
			"--verify or --refresh)");
	if (lock != NULL)
		return from_lock(ctx, lock, argv[o.ind], mirror, &mo);
	if (argc - o.ind < 1 || (argc - o.ind < 2 && !verify))
		return cmd_usage_error(
			"mirror",
			"give a folder and at least one spec (or --verify)");
	dir = argv[o.ind];
	nspecs = (size_t)(argc - o.ind - 1);
	specs = calloc(nspecs ? nspecs : 1, sizeof *specs);
	if (specs == NULL)
		abort();
	for (size_t i = 0; i < nspecs; i++)
		if (cv_version_parse(&specs[i], argv[o.ind + 1 + (int)i],
				     &err) < 0) {
			free(specs);
			return cmd_fail(&err);
		}
	if (nspecs > 0)
		r = copy(ctx, dir, specs, nspecs, mirror, refresh, &mo);
	if (r == 0 && verify)
		r = verify_dir(dir, &mo);
	if (r != 0)
		goto out;
	if (!cmd_g.quiet && nspecs > 0)
		printf("mirror ready: use it with 'mirror = file://%s' or serve the folder over HTTPS\n",
		       dir);
out:
	free(specs);
	return r;
}
