/* export.c: `cudnnvm export oci DIR [<spec>] [--tag REF]`: the build the
 * project's cudnnvm.lock locks (or an installed version) as an OCI image
 * layout (lib/install/export_oci.c). */
#include "cmd.h"
#include "install/install.h"
#include "ui.h"

#include <stdio.h>
#include <string.h>

/* The version: spec, else the lock's build. */
static int
choose(struct cmd_ctx *ctx, const char *spec, char id[64], struct cv_err *err)
{
	struct cv_version v;
	char lock[4096];
	int r;

	if (spec == NULL) {
		if ((r = cv_oci_locked_id(ctx->st, id, lock, err)) == 0 &&
		    cmd_g.verbose)
			ui_note("exporting %s, the build %s locks", id, lock);
		return r;
	}
	if ((r = cv_spec_parse(&v, spec, err)) < 0)
		return r;
	return cv_active_find(ctx->st, &v, id, err);
}

int
cmd_export(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_ctr_view view;
	struct cv_oci_result res;
	struct cmd_opts o;
	const char *tag = NULL, *dir;
	char id[64];
	int c, r;

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0)
		if (c == 't')
			tag = o.arg;
	if (c < 0)
		return o.status;
	if (argc - o.ind < 2 || strcmp(argv[o.ind], "oci") != 0)
		return cmd_usage_error("export",
				       "say the format and the folder: "
				       "export oci DIR");
	if (argc - o.ind > 3)
		return cmd_usage_error("export", "too many arguments");
	dir = argv[o.ind + 1];
	if (*dir == '\0')
		return cmd_usage_error("export", "the folder is empty");
	if ((r = choose(ctx, argc - o.ind == 3 ? argv[o.ind + 2] : NULL, id,
			&err)) < 0)
		return cmd_fail(&err);
	if ((r = cv_env_container(&view, ctx->st, id, &err)) < 0)
		return cmd_fail(&err);
	r = cv_oci_export(&view, dir, tag ? tag : id, &res, &err);
	cv_env_container_release(&view);
	if (r < 0)
		return cmd_fail(&err);
	if (!cmd_g.quiet)
		ui_note("exported cuDNN %s to %s as %s", id, dir, res.ref);
	/* the one line a script reads: what a registry will call it */
	printf("%s\n", res.manifest);
	return 0;
}
