/* doctor.c: `cudnnvm doctor [--json] [--explain MESSAGE]`: what is wrong
 * with the store and the environment, why, and the command that fixes it;
 * or what a classic cuDNN error message means. Exit 1 when it finds a
 * problem (a warning or an error). */
#include "doctor/doctor.h"
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "machine/machine.h"
#include "python/python.h"
#include "store/store.h"
#include "ui.h"
#include "validate/validate.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *
level_name(int level)
{
	return level == CV_LEVEL_ERROR  ? "error"
	       : level == CV_LEVEL_WARN ? "warning"
					: "info";
}

static int
explain(struct cmd_ctx *run, const char *msg, int json)
{
	struct cv_explanation e;
	int r;

	/* the fix switches to what is installed here: the store is read */
	if ((r = cmd_need(run, CMD_STORE)) != 0)
		return r;
	if (!cv_doctor_explain(run->st, msg, &e)) {
		struct cv_err err = CV_ERR_INIT;

		cv_err_set(&err, CV_ERROR,
			   "doctor: no known cause for that message");
		cv_err_hint(&err, "cudnnvm doctor");
		cv_err_hint(&err, "cudnnvm validate");
		return cmd_fail(&err);
	}
	if (json) {
		struct cv_json *o =
			cv_json_pack("{s:s,s:s,s:s}", "pattern", e.pattern,
				     "cause", e.cause, "fix", e.fix);
		char *s = cv_json_dumps(o, CV_JSON_COMPACT);
		printf("%s\n", s ? s : "{}");
		free(s);
		cv_json_decref(o);
	} else {
		ui_print(stdout, "matches: %s", e.pattern);
		ui_print(stdout, "cause:   %s", e.cause);
		ui_print(stdout, "fix:     %s", e.fix);
	}
	cv_explanation_release(&e);
	return 0;
}

static void
print_json(const char *active, const struct cv_finding *f, size_t n,
	   size_t problems)
{
	struct cv_json *arr = cv_json_array(), *o;
	char *s;
	for (size_t i = 0; i < n; i++)
		cv_json_array_append_new(
			arr,
			cv_json_pack("{s:s,s:s,s:s,s:s}", "level",
				     level_name(f[i].level), "what", f[i].what,
				     "why", f[i].why, "fix", f[i].fix));
	o = cv_json_pack("{s:s?,s:o,s:I,s:o}", "active", active, "findings",
			 arr, "problems", (int64_t)problems, "machine",
			 cv_machine_json());
	s = cv_json_dumps(o, CV_JSON_COMPACT);
	printf("%s\n", s ? s : "{}");
	free(s);
	cv_json_decref(o);
}

static void
print_text(const char *root, const char *active, const struct cv_finding *f,
	   size_t n, size_t problems)
{
	/* findings quote folder names and framework metadata: escaped */
	ui_print(stdout, "store:  %s", root);
	ui_print(stdout, "active: %s", active ? active : "(none)");
	for (size_t i = 0; i < n; i++) {
		putchar('\n');
		fputs(ui_paint(stdout, level_name(f[i].level)), stdout);
		ui_print(stdout, ": %s", f[i].what);
		if (*f[i].why)
			ui_print(stdout, "  why: %s", f[i].why);
		if (*f[i].fix)
			ui_print(stdout, "  fix: %s", f[i].fix);
	}
	printf("\n%zu problem%s found\n", problems, problems == 1 ? "" : "s");
}

int
cmd_doctor(int argc, char **argv, struct cmd_ctx *run)
{
	struct cv_doctor_ctx ctx = { NULL, NULL, NULL, 0, 0, NULL };
	struct cv_err err = CV_ERR_INIT;
	struct cv_finding *f = NULL;
	struct cv_installed inst;
	struct cv_active act;
	struct cv_store *st = NULL;
	const char *msg = NULL;
	char *dir = NULL;
	size_t n = 0, problems = 0;
	struct cmd_opts o;
	int json = 0, c, r;

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0) {
		if (c == 'j')
			json = 1;
		else if (c == 'e')
			msg = o.arg;
	}
	if (c < 0)
		return o.status;
	if (o.ind != argc)
		return cmd_usage_error("doctor", "unexpected '%s'",
				       argv[o.ind]);
	if (msg != NULL)
		return explain(run, msg, json);
	if ((r = cmd_need(run, CMD_STORE)) != 0)
		return r;
	st = run->st;
	ctx.store_root = cv_store_root(st);
	ctx.store = st;
	if (cv_active_resolve(st, NULL, &act, NULL, NULL, &err) == 0 &&
	    cv_store_get(st, act.id, &inst, &err) == 0) {
		dir = cv_store_dir(st, act.id);
		ctx.active_id = act.id;
		ctx.active_dir = dir;
		ctx.active_cuda = inst.version.cuda;
		ctx.active_major = (int)inst.version.part[0];
	} else if (err.code != CV_OK && act.origin != CV_ORIGIN_NONE &&
		   !act.system) {
		/* a pin or CUDNNVM_VERSION names a version not installed */
		ui_warn("%s", err.msg);
		problems++;
	}
	cv_doctor_run(&ctx, &f, &n);
	for (size_t i = 0; i < n; i++)
		if (f[i].level != CV_LEVEL_OK)
			problems++;
	if (json)
		print_json(ctx.active_id, f, n, problems);
	else
		print_text(ctx.store_root, ctx.active_id, f, n, problems);
	cv_findings_free(f, n);
	free(dir);
	if (problems) {
		fflush(stdout);
		fprintf(stderr,
			"cudnnvm: doctor found %zu problem%s; each comes with "
			"the command that fixes it\n",
			problems, problems == 1 ? "" : "s");
		return 1;
	}
	return 0;
}
