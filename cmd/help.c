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
		for (c = cmd_table; c->name; c++)
			if (!(c->flags & CMD_HIDDEN))
				printf("  %-12s %s\n", c->name, c->summary);
		return 0;
	}
	c = cmd_find(argv[1]);
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
	return 0;
}
