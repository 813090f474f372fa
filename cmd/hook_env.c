/* hook_env.c: called by the shell integration when something that could
 * change the active version changed. Prints the environment of the active
 * version (or what leaves it) and the hook's state: the folder and
 * CUDNNVM_VERSION it saw, a stamp file (lib/activate/hook.c), and the files and
 * folders whose change (`-nt` the stamp) means it must run again. */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"
#include "ui.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
seen(void *payload, const char *path)
{
	cv_strv_push(payload, path);
}

/* A prompt is never blocked: on a switch, a version a framework here
 * cannot load is activated with one warning, a venv pin that won over the
 * pin file or global default says so, and the environment whose framework
 * binds its own front library is told once (noted: remember it). */
static void
notes(const struct cv_store *st, const struct cv_active *a, char *noted,
      size_t n)
{
	static const struct cv_gate_fix fix = { "cudnnvm use", "" };
	const char *prev = getenv("CUDNNVM_ACTIVE");
	struct cv_verdict v;

	noted[0] = '\0';
	if (prev != NULL && strcmp(prev, a->id) == 0)
		return;
	if (a->venv[0]) {
		char said[2048];
		cv_gate_venv_said(a, said, sizeof said);
		ui_warn("%s", said);
	}
	cv_gate_notes(st, a->id, &fix, 1, getenv("_CUDNNVM_FW_SAID"), &v, noted,
		      n);
	ui_verdict(0, NULL, &v);
}

/* A failure is said once per shell, not at every prompt or `cd` that
 * reaches the same answer (a global the admin removed, a bad pin): the
 * shell keeps a digest of the last message said, exported so that the
 * next run sees it. */
static int
say_once(struct cv_buf *out, int sh, const struct cv_err *err)
{
	const char *said = getenv("_CUDNNVM_SAID");
	uint32_t h = 2166136261u;
	char key[16];

	if (err == NULL) {
		return said == NULL ? 0
				    : cv_shell_set(out, sh, "_CUDNNVM_SAID",
						   NULL, 1, NULL);
	}
	for (const char *p = err->msg; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	snprintf(key, sizeof key, "%08" PRIx32, h);
	if (said != NULL && strcmp(said, key) == 0)
		return cv_exit_status(err->code) ? cv_exit_status(err->code)
						 : 1;
	cv_shell_set(out, sh, "_CUDNNVM_SAID", key, 1, NULL);
	return cmd_fail(err);
}

/* What the shell function keeps between prompts: the folder and the
 * CUDNNVM_VERSION this run saw, the stamp and what to test against it. */
static int
emit_state(struct cv_buf *out, int sh, const char *cwd,
	   const struct cv_hook_stamp *stamp, const struct cv_strv *w,
	   struct cv_err *err)
{
	const char *pwd = getenv("PWD"), *ver = getenv("CUDNNVM_VERSION");
	int r = cv_shell_set(out, sh, "_CUDNNVM_PWD", pwd ? pwd : cwd, 0, err);

	if (r == 0)
		r = cv_shell_set(out, sh, "_CUDNNVM_VER", ver ? ver : "", 0,
				 err);
	if (r == 0 && stamp->path[0])
		r = cv_shell_set(out, sh, "_CUDNNVM_STAMP", stamp->path, 0,
				 err);
	if (r == 0)
		r = cv_shell_set_list(out, sh, "_CUDNNVM_WATCH", w->v, w->n,
				      err);
	return r;
}

int
cmd_hook_env(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT, err2 = CV_ERR_INIT;
	struct cmd_opts o;
	struct cv_store *st = ctx->st;
	struct cv_env env = CV_ENV_INIT;
	struct cv_buf *out = NULL;
	struct cv_strv w = CV_STRV_INIT;
	struct cv_active a;
	const char *given = NULL;
	int c, sh = -1, leave = 0, r, status = 0, state;
	struct cv_hook_stamp stamp;
	char cwd[PATH_MAX], noted[PATH_MAX];

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0) {
		if (c == 's') {
			if (cv_shell_parse(o.arg, &sh, &err) < 0)
				return cmd_fail(&err);
		} else if (c == 't')
			given = o.arg;
		else if (c == 'l')
			leave = 1;
	}
	if (c < 0)
		return o.status;
	if (sh < 0 || argc != o.ind)
		return cmd_usage_error("hook-env", "expected --shell <shell>");
	memset(&stamp, 0, sizeof stamp);
	state = !leave && (sh == CV_SHELL_BASH || sh == CV_SHELL_ZSH ||
			   sh == CV_SHELL_FISH);
	if (state)
		cv_hook_stamp_touch(&stamp, given);
	/* what the shell compares with $PWD when it has none */
	if (getcwd(cwd, sizeof cwd) == NULL)
		snprintf(cwd, sizeof cwd, ".");
	out = cv_text_new();
	memset(&a, 0, sizeof a);
	if (!leave) {
		r = cv_active_resolve(st, NULL, &a, seen, &w, &err);
		/* nothing active (no origin, not found) is normal */
		if (r < 0 && !a.system &&
		    (a.origin != CV_ORIGIN_NONE || r != CV_ENOTFOUND))
			status = say_once(out, sh, &err);
		else
			say_once(out, sh, NULL);
		if (r < 0)
			a.id[0] = '\0';
	}
	cv_hook_watch_store(st, &w);
	noted[0] = '\0';
	if (a.id[0] && !leave)
		notes(st, &a, noted, sizeof noted);
	r = cv_env_build(&env, st, a.id[0] ? a.id : NULL, NULL, NULL, &err2);
	if (r == 0)
		r = cv_shell_emit(out, sh, &env, &err2);
	if (r == 0 && noted[0])
		r = cv_shell_set(out, sh, "_CUDNNVM_FW_SAID", noted, 1, &err2);
	if (r == 0 && state)
		r = emit_state(out, sh, cwd, &stamp, &w, &err2);
	if (r == 0 && stamp.path[0])
		cv_hook_stamp_settle(&stamp, w.v, w.n);
	if (r < 0)
		status = cmd_fail(&err2);
	else
		fputs(cv_text_str(out), stdout);
	cv_strv_release(&w);
	cv_text_free(out);
	cv_env_release(&env);
	return status;
}
