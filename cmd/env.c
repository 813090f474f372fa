/* env.c: print the environment script of a version for one shell. */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"
#include "ui.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The version: spec, else the active one (a venv pin that won over the
 * pin file or global default says so). */
static int
choose(const struct cv_store *st, const struct cv_version *spec, char id[64],
       struct cv_err *err)
{
	struct cv_active a;
	int r;

	if (spec != NULL)
		return cv_active_find(st, spec, id, err);
	r = cv_active_resolve(st, NULL, &a, NULL, NULL, err);
	if (r == 0) {
		memcpy(id, a.id, sizeof a.id);
		if (a.venv[0]) {
			char said[2048];
			cv_gate_venv_said(&a, said, sizeof said);
			ui_warn("%s", said);
		}
	}
	return r;
}

/* A framework of the environment in play that cannot load id, or binds
 * its own front library, said on stderr; the script remembers the
 * environment told (_CUDNNVM_FW_SAID), as the prompt hook does. */
static int
notes(const struct cv_store *st, const char *id, int sh, struct cv_buf *out,
      struct cv_err *err)
{
	static const struct cv_gate_fix fix = { "eval \"$(cudnnvm env", ")\"" };
	struct cv_verdict v;
	char noted[PATH_MAX];

	cv_gate_notes(st, id, &fix, 1, getenv("_CUDNNVM_FW_SAID"), &v, noted,
		      sizeof noted);
	ui_verdict(0, NULL, &v);
	return noted[0] ? cv_shell_set(out, sh, "_CUDNNVM_FW_SAID", noted, 1,
				       err)
			: 0;
}

/* --format: what one container engine takes instead of a script. */
static int
engine(const struct cv_store *st, const char *id, const char *format,
       const char *image, struct cv_err *err)
{
	struct cv_ctr_view v;
	struct cv_buf *out;
	char ref[128];
	int eng, r;

	if ((r = cv_engine_parse(format, &eng, err)) < 0)
		return r;
	if ((r = cv_env_container(&v, st, id, err)) < 0)
		return r;
	snprintf(ref, sizeof ref, "cudnn:%s", id);
	out = cv_text_new();
	r = cv_engine_emit(out, eng, &v, image ? image : ref, err);
	if (r == 0)
		fputs(cv_text_str(out), stdout);
	cv_text_free(out);
	cv_env_container_release(&v);
	return r;
}

int
cmd_env(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st = ctx->st;
	struct cv_env env = CV_ENV_INIT;
	struct cv_buf *out = NULL;
	struct cv_version spec;
	struct cmd_opts o;
	const char *format = NULL, *image = NULL;
	int c, sh = cv_shell_guess(), r;
	char id[64];

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0)
		if (c == 'f')
			format = o.arg;
		else if (c == 'i')
			image = o.arg;
		else if (cv_shell_parse(o.arg, &sh, &err) < 0)
			return cmd_fail(&err);
	if (c < 0)
		return o.status;
	if (image != NULL && (format == NULL || strcmp(format, "k8s") != 0))
		return cmd_usage_error("env", "--image goes with --format k8s");
	if (argc - o.ind > 1)
		return cmd_usage_error("env", "too many arguments");
	if (argc - o.ind == 1 && cv_spec_parse(&spec, argv[o.ind], &err) < 0)
		return cmd_fail(&err);
	r = choose(st, argc - o.ind == 1 ? &spec : NULL, id, &err);
	if (format != NULL)
		return r < 0 || engine(st, id, format, image, &err) < 0
			       ? cmd_fail(&err)
			       : 0;
	out = cv_text_new();
	if (r == 0)
		r = cv_env_build(&env, st, id, NULL, NULL, &err);
	if (r == 0)
		r = cv_shell_emit(out, sh, &env, &err);
	if (r == 0)
		r = notes(st, id, sh, out, &err);
	if (r < 0)
		r = cmd_fail(&err);
	else
		fputs(cv_text_str(out), stdout);
	cv_text_free(out);
	cv_env_release(&env);
	return r;
}
