/* list.c: `cudnnvm list [--json]`: installed versions, newest first; the
 * global default is marked '*', the active one '>'. When a user sees the
 * system store beside their own, a column says where each version lives. */
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

static void
print_json(const struct cv_store *st, const struct cv_installed *all, size_t n,
	   const char *global, const char *active)
{
	struct cv_json *arr = cv_json_array();
	char *text;
	for (size_t i = 0; i < n; i++) {
		char ver[64], *dir = cv_store_dir(st, all[i].id);
		struct cv_json *o = cv_json_object();
		cv_version_format(&all[i].version, ver, sizeof ver);
		cv_json_object_set_new(o, "id", cv_json_string(all[i].id));
		cv_json_object_set_new(o, "version", cv_json_string(ver));
		cv_json_object_set_new(o, "cuda",
				       cv_json_integer(all[i].version.cuda));
		cv_json_object_set_new(o, "platform",
				       cv_json_string(all[i].platform));
		cv_json_object_set_new(o, "path", cv_json_string(dir));
		cv_json_object_set_new(
			o, "store",
			cv_json_string(cv_store_kind_name(all[i].store)));
		free(dir);
		cv_json_object_set_new(
			o, "global",
			cv_json_boolean(strcmp(global, all[i].id) == 0));
		cv_json_object_set_new(
			o, "active",
			cv_json_boolean(strcmp(active, all[i].id) == 0));
		cv_json_object_set_new(o, "sha256",
				       cv_json_string(all[i].sha256));
		cv_json_object_set_new(o, "size",
				       cv_json_integer((int64_t)all[i].size));
		cv_json_object_set_new(o, "installed_at",
				       cv_json_string(all[i].installed_at));
		cv_json_object_set_new(o, "origin",
				       cv_json_string(all[i].origin));
		cv_json_object_set_new(o, "deps", cv_store_deps_json(&all[i]));
		if ((dir = cv_store_hidden_dir(st, all[i].id)) != NULL)
			cv_json_object_set_new(o, "hidden_user_copy",
					       cv_json_string(dir));
		free(dir);
		cv_json_array_append_new(arr, o);
	}
	text = cv_json_dumps(arr, CV_JSON_INDENT(2));
	if (text != NULL)
		printf("%s\n", text);
	free(text);
	cv_json_decref(arr);
}

/* The user's own copy of a version the system store also holds: never
 * used, but it takes room and `uninstall` removes it. */
static void
print_hidden(const struct cv_store *st, const struct cv_installed *v)
{
	char *dir = cv_store_hidden_dir(st, v->id);

	if (dir == NULL)
		return;
	printf("   %-20s %-15s %-7s%s  (hidden: the system store's copy is "
	       "used)\n",
	       v->id, v->platform, "user", dir);
	free(dir);
}

static void
print_text(const struct cv_store *st, const struct cv_installed *all, size_t n,
	   const char *global, const char *active)
{
	int two = cv_store_system_root(st) != NULL;

	for (size_t i = 0; i < n; i++) {
		char *dir = cv_store_dir(st, all[i].id);
		printf("%s%s %-20s %-15s ",
		       ui_paint(stdout,
				strcmp(active, all[i].id) == 0 ? ">" : " "),
		       ui_paint(stdout,
				strcmp(global, all[i].id) == 0 ? "*" : " "),
		       all[i].id, all[i].platform);
		if (two)
			printf("%-7s", cv_store_kind_name(all[i].store));
		/* an archive is the usual case; a wheel says so */
		printf("%s%s\n", dir,
		       strcmp(all[i].origin, "pypi") == 0
			       ? "  (from a PyPI wheel)"
			       : "");
		free(dir);
		print_hidden(st, &all[i]);
	}
	if (n == 0 && two)
		ui_note("no cuDNN version is installed in %s or %s; try 'cudnnvm install 9'",
			cv_store_system_root(st), cv_store_root(st));
	else if (n == 0)
		ui_note("no cuDNN version is installed in %s; try 'cudnnvm install 9'",
			cv_store_root(st));
}

int
cmd_list(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st = ctx->st;
	struct cv_installed *all = NULL;
	struct cv_active act;
	char global[64] = "", active[64] = "";
	size_t n = 0;
	struct cmd_opts o;
	int json = 0, from_system, c, r;

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0)
		json = 1; /* --json, the one option */
	if (c < 0)
		return o.status;
	if (o.ind != argc)
		return cmd_usage_error("list", "no arguments expected");
	if (cv_store_list(st, &all, &n, &err) < 0) {
		r = cmd_fail(&err);
		return r;
	}
	if (cv_store_default_get(st, global, &from_system, NULL) < 0)
		global[0] = '\0';
	if (cv_active_resolve(st, NULL, &act, NULL, NULL, NULL) == 0)
		snprintf(active, sizeof active, "%s", act.id);
	if (json)
		print_json(st, all, n, global, active);
	else
		print_text(st, all, n, global, active);
	free(all);
	return 0;
}
