/* list_remote.c: `cudnnvm list-remote [<spec>] [--cuda N] [--platform P]
 * [--json] [--refresh]`: the builds the mirror offers for a platform,
 * newest first, one install id per line (the walk is lib/install/builds.c). */
#include "base/base.h"
#include "cmd.h"
#include "install/install.h"
#include "machine/machine.h"
#include "ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct listing {
	struct cv_json *arr; /* --json: the builds so far; NULL: print lines */
	int pypi;
	/* --deps: the build an install would take (the first that fits,
	 * else the first) and its row of arr */
	char first[64];
	int first_fits;
	size_t first_row;
};

static int
show(void *arg, const struct cv_build *b)
{
	struct listing *l = arg;
	char size[32], gpu[32] = "";

	/* the first row ends the wait for the network */
	ui_wait_end();
	if (l->first[0] == '\0' || (!l->first_fits && b->fits == 1)) {
		snprintf(l->first, sizeof l->first, "%s", b->id);
		l->first_fits = b->fits == 1;
		l->first_row = l->arr != NULL ? cv_json_array_size(l->arr) : 0;
	}

	struct cv_json *fits = cv_json_pack(
		"{s:o,s:s}", "ok",
		b->fits < 0 ? cv_json_null() : cv_json_boolean(b->fits),
		"reason", b->fit_reason);

	if (l->arr != NULL && l->pypi)
		cv_json_array_append_new(
			l->arr,
			cv_json_pack(
				"{s:s,s:s,s:i,s:s,s:I,s:s,s:s,s:s,s:b,s:o}",
				"id", b->id, "version", b->version, "cuda",
				b->cuda, "platform", b->platform, "size",
				(int64_t)b->size, "sha256", b->sha256, "url",
				b->url, "source", "pypi", "installed",
				b->installed, "fits", fits));
	else if (l->arr != NULL)
		cv_json_array_append_new(
			l->arr,
			cv_json_pack(
				"{s:s,s:s,s:s,s:i,s:s,s:I,s:s,s:s,s:b,s:o}",
				"id", b->id, "version", b->version, "release",
				b->release, "cuda", b->cuda, "platform",
				b->platform, "size", (int64_t)b->size, "sha256",
				b->sha256, "url", b->url, "installed",
				b->installed, "fits", fits));
	else {
		cv_json_decref(fits);
		/* the mirror always says; a wheel's index may not */
		if (b->size || b->release != NULL)
			snprintf(size, sizeof size, "%.1f MiB",
				 (double)b->size / (1024.0 * 1024.0));
		else
			snprintf(size, sizeof size, "-");
		/* "fits": the CUDA major this machine's toolkit or driver
		 * asks for, on a GPU the release has code for; "needs cc":
		 * the GPU's compute capability is older than the release's
		 * (list-remote --json says why, row by row) */
		if (b->needs_arch)
			snprintf(gpu, sizeof gpu, "  needs cc %d.%d",
				 b->needs_arch / 10, b->needs_arch % 10);
		printf("%-20s %-10s %10s%s%s%s\n", b->id,
		       b->release ? b->release : "pypi", size,
		       b->fits == 1 ? "  fits" : "", gpu,
		       b->installed ? "  installed" : "");
	}
	return 0;
}

static void
skipped(void *arg, const struct cv_err *why)
{
	(void)arg;
	ui_error("skipped: %s", why->msg);
}

struct args {
	const char *platform, *spec_s, *source_s;
	const char *mirror, *index; /* --mirror, --index */
	struct cv_version spec;
	int cuda, json, refresh, source, deps;
};

static int
parse(int argc, char **argv, struct args *a)
{
	struct cmd_opts o;
	int c;

	a->mirror = cmd_g.mirror; /* a global option */
	cmd_opts_init(&o, argc, argv);
	/* list_remote_opts in cmd/table.c */
	while ((c = cmd_opts_next(&o)) > 0) {
		if (c == 'c' && cv_cuda_major_parse(o.arg, &a->cuda) < 0)
			return cmd_usage_error(
				"list-remote",
				"--cuda needs a CUDA major such as 12");
		else if (c == 'p')
			a->platform = o.arg;
		else if (c == 'j')
			a->json = 1;
		else if (c == 'r')
			a->refresh = 1;
		else if (c == 'S')
			a->source_s = o.arg;
		else if (c == 'I')
			a->index = o.arg;
		else if (c == 'D')
			a->deps = 1;
	}
	if (c < 0)
		return o.status;
	if (argc - o.ind > 1)
		return cmd_usage_error("list-remote", "give at most one spec");
	a->spec_s = o.ind < argc ? argv[o.ind] : NULL;
	return 0;
}

/* The spec's -cudaN becomes --cuda; `latest` means this machine's CUDA. */
static int
take_spec(struct args *a)
{
	struct cv_err err = CV_ERR_INIT;

	if (cv_spec_parse(&a->spec, a->spec_s, &err) < 0)
		return cmd_fail(&err);
	if (a->spec.cuda) {
		if (a->cuda && a->cuda != a->spec.cuda)
			return cmd_usage_error("list-remote",
					       "the spec and --cuda disagree");
		a->cuda = a->spec.cuda;
		a->spec.cuda = 0;
	}
	/* latest: the newest release for this machine's CUDA major */
	if (a->spec.nparts == 0 && a->cuda == 0 &&
	    (a->cuda = cv_machine_cuda(NULL, 0, &err)) < 0)
		return cmd_fail(&err);
	return 0;
}

static int
choose_platform(const struct cv_config *cfg, const char *flag,
		char platform[32])
{
	struct cv_err err = CV_ERR_INIT;

	if (flag == NULL)
		flag = cfg->platform;
	if (flag == NULL)
		return cv_platform_detect(platform, &err) < 0 ? cmd_fail(&err)
							      : 0;
	if (!cv_platform_valid(flag))
		return cmd_usage_error("list-remote",
				       "unknown platform '%.40s'", flag);
	snprintf(platform, 32, "%s", flag);
	return 0;
}

static void
deps_fallback(void *payload, const char *why)
{
	(void)payload;
	ui_note("%s; cuBLAS comes from the CUDA redist tree instead", why);
}

/* --deps: what installing l->first would download beside it, as lines
 * or as the "deps" of its JSON row. */
static int
show_deps(struct cmd_ctx *ctx, const struct args *a, struct listing *l,
	  const char *platform)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_dep_file f[CV_MAX_DEPS];
	struct cv_deps_req req;
	struct cv_version v;
	struct cv_json *arr = cv_json_array();
	int n = 0;

	memset(&req, 0, sizeof req);
	req.st = ctx->st;
	req.cfg = &ctx->cfg;
	req.cudnn_mirror = a->mirror;
	req.version = &v;
	req.platform = platform;
	req.mode =
		ctx->cfg.deps == CV_DEPS_NEVER ? CV_DEPS_AUTO : ctx->cfg.deps;
	req.refresh = a->refresh;
	req.fallback = deps_fallback;
	if (cv_install_id_parse(&v, l->first, NULL) < 0 ||
	    cv_deps_preview(&req, f, &n, &err) < 0) {
		cv_json_decref(arr);
		return cmd_fail(&err);
	}
	if (l->arr == NULL && n == 0)
		printf("install %s adds no dependency: the store or this "
		       "machine has them\n",
		       l->first);
	else if (l->arr == NULL)
		printf("install %s adds:\n", l->first);
	for (int i = 0; i < n; i++) {
		if (l->arr == NULL)
			printf("  %-12s %-12s %-8s %8.1f MiB\n", f[i].name,
			       f[i].version, f[i].channel,
			       (double)f[i].size / (1024.0 * 1024.0));
		cv_json_array_append_new(
			arr, cv_json_pack("{s:s,s:s,s:s,s:I,s:s,s:s}", "name",
					  f[i].name, "version", f[i].version,
					  "channel", f[i].channel, "size",
					  (int64_t)f[i].size, "url", f[i].url,
					  "sha256", f[i].sha256));
	}
	if (l->arr != NULL)
		cv_json_object_set(cv_json_array_get(l->arr, l->first_row),
				   "deps", arr);
	cv_json_decref(arr);
	return 0;
}

/* What ends the listing: the JSON, or why nothing or not all was shown. */
static int
finish(const struct args *a, struct listing *l, const char *platform, int shown,
       int bad)
{
	struct cv_err err = CV_ERR_INIT;

	if (l->arr != NULL) {
		char *s = cv_json_dumps(l->arr, CV_JSON_INDENT(2));
		if (s != NULL)
			puts(s);
		free(s);
	}
	if (bad) {
		cv_err_set(&err, bad,
			   "some manifests on the mirror could not be read "
			   "(see above)");
		return cmd_fail(&err);
	}
	if (shown || l->arr != NULL)
		return 0;
	if (l->pypi)
		cv_err_set(&err, CV_ENOTFOUND,
			   "no cuDNN wheel on the index matches for %s",
			   platform);
	else {
		cv_err_set(&err, CV_ENOTFOUND,
			   "no cuDNN build on the mirror matches%s%s%s for %s",
			   a->spec_s ? " '" : "", a->spec_s ? a->spec_s : "",
			   a->spec_s ? "'" : "", platform);
		if (a->cuda)
			cv_err_prefix(&err, "cuda%d: ", a->cuda);
	}
	return cmd_fail(&err);
}

int
cmd_list_remote(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_builds_req req;
	struct listing l = { NULL, 0, "", 0, 0 };
	struct args a;
	const char *from;
	char platform[32], *host;
	int r, bad = 0, shown;

	memset(&a, 0, sizeof a);
	a.source = -1;
	if ((r = parse(argc, argv, &a)) != 0)
		return r;
	if (a.spec_s != NULL && (r = take_spec(&a)) != 0)
		return r;
	if ((r = cmd_need(ctx, CMD_STORE)) != 0 ||
	    (r = cmd_source_of("list-remote", a.source_s, a.mirror, a.index,
			       ctx->cfg.source, &a.source)) != 0 ||
	    (r = choose_platform(&ctx->cfg, a.platform, platform)) != 0)
		return r;
	l.pypi = a.source == CV_SOURCE_PYPI;
	if (a.deps && l.pypi)
		return cmd_usage_error("list-remote",
				       "--deps shows NVIDIA's redist trees; "
				       "with source pypi they are wheels");
	l.arr = a.json ? cv_json_array() : NULL;
	memset(&req, 0, sizeof req);
	req.spec = a.spec_s != NULL ? &a.spec : NULL;
	req.cuda = a.cuda;
	req.platform = platform;
	req.refresh = a.refresh;
	req.from = l.pypi ? a.index : a.mirror;
	req.build = show;
	req.skipped = skipped;
	req.arg = &l;
	if (!l.pypi || cv_pypi_index(&ctx->cfg, a.index, &from, &err) < 0)
		from = a.mirror ? a.mirror : ctx->cfg.mirror;
	err = (struct cv_err)CV_ERR_INIT;
	host = cv_url_host(from);
	ui_wait_begin("%s to answer (its release listing)", host);
	free(host);
	shown = cv_builds(l.pypi ? CV_SOURCE_PYPI : CV_SOURCE_NVIDIA, &ctx->cfg,
			  ctx->st, &req, &bad, &err);
	ui_wait_end();
	if (shown > 0 && a.deps && !l.pypi &&
	    (r = show_deps(ctx, &a, &l, platform)) != 0) {
		cv_json_decref(l.arr);
		return r;
	}
	r = shown < 0 ? cmd_fail(&err) : finish(&a, &l, platform, shown, bad);
	cv_json_decref(l.arr);
	return r;
}
