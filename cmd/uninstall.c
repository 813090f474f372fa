/* uninstall.c: `cudnnvm uninstall <spec> [--force] [--even-if-in-use]`;
 * what may be removed is lib/python/uninstall.c's decision. */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"
#include "store/store.h"
#include "ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
any_build(void *payload, const struct cv_version *v)
{
	(void)payload;
	(void)v;
	return 1;
}

/* The pin file or CUDNNVM_VERSION that chose `id` here, now that it is
 * gone: what it gives instead, or that nothing installed matches it. */
static void
say_pin(const struct cv_store *st, const char *id)
{
	struct cv_version gone;
	struct cv_active a;
	int r = cv_active_resolve(st, NULL, &a, NULL, NULL, NULL);
	const char *where = a.origin == CV_ORIGIN_FILE  ? a.file
			    : a.origin == CV_ORIGIN_ENV ? "CUDNNVM_VERSION"
							: NULL;

	if (where == NULL || cv_install_id_parse(&gone, id, NULL) < 0 ||
	    !cv_version_matches(&a.version, &gone))
		return;
	if (r == 0)
		ui_note("%s ('%s') named it; it gives %s now", where, a.spec,
			a.id);
	else
		ui_warn("%s ('%s') named it, and no installed version matches "
			"it now; fix: cudnnvm install %s",
			where, a.spec, a.spec);
}

/* What named the removed version: the global default (unset now), a pin
 * here, the environments pinned to it. */
static void
say_dependents(const struct cv_store *st, const char *id, const char *global)
{
	struct cv_strv envs = CV_STRV_INIT;
	char other[64], now[64];
	int from_system;

	if (strcmp(global, id) == 0) {
		if (cv_store_default_get(st, now, &from_system, NULL) == 0)
			ui_note("it was your global default; the system "
				"store's default, %s, applies now",
				now);
		else
			ui_note("it was the global default; none is set now "
				"(cudnnvm global <version> sets one)");
	}
	say_pin(st, id);
	cv_venv_pinning(id, &envs);
	for (size_t i = 0; i < envs.n; i++) {
		char *q = cv_shell_quote_word(envs.v[i]);
		if (cv_store_pick(st, any_build, NULL, other))
			ui_warn("the environment %s is pinned to it; fix: "
				"cudnnvm venv %s --path %s",
				envs.v[i], other, q);
		else
			ui_warn("the environment %s is pinned to it; fix: "
				"cudnnvm venv --remove --path %s",
				envs.v[i], q);
		free(q);
	}
	cv_strv_release(&envs);
}

/* The archive `id` was installed from, read before it goes: 1 and its
 * sha256 in sha, else 0. */
static int
source_archive(const struct cv_store *st, const char *spec_text, char sha[65])
{
	struct cv_installed *all = NULL;
	struct cv_version spec;
	size_t n = 0, hits = 0;

	sha[0] = '\0';
	if (cv_version_parse(&spec, spec_text, NULL) < 0 ||
	    cv_store_list(st, &all, &n, NULL) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (cv_version_matches(&spec, &all[i].version) && hits++ == 0)
			memcpy(sha, all[i].sha256, 65);
	free(all);
	return hits == 1 && sha[0] != '\0';
}

/* The kept archive of the removed version is only weight now, unless
 * keep_archives = always. */
static void
prune_archive(struct cmd_ctx *ctx, const char *sha)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_cache_usage freed;
	char size[32];

	if (ctx->cfg.keep_archives == CV_KEEP_ALWAYS)
		return;
	if (cv_cache_prune(ctx->st, sha, &freed, &err) < 0)
		ui_warn("%s", err.msg);
	else if (freed.files) {
		ui_size(size, sizeof size, freed.bytes);
		ui_note("removed its archive from the cache (%s)", size);
	}
}

int
cmd_uninstall(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_version spec;
	char id[64], global[64], sha[65];
	struct cmd_opts o;
	int force = 0, in_use_ok = 0, has_sha, c;

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0) {
		if (c == 'f')
			force = 1;
		else if (c == 'u')
			in_use_ok = 1;
	}
	if (c < 0)
		return o.status;
	if (o.ind + 1 != argc)
		return cmd_usage_error("uninstall",
				       "give one installed version");
	if (cv_version_parse(&spec, argv[o.ind], &err) < 0)
		return cmd_fail(&err);
	if (cv_store_global_get(ctx->st, global, NULL) < 0)
		global[0] = '\0';
	has_sha = source_archive(ctx->st, argv[o.ind], sha);
	if (cv_uninstall(ctx->st, &spec, argv[o.ind], force, in_use_ok, id,
			 &err) < 0)
		return cmd_fail(&err);
	if (!cmd_g.quiet)
		printf("uninstalled cuDNN %s\n", id);
	if (cv_store_in_system(ctx->st, id))
		ui_note("that was your own copy, hidden by the system store's; "
			"%s/%s stays and is the one used",
			cv_store_system_root(ctx->st), id);
	say_dependents(ctx->st, id, global);
	if (has_sha)
		prune_archive(ctx, sha);
	if (cv_modulefiles_refresh(ctx->st, &err) < 0)
		ui_warn("module files not updated: %s; run 'cudnnvm modulefiles'",
			err.msg);
	return 0;
}
