/* cmd.h: the command table and what every subcommand shares.
 *
 * Adding a command:
 *  1. write cmd/<name>.c with `int cmd_<name>(int argc, char **argv)`;
 *     argv[0] is the command name, global flags are already removed;
 *  2. add its row to cmd_table[] in cmd/table.c;
 *  3. document it in man/cudnnvm.1 and the completions (tests/e2e/docs.bats
 *     fails until you do).
 */
#ifndef CUDNNVM_CMD_H
#define CUDNNVM_CMD_H

#include "cudnnvm.h"

#define CMD_HIDDEN 0x1 /* not listed in help or completions */

struct cmd_spec {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary; /* one line for `cudnnvm help` */
	const char *usage;   /* exactly the man page SYNOPSIS line */
	const char *help;    /* options, one per line, for `<cmd> --help` */
	unsigned int flags;
};

extern const struct cmd_spec cmd_table[];
const struct cmd_spec *cmd_find(const char *name);

/* Global flags, parsed by main.c before dispatch. */
struct cmd_globals {
	int quiet;
	int verbose;
	int color;
	const char *store;  /* --store */
	const char *config; /* --config */
	int nowait;         /* --no-wait: a busy lock is exit 75 */
};
extern struct cmd_globals cmd_g;

/* Load the config and open the store (for_write: create and sweep). On
 * failure prints the error and returns the exit status (>0); 0 on success.
 * Either out pointer may be NULL when not needed. */
int cmd_open(struct cv_config *cfg, struct cv_store **st, int for_write);

/* Parse a --cuda value (a CUDA major, 1..999) into *out; -1 when malformed. */
int cmd_parse_cuda(const char *s, int *out);

/* Validate install `id` before it becomes active (install, use, global,
 * shell). Returns 0 when activation may go ahead (passed, skipped because
 * of --no-validate / validate = no, or forced), else prints why and returns
 * the exit status. Defined in cmd/validate.c. */
int cmd_gate_activation(const struct cv_config *cfg, struct cv_store *st,
			const char *id, int force, int no_validate);

/* What use, global and shell are asked: the options each accepts (its
 * getopt table, val 'u' --unset, 'e' --eval, 'f' --force, 'n'
 * --no-validate, 's' --system) and, via cmd_activation_id, the version to make
 * active. Defined in cmd/use.c. */
struct option;
struct cmd_activation {
	int unset, force, no_validate;
	int system; /* global --system */
	const char *eval;
};
/* Parse argv[0]'s options into *a; 0, or a usage error's exit status. On
 * return optind is the first operand. */
int cmd_activation_opts(int argc, char **argv, const struct option *opts,
			struct cmd_activation *a);
/* The install id `spec` resolves to, once it passed the activation gate.
 * 0, or prints why not and returns the exit status. */
int cmd_activation_id(const struct cv_config *cfg, struct cv_store *st,
		      const struct cv_version *spec,
		      const struct cmd_activation *a, char id[64]);

/* Rewrite <store>/modulefiles/cudnn when cudnnvm wrote it (after install
 * and uninstall); a failure is a warning. Defined in cmd/modulefiles.c. */
void cmd_modulefiles_refresh(const struct cv_store *st);

int cmd_commands(int, char **);
int cmd_completions(int, char **);
int cmd_current(int, char **);
int cmd_doctor(int, char **);
int cmd_env(int, char **);
int cmd_exec(int, char **);
int cmd_global(int, char **);
int cmd_help(int, char **);
int cmd_hook_env(int, char **);
int cmd_import(int, char **);
int cmd_init(int, char **);
int cmd_install(int, char **);
int cmd_list(int, char **);
int cmd_list_remote(int, char **);
int cmd_mirror(int, char **);
int cmd_modulefiles(int, char **);
int cmd_shell(int, char **);
int cmd_shim(int, char **);
int cmd_uninstall(int, char **);
int cmd_use(int, char **);
int cmd_validate(int, char **);
int cmd_validate_probe(int, char **);
int cmd_venv(int, char **);
int cmd_which(int, char **);

#endif
