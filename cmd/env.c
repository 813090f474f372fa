/* env.c: print the environment script of a version for one shell. */
#include "cmd.h"
#include "ui.h"

#include <stdio.h>
#include <string.h>

int
cmd_env(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st = ctx->st;
	struct cv_env env = CV_ENV_INIT;
	struct cv_buf *out = NULL;
	struct cv_version spec;
	struct cmd_opts o;
	int c, sh = cv_shell_guess(), r;
	char id[64];

	cmd_opts_init(&o, argc, argv);
	/* --shell, the one option */
	while ((c = cmd_opts_next(&o)) > 0)
		if (cv_shell_parse(o.arg, &sh, &err) < 0)
			return cmd_fail(&err);
	if (c < 0)
		return o.status;
	if (argc - o.ind > 1)
		return cmd_usage_error("env", "too many arguments");
	if (argc - o.ind == 1 && cv_spec_parse(&spec, argv[o.ind], &err) < 0)
		return cmd_fail(&err);
	out = cv_text_new();
	r = cv_active_id(st, argc - o.ind == 1 ? &spec : NULL, id, &err);
	if (r == 0)
		r = cv_env_build(&env, st, id, NULL, NULL, &err);
	if (r == 0)
		r = cv_shell_emit(out, sh, &env, &err);
	if (r < 0)
		r = cmd_fail(&err);
	else
		fputs(cv_text_str(out), stdout);
	cv_text_free(out);
	cv_env_release(&env);
	return r;
}
