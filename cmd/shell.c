/* shell.c: `shell <spec> | --unset`, a per-shell override. The binary
 * cannot change its parent's environment, so the function that
 * `cudnnvm init` defines calls `cudnnvm shell --eval <shell> ...` and
 * evaluates what it prints; run bare, it says how to set that up. */
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"
#include "ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run bare: how to set up the integration, and the command that does
 * the same by hand, both in the syntax of the shell that ran us (a tcsh
 * user gets setenv, not export). `spec` is a parsed spec's text, NULL for
 * --unset. */
static int
no_integration(const char *spec)
{
	struct cv_err err = CV_ERR_INIT;
	int sh = cv_shell_guess();

	cv_err_set(&err, CV_ERROR,
		   "'shell' needs the shell integration: a line in your "
		   "shell's startup file (the first hint) loads it; the "
		   "second does the same in this shell by hand");
	cv_err_hint(&err, "%s", cv_shell_init_line(sh));
	switch (sh) {
	case CV_SHELL_CSH:
		cv_err_hint(&err,
			    spec ? "setenv CUDNNVM_VERSION %s"
				 : "unsetenv CUDNNVM_VERSION",
			    spec);
		break;
	case CV_SHELL_FISH:
		cv_err_hint(&err,
			    spec ? "set -gx CUDNNVM_VERSION %s"
				 : "set -e CUDNNVM_VERSION",
			    spec);
		break;
	case CV_SHELL_PWSH:
		cv_err_hint(&err,
			    spec ? "$env:CUDNNVM_VERSION = '%s'"
				 : "Remove-Item Env:CUDNNVM_VERSION",
			    spec);
		break;
	default:
		cv_err_hint(&err,
			    spec ? "export CUDNNVM_VERSION=%s"
				 : "unset CUDNNVM_VERSION",
			    spec);
	}
	return cmd_fail(&err);
}

int
cmd_shell(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st;
	struct cv_buf *out = NULL;
	struct cmd_activation a;
	struct cv_verdict verdict;
	struct cv_version spec;
	int sh, r;
	char id[64], text[64];

	if ((r = cmd_activation_opts(argc, argv, &a)) != 0)
		return r;
	if (a.unset ? argc - a.ind != 0 : argc - a.ind != 1)
		return cmd_usage_error("shell",
				       "expected one version spec or --unset");
	if (a.eval == NULL && a.unset)
		return no_integration(NULL);
	if (a.eval == NULL) {
		if ((r = cmd_activation_spec(&a, argv[a.ind], &spec)) != 0)
			return r;
		cv_version_format_id(&spec, text, sizeof text);
		return no_integration(text);
	}
	if (cv_shell_parse(a.eval, &sh, &err) < 0)
		return cmd_fail(&err);
	out = cv_text_new();
	if (a.unset) {
		r = cv_shell_set(out, sh, "CUDNNVM_VERSION", NULL, 1, &err);
		goto print;
	}
	if ((r = cmd_activation_spec(&a, argv[a.ind], &spec)) != 0) {
		cv_text_free(out);
		return r;
	}
	cv_version_format_id(&spec, text, sizeof text);
	/* --unset needs no store: asked for only now */
	if ((r = cmd_need(ctx, CMD_STORE)) != 0) {
		cv_text_free(out);
		return r;
	}
	st = ctx->st;
	a.gate.fix.head = "cudnnvm shell";
	a.gate.fix.tail = "";
	if ((r = ui_verdict(cv_gate_choose(&ctx->cfg, st, &spec, &a.gate, id,
					   &verdict, &err),
			    &err, &verdict)) != 0)
		goto done;
	/* CUDNNVM_VERSION takes a version, not "latest": the one it is now */
	r = cv_shell_set(out, sh, "CUDNNVM_VERSION",
			 spec.nparts == 0 ? id : text, 1, &err);
print:
	if (r < 0)
		r = cmd_fail(&err);
	else
		fputs(cv_text_str(out), stdout);
done:
	cv_text_free(out);
	return r;
}
