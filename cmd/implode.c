/* implode.c: `cudnnvm implode [--dry-run] [--yes]`: remove everything
 * cudnnvm wrote for this user (lib/doctor/implode.c says what), after saying it
 * and asking; the startup-file lines are named for the user to delete. */
#include "base/base.h"
#include "cmd.h"
#include "doctor/doctor.h"
#include "python/python.h"
#include "store/store.h"
#include "ui.h"

#include <stdio.h>
#include <string.h>

static void
say_plan(const struct cv_implode *p, int dry)
{
	const char *verb = dry ? "would remove" : "removes";

	for (size_t i = 0; i < p->venvs.n; i++)
		ui_print(stdout, "%s the cudnnvm blocks of %s", verb,
			 p->venvs.v[i]);
	if (p->sysmode)
		ui_print(stdout, "%s %s (system mode) and runs ldconfig", verb,
			 cv_sysmode_conf_path());
	for (size_t i = 0; i < p->inv->n; i++)
		if (p->inv->v[i].shown)
			ui_print(stdout, "%s %s", verb, p->inv->v[i].path);
	if (p->venvs.n + p->inv->n + (size_t)p->sysmode == 0)
		printf("nothing of cudnnvm's to remove\n");
}

static void
say_startup(const struct cv_implode *p)
{
	for (size_t i = 0; i < p->inv->nleft; i++)
		ui_print(stdout, "%s", p->inv->left[i]);
	if (p->startup.n == 0)
		return;
	printf("left for you: the lines of your shell startup files that "
	       "load cudnnvm, and anything named here:\n");
	for (size_t i = 0; i < p->startup.n; i++)
		ui_print(stdout, "  %s", p->startup.v[i]);
}

/* On a terminal: ask. Elsewhere --yes says it. */
static int
confirmed(int yes)
{
	char answer[16];

	if (yes)
		return 1;
	if (!cv_os_isatty(0))
		return 0;
	fputs("remove all of it? [y/N] ", stdout);
	fflush(stdout);
	return fgets(answer, sizeof answer, stdin) != NULL &&
	       (answer[0] == 'y' || answer[0] == 'Y');
}

int
cmd_implode(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_implode plan;
	struct cv_strv failed = CV_STRV_INIT;
	struct cmd_opts o;
	int dry = 0, yes = 0, c, r = 0;

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0) {
		if (c == 'n')
			dry = 1;
		else if (c == 'y')
			yes = 1;
	}
	if (c < 0)
		return o.status;
	if (o.ind != argc)
		return cmd_usage_error("implode", "no arguments expected");
	cv_implode_plan(ctx->st, &plan);
	say_plan(&plan, dry);
	if (!dry && !confirmed(yes)) {
		ui_error("implode: nothing removed (confirm on a terminal, or "
			 "pass --yes)");
		r = 1;
	} else if (!dry && cv_implode(&plan, &failed) < 0) {
		for (size_t i = 0; i < failed.n; i++)
			ui_error("%s", failed.v[i]);
		r = 1;
	}
	say_startup(&plan);
	cv_strv_release(&failed);
	cv_implode_release(&plan);
	return r;
}
