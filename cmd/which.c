/* which.c: an absolute path inside the active version. */
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

static int
is_dir(const char *p)
{
	struct cv_stat sb;
	return cv_os_stat(p, &sb) == 0 && sb.kind == CV_KIND_DIR;
}

int
cmd_which(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st = ctx->st;
	struct cv_active a;
	const char *what;
	char home[PATH_MAX + 64], path[2 * PATH_MAX];
	int r;

	/* it declares no options: any is a usage error */
	if ((r = cmd_opts_none(&argc, &argv)) != 0)
		return r;
	what = argc > 1 ? argv[1] : "root";
	if (argc > 2)
		return cmd_usage_error("which", "too many arguments");
	r = cv_active_resolve(st, NULL, &a, NULL, NULL, &err);
	if (r == 0) {
		char *dir = cv_store_dir(st, a.id);
		snprintf(home, sizeof home, "%s", dir);
		free(dir);
	}
	if (r < 0)
		return cmd_fail(&err);
	if (strcmp(what, "root") == 0) {
		printf("%s\n", home);
		return 0;
	}
	if (strcmp(what, "include") == 0) {
		printf("%s/include\n", home);
		return 0;
	}
	snprintf(path, sizeof path, "%s/lib/x64", home);
	if (strcmp(what, "lib") == 0) {
		printf("%s\n", is_dir(path) ? path : strcat(home, "/lib"));
		return 0;
	}
	if (what[0] == '/' || strstr(what, "..") != NULL) {
		cv_err_set(
			&err, CV_EUSAGE,
			"which: '%.80s' must be lib, include, root or a file name inside the version",
			what);
		return cmd_fail(&err);
	}
	{
		static const char *const dirs[] = { "",         "/lib",
						    "/include", "/bin",
						    "/lib/x64", NULL };
		struct cv_stat sb;
		for (int i = 0; dirs[i]; i++) {
			snprintf(path, sizeof path, "%s%s/%s", home, dirs[i],
				 what);
			if (cv_os_lstat(path, &sb) == 0) {
				printf("%s\n", path);
				return 0;
			}
		}
	}
	cv_err_set(&err, CV_ENOTFOUND,
		   "no '%.80s' in cuDNN %s (%s); try 'cudnnvm which lib'", what,
		   a.id, home);
	return cmd_fail(&err);
}
