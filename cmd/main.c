/* main.c: global flags, command lookup, and the final stdout check. */
#include "base/base.h"
#include "cmd.h"
#include "store/store.h"
#include "ui.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cmd_globals cmd_g = { 0, 0, 1, NULL, NULL, NULL, 0, NULL };

/* The global option `a` names: "-q", "--quiet", "--store", or with its
 * value in it, "--store=DIR" (*value). NULL when it names none. */
static const struct cmd_opt *
global_opt(const char *a, const char **value)
{
	*value = NULL;
	if (a[0] != '-')
		return NULL;
	for (const struct cmd_opt *d = cmd_global_opts; d->name; d++) {
		size_t len = strlen(d->name);
		if (d->short_name && a[1] == d->short_name && a[2] == '\0')
			return d;
		if (a[1] != '-' || strncmp(a + 2, d->name, len) != 0)
			continue;
		if (a[2 + len] == '\0')
			return d;
		if (a[2 + len] == '=' && d->arg != NULL) {
			*value = a + 3 + len;
			return d;
		}
	}
	return NULL;
}

/* Remove the global flags from argv (anywhere before "--"), so both
 * `cudnnvm --store X list` and `cudnnvm list --store X` work. Returns 0, or
 * an exit status when a flag is malformed. */
static int
take_globals(int *argcp, char **argv, int *want_help, int *want_version)
{
	int argc = *argcp, out = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *value;
		const struct cmd_opt *d = global_opt(a, &value);
		if (strcmp(a, "--") == 0) {
			while (i < argc)
				argv[out++] = argv[i++];
			break;
		}
		/* --version after a command is the command's (install
		 * --archive F --version V) */
		if (d == NULL || (d->key == 'V' && out != 1)) {
			argv[out++] = argv[i];
			continue;
		}
		if (d->arg != NULL && value == NULL) {
			if (i + 1 >= argc)
				return cmd_usage_error(NULL, "%s needs a value",
						       a);
			value = argv[++i];
		}
		/* the keys of cmd_global_opts in cmd/table.c */
		switch (d->key) {
		case 'h':
			*want_help = 1;
			break;
		case 'V':
			*want_version = 1;
			break;
		case 'q':
			cmd_g.quiet = 1;
			break;
		case 'v':
			cmd_g.verbose = 1;
			break;
		case 'C':
			cmd_g.color = 0;
			break;
		case 'W': /* every command that takes a lock honours it */
			cmd_g.nowait = 1;
			break;
		case 's':
			cmd_g.store = value;
			break;
		case 'c':
			cmd_g.config = value;
			break;
		case 'm':
			cmd_g.mirror = value;
			break;
		}
	}
	argv[out] = NULL;
	*argcp = out;
	return 0;
}

/* What a child is given for the global option with this key: NULL when
 * nothing (not set, or --help and --version), "" for a flag that is set,
 * else the value. */
static const char *
passed_on(int key)
{
	switch (key) {
	case 'q':
		return cmd_g.quiet ? "" : NULL;
	case 'v':
		return cmd_g.verbose ? "" : NULL;
	case 'C':
		return cmd_g.color ? NULL : "";
	case 'W':
		return cmd_g.nowait ? "" : NULL;
	case 's':
		return cmd_g.store;
	case 'c':
		return cmd_g.config;
	case 'm':
		return cmd_g.mirror;
	default:
		return NULL;
	}
}

size_t
cmd_globals_argv(const char **args)
{
	/* "-q", "--store": each flag's name, written once */
	static char names[CMD_GLOBALS_MAX][32];
	size_t n = 0, k = 0;

	for (const struct cmd_opt *d = cmd_global_opts; d->name; d++, k++) {
		const char *value = passed_on(d->key);
		if (value == NULL || k >= CMD_GLOBALS_MAX)
			continue;
		if (d->short_name)
			snprintf(names[k], sizeof names[k], "-%c",
				 d->short_name);
		else
			snprintf(names[k], sizeof names[k], "--%s", d->name);
		args[n++] = names[k];
		if (d->arg != NULL)
			args[n++] = value;
	}
	return n;
}

static int
finish(int status)
{
	/* `cudnnvm env > /dev/full` must fail, not report success. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (status == 0) {
			fprintf(stderr, "cudnnvm: cannot write output: %s\n",
				strerror(errno ? errno : EIO));
			status = 74;
		}
	}
	/* after the output, so that a reader of both sees the answer first */
	if (status == 0)
		ui_warnings_flush();
	return status;
}

/* An option before the command that no global option is. */
static int
unknown_global(const char *a)
{
	char name[64], near[64];

	if (a[1] != '-')
		return cmd_usage_error(NULL, "unknown option '%s'", a);
	snprintf(name, sizeof name, "%.*s", (int)strcspn(a + 2, "="), a + 2);
	if (cmd_suggest_option(cmd_global_opts, name, near, sizeof near))
		return cmd_usage_error(NULL,
				       "unknown option '%s' (did you mean "
				       "'%s'?)",
				       a, near);
	return cmd_usage_error(NULL, "unknown option '%s'", a);
}

/* given: argv as main received it, for the helper. */
static int
dispatch(int argc, char **argv, char **given)
{
	const struct cmd_spec *cmd;
	struct cmd_ctx ctx;
	int want_help = 0, want_version = 0, r;

	r = take_globals(&argc, argv, &want_help, &want_version);
	if (r)
		return r;
	if (want_version && argc == 1) {
		cmd_print_version(stdout);
		return finish(0);
	}
	if (argc < 2) {
		cmd_print_main_help(want_help ? stdout : stderr);
		return want_help ? finish(0) : 64;
	}
	cmd = cmd_find(argv[1]);
	if (cmd == NULL && argv[1][0] == '-')
		return unknown_global(argv[1]);
	if (cmd == NULL) {
		const char *near = cmd_suggest(argv[1]);
		if (near != NULL)
			ui_error("no such command '%s'; did you mean '%s'? "
				 "(run 'cudnnvm help' for the list)",
				 argv[1], near);
		else
			ui_error("no such command '%s'; run 'cudnnvm help' "
				 "for the list",
				 argv[1]);
		return 64;
	}
	if (want_help) {
		cmd_print_help(stdout, cmd);
		return finish(0);
	}
	if (cmd->fn == NULL)
		return cmd_handoff(given);
	if (!(cmd->flags & CMD_READS_STATE))
		cv_warn_sink(ui_warn_later, NULL);
	/* an alias runs as its command: messages name the command */
	argv[1] = (char *)cmd->name;
	memset(&ctx, 0, sizeof ctx);
	r = cmd_need(&ctx, cmd->flags & (CMD_STORE | CMD_STORE_RW));
	if (r == 0)
		r = cmd->fn(argc - 1, argv + 1, &ctx);
	cv_store_free(ctx.st);
	if (ctx.loaded)
		cv_config_release(&ctx.cfg);
	return finish(r);
}

int
main(int argc, char **argv)
{
	/* take_globals reorders argv; the helper gets it as it came */
	char **given = calloc((size_t)argc + 1, sizeof *given);
	int r;

	if (given == NULL)
		abort();
	memcpy(given, argv, (size_t)argc * sizeof *given);
	/* Handed a command by the front binary, the helper has its path as
	 * argv[0]: validation's probe child runs that, so that libcurl,
	 * libarchive and libcrypto are not mapped beside the cuDNN it proves
	 * loadable. */
	if (cmd_is_helper && argv[0] != NULL && argv[0][0] == '/')
		cmd_g.probe_exe = argv[0];
	r = dispatch(argc, argv, given);
	free(given);
	return r;
}

int
cmd_need(struct cmd_ctx *ctx, unsigned what)
{
	struct cv_err err = CV_ERR_INIT;
	int rw = (what & CMD_STORE_RW) != 0;

	if (!(what & (CMD_STORE | CMD_STORE_RW)))
		return 0;
	if (ctx->st != NULL && !(what & CMD_REOPEN) && (!rw || ctx->rw))
		return 0;
	cv_store_free(ctx->st);
	ctx->st = NULL;
	if (!ctx->loaded) {
		cv_config_init(&ctx->cfg);
		if (cv_config_load(&ctx->cfg, cmd_g.config, &err) < 0 ||
		    (cmd_g.mirror != NULL &&
		     cv_config_set_mirror(&ctx->cfg, cmd_g.mirror, "--mirror",
					  &err) < 0)) {
			cv_config_release(&ctx->cfg);
			return cmd_fail(&err);
		}
		ctx->loaded = 1;
	}
	if (cv_store_open(&ctx->st, &ctx->cfg, cmd_g.store, rw, &err) < 0)
		return cmd_fail(&err);
	ctx->rw = rw;
	cv_store_set_lock_wait(ctx->st, cmd_g.nowait, ui_waiting, NULL);
	return 0;
}
