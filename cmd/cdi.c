/* cdi.c: `cudnnvm cdi [<spec>...] [--output FILE] [--prefix P]`: the CDI
 * spec of the installed versions (lib/activate/cdi.c), one device each. */
#include "cmd.h"
#include "ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The ids: each spec's, else every installed Linux build. */
static int
ids(struct cmd_ctx *ctx, int n, char **specs, struct cv_strv *out,
    struct cv_err *err)
{
	struct cv_installed *all = NULL;
	size_t na = 0;
	char id[64];

	for (int i = 0; i < n; i++) {
		struct cv_version v;
		if (cv_spec_parse(&v, specs[i], err) < 0 ||
		    cv_active_find(ctx->st, &v, id, err) < 0)
			return err->code;
		cv_strv_push(out, id);
	}
	if (n > 0)
		return 0;
	if (cv_store_list(ctx->st, &all, &na, err) < 0)
		return err->code;
	for (size_t i = 0; i < na; i++)
		if (strncmp(all[i].platform, "windows", 7) != 0)
			cv_strv_push(out, all[i].id);
	free(all);
	if (out->n == 0) {
		cv_err_set(err, CV_ENOTFOUND, "no Linux build is installed");
		return cv_err_hint(err, "cudnnvm install 9");
	}
	return 0;
}

int
cmd_cdi(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_strv list = CV_STRV_INIT;
	struct cv_ctr_view *views = NULL;
	struct cmd_opts o;
	const char *output = NULL, *prefix = NULL;
	char *text = NULL;
	size_t nv = 0;
	int c, r;

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0) {
		if (c == 'o')
			output = o.arg;
		else if (c == 'p')
			prefix = o.arg;
	}
	if (c < 0)
		return o.status;
	r = ids(ctx, argc - o.ind, argv + o.ind, &list, &err);
	if (r == 0 && (views = calloc(list.n + 1, sizeof *views)) == NULL)
		abort();
	for (; r == 0 && nv < list.n; nv++)
		r = cv_env_container(&views[nv], ctx->st, list.v[nv], &err);
	if (r == 0)
		r = cv_cdi_spec(views, nv, prefix, &text, &err);
	if (r == 0 && output != NULL)
		r = cv_fs_write_atomic(output, text, strlen(text), 0644, &err);
	if (r == 0 && output == NULL)
		printf("%s\n", text);
	else if (r == 0 && !cmd_g.quiet)
		ui_note("wrote %zu CDI device%s (%s) to %s", nv,
			nv == 1 ? "" : "s", CV_CDI_KIND, output);
	for (size_t i = 0; i < nv; i++)
		cv_env_container_release(&views[i]);
	free(views);
	free(text);
	cv_strv_release(&list);
	return r < 0 ? cmd_fail(&err) : 0;
}
