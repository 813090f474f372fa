/* uninstall.c: `cudnnvm uninstall <spec> [--force] [--even-if-in-use]`;
 * what may be removed is lib/uninstall.c's decision. */
#include "cmd.h"
#include "ui.h"

#include <stdio.h>

int
cmd_uninstall(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_version spec;
	char id[64];
	struct cmd_opts o;
	int force = 0, in_use_ok = 0, c;

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
	if (cv_uninstall(ctx->st, &spec, argv[o.ind], force, in_use_ok, id,
			 &err) < 0)
		return cmd_fail(&err);
	if (!cmd_g.quiet)
		printf("uninstalled cuDNN %s\n", id);
	if (cv_modulefiles_refresh(ctx->st, &err) < 0)
		ui_warn("module files not updated: %s; run 'cudnnvm modulefiles'",
			err.msg);
	return 0;
}
