/* shim.c: `shim add|remove|list`: shims, for programs that never run a
 * shell hook (IDEs, Jupyter kernels, services); lib/activate/shim.c writes
 * them. The template is shims/shim.sh. */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"
#include "ui.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int
list(const char *dir)
{
	struct cv_strv names = CV_STRV_INIT;

	cv_shim_list(dir, &names);
	for (size_t i = 0; i < names.n; i++)
		printf("%s\n", names.v[i]);
	cv_strv_release(&names);
	return 0;
}

static int
add(const char *dir, const char *prog)
{
	struct cv_err err = CV_ERR_INIT;
	const char *pathenv = getenv("PATH");
	char exe[PATH_MAX];

	if (cv_child_self(exe, &err) < 0 ||
	    cv_shim_add(dir, prog, exe, &err) < 0)
		return cmd_fail(&err);
	ui_note("created %s/%s", dir, prog);
	if (!cv_shim_target_on_path(prog, dir))
		ui_warn("'%s' is not on PATH, so the shim has nothing to run "
			"yet (it exits 127 until it is installed)",
			prog);
	if (pathenv == NULL || strstr(pathenv, dir) == NULL)
		ui_note("add %s to the front of PATH to use it", dir);
	return 0;
}

int
cmd_shim(int argc, char **argv, struct cmd_ctx *ctx)
{
	int r;
	struct cv_err err = CV_ERR_INIT;
	char dir[PATH_MAX];

	/* it declares no options: any is a usage error */
	if ((r = cmd_opts_none(&argc, &argv)) != 0)
		return r;
	cv_shim_dir(dir, sizeof dir);
	if (argc == 2 && strcmp(argv[1], "list") == 0)
		return list(dir);
	if (argc != 3 ||
	    (strcmp(argv[1], "add") != 0 && strcmp(argv[1], "remove") != 0))
		return cmd_usage_error("shim", "expected add, remove or list");
	if (!cv_shim_name_valid(argv[2]))
		return cmd_usage_error(
			"shim",
			"'%.80s' is not a program name (letters, digits, . _ + -, no slash)",
			argv[2]);
	if (strcmp(argv[1], "add") == 0)
		return add(dir, argv[2]);
	if (cv_shim_remove(dir, argv[2], &err) < 0)
		return cmd_fail(&err);
	ui_note("removed the shim %s/%s", dir, argv[2]);
	return 0;
}
