/* uninstall.c: `cudnnvm uninstall <spec> [--force] [--even-if-in-use]`.
 * Refuses the global default and the active version unless --force, and a
 * version running processes map unless --even-if-in-use; with --force the
 * global link is removed first so it never dangles. */
#include "cmd.h"
#include "ui.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
cmd_uninstall(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option lo[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "even-if-in-use", no_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st = ctx->st;
	struct cv_installed *all = NULL;
	struct cv_version spec;
	struct cv_active act;
	char id[64] = "", global[64] = "", cwd[PATH_MAX];
	size_t n = 0, matches = 0;
	int force = 0, in_use_ok = 0, c, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'f')
			force = 1;
		else if (c == 'u')
			in_use_ok = 1;
		else
			return cmd_usage_error("uninstall",
					       "unknown option '%s'",
					       argv[optind - 1]);
	}
	if (optind + 1 != argc)
		return cmd_usage_error("uninstall",
				       "give one installed version");
	if (cv_version_parse(&spec, argv[optind], &err) < 0)
		return cmd_fail(&err);
	if (cv_store_list(st, &all, &n, &err) < 0)
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (cv_version_matches(&spec, &all[i].version)) {
			if (matches++ == 0)
				snprintf(id, sizeof id, "%s", all[i].id);
		}
	free(all);
	if (matches == 0) {
		cv_err_set(
			&err, CV_ENOTFOUND,
			"no installed cuDNN matches '%s'; see 'cudnnvm list'",
			argv[optind]);
		goto fail;
	}
	if (matches > 1) {
		cv_err_set(
			&err, CV_EUSAGE,
			"'%s' matches %zu installed versions; name one exactly (see 'cudnnvm list')",
			argv[optind], matches);
		goto fail;
	}
	if (cv_store_in_system(st, id)) {
		/* the system store's copy is not this user's to remove; a
		 * copy of their own that it hides is, and removing that
		 * changes nothing that resolves to it */
		if (!cv_store_has_own(st, id)) {
			cv_err_set(
				&err, CV_EPERM,
				"cuDNN %s is owned by the system store %s; ask its admin",
				id, cv_store_system_root(st));
			goto fail;
		}
		force = 1;
	}
	if (cv_store_global_get(st, global, NULL) < 0)
		global[0] = '\0';
	if (!force && strcmp(global, id) == 0) {
		cv_err_set(
			&err, CV_ERROR,
			"cuDNN %s is the global default; run 'cudnnvm global <other>' first, or pass --force",
			id);
		goto fail;
	}
	if (!force && getcwd(cwd, sizeof cwd) != NULL &&
	    cv_active_resolve(st, cwd, &act, NULL, NULL, NULL) == 0 &&
	    strcmp(act.id, id) == 0) {
		cv_err_set(
			&err, CV_ERROR,
			"cuDNN %s is the active version here; switch away first, or pass --force",
			id);
		goto fail;
	}
	if (!in_use_ok && cv_store_check_unused(st, id, 0, &err) < 0)
		goto fail;
	if (strcmp(global, id) == 0 && !cv_store_in_system(st, id) &&
	    cv_store_global_set(st, NULL, &err) < 0)
		goto fail;
	if (cv_store_uninstall(st, id, &err) < 0)
		goto fail;
	if (!cmd_g.quiet)
		printf("uninstalled cuDNN %s\n", id);
	if (cv_modulefiles_refresh(st, &err) < 0)
		ui_warn("module files not updated: %s; run 'cudnnvm modulefiles'",
			err.msg);
	return 0;
fail:
	r = cmd_fail(&err);
	return r;
}
