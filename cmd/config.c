/* config.c: `cudnnvm config list|get|set|unset`: the keys of lib/base/config.c,
 * their values as every command sees them, and edits of the user's file
 * (or of --config FILE) that keep its other lines. */
#include "cmd.h"
#include "ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
load(struct cv_config *cfg)
{
	struct cv_err err = CV_ERR_INIT;

	cv_config_init(cfg);
	if (cv_config_load(cfg, cmd_g.config, &err) < 0 ||
	    (cmd_g.mirror != NULL &&
	     cv_config_set_mirror(cfg, cmd_g.mirror, "--mirror", &err) < 0)) {
		cv_config_release(cfg);
		return cmd_fail(&err);
	}
	return 0;
}

static int
show(const char *key)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_config cfg;
	char name[48], *value;
	int r;

	if ((r = load(&cfg)) != 0)
		return r;
	for (size_t i = 0; key == NULL && cv_config_key(i, name, sizeof name);
	     i++) {
		cv_config_value(&cfg, name, &value, &err);
		ui_print(stdout, "%s = %s", name, value);
		free(value);
	}
	if (key != NULL && cv_config_value(&cfg, key, &value, &err) == 0) {
		ui_print(stdout, "%s", value);
		free(value);
	}
	cv_config_release(&cfg);
	return key != NULL && err.code ? cmd_fail(&err) : 0;
}

static int
edit(const char *key, const char *value)
{
	struct cv_err err = CV_ERR_INIT;
	char *path = cmd_g.config != NULL ? strdup(cmd_g.config)
					  : cv_config_user_path(&err);
	int changed, r;

	if (path == NULL)
		return cmd_fail(&err);
	r = cv_config_edit(path, key, value, &changed, &err);
	if (r == 0 && !cmd_g.quiet)
		ui_note("cudnnvm: %s %s %s %s",
			!changed ? "kept"
			: value  ? "wrote"
				 : "removed",
			key, value || !changed ? "in" : "from", path);
	free(path);
	return r < 0 ? cmd_fail(&err) : 0;
}

int
cmd_config(int argc, char **argv, struct cmd_ctx *ctx)
{
	const char *what;
	int r, want;

	(void)ctx;
	if ((r = cmd_opts_none(&argc, &argv)) != 0)
		return r;
	what = argc >= 2 ? argv[1] : "list";
	want = strcmp(what, "list") == 0    ? 0
	       : strcmp(what, "get") == 0   ? 1
	       : strcmp(what, "set") == 0   ? 2
	       : strcmp(what, "unset") == 0 ? 1
					    : -1;
	if (want < 0)
		return cmd_usage_error("config",
				       "expected list, get, set or unset");
	if (argc != 2 + want)
		return cmd_usage_error("config", "%s takes %s", what,
				       want == 0   ? "nothing more"
				       : want == 1 ? "one KEY"
						   : "KEY VALUE");
	if (want == 0)
		return show(NULL);
	if (strcmp(what, "get") == 0)
		return show(argv[2]);
	return edit(argv[2], want == 2 ? argv[3] : NULL);
}
