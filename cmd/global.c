/* global.c: placeholder until its issue lands; replaced by the real command. */
#include "cmd.h"
#include "ui.h"

int
cmd_global(int argc, char **argv)
{
	struct cv_err err = CV_ERR_INIT;

	(void)argc;
	(void)argv;
	cv_err_set(&err, CV_ERROR, "this command is not built yet");
	return cmd_fail(&err);
}
