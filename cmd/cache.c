/* cache.c: `cudnnvm cache [dir|prune|clean]`: where downloads are kept,
 * what they weigh, and removing them (lib/store/cache.c decides what goes). */
#include "base/base.h"
#include "cmd.h"
#include "store/store.h"
#include "ui.h"

#include <stdio.h>
#include <string.h>

static void
summary(const struct cv_store *st, const struct cv_cache_usage *u)
{
	char all[32], stale[32];

	ui_size(all, sizeof all, u->bytes);
	ui_size(stale, sizeof stale, u->stale_bytes);
	ui_print(stdout, "%s", cv_store_cache_dir(st));
	printf("  %zu file%s, %s\n", u->files, u->files == 1 ? "" : "s", all);
	if (u->stale)
		printf("  %zu archive%s of versions no longer installed, %s "
		       "(cudnnvm cache prune removes them)\n",
		       u->stale, u->stale == 1 ? "" : "s", stale);
}

int
cmd_cache(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_cache_usage u;
	struct cv_strv left = CV_STRV_INIT;
	const char *what;
	char size[32];
	int r;

	if ((r = cmd_opts_none(&argc, &argv)) != 0)
		return r;
	what = argc >= 2 ? argv[1] : "";
	if (argc > 2 ||
	    (argc == 2 && strcmp(what, "dir") != 0 &&
	     strcmp(what, "prune") != 0 && strcmp(what, "clean") != 0))
		return cmd_usage_error("cache", "expected dir, prune or clean");
	if (strcmp(what, "dir") == 0) {
		ui_print(stdout, "%s", cv_store_cache_dir(ctx->st));
		return 0;
	}
	if (*what == '\0') {
		if (cv_cache_usage(ctx->st, &u, &err) < 0)
			return cmd_fail(&err);
		summary(ctx->st, &u);
		return 0;
	}
	r = strcmp(what, "prune") == 0
		    ? cv_cache_prune(ctx->st, NULL, &u, &err)
		    : cv_cache_clean(ctx->st, &u, &left, &err);
	for (size_t i = 0; i < left.n; i++)
		ui_print(stdout, "%s", left.v[i]);
	cv_strv_release(&left);
	if (r < 0)
		return cmd_fail(&err);
	ui_size(size, sizeof size, u.bytes);
	if (!cmd_g.quiet)
		printf("removed %zu file%s, %s\n", u.files,
		       u.files == 1 ? "" : "s", size);
	return 0;
}
