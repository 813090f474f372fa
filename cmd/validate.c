/* validate.c: `cudnnvm validate [<spec>] [--no-gpu] [--json]`, the hidden
 * `validate-probe` the validation child runs. */
#include "validate/validate.h"
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"
#include "store/store.h"
#include "ui.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The install's metadata and folder (<store>/<id>). */
static int
open_install(struct cv_store *st, const char *id, struct cv_installed *inst,
	     char dir[PATH_MAX])
{
	struct cv_err err = CV_ERR_INIT;

	if (cv_store_get(st, id, inst, &err) < 0)
		return cmd_fail(&err);
	{
		char *d = cv_store_dir(st, id);
		snprintf(dir, PATH_MAX, "%s", d);
		free(d);
	}
	return 0;
}

static void
print_verdict(const struct cv_fw_verdict *v, const char *libdir)
{
	if (v->unreadable)
		return;
	/* the reason quotes the framework's own error and mapped paths */
	fputs("  framework ", stdout);
	ui_put_escaped(stdout, v->fw);
	printf("%*s%s", (int)(strlen(v->fw) < 10 ? 11 - strlen(v->fw) : 1), "",
	       ui_paint(stdout, v->pass ? "pass" : "fail"));
	if (v->pass && v->version == 0)
		ui_print(stdout,
			 " (no cuDNN version reported; %d sub-libraries from "
			 "%s)",
			 v->subs, libdir);
	else if (v->pass && v->build != 0)
		ui_print(stdout,
			 " (cuDNN %ld, built against %ld, %d sub-libraries "
			 "from %s)",
			 v->version, v->build, v->subs, libdir);
	else if (v->pass)
		ui_print(stdout, " (cuDNN %ld, %d sub-libraries from %s)",
			 v->version, v->subs, libdir);
	else
		ui_print(stdout, ": %s", v->why);
}

/* The probe's verdicts in words; 0 pass, else says why and returns 1. */
static int
say_frameworks(const struct cv_fw_probe *p, const char *id)
{
	size_t failed = 0;

	if (p->nfw == 0) {
		printf("  frameworks   %s: no torch, TensorFlow or JAX in the "
		       "Python environment in play\n",
		       ui_paint(stdout, "skip"));
		return 0;
	}
	if (p->cached)
		printf("  frameworks   (cached result)\n");
	for (size_t i = 0; i < p->n; i++) {
		print_verdict(&p->v[i], p->libdir);
		failed += !p->v[i].pass;
	}
	if (p->n < p->nfw) {
		printf("  frameworks   %s: the probe under %s ended early (%s "
		       "%d)\n",
		       ui_paint(stdout, "fail"), id,
		       p->status > 128 ? "signal" : "status",
		       p->status > 128 ? p->status - 128 : p->status);
		failed++;
	}
	return failed != 0;
}

/* --frameworks: each framework's own convolution in a child under
 * `exec <id>` (or its cached pass); 0 pass, else 1 (said), or the exit
 * status of an error. With json, the validation's object `val` (may be
 * NULL) is printed with the verdicts as its "frameworks" member. */
static int
check_frameworks(const struct cv_store *st, const char *id, struct cv_json *val)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_fw_probe p;
	const char *self[CMD_GLOBALS_MAX + 2];
	char exe[PATH_MAX];
	size_t k = 0;
	int failed;

	if (cv_child_self(exe, &err) < 0)
		return cmd_fail(&err);
	self[k++] = exe;
	k += cmd_globals_argv(self + k);
	self[k] = NULL;
	fflush(stdout);
	if (cv_fw_probe_run(st, id, self, &p, &err) < 0)
		return cmd_fail(&err);
	if (val != NULL) {
		struct cv_json *fw = cv_fw_probe_json(&p);
		char *text;
		failed = !cv_json_is_true(cv_json_object_get(fw, "ok")) &&
			 !cv_json_is_true(cv_json_object_get(fw, "skipped"));
		cv_json_object_set_new(val, "frameworks", fw);
		text = cv_json_dumps(val, CV_JSON_INDENT(2));
		printf("%s\n", text ? text : "{}");
		free(text);
	} else
		failed = say_frameworks(&p, id);
	if (!failed)
		return 0;
	fflush(stdout);
	ui_error("%s failed the framework check; run 'cudnnvm frameworks' and "
		 "'cudnnvm doctor' for the fix",
		 id);
	return 1;
}

static void
print_steps(const struct cv_validation *v)
{
	printf("%s%s\n", v->id, v->cached ? " (cached result)" : "");
	for (int i = 0; i < CV_NSTEPS; i++) {
		const struct cv_step_result *s = &v->step[i];
		if (s->status == CV_CHECK_PASS)
			printf("  %d %-11s %s%s%s%s\n", i + 1, cv_step_name(i),
			       ui_paint(stdout, "pass"), *s->reason ? " (" : "",
			       s->reason, *s->reason ? ")" : "");
		else
			printf("  %d %-11s %s: %s\n", i + 1, cv_step_name(i),
			       ui_paint(stdout, cv_check_name(s->status)),
			       s->reason);
	}
}

/* The steps, as text or JSON, then --frameworks' verdicts (frameworks:
 * the steps passed and they were asked for); with --json one object. */
static int
report(const struct cv_store *st, const struct cv_validation *v, int json,
       int frameworks)
{
	char *text = json ? cv_validation_json(v) : NULL;
	struct cv_json *o;
	int r;

	if (!json) {
		print_steps(v);
		return frameworks ? check_frameworks(st, v->id, NULL) : 0;
	}
	if (!frameworks) {
		printf("%s\n", text);
		free(text);
		return 0;
	}
	o = cv_json_loads(text, 0, NULL);
	free(text);
	if (o == NULL)
		o = cv_json_object();
	r = check_frameworks(st, v->id, o);
	cv_json_decref(o);
	return r;
}

int
cmd_validate(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_validate_opts opts = CV_VALIDATE_OPTS_INIT;
	struct cv_err err = CV_ERR_INIT;
	struct cv_validation v;
	struct cv_installed inst;
	struct cv_store *st = ctx->st;
	const char *spec = NULL;
	struct cv_version parsed;
	struct cmd_opts o;
	int json = 0, no_gpu = 0, frameworks = 0, c, r, failed;
	char id[64], dir[PATH_MAX];

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0) {
		json |= c == 'j';
		no_gpu |= c == 'g';
		frameworks |= c == 'F';
	}
	if (c < 0)
		return o.status;
	if (argc - o.ind > 1)
		return cmd_usage_error("validate",
				       "only one version may be given");
	if (o.ind < argc)
		spec = argv[o.ind];
	if (spec != NULL && cv_spec_parse(&parsed, spec, &err) < 0)
		return cmd_fail(&err);
	if (spec != NULL)
		r = cv_active_find(st, &parsed, id, &err);
	else {
		struct cv_active act;
		r = cv_active_resolve(st, NULL, &act, NULL, NULL, &err);
		if (r == 0)
			snprintf(id, sizeof id, "%s", act.id);
	}
	if (r < 0) {
		r = cmd_fail(&err);
		goto out;
	}
	r = open_install(st, id, &inst, dir);
	if (r)
		goto out;
	cv_validate_opts_default(&opts, st, cmd_g.probe_exe, no_gpu);
	if (cv_validate(dir, &inst, &opts, &v, &err) < 0) {
		r = cmd_fail(&err);
		goto out;
	}
	failed = cv_validation_failed(&v);
	r = report(st, &v, json, frameworks && failed < 0);
	if (failed >= 0) {
		fflush(stdout);
		char *fix = cv_hint_validation(st, id, &v, failed);
		ui_error("%s failed validation (step %d, %s): %s", id,
			 failed + 1, cv_step_name(failed),
			 v.step[failed].reason);
		if (fix != NULL)
			ui_hint_line(fix);
		free(fix);
		r = 1;
	}
out:
	return r;
}

/* the bench's timing runs in the Linux child only (bench_probe.c) */
#ifdef _WIN32
#define PROBE_BENCH NULL
#else
#define PROBE_BENCH cv_probe_bench
#endif

/* `cudnnvm validate-probe --libdir D --major N --expect V --cuda C
 * [--cublaslt P] [--no-gpu]`: runs inside the clean child; JSON lines on
 * stdout. Not for users. */
int
cmd_validate_probe(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_probe_args a = { NULL, 0, 0,  0, NULL,       0,
				   NULL, 0, 30, 5, PROBE_BENCH };
	struct cmd_opts o;
	int c, r;

	a.layers = calloc((size_t)argc, sizeof *a.layers);
	if (a.layers == NULL)
		return 1;
	cmd_opts_init(&o, argc, argv);
	/* probe_opts in cmd/table.c */
	while ((c = cmd_opts_next(&o)) > 0) {
		if (c == 'g')
			a.no_gpu = 1;
		else if (c == 'L')
			a.libdir = o.arg;
		else if (c == 'm')
			a.major = (int)strtol(o.arg, NULL, 10);
		else if (c == 'e')
			a.expect = strtol(o.arg, NULL, 10);
		else if (c == 'c')
			a.cuda = (int)strtol(o.arg, NULL, 10);
		else if (c == 'b')
			a.cublaslt = o.arg;
		else if (c == 'l')
			a.layers[a.nlayers++] = o.arg;
		else if (c == 'r')
			a.runs = (int)strtol(o.arg, NULL, 10);
		else if (c == 'w')
			a.warmup = (int)strtol(o.arg, NULL, 10);
	}
	if (c < 0) {
		free(a.layers);
		return o.status;
	}
	/* --cuda 0: only say what the library reports (cv_validate_identity) */
	if (a.libdir == NULL || a.major < 7 || a.expect <= 0 || a.cuda < 0 ||
	    a.runs < 1 || a.warmup < 0 || o.ind != argc) {
		free(a.layers);
		return cmd_usage_error("validate-probe",
				       "--libdir, --major, --expect and --cuda "
				       "are needed");
	}
	fflush(stdout);
	r = cv_probe_run(&a, 1) < 0 ? 1 : 0;
	free(a.layers);
	return r;
}
