/* init.c: print the shell integration to evaluate from the rc file. */
#include "cmd.h"
#include "ui.h"

#include <stdio.h>

int
cmd_init(int argc, char **argv)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_buf *out = cv_text_new();
	int sh, r = 0;

	if (argc != 2)
		r = cmd_usage_error("init", "expected a shell name");
	else if (cv_shell_parse(argv[1], &sh, &err) < 0 ||
		 cv_shell_init_script(out, sh, &err) < 0)
		r = cmd_fail(&err); /* both fail with CV_EUSAGE: 64 */
	else
		fputs(cv_text_str(out), stdout);
	cv_text_free(out);
	return r;
}
