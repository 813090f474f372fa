/* mirror.c: `cudnnvm mirror <dir> <spec>... [--cuda N] [--platform P]
 * [--mirror URL] [--verify]` builds or checks an offline redist mirror for
 * air-gapped sites. */
#include "cmd.h"
#include "ui.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static void
report(void *payload, const char *what, const char *path)
{
	(void)payload;
	if (!cmd_g.quiet)
		printf("%-8s %s\n", what, path);
}

/* Copy the releases of specs from the mirror into dir. */
static int
copy(struct cmd_ctx *ctx, const char *dir, const struct cv_version *specs,
     size_t nspecs, const char *mirror, int refresh,
     const struct cv_mirror_opts *mo)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_remote *rem = NULL;
	struct cv_index *ix = NULL;
	int r = 0;

	if (cv_remote_new(&rem, &ctx->cfg, mirror, &err) < 0 ||
	    cv_index_open(&ix, rem, cv_store_cache_dir(ctx->st), refresh,
			  &err) < 0 ||
	    cv_mirror_specs(ix, dir, specs, nspecs, mo, &err) < 0)
		r = cmd_fail(&err);
	cv_index_free(ix);
	cv_remote_free(rem);
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
	enum { O_CUDA = 1, O_PLATFORM, O_MIRROR, O_VERIFY, O_REFRESH };
	static const struct option opts[] = {
		{ "cuda", required_argument, NULL, O_CUDA },
		{ "platform", required_argument, NULL, O_PLATFORM },
		{ "mirror", required_argument, NULL, O_MIRROR },
		{ "verify", no_argument, NULL, O_VERIFY },
		{ "refresh", no_argument, NULL, O_REFRESH },
		{ NULL, 0, NULL, 0 },
	};
	struct cv_err err = CV_ERR_INIT;
	struct cv_mirror_opts mo = { 0, NULL, report, NULL };
	struct cv_version *specs = NULL;
	const char *mirror = NULL, *dir;
	size_t nspecs = 0;
	int c, r = 0, verify = 0, refresh = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_CUDA:
			if (cv_cuda_major_parse(optarg, &mo.cuda) < 0)
				return cmd_usage_error(
					"mirror",
					"--cuda wants a CUDA major such as 12");
			break;
		case O_PLATFORM:
			if (!cv_platform_valid(optarg))
				return cmd_usage_error(
					"mirror", "unknown platform '%.40s'",
					optarg);
			mo.platform = optarg;
			break;
		case O_MIRROR:
			mirror = optarg;
			break;
		case O_VERIFY:
			verify = 1;
			break;
		case O_REFRESH:
			refresh = 1;
			break;
		default:
			return cmd_usage_error("mirror", "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (argc - optind < 1 || (argc - optind < 2 && !verify))
		return cmd_usage_error(
			"mirror",
			"give a folder and at least one spec (or --verify)");
	dir = argv[optind];
	nspecs = (size_t)(argc - optind - 1);
	specs = calloc(nspecs ? nspecs : 1, sizeof *specs);
	if (specs == NULL)
		abort();
	for (size_t i = 0; i < nspecs; i++)
		if (cv_version_parse(&specs[i], argv[optind + 1 + (int)i],
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
