/* uninstall.c: `cudnnvm uninstall <spec> [--force] [--even-if-in-use]`;
 * what may be removed is lib/uninstall.c's decision. */
#include "cmd.h"
#include "ui.h"

#include <getopt.h>
#include <stdio.h>

int
cmd_uninstall(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option lo[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "even-if-in-use", no_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	struct cv_err err = CV_ERR_INIT;
	struct cv_version spec;
	char id[64];
	int force = 0, in_use_ok = 0, c;

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
	if (cv_uninstall(ctx->st, &spec, argv[optind], force, in_use_ok, id,
			 &err) < 0)
		return cmd_fail(&err);
	if (!cmd_g.quiet)
		printf("uninstalled cuDNN %s\n", id);
	if (cv_modulefiles_refresh(ctx->st, &err) < 0)
		ui_warn("module files not updated: %s; run 'cudnnvm modulefiles'",
			err.msg);
	return 0;
}
