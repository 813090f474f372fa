/* modulefiles.c: `cudnnvm modulefiles [--format lua|tcl] [--out DIR]`
 * writes one Lmod / Environment Modules file per installed version
 * (lib/activate/modulefile.c; install and uninstall keep the store's own module
 * folder current through cv_modulefiles_refresh). */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "store/store.h"
#include "ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
cmd_modulefiles(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cmd_opts o;
	struct cv_store *st = NULL;
	const char *format = NULL, *out = NULL;
	char *outdir = NULL;
	size_t n = 0;
	int c, r, fmt = CV_MODFMT_TCL;

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0) {
		if (c == 'f')
			format = o.arg;
		else if (c == 'o')
			out = o.arg;
	}
	if (c < 0)
		return o.status;
	if (o.ind != argc)
		return cmd_usage_error("modulefiles", "too many arguments");
	if (out != NULL && *out == '\0')
		return cmd_usage_error("modulefiles", "--out needs a folder");
	if (format != NULL &&
	    cv_modulefile_format_parse(format, &fmt, &err) < 0)
		return cmd_fail(&err);
	/* the store's own module folder needs the store writable */
	if ((r = cmd_need(ctx, out == NULL ? CMD_STORE_RW : CMD_STORE)) != 0)
		return r;
	st = ctx->st;
	if (out == NULL) {
		const char *root = cv_store_root(st);
		outdir = malloc(strlen(root) + sizeof "/modulefiles");
		if (outdir == NULL)
			abort();
		strcpy(outdir, root);
		strcat(outdir, "/modulefiles");
	} else {
		outdir = realpath(out, NULL);
		if (outdir == NULL)
			outdir = strdup(out);
		if (outdir == NULL)
			abort();
	}
	/* without --format, a folder we wrote keeps its format */
	if (format == NULL)
		cv_modulefiles_format_of(outdir, &fmt);
	if (cv_modulefiles_write_store(st, outdir, fmt, &n, &err) < 0) {
		r = cmd_fail(&err);
	} else if (!cmd_g.quiet) {
		printf("wrote %zu %s module file%s to %s/cudnn\n", n,
		       fmt == CV_MODFMT_LUA ? "lua" : "tcl", n == 1 ? "" : "s",
		       outdir);
		printf("use them with: module use %s\n", outdir);
	}
	free(outdir);
	return r;
}
