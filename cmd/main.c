/* main.c: global flags, command lookup, and the final stdout check. */
#include "cmd.h"
#include "ui.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cmd_globals cmd_g = { 0, 0, 1, NULL, NULL, NULL, 0 };

static void
print_main_help(FILE *out)
{
	fputs("usage: cudnnvm [--store DIR] [--config FILE] [-q|-v] [--no-color] [--no-wait] <command> [args]\n\n"
	      "Install, switch and validate NVIDIA cuDNN versions.\n\n"
	      "commands:\n",
	      out);
	cmd_list_commands(out);
	fputs("\nRun 'cudnnvm <command> --help' for a command's options, or see cudnnvm(1).\n",
	      out);
}

/* Remove the global flags from argv (anywhere before "--"), so both
 * `cudnnvm --store X list` and `cudnnvm list --store X` work. Returns 0, or
 * an exit status when a flag is malformed. */
static int
take_globals(int *argcp, char **argv, int *want_help, int *want_version)
{
	int argc = *argcp, out = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **slot = NULL;
		if (strcmp(a, "--") == 0) {
			while (i < argc)
				argv[out++] = argv[i++];
			break;
		}
		if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			cmd_g.quiet = 1;
			continue;
		}
		if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			cmd_g.verbose = 1;
			continue;
		}
		if (strcmp(a, "--no-color") == 0) {
			cmd_g.color = 0;
			continue;
		}
		/* global: every command that takes a lock honours it */
		if (strcmp(a, "--no-wait") == 0) {
			cmd_g.nowait = 1;
			continue;
		}
		if (strcmp(a, "--version") == 0 && out == 1) {
			*want_version = 1;
			continue;
		}
		if ((strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
			*want_help = 1;
			continue;
		}
		if (strcmp(a, "--store") == 0)
			slot = &cmd_g.store;
		else if (strcmp(a, "--config") == 0)
			slot = &cmd_g.config;
		else if (strncmp(a, "--store=", 8) == 0) {
			cmd_g.store = a + 8;
			continue;
		} else if (strncmp(a, "--config=", 9) == 0) {
			cmd_g.config = a + 9;
			continue;
		}
		if (slot != NULL) {
			if (i + 1 >= argc)
				return cmd_usage_error(NULL, "%s needs a value",
						       a);
			*slot = argv[++i];
			continue;
		}
		argv[out++] = argv[i];
	}
	argv[out] = NULL;
	*argcp = out;
	return 0;
}

size_t
cmd_globals_argv(const char **args)
{
	size_t n = 0;

	if (cmd_g.store != NULL) {
		args[n++] = "--store";
		args[n++] = cmd_g.store;
	}
	if (cmd_g.config != NULL) {
		args[n++] = "--config";
		args[n++] = cmd_g.config;
	}
	if (cmd_g.quiet)
		args[n++] = "-q";
	if (cmd_g.verbose)
		args[n++] = "-v";
	if (!cmd_g.color)
		args[n++] = "--no-color";
	if (cmd_g.nowait)
		args[n++] = "--no-wait";
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

/* given: argv as main received it, for the helper. */
static int
dispatch(int argc, char **argv, char **given)
{
	const struct cmd_spec *cmd;
	struct cmd_ctx ctx;
	int want_help = 0, want_version = 0, r;

	if (getenv("NO_COLOR") != NULL)
		cmd_g.color = 0;
	r = take_globals(&argc, argv, &want_help, &want_version);
	if (r)
		return r;
	if (want_version && argc == 1) {
		printf("cudnnvm %s\n", CV_VERSION_STRING);
		return finish(0);
	}
	if (argc < 2) {
		print_main_help(want_help ? stdout : stderr);
		return want_help ? finish(0) : 64;
	}
	cmd = cmd_find(argv[1]);
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
		printf("usage: cudnnvm %s\n\n%s\n", cmd->usage, cmd->summary);
		if (cmd->help && *cmd->help)
			printf("\n%s", cmd->help);
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
		if (cv_config_load(&ctx->cfg, cmd_g.config, &err) < 0) {
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
