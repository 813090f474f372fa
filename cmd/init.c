/* init.c: print the shell integration to evaluate from the rc file. */
#include "cmd.h"
#include "ui.h"

#include <stdio.h>

int
cmd_init(int argc, char **argv)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_buf *out = cv_text_new();
	int sh;

	if (argc != 2)
		return cmd_usage_error("init", "expected a shell name");
	if (cv_shell_parse(argv[1], &sh, &err) < 0 ||
	    cv_shell_init_script(out, sh, &err) < 0) {
		cv_text_free(out);
		cmd_fail(&err);
		return 64;
	}
	fputs(cv_text_str(out), stdout);
	cv_text_free(out);
	return 0;
}
