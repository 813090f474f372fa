/* install.c: `cudnnvm install <spec> ...` (from the mirror or a package
 * index), `cudnnvm install --archive FILE [--sha256 HEX] [--version V
 * --cuda N]` (offline, from a local NVIDIA archive) and `install` with no
 * spec (the pin here, or the build its cudnnvm.lock names): the options
 * become one request for cv_install_run (lib/install/run.c). */
#include "install/install.h"
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"
#include "release/release.h"
#include "store/store.h"
#include "ui.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct install_args {
	struct cv_install_request req; /* what the options ask for */
	const char *source;            /* --source nvidia|pypi */
	int no_validate;
	struct cmd_ctx *ctx;
};

/* What every form does once a new version is in: say so, then validate
 * it as configured. */
static int
installed(const struct cv_config *cfg, struct cv_store *st, const char *id,
	  const struct install_args *a)
{
	struct cv_gate_opts g = CV_GATE_OPTS_INIT;
	struct cv_err err = CV_ERR_INIT;
	struct cv_verdict v;
	int r;

	if (!cmd_g.quiet) {
		char *dir = cv_store_dir(st, id);
		printf("installed cuDNN %s in %s\n", id, dir);
		free(dir);
	}
	if (cv_modulefiles_refresh(st, &err) < 0)
		ui_warn("module files not updated: %s; run 'cudnnvm modulefiles'",
			err.msg);
	g.no_validate = a->no_validate || !cfg->validate;
	g.installed = 1;
	g.probe_exe = cmd_g.probe_exe;
	r = cv_gate_check(cfg, st, id, &g, &v, &err);
	return ui_verdict(r, &err, &v);
}

/* The install req asks for, run and shown. */
static int
run(const struct install_args *a, struct cv_install_request *req)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_install_result res;
	struct cv_ui ui;
	int r;

	ui_of(&ui);
	if ((r = cmd_need(a->ctx, CMD_STORE_RW)) != 0)
		return r;
	if (req->what == CV_INSTALL_SPEC &&
	    (r = cmd_source_of("install", a->source, req->mirror, req->index,
			       a->ctx->cfg.source, &req->source)) != 0)
		return r;
	if (req->what != CV_INSTALL_ARCHIVE)
		cv_interrupt_catch(cv_remote_interrupt);
	r = cv_install_run(a->ctx->st, &a->ctx->cfg, req, &ui, &res, &err);
	if (r < 0 && res.usage)
		return cmd_usage_error("install", "%s", err.msg);
	if (r < 0)
		return cmd_fail(&err);
	for (int i = 0; res.deps_added && i < res.ndeps; i++)
		if (!cmd_g.quiet)
			printf("cuDNN %s loads %s from %s\n", res.id,
			       res.deps[i].name, res.deps[i].dir);
	return res.already ? 0 : installed(&a->ctx->cfg, a->ctx->st, res.id, a);
}

/* A spec: its grammar checked before anything is opened. */
static int
install_spec(struct install_args *a)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_version spec;

	if (cv_spec_parse(&spec, a->req.spec, &err) < 0)
		return cmd_fail(&err);
	if (spec.cuda && a->req.cuda && spec.cuda != a->req.cuda)
		return cmd_usage_error("install",
				       "the spec and --cuda disagree");
	a->req.what = CV_INSTALL_SPEC;
	return run(a, &a->req);
}

/* `install` with no spec: what the pin here asks for (cv_install_pinned),
 * with the store opened for writing only once something is installed. */
static int
install_pinned(struct install_args *a)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_install_result res;
	struct cv_install_pin *pin = calloc(1, sizeof *pin);
	int r;

	if (pin == NULL || (r = cmd_need(a->ctx, CMD_STORE)) != 0) {
		free(pin);
		return pin == NULL ? cmd_fail(&err) : r;
	}
	r = cv_install_pinned(a->ctx->st, &a->req, pin, &res, &err);
	if (r < 0)
		r = res.usage ? cmd_usage_error("install", "%s", err.msg)
			      : cmd_fail(&err);
	else if (r == 1) {
		char *dir = cv_store_dir(a->ctx->st, res.id);
		ui_note("cuDNN %s is already installed in %s", res.id, dir);
		free(dir);
		r = 0;
	} else {
		a->req.what = pin->what;
		a->req.spec = pin->spec;
		a->req.lock = &pin->lock;
		a->req.lock_path = pin->lock_path;
		if (pin->what == CV_INSTALL_SPEC)
			ui_note("installing %s, the version %s names",
				pin->spec, pin->named_by);
		r = run(a, &a->req);
	}
	free(pin);
	return r;
}

/* --jobs N: 1..CV_MAX_THREADS, else 0. */
static unsigned
parse_jobs(const char *s)
{
	char *end;
	unsigned long n;

	if (*s < '1' || *s > '9')
		return 0;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || n > CV_MAX_THREADS)
		return 0;
	return (unsigned)n;
}

/* An option with a value (install_opts in cmd/table.c) into a->req;
 * 0, or the exit status of a bad value. */
static int
take_value(struct install_args *a, int c, const char *arg)
{
	struct cv_install_request *q = &a->req;

	switch (c) {
	case 'a':
		q->archive = arg;
		return 0;
	case 'x':
		q->sha256 = arg;
		return 0;
	case 'V':
		q->version = arg;
		return 0;
	case 'I':
		q->index = arg;
		return 0;
	case 'S':
		a->source = arg;
		return 0;
	case 'P':
		q->layout_prefix = arg;
		return 0;
	case 'Y':
		q->layout = arg;
		return 0;
	case 'c':
		return cv_cuda_major_parse(arg, &q->cuda) < 0
			       ? cmd_usage_error("install",
						 "--cuda needs a "
						 "CUDA major such as 12")
			       : 0;
	case 'p':
		q->platform = arg;
		return cv_platform_valid(arg)
			       ? 0
			       : cmd_usage_error(
					 "install",
					 "unknown platform '%.40s' (linux-x86_64, "
					 "linux-sbsa, linux-aarch64, windows-x86_64)",
					 arg);
	case 'D':
		return cv_config_deps_mode(arg, &q->deps) < 0
			       ? cmd_usage_error("install",
						 "--deps takes auto, "
						 "always or never")
			       : 0;
	case 'j':
		return (q->jobs = parse_jobs(arg)) == 0
			       ? cmd_usage_error("install",
						 "--jobs needs a number of "
						 "threads, 1-%d",
						 CV_MAX_THREADS)
			       : 0;
	}
	return 0;
}

/* The options into *a; *ind: the first operand. */
static int
parse(int argc, char **argv, struct install_args *a, int *ind)
{
	struct cv_install_request *q = &a->req;
	struct cmd_opts o;
	int c, r = 0;

	cmd_opts_init(&o, argc, argv);
	while (r == 0 && (c = cmd_opts_next(&o)) > 0) {
		if (c == 'f')
			q->force = 1;
		else if (c == 'u')
			q->even_if_in_use = 1;
		else if (c == 'n')
			a->no_validate = 1;
		else if (c == 'r')
			q->refresh = 1;
		else if (c == 'L')
			q->locked = 1;
		else if (c == 'F')
			q->frozen = 1;
		else if (c == 'E')
			q->accept_eula = 1;
		else if (c == 'k')
			q->keep = 1;
		else
			r = take_value(a, c, o.arg);
	}
	*ind = o.ind;
	return r != 0 ? r : c < 0 ? o.status : 0;
}

int
cmd_install(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct install_args a;
	struct cv_install_request *q = &a.req;
	int r, ind = 1;

	memset(&a, 0, sizeof a);
	a.ctx = ctx;
	q->deps = -1;
	q->source = -1;
	/* --mirror is global (cmd/table.c): every command sees one mirror */
	q->mirror = cmd_g.mirror;
	q->nowait = cmd_g.nowait;
	q->verbose = cmd_g.verbose;
	if ((r = parse(argc, argv, &a, &ind)) != 0)
		return r;
	if (q->archive != NULL) {
		if (q->locked || q->frozen)
			return cmd_usage_error(
				"install",
				"--locked and --frozen go with no spec, not "
				"--archive");
		if (a.source != NULL)
			return cmd_usage_error(
				"install",
				"--source goes with <spec>, not --archive");
		if (ind != argc)
			return cmd_usage_error(
				"install",
				"give either <spec> or --archive FILE, not both");
		if (q->sha256 != NULL && !cv_sha256_valid_hex(q->sha256))
			return cmd_usage_error(
				"install", "--sha256 must be 64 hex digits");
		q->what = CV_INSTALL_ARCHIVE;
		return run(&a, q);
	}
	if (ind + 1 < argc)
		return cmd_usage_error("install", "give one spec");
	if ((q->locked || q->frozen) && (ind != argc || a.source != NULL))
		return cmd_usage_error("install",
				       "--locked and --frozen install the "
				       "build the pin's cudnnvm.lock names: "
				       "give no spec or --source");
	if (q->locked && q->frozen)
		return cmd_usage_error("install",
				       "give --locked or --frozen, not both");
	if (q->sha256 != NULL || q->version != NULL)
		return cmd_usage_error(
			"install",
			"--sha256 and --version go with --archive FILE");
	if (ind == argc)
		return install_pinned(&a);
	q->spec = argv[ind];
	return install_spec(&a);
}
