/* venv.c: `cudnnvm venv [<spec>] [--path DIR] [--remove] [--force]`: pin
 * a version to a Python virtualenv or a conda environment. What is
 * written, and why, is lib/venv.c and lib/preload.c. */
#include "cmd.h"
#include "ui.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The install id the environment `dir` is pinned to: spec (NULL: the
 * active version), once it passed the gate. 0, or the exit status. */
static int
choose(struct cmd_ctx *ctx, const char *dir, const char *spec_s, int force,
       char id[64])
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_gate_opts g = CV_GATE_OPTS_INIT;
	struct cv_verdict v;
	struct cv_version spec;
	char *quoted, *tail;
	int r;

	if (spec_s != NULL && cv_spec_parse(&spec, spec_s, &err) < 0)
		return cmd_fail(&err);
	if ((r = cmd_need(ctx, CMD_STORE)) != 0)
		return r;
	g.force = force;
	g.frameworks = 1;
	g.prefix = dir;
	g.probe_exe = cmd_g.probe_exe;
	quoted = cv_hint_quote(dir);
	if (asprintf(&tail, " --path %s", quoted) < 0)
		tail = NULL;
	g.fix.head = "cudnnvm venv";
	g.fix.tail = tail ? tail : "";
	r = cv_active_id(ctx->st, spec_s != NULL ? &spec : NULL, id, &err);
	if (r == 0)
		r = cv_gate_check(&ctx->cfg, ctx->st, id, &g, &v, &err);
	r = ui_verdict(r, &err, &v);
	free(quoted);
	free(tail);
	return r;
}

int
cmd_venv(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cmd_opts o;
	const char *dir = NULL;
	char exe[PATH_MAX], id[64] = "", found[PATH_MAX], how[32];
	int c, remove = 0, force = 0, r = 0;

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0) {
		if (c == 'p')
			dir = o.arg;
		else if (c == 'r')
			remove = 1;
		else if (c == 'f')
			force = 1;
	}
	if (c < 0)
		return o.status;
	if (argc - o.ind > (remove ? 0 : 1))
		return cmd_usage_error("venv", "too many arguments");
	/* $VIRTUAL_ENV, $CONDA_PREFIX, else a .venv above, not activated
	 * (the first python3 on PATH only when it is a venv's) */
	if (dir == NULL && cv_fw_env_in_play(found, sizeof found, how) &&
	    (strcmp(how, "python3 on PATH") != 0 ||
	     cv_venv_kind(found, NULL) > 0))
		dir = found;
	if (dir == NULL || *dir == '\0')
		return cmd_usage_error(
			"venv",
			"no virtualenv or conda env is active; pass --path DIR");
	if (cv_venv_kind(dir, &err) < 0)
		return cmd_fail(&err);
	if (cv_child_self(exe, &err) < 0)
		return cmd_fail(&err);
	if (!remove &&
	    (r = choose(ctx, dir, argc - o.ind == 1 ? argv[o.ind] : NULL, force,
			id)) != 0)
		return r;
	r = cv_venv_write(dir, ctx->st, id, exe, remove, &err);
	if (r < 0)
		return cmd_fail(&err);
	if (remove)
		ui_note("removed the cudnnvm hooks from %s", dir);
	else
		ui_note("%s now uses cuDNN %s when activated (re-activate it to apply)",
			dir, id);
	return 0;
}
