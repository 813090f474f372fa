/* opts.c: option parsing that several commands share. */
#include "cmd.h"
#include "ui.h"

#include <getopt.h>
#include <string.h>

int
cmd_activation_opts(int argc, char **argv, const struct option *opts,
		    struct cmd_activation *a)
{
	int c;

	memset(a, 0, sizeof *a);
	a->gate.frameworks = 1;
	a->gate.probe_exe = cmd_g.probe_exe;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
			a->unset = 1;
			break;
		case 'e':
			a->eval = optarg;
			break;
		case 'f':
			a->gate.force = 1;
			break;
		case 'n':
			a->gate.no_validate = 1;
			break;
		case 's':
			a->system = 1;
			break;
		case 'i':
			a->no_install = 1;
			break;
		default:
			return cmd_usage_error(argv[0], "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	return 0;
}
