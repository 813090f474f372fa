/* env.c: print the environment script of a version for one shell. */
#include "cmd.h"
#include "ui.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
cmd_version_id(const struct cv_store *st, const char *spec, char id[64],
	       struct cv_err *err)
{
	struct cv_active a;
	char cwd[PATH_MAX];
	int r;

	if (spec != NULL)
		return cv_active_find(st, spec, id, err);
	r = cv_active_resolve(st, getcwd(cwd, sizeof cwd), &a, NULL, NULL, err);
	if (r == 0)
		memcpy(id, a.id, sizeof a.id);
	return r;
}

int
cmd_version_env(const struct cv_store *st, const char *spec, struct cv_env *env,
		struct cv_err *err)
{
	char id[64];
	int r = cmd_version_id(st, spec, id, err);

	if (r < 0)
		return r;
	return cv_env_build(env, cv_store_root(st), id, NULL, NULL, err);
}

int
cmd_env(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "shell", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st = NULL;
	struct cv_env env = CV_ENV_INIT;
	struct cv_buf *out = NULL;
	int c, sh = cv_shell_guess(), r;

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
	if ((r = cmd_open(NULL, &st, 0)) != 0)
		return r;
	out = cv_text_new();
	r = cmd_version_env(st, argc - optind == 1 ? argv[optind] : NULL, &env,
			    &err);
	if (r == 0)
		r = cv_shell_emit(out, sh, &env, &err);
	if (r < 0)
		r = cmd_fail(&err);
	else
		fputs(cv_text_str(out), stdout);
	cv_text_free(out);
	cv_env_release(&env);
	cv_store_free(st);
	return r;
}
