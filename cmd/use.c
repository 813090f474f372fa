/* use.c: pin a version for this project by writing ./.cudnn-version. */
#include "cmd.h"
#include "ui.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

int
cmd_use(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "no-validate", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct cv_err err = CV_ERR_INIT;
	struct cv_config cfg;
	struct cv_store *st = NULL;
	struct cv_version v;
	int c, force = 0, novalidate = 0, r;
	char id[64], cwd[PATH_MAX];

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'f')
			force = 1;
		else if (c == 'n')
			novalidate = 1;
		else
			return cmd_usage_error("use", "unknown option '%s'",
					       argv[optind - 1]);
	}
	if (argc - optind != 1)
		return cmd_usage_error("use", "expected one version spec");
	if (cv_version_parse(&v, argv[optind], &err) < 0)
		return cmd_fail(&err);
	if (getcwd(cwd, sizeof cwd) == NULL) {
		cv_err_errno(&err, CV_EIO, "cannot find the current folder");
		return cmd_fail(&err);
	}
	if ((r = cmd_open(&cfg, &st, 0)) != 0)
		return r;
	if (cv_active_find(st, argv[optind], id, &err) < 0) {
		r = cmd_fail(&err);
		goto out;
	}
	if ((r = cmd_gate_activation(&cfg, st, id, force, novalidate)) != 0)
		goto out;
	if (cv_pin_write(cwd, argv[optind], &err) < 0)
		r = cmd_fail(&err);
	else
		ui_note("pinned %s (%s) in ./" CV_PIN_FILE, argv[optind], id);
out:
	cv_store_free(st);
	cv_config_release(&cfg);
	return r;
}
