/* init.c: print the shell integration to evaluate from the rc file. */
#include "base/base.h"
#include "cmd.h"
#include "ui.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

int
cmd_init(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_buf *out = cv_text_new();
	char exe[PATH_MAX];
	ssize_t n;
	int sh, r = 0;

	/* it declares no options: any is a usage error */
	if ((r = cmd_opts_none(&argc, &argv)) != 0) {
		cv_text_free(out);
		return r;
	}
	/* the hook names this binary by its absolute path */
	if (cv_child_self(exe, NULL) == 0)
		n = (ssize_t)strlen(exe);
	else
		exe[n = 0] = '\0';
	/* no name: the shell running cudnnvm, as env guesses it (the one
	 * of `eval "$(cudnnvm init)"` is the parent) */
	sh = argc == 2 ? -1 : cv_shell_guess();
	if (argc > 2)
		r = cmd_usage_error("init", "expected one shell name");
	else if (sh == CV_SHELL_SH)
		r = cmd_usage_error("init",
				    "cannot tell which shell runs cudnnvm; "
				    "name it (bash, zsh, fish, tcsh or "
				    "powershell)");
	else if (n <= 0) {
		cv_err_set(
			&err, CV_EIO,
			"cannot find the cudnnvm binary (/proc/self/exe); mount /proc and retry");
		r = cmd_fail(&err);
	} else if ((argc == 2 && cv_shell_parse(argv[1], &sh, &err) < 0) ||
		   cv_shell_init_script(out, sh, exe, &err) < 0)
		r = cmd_fail(&err); /* both fail with CV_EUSAGE: 64 */
	else
		fputs(cv_text_str(out), stdout);
	cv_text_free(out);
	return r;
}
