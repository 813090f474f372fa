/* current.c: the active install id and why (env, pin file, global). */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "machine/machine.h"
#include "python/python.h"
#include "ui.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const origin_names[] = { "none",   "env",    "file",
					    "global", "system", "lock" };

/* A pin or the global that says "system": no version here, on purpose. */
static int
say_system(const struct cv_active *a, int json)
{
	if (json) {
		struct cv_json *o =
			cv_json_pack("{s:n, s:s, s:s}", "id", "spec", a->spec,
				     "origin", origin_names[a->origin]);
		char *s;
		if (a->origin == CV_ORIGIN_FILE)
			cv_json_object_set_new(o, "file",
					       cv_json_string(a->file));
		s = cv_json_dumps(o, CV_JSON_INDENT(2));
		printf("%s\n", s);
		free(s);
		cv_json_decref(o);
	} else if (a->origin == CV_ORIGIN_FILE) {
		fputs("system (set by ", stdout);
		ui_put_escaped(stdout, a->file);
		puts("): no cudnnvm version here");
	} else
		puts("system (global default): no cudnnvm version");
	return 0;
}

/* current --json: the resolution and the machine facts behind it. */
static int
print_json(const struct cv_active *a, int venv, const char *venv_dir,
	   const char *module)
{
	struct cv_json *o =
		cv_json_pack("{s:s, s:s, s:s}", "id", a->id, "spec", a->spec,
			     "origin", origin_names[a->origin]);
	char *s;

	if (a->origin == CV_ORIGIN_FILE || a->origin == CV_ORIGIN_LOCK)
		cv_json_object_set_new(o, "file", cv_json_string(a->file));
	if (a->origin == CV_ORIGIN_LOCK)
		cv_json_object_set_new(o, "lock", cv_json_string(a->lock));
	if (venv)
		cv_json_object_set_new(o, "venv", cv_json_string(venv_dir));
	if (a->venv[0]) {
		cv_json_object_set_new(o, "venv", cv_json_string(a->venv));
		cv_json_object_set_new(o, "passed_over",
				       cv_json_string(a->passed_over));
		cv_json_object_set_new(o, "why", cv_json_string(a->why));
	}
	if (a->origin == CV_ORIGIN_ENV && module != NULL)
		cv_json_object_set_new(o, "module", cv_json_string(module));
	cv_json_object_set_new(o, "machine", cv_machine_json());
	s = cv_json_dumps(o, CV_JSON_INDENT(2));
	printf("%s\n", s);
	free(s);
	cv_json_decref(o);
	return 0;
}

/* The id and what set it, in words; folder names can hold terminal
 * escapes and are printed escaped. */
static int
print_text(const struct cv_active *a, int venv, const char *venv_dir,
	   const char *module)
{
	if (a->venv[0]) {
		/* what the environment's interpreter loads: its pin */
		if (a->origin == CV_ORIGIN_FILE)
			ui_print(stdout,
				 "%s (pinned to %s with 'cudnnvm venv'; %s of "
				 "%s is passed over: %s)",
				 a->id, a->venv, a->passed_over, a->file,
				 a->why);
		else
			ui_print(stdout,
				 "%s (pinned to %s with 'cudnnvm venv'; the "
				 "global default %s is passed over: %s)",
				 a->id, a->venv, a->passed_over, a->why);
		return 0;
	}
	switch (a->origin) {
	case CV_ORIGIN_ENV:
		if (module != NULL && strncmp(module, "cudnn/", 6) == 0 &&
		    strcmp(module + 6, a->spec) == 0) {
			printf("%s (set by the module ", a->id);
			ui_put_escaped(stdout, module);
			puts(")");
		} else if (venv) {
			printf("%s (set by the environment ", a->id);
			ui_put_escaped(stdout, venv_dir);
			puts(", pinned with 'cudnnvm venv')");
		} else
			printf("%s (set by CUDNNVM_VERSION=%s)\n", a->id,
			       a->spec);
		break;
	case CV_ORIGIN_FILE:
		printf("%s (set by ", a->id);
		ui_put_escaped(stdout, a->file);
		puts(")");
		break;
	case CV_ORIGIN_LOCK:
		/* the lock, then the pin it locks */
		printf("%s (set by ", a->id);
		ui_put_escaped(stdout, a->lock);
		fputs(", which locks ", stdout);
		ui_put_escaped(stdout, a->file);
		printf(" = %s)\n", a->spec);
		break;
	case CV_ORIGIN_SYSTEM:
		printf("%s (the system store's default)\n", a->id);
		break;
	default:
		printf("%s (global default)\n", a->id);
		break;
	}
	return 0;
}

int
cmd_current(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_active a;
	struct cmd_opts opts;
	int c, json = 0, r, venv;
	char venv_dir[PATH_MAX];
	/* a module file of cudnnvm's sets it beside CUDNNVM_VERSION */
	const char *module = getenv("CUDNNVM_MODULE");

	cmd_opts_init(&opts, argc, argv);
	while ((c = cmd_opts_next(&opts)) > 0)
		json = 1; /* --json, the one option */
	if (c < 0)
		return opts.status;
	if (argc != opts.ind)
		return cmd_usage_error("current", "too many arguments");
	r = cv_active_resolve(ctx->st, NULL, &a, NULL, NULL, &err);
	if (r < 0 && a.system)
		return say_system(&a, json);
	if (r < 0)
		return cmd_fail(&err);
	venv = a.origin == CV_ORIGIN_ENV &&
	       cv_venv_pinned_by(a.spec, venv_dir, sizeof venv_dir);
	if (json)
		return print_json(&a, venv, venv_dir, module);
	cmd_hook_note(a.id);
	return print_text(&a, venv, venv_dir, module);
}
