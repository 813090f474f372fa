/* venv.c: `cudnnvm venv [<spec> [<spec>]] [--path DIR] [--remove]
 * [--force]`: pin a version (one per cuDNN major) to a Python virtualenv
 * or a conda environment. What is
 * written, and why, is lib/python/venv.c and lib/python/preload.c. */
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"
#include "ui.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The install ids the environment `dir` is pinned to: specs[0..n) (none:
 * the active version), one per cuDNN major, each once it passed the gate
 * with the other beside it. 0, or the exit status. */
static int
choose(struct cmd_ctx *ctx, const char *dir, char **specs, int n, int force,
       char ids[][64])
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_gate_opts g = CV_GATE_OPTS_INIT;
	struct cv_verdict v;
	struct cv_version spec;
	char *quoted, *tail;
	int r = 0;

	if ((r = cmd_need(ctx, CMD_STORE)) != 0)
		return r;
	for (int i = 0; i < (n ? n : 1); i++) {
		if (n && cv_spec_parse(&spec, specs[i], &err) < 0)
			return cmd_fail(&err);
		if (cv_active_id(ctx->st, n ? &spec : NULL, ids[i], &err) < 0)
			return cmd_fail(&err);
	}
	if (n == 2 && strtol(ids[0], NULL, 10) == strtol(ids[1], NULL, 10))
		return cmd_usage_error(
			"venv",
			"%s and %s are both cuDNN %ld; pin one version per major",
			ids[0], ids[1], strtol(ids[0], NULL, 10));
	quoted = cv_shell_quote_word(dir);
	for (int i = 0; r == 0 && i < (n ? n : 1); i++) {
		char head[96];
		/* a fix keeps the other pin of a two-major venv in place */
		snprintf(head, sizeof head, "cudnnvm venv%s%s",
			 n == 2 && i == 1 ? " " : "",
			 n == 2 && i == 1 ? ids[0] : "");
		tail = xasprintf("%s%s --path %s", n == 2 && i == 0 ? " " : "",
				 n == 2 && i == 0 ? ids[1] : "", quoted);
		g.force = force;
		g.frameworks = 1;
		g.prefix = dir;
		g.probe_exe = cmd_g.probe_exe;
		g.fix.head = head;
		g.fix.tail = tail ? tail : "";
		/* the pins written now replace the hook's: never its old ones
		 */
		g.beside = n == 2 ? ids[1 - i] : "";
		r = cv_gate_check(&ctx->cfg, ctx->st, ids[i], &g, &v, &err);
		r = ui_verdict(r, &err, &v);
		free(tail);
	}
	free(quoted);
	return r;
}

int
cmd_venv(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cmd_opts o;
	const char *dir = NULL;
	char exe[PATH_MAX], ids[CV_VENV_MAXPINS][64] = { "" };
	char found[PATH_MAX], how[32];
	const char *pinned[CV_VENV_MAXPINS] = { ids[0], ids[1] };
	int c, remove = 0, force = 0, r = 0, nspecs;

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
	nspecs = argc - o.ind;
	if (nspecs > (remove ? 0 : CV_VENV_MAXPINS))
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
	    (r = choose(ctx, dir, argv + o.ind, nspecs, force, ids)) != 0)
		return r;
	r = cv_venv_write(dir, ctx->st, pinned, nspecs ? (size_t)nspecs : 1,
			  exe, remove, &err);
	if (r < 0)
		return cmd_fail(&err);
	if (remove)
		ui_note("removed the cudnnvm hooks from %s", dir);
	else if (nspecs < 2)
		ui_note("%s now uses cuDNN %s when activated (re-activate it to apply)",
			dir, ids[0]);
	else
		ui_note("%s now uses cuDNN %s when activated (re-activate it to apply), and %s beside it for the frameworks that need cuDNN %ld",
			dir, ids[0], ids[1], strtol(ids[1], NULL, 10));
	return 0;
}
