/* env.c: print the environment script of a version for one shell. */
#include "cmd.h"
#include "ui.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

int
cmd_env(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{ "shell", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st = ctx->st;
	struct cv_env env = CV_ENV_INIT;
	struct cv_buf *out = NULL;
	struct cv_version spec;
	int c, sh = cv_shell_guess(), r;
	char id[64];

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 's')
			return cmd_usage_error("env", "unknown option '%s'",
					       argv[optind - 1]);
		if (cv_shell_parse(optarg, &sh, &err) < 0)
			return cmd_fail(&err);
	}
	if (argc - optind > 1)
		return cmd_usage_error("env", "too many arguments");
	if (argc - optind == 1 && cv_spec_parse(&spec, argv[optind], &err) < 0)
		return cmd_fail(&err);
	out = cv_text_new();
	r = cv_active_id(st, argc - optind == 1 ? &spec : NULL, id, &err);
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
