/* validate.c: placeholder until its issue lands; replaced by the real command. */
#include "cmd.h"
#include "ui.h"

int
cmd_validate(int argc, char **argv)
{
	struct cv_err err = CV_ERR_INIT;

	(void)argc;
	(void)argv;
	cv_err_set(&err, CV_ERROR, "this command is not built yet");
	return cmd_fail(&err);
}

int
cmd_gate_activation(const struct cv_config *cfg, struct cv_store *st,
		    const char *id, int force, int no_validate)
{
	/* placeholder: the validation issue replaces this with the real gate */
	(void)cfg;
	(void)st;
	(void)id;
	(void)force;
	(void)no_validate;
	return 0;
}
