/* import.c: `cudnnvm import <dir> [--version V] [--cuda N]` takes a
 * hand-installed cuDNN under management, then validates it like any
 * install. */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "install/install.h"
#include "python/python.h"
#include "store/store.h"
#include "ui.h"

#include <stdio.h>

int
cmd_import(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cmd_opts opts;
	struct cv_store *st = ctx->st;
	struct cv_import_opts o = { NULL, 0, NULL };
	struct cv_gate_opts g = CV_GATE_OPTS_INIT;
	struct cv_verdict v;
	char id[64];
	int c, r, no_validate = 0;

	cmd_opts_init(&opts, argc, argv);
	while ((c = cmd_opts_next(&opts)) > 0) {
		if (c == 'V') {
			o.version = opts.arg;
		} else if (c == 'c') {
			if (cv_cuda_major_parse(opts.arg, &o.cuda) < 0)
				return cmd_usage_error(
					"import",
					"--cuda wants a CUDA major such as 12");
		} else if (c == 'n') {
			no_validate = 1;
		}
	}
	if (c < 0)
		return opts.status;
	if (argc - opts.ind != 1)
		return cmd_usage_error("import", "give one folder");
	o.probe_exe = cmd_g.probe_exe;
	if (cv_import(st, argv[opts.ind], &o, id, &err) < 0) {
		r = cmd_fail(&err);
		goto out;
	}
	if (!cmd_g.quiet)
		printf("imported cuDNN %s from %s into %s/%s (no NVIDIA checksum vouches for it; file hashes are in import.json)\n",
		       id, argv[opts.ind], cv_store_root(st), id);
	if (cv_modulefiles_refresh(st, &err) < 0)
		ui_warn("module files not updated: %s; run 'cudnnvm modulefiles'",
			err.msg);
	g.no_validate = no_validate || !ctx->cfg.validate;
	g.probe_exe = cmd_g.probe_exe;
	r = ui_verdict(cv_gate_check(&ctx->cfg, st, id, &g, &v, &err), &err,
		       &v);
out:
	return r;
}
