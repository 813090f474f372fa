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
		case 'c':
			a->cuda = optarg;
			break;
		default:
			return cmd_usage_error(argv[0], "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	return 0;
}

int
cmd_activation_spec(const struct cmd_activation *a, const char *text,
		    struct cv_version *spec)
{
	struct cv_err err = CV_ERR_INIT;

	if (cv_spec_parse(spec, text, &err) < 0 ||
	    cv_spec_with_cuda(spec, a->cuda, &err) < 0)
		return cmd_fail(&err);
	return 0;
}
