/* exec.c: run one command with a version's environment. The child gets
 * exactly that environment; cudnnvm replaces itself with the command
 * (cv_os_exec: execvp; on Windows it waits for it and hands back its
 * code), so its exit status is
 * the command's. 126/127 when it cannot run, as shells do. */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"
#include "store/store.h"
#include "ui.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A shim sets CUDNNVM_SHIM_DIR: take that folder out of PATH so the
 * program found is the real one, not the shim again. */
static void
drop_shim_dir(void)
{
	const char *dir = getenv("CUDNNVM_SHIM_DIR");
	const char *path = getenv("PATH");

	if (dir == NULL)
		return;
	if (path != NULL && *dir == '/') {
		char *n = cv_env_path_remove(path, dir);
		cv_os_setenv("PATH", n);
		free(n);
	}
	cv_os_setenv("CUDNNVM_SHIM_DIR", NULL);
}

#define NOTHING_ACTIVE 1

/* The version a shim runs its program under: as cv_active_id, but
 * NOTHING_ACTIVE when no variable, pin or global default names one (a pin
 * naming a version that is not installed stays an error, with the fix). */
static int
shim_active_id(const struct cv_store *st, char id[64], struct cv_err *err)
{
	struct cv_active a;
	int r;

	r = cv_active_resolve(st, NULL, &a, NULL, NULL, err);
	if (r == CV_ENOTFOUND && a.origin == CV_ORIGIN_NONE)
		return NOTHING_ACTIVE;
	if (r == 0)
		memcpy(id, a.id, sizeof a.id);
	return r;
}

/* The frameworks' check only (exec never validates), on the program
 * argv runs: -1 when refused (said), else whether a framework of the
 * environment loads cuDNN. */
static int
gate(struct cv_store *st, const char *id, int force, char **argv)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_gate_opts g = CV_GATE_OPTS_INIT;
	struct cv_verdict v;
	struct cv_buf *tail = cv_text_new();
	int r;

	cv_text_add(tail, " --", 3);
	for (char **a = argv; *a != NULL; a++) {
		cv_text_add(tail, " ", 1);
		cv_shell_quote(tail, CV_SHELL_SH, *a, NULL);
	}
	g.force = force;
	g.frameworks = g.no_validate = 1;
	g.command = argv[0];
	g.fix.head = "cudnnvm exec";
	g.fix.tail = cv_text_str(tail);
	r = cv_gate_check(NULL, st, id, &g, &v, &err);
	r = ui_verdict(r, &err, &v) != 0 ? -1 : v.uses_cudnn;
	cv_text_free(tail);
	return r;
}

int
cmd_exec(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st = ctx->st;
	struct cv_env env = CV_ENV_INIT;
	struct cv_version spec;
	struct cmd_opts o;
	const char *spec_arg = NULL;
	char id[64];
	int i, c, r, force = 0, framework = 0;

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0)
		force = 1; /* --force, the one option */
	if (c < 0)
		return o.status;
	/* the operands before "--": the spec, if any */
	if (o.after_dashes - o.ind > 1)
		return cmd_usage_error("exec", "too many arguments");
	if (o.after_dashes >= argc)
		return cmd_usage_error("exec",
				       "expected '-- <command> [args]'");
	if (o.after_dashes > o.ind)
		spec_arg = argv[o.ind];
	i = o.after_dashes;
	if (spec_arg != NULL && cv_spec_parse(&spec, spec_arg, &err) < 0)
		return cmd_fail(&err);
	if (spec_arg == NULL && getenv("CUDNNVM_SHIM_DIR") != NULL)
		r = shim_active_id(st, id, &err);
	else
		r = cv_active_id(st, spec_arg != NULL ? &spec : NULL, id, &err);
	if (r == NOTHING_ACTIVE) {
		/* a shim with no version chosen anywhere: the program runs
		 * as if cudnnvm were not installed */
		drop_shim_dir();
		fflush(stdout);
		if ((r = cv_os_exec(argv + i)) >= 0)
			return r; /* Windows: the program ran, its code */
		r = errno;
		ui_error("cannot run '%s': %s%s", argv[i], strerror(r),
			 r == ENOENT ? "; check the name and your PATH" : "");
		return r == ENOENT ? 127 : 126;
	}
	if (r == 0 && (framework = gate(st, id, force, argv + i)) < 0)
		return 1;
	if (r == 0)
		r = cv_env_build(&env, st, id, NULL, NULL, &err);
	if (r == 0)
		r = cv_env_apply(&env, &err);
	if (r == 0 && framework) {
		char *vdir = cv_store_dir(st, id);
		r = cv_preload_exec(vdir, id, &err);
		r = r < 0 ? r : 0;
		free(vdir);
	}
	cv_env_release(&env);
	if (r < 0)
		return cmd_fail(&err);
	drop_shim_dir();
	ui_warnings_flush();
	fflush(stdout);
	if ((r = cv_os_exec(argv + i)) >= 0)
		return r; /* Windows: the program ran, its code */
	r = errno;
	ui_error("cannot run '%s': %s%s", argv[i], strerror(r),
		 r == ENOENT ? "; check the name and your PATH" : "");
	return r == ENOENT ? 127 : 126;
}
