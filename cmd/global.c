/* global.c: show or set the default version (<store>/current); with
 * --system also make it the machine loader's answer for libcudnn.so.N
 * (ld.so.conf.d + ldconfig, root only). A user beside a system store sets
 * their own default, which may name a version of the system store; with
 * none set, the system store's default is theirs. */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"
#include "store/store.h"
#include "ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `global` alone: the default version, and whose it is. */
static int
show(struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st;
	int r, from_system = 0;
	char id[64];

	if ((r = cmd_need(ctx, CMD_STORE)) != 0)
		return r;
	st = ctx->st;
	r = cv_store_default_get(st, id, &from_system, &err);
	if (r == 0 && strcmp(id, CV_SYSTEM) == 0)
		ui_note("no cudnnvm version by default ('cudnnvm global "
			"--unset' removes that)");
	if (r == 0 && from_system)
		ui_note("%s is the system store's default (%s/current); 'cudnnvm global <spec>' sets your own",
			id, cv_store_system_root(st));
	if (r == CV_ENOTFOUND) {
		char *pick = cv_hint_pick_global(st);
		cv_err_hint(&err, "%s", pick);
		free(pick);
	}
	if (r < 0)
		return cmd_fail(&err);
	printf("%s\n", id);
	return 0;
}

/* The store's own module folder names the default in .version: follow
 * the switch (a failure there does not undo it). */
static void
modules_follow(const struct cv_store *st)
{
	struct cv_err err = CV_ERR_INIT;

	if (cv_modulefiles_refresh(st, &err) < 0)
		ui_warn("module files not updated: %s; run 'cudnnvm modulefiles'",
			err.msg);
}

/* `global system`: a default of no cudnnvm version, which the system
 * store's default does not replace either. */
static int
set_system(struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	int r;

	if ((r = cmd_need(ctx, CMD_STORE_RW)) != 0)
		return r;
	if (cv_store_global_set(ctx->st, CV_SYSTEM, &err) < 0)
		return cmd_fail(&err);
	modules_follow(ctx->st);
	ui_note("global version: system (no cudnnvm version where no pin "
		"names one)");
	return 0;
}

/* Whether --system may go on: it is Linux's (the Windows loader has no
 * cache a version could be written into) and needs root, which is
 * checked before anything is opened, so a user learns at once. */
static int
system_allowed(const struct cmd_activation *a, const struct cv_version *spec)
{
	struct cv_err err = CV_ERR_INIT;
	char text[64] = "--unset";

#ifdef _WIN32
	(void)text;
	(void)spec;
	(void)err;
	(void)a;
	ui_error("global --system is Linux-only (ld.so.conf.d and "
		 "ldconfig); on Windows 'cudnnvm global <spec>' sets "
		 "the default");
	return 64;
#else
	if (cv_os_euid() == 0)
		return 0;
	if (!a->unset)
		cv_version_format_id(spec, text, sizeof text);
	cv_err_set(&err, CV_EPERM,
		   "system mode changes the loader of every program; "
		   "it needs root");
	cv_err_hint(&err, "sudo cudnnvm global --system %s", text);
	return cmd_fail(&err);
#endif
}

/* --unset: the default link, or with --system the machine's loader entry
 * (the link then stays: per-user activation still has a default). */
static int
unset_global(struct cv_store *st, int system)
{
	struct cv_err err = CV_ERR_INIT;

	if (system) {
		if (cv_sysmode_disable(&err) < 0)
			return cmd_fail(&err);
		ui_note("system mode off: removed %s and ran ldconfig",
			cv_sysmode_conf_path());
		return 0;
	}
	if (cv_store_global_set(st, NULL, &err) < 0)
		return cmd_fail(&err);
	modules_follow(st);
	ui_note("global version unset");
	return 0;
}

int
cmd_global(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st = NULL;
	struct cmd_activation a;
	struct cv_verdict verdict;
	struct cv_version spec;
	int r;
	char id[64];

	if ((r = cmd_activation_opts(argc, argv, &a)) != 0)
		return r;
	if (argc - a.ind > 1 || (a.unset && argc - a.ind != 0))
		return cmd_usage_error("global", "too many arguments");
	if (a.system && argc - a.ind == 0 && !a.unset)
		return cmd_usage_error("global",
				       "--system needs a version or --unset");
	if (argc - a.ind == 0 && !a.unset)
		return show(ctx);
	if (!a.unset && !a.system && strcmp(argv[a.ind], CV_SYSTEM) == 0)
		return set_system(ctx);
	if (!a.unset && (r = cmd_activation_spec(&a, argv[a.ind], &spec)) != 0)
		return r;
	if (a.system && (r = system_allowed(&a, &spec)) != 0)
		return r;
	if ((r = cmd_need(ctx, CMD_STORE_RW)) != 0)
		return r;
	st = ctx->st;
	if (a.unset)
		return unset_global(st, a.system);
	a.gate.fix.head = "cudnnvm global";
	a.gate.fix.tail = a.system ? " --system" : "";
	if ((r = ui_verdict(cv_gate_choose(&ctx->cfg, st, &spec, &a.gate, id,
					   &verdict, &err),
			    &err, &verdict)) != 0)
		goto out;
	if ((a.system ? cv_store_global_system(st, id, &err)
		      : cv_store_global_set(st, id, &err)) < 0) {
		r = cmd_fail(&err);
		goto out;
	}
	modules_follow(st);
	if (a.system)
		ui_note("global version: %s, system-wide through %s", id,
			cv_sysmode_conf_path());
	else
		ui_note("global version: %s", id);
out:
	return r;
}
