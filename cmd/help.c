/* help.c: `help [<command>]` and the hidden `commands`. */
#include "cmd.h"
#include "ui.h"

#include <stdio.h>

int
cmd_help(int argc, char **argv)
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

int
cmd_commands(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	for (const struct cmd_spec *c = cmd_table; c->name; c++)
		if (!(c->flags & CMD_HIDDEN))
			printf("%s\n", c->name);
	for (const struct cmd_alias *a = cmd_aliases; a->alias; a++)
		printf("%s\n", a->alias);
	return 0;
}

void
cmd_list_commands(FILE *out)
{
	for (const struct cmd_spec *c = cmd_table; c->name; c++) {
		const char *alias = cmd_alias_of(c->name);
		if (c->flags & CMD_HIDDEN)
			continue;
		fprintf(out, "  %-12s %s%s%s%s\n", c->name, c->summary,
			alias ? " (alias: " : "", alias ? alias : "",
			alias ? ")" : "");
	}
}
