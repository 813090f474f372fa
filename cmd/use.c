/* use.c: pin a version for this project by writing ./.cudnn-version. Also
 * the option parsing and choice of version shared with global and shell. */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"
#include "release/release.h"
#include "store/store.h"
#include "ui.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* `cudnnvm <cmd> [arg] [flag]` as a child, with this run's global flags,
 * its output the user's. Returns its exit status (130 after a Ctrl-C). */
static int
run_self(const char *cmd, const char *arg, const char *flag)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_child child = CV_CHILD_INIT;
	char self[PATH_MAX];
	const char *args[CMD_GLOBALS_MAX + 5];
	size_t n = 0;
	int r;

	if (cv_child_self(self, &err) < 0) {
		ui_error("cannot find the cudnnvm binary to run '%s'", cmd);
		return 1;
	}
	args[n++] = self;
	n += cmd_globals_argv(args + n);
	args[n++] = cmd;
	if (arg != NULL)
		args[n++] = arg;
	if (flag != NULL)
		args[n++] = flag;
	args[n] = NULL;
	fflush(stdout);
	fflush(stderr);
	child.argv = args;
	r = cv_child_run(&child, &err);
	return r < 0 ? cmd_fail(&err) : r;
}

/* A project that has a lock keeps it locking the pin just written. When
 * the lock cannot follow (a build the mirror does not list, such as one
 * from the package index, or no mirror), the pin goes back to what the
 * lock locks: the two never disagree. */
static int
relock(const char *pin_file, const char *text)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_lock lk;
	char path[4096], file[4096], hint[4200], *q;
	int had, r;

	cv_lock_path(pin_file, path);
	if ((had = cv_lock_read(path, &lk, &err)) == CV_ENOTFOUND)
		return 0;
	if ((r = run_self("lock", NULL, NULL)) == 0 || had < 0)
		return r;
	err = (struct cv_err)CV_ERR_INIT;
	if (cv_pin_set(".", &lk.spec_v, file, &err) < 0)
		return cmd_fail(&err);
	/* beside the pin just written, in this folder */
	q = cv_shell_quote_word(cv_path_base(path));
	ui_error("use: %s cannot lock %s (above), so the pin stays %s, "
		 "which it locks",
		 q, text, lk.spec);
	/* without the lock, the pin is all a folder needs */
	snprintf(hint, sizeof hint, "rm %s && cudnnvm use %s", q, text);
	ui_hint_line(hint);
	free(q);
	return r;
}

/* CUDNNVM_VERSION (an activated venv's, or `cudnnvm shell`'s) beats any
 * pin: say that the pin just written is not what is active here, and
 * how to make it so. */
static void
say_what_wins(const struct cv_store *st, const char *pinned)
{
	struct cv_active a;
	char venv[PATH_MAX];

	if (cv_active_resolve(st, NULL, &a, NULL, NULL, NULL) < 0 ||
	    a.origin != CV_ORIGIN_ENV || strcmp(a.id, pinned) == 0)
		return;
	if (cv_venv_pinned_by(a.spec, venv, sizeof venv))
		ui_warn("the activated environment %s sets "
			"CUDNNVM_VERSION=%s, which wins over the pin while it "
			"is active: %s stays active here (deactivate it, or "
			"'cudnnvm venv %s' to change the environment's)",
			venv, a.spec, a.id, pinned);
	else
		ui_warn("CUDNNVM_VERSION=%s wins over the pin in this shell: %s "
			"stays active here ('cudnnvm shell --unset' or 'unset "
			"CUDNNVM_VERSION' lets the pin apply)",
			a.spec, a.id);
}

/* `use --unset` (remove this folder's pin) and `use system` (pin "no
 * cudnnvm version here", over the global). */
static int
pin_no_version(int operands, int unset)
{
	struct cv_err err = CV_ERR_INIT;
	char file[4096];

	if (operands != !unset)
		return cmd_usage_error("use",
				       unset ? "--unset takes no version"
					     : "expected one version spec");
	if ((unset ? cv_pin_unset(".", file, &err)
		   : cv_pin_set(".", NULL, file, &err)) < 0)
		return cmd_fail(&err);
	if (unset)
		ui_note("removed the pin of this folder (%s)", file);
	else
		ui_note("pinned 'system' in %s: no cudnnvm version here, "
			"even with a global set",
			file);
	return 0;
}

int
cmd_use(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st = NULL;
	struct cmd_activation a;
	struct cv_verdict verdict;
	struct cv_version v;
	int r;
	char id[64], file[4096], text[64];

	if ((r = cmd_activation_opts(argc, argv, &a)) != 0)
		return r;
	if (a.unset ||
	    (argc - a.ind == 1 && strcmp(argv[a.ind], CV_SYSTEM) == 0))
		return pin_no_version(argc - a.ind, a.unset);
	if (argc - a.ind != 1)
		return cmd_usage_error("use", "expected one version spec");
	if ((r = cmd_activation_spec(&a, argv[a.ind], &v)) != 0)
		return r;
	/* the spec as given, with --cuda N folded in: what is installed,
	 * pinned and said */
	cv_version_format_id(&v, text, sizeof text);
	if ((r = cmd_need(ctx, CMD_STORE)) != 0)
		return r;
	st = ctx->st;
	/* as mise does: a version not installed yet is installed first */
	if (!a.no_install && cv_active_find(st, &v, id, &err) == CV_ENOTFOUND) {
		ui_note("cuDNN %s is not installed; installing it "
			"(cudnnvm install %s)",
			text, text);
		/* with --force the gate below validates and overrides; the
		 * install must not refuse first */
		if ((r = run_self("install", text,
				  a.gate.no_validate || a.gate.force
					  ? "--no-validate"
					  : NULL)) != 0)
			goto out;
		/* the install may have made the store: open it again */
		if ((r = cmd_need(ctx, CMD_STORE | CMD_REOPEN)) != 0)
			return r;
		st = ctx->st;
	}
	a.gate.fix.head = "cudnnvm use";
	a.gate.fix.tail = "";
	if ((r = ui_verdict(cv_gate_choose(&ctx->cfg, st, &v, &a.gate, id,
					   &verdict, &err),
			    &err, &verdict)) != 0)
		goto out;
	/* a pin of "latest" would move under the project with every
	 * install; pin what it means today */
	if (v.nparts == 0 && cv_install_id_parse(&v, id, &err) < 0)
		r = cmd_fail(&err);
	else if (cv_pin_set(".", &v, file, &err) < 0)
		r = cmd_fail(&err);
	else if ((r = relock(file, text)) == 0) {
		ui_note("pinned %s (%s) in ./%s", text, id, cv_path_base(file));
		say_what_wins(st, id);
		cmd_hook_note(id);
	}
out:
	return r;
}
