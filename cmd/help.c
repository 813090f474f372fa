/* help.c: `help [<command>]` and the hidden `commands`. */
#include "cmd.h"
#include "ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
cmd_help(int argc, char **argv, struct cmd_ctx *ctx)
{
	const struct cmd_spec *c;

	if (argc < 2) {
		printf("usage: cudnnvm [--store DIR] [--config FILE] [-q|-v] [--no-color] <command> [args]\n\ncommands:\n");
		cmd_list_commands(stdout);
		return 0;
	}
	c = cmd_find(argv[1]);
	if (c == NULL && cmd_suggest(argv[1]) != NULL)
		return cmd_usage_error(
			"help", "no such command '%s'; did you mean '%s'?",
			argv[1], cmd_suggest(argv[1]));
	if (c == NULL)
		return cmd_usage_error("help", "no such command '%s'", argv[1]);
	printf("usage: cudnnvm %s\n\n%s\n", c->usage, c->summary);
	if (c->help && *c->help)
		printf("\n%s", c->help);
	return 0;
}

/* `commands`: the visible command names, for the completions;
 * `--describe`: with their summaries, "name<TAB>summary" (zsh and fish
 * show them); `--remote-versions`: the releases of the cached mirror
 * listings, never fetched (a Tab must not wait on the network); `--all`:
 * the hidden ones too (the docs test). */
int
cmd_commands(int argc, char **argv, struct cmd_ctx *ctx)
{
	int describe = argc == 2 && strcmp(argv[1], "--describe") == 0;
	int all = argc == 2 && strcmp(argv[1], "--all") == 0;

	if (argc == 2 && strcmp(argv[1], "--remote-versions") == 0) {
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
	if (argc > 1 && !describe && !all)
		return cmd_usage_error("commands", "unexpected '%s'", argv[1]);
	for (const struct cmd_spec *c = cmd_table; c->name; c++)
		if (all || !(c->flags & CMD_HIDDEN)) {
			if (describe)
				printf("%s\t%s\n", c->name, c->summary);
			else
				printf("%s\n", c->name);
		}
	for (const struct cmd_alias *a = cmd_aliases; a->alias; a++)
		if (describe)
			printf("%s\t%s (alias)\n", a->alias,
			       cmd_find(a->alias)->summary);
		else
			printf("%s\n", a->alias);
	return 0;
}
