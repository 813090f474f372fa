/* help.c: `help [<command>]`, `<command> --help` and the hidden
 * `commands`, all written from the declarations in cmd/table.c. */
#include "base/base.h"
#include "cmd.h"
#include "release/release.h"
#include "store/store.h"
#include "ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HELP_WIDTH  78 /* a terminal of 80 columns, less a margin */
#define HELP_INDENT 20

/* "  -q, --quiet", "  --cuda N": an option as help lists it, padded to
 * the column of the text, then the text wrapped under that column. */
static void
print_option(FILE *out, const struct cmd_opt *d)
{
	int col = fprintf(out, "  ");
	const char *p = d->help;

	if (d->short_name)
		col += fprintf(out, "-%c, ", d->short_name);
	col += fprintf(out, "--%s%s%s", d->name, d->arg ? " " : "",
		       d->arg ? d->arg : "");
	while (p != NULL && *p) {
		size_t len = strcspn(p, " ");
		if (col >= HELP_INDENT && col + 1 + (int)len > HELP_WIDTH) {
			fprintf(out, "\n");
			col = 0;
		}
		col += fprintf(out, "%*s",
			       col < HELP_INDENT ? HELP_INDENT - col : 1, "");
		col += fprintf(out, "%.*s", (int)len, p);
		p += len;
		p += strspn(p, " ");
	}
	fprintf(out, "\n");
}

/* 1 when the usage line names "--<name>" as a whole word */
static int
usage_names(const char *usage, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = strstr(usage, "--"); p; p = strstr(p + 2, "--"))
		if (strncmp(p + 2, name, len) == 0 &&
		    strchr("-abcdefghijklmnopqrstuvwxyz0123456789",
			   p[2 + len]) == NULL)
			return 1;
	return 0;
}

int
cmd_lists_global(const struct cmd_spec *c, const struct cmd_opt *d)
{
	return usage_names(c->usage, d->name) &&
	       cmd_opt_find(c->opts, d->name) == NULL;
}

/* Where `man cudnnvm` cannot work (no man on PATH), the page's own words
 * for the command, from the text make install rendered beside it. */
static void
print_man_entry(FILE *out, const char *name)
{
	char *text;

	if (cv_man_command_text(name, &text) != 1)
		return;
	fputs("\nfrom cudnnvm(1):\n\n", out);
	fputs(text, out);
	free(text);
}

void
cmd_print_help(FILE *out, const struct cmd_spec *c)
{
	fprintf(out, "usage: cudnnvm %s\n\n%s\n", c->usage, c->summary);
	if (c->operands_help != NULL || (c->opts && c->opts->name))
		fprintf(out, "\n");
	if (c->operands_help != NULL)
		fputs(c->operands_help, out);
	for (const struct cmd_opt *d = c->opts; d && d->name; d++)
		if (!(d->flags & CMD_OPT_HIDDEN))
			print_option(out, d);
	for (const struct cmd_opt *d = cmd_global_opts; d->name; d++)
		if (cmd_lists_global(c, d))
			print_option(out, d);
	print_man_entry(out, c->name);
}

void
cmd_print_main_help(FILE *out)
{
	fputs("usage: cudnnvm [<global option>...] <command> [args]\n\n"
	      "Install, switch and validate NVIDIA cuDNN versions.\n\n"
	      "global options:\n",
	      out);
	for (const struct cmd_opt *d = cmd_global_opts; d->name; d++)
		print_option(out, d);
	fputs("\ncommands:\n", out);
	cmd_list_commands(out);
	fputs("\nRun 'cudnnvm help <command>' for a command's options, or see cudnnvm(1).\n",
	      out);
}

int
cmd_help(int argc, char **argv, struct cmd_ctx *ctx)
{
	int r;
	const struct cmd_spec *c;

	/* it declares no options: any is a usage error */
	if ((r = cmd_opts_none(&argc, &argv)) != 0)
		return r;
	if (argc < 2) {
		cmd_print_main_help(stdout);
		return 0;
	}
	c = cmd_find(argv[1]);
	if (c == NULL && cmd_suggest(argv[1]) != NULL)
		return cmd_usage_error(
			"help", "no such command '%s'; did you mean '%s'?",
			argv[1], cmd_suggest(argv[1]));
	if (c == NULL)
		return cmd_usage_error("help", "no such command '%s'", argv[1]);
	cmd_print_help(stdout, c);
	return 0;
}

void
cmd_print_version(FILE *out)
{
	fprintf(out, "cudnnvm %s\ncommit: %s\nlibraries: %s\n",
		CV_VERSION_STRING, cv_build_commit(), cv_build_libraries());
}

int
cmd_version(int argc, char **argv, struct cmd_ctx *ctx)
{
	int r = cmd_opts_none(&argc, &argv);

	(void)ctx;
	if (r != 0)
		return r;
	if (argc > 1)
		return cmd_usage_error("version", "unexpected '%s'", argv[1]);
	cmd_print_version(stdout);
	return 0;
}

/* `commands --options`: "<command> --<option>" a line, global ones as
 * "cudnnvm --<option>" (short forms too), " hidden" after those help
 * leaves out: what tests/e2e/docs.bats holds the man page to. */
static void
print_declared(const char *who, const struct cmd_opt *opts)
{
	for (const struct cmd_opt *d = opts; d && d->name; d++) {
		const char *hidden = d->flags & CMD_OPT_HIDDEN ? " hidden" : "";
		printf("%s --%s%s\n", who, d->name, hidden);
		if (d->short_name)
			printf("%s -%c%s\n", who, d->short_name, hidden);
	}
}

/* `commands`: the visible command names, for the completions;
 * `--describe`: with their summaries, "name<TAB>summary" (zsh and fish
 * show them); `--remote-versions`: the releases of the cached mirror
 * listings, never fetched (a Tab must not wait on the network); `--all`:
 * the hidden ones too (the docs test); `--options`: print_declared. */
int
cmd_commands(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cmd_opts o;
	int c, mode = 0;

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0)
		mode = c;
	if (c < 0)
		return o.status;
	if (o.ind != argc)
		return cmd_usage_error("commands", "unexpected '%s'",
				       argv[o.ind]);
	if (mode == 'r') {
		char **names;
		size_t n;

		if (cmd_need(ctx, CMD_STORE) != 0)
			return 1;
		n = cv_index_cached_versions(cv_store_cache_dir(ctx->st),
					     &names);
		for (size_t i = 0; i < n; i++) {
			printf("%s\n", names[i]);
			free(names[i]);
		}
		free(names);
		return 0;
	}
	if (mode == 'o') {
		print_declared("cudnnvm", cmd_global_opts);
		for (const struct cmd_spec *s = cmd_table; s->name; s++)
			print_declared(s->name, s->opts);
		return 0;
	}
	for (const struct cmd_spec *s = cmd_table; s->name; s++)
		if (mode == 'a' || !(s->flags & CMD_HIDDEN)) {
			if (mode == 'd')
				printf("%s\t%s\n", s->name, s->summary);
			else
				printf("%s\n", s->name);
		}
	for (const struct cmd_alias *a = cmd_aliases; a->alias; a++)
		if (mode == 'd')
			printf("%s\t%s (alias)\n", a->alias,
			       cmd_find(a->alias)->summary);
		else
			printf("%s\n", a->alias);
	return 0;
}
