/* cmd.h: the command table and what every subcommand shares.
 *
 * Adding a command:
 *  1. write cmd/<name>.c with
 *     `int cmd_<name>(int argc, char **argv, struct cmd_ctx *ctx)`;
 *     argv[0] is the command name, global flags are already removed;
 *  2. add its row to cmd_table[] in cmd/table.c, its function wrapped in
 *     HELPER_CMD() when it downloads, hashes or unpacks (it needs libcurl,
 *     libarchive or libcrypto, so it runs in cudnnvm-helper), with
 *     CMD_STORE or CMD_STORE_RW when it needs the config and the store;
 *     its options are a `struct cmd_opt` list there too, read through
 *     cmd_opts_next;
 *  3. document it and each option in man/cudnnvm.1, and run `make
 *     completions` (tests/e2e/docs.bats fails until you do).
 */
#ifndef CUDNNVM_CMD_H
#define CUDNNVM_CMD_H

#include "base/base.h"

#include <stdio.h>

#define CMD_HIDDEN 0x1 /* not listed in help or completions */
/* What the dispatcher opens before the command runs, as git's RUN_SETUP
 * does: the config and the store read-only, or for writing (made and
 * swept). A command whose needs depend on its arguments (global shows or
 * sets) has neither and asks through cmd_need when it knows. */
#define CMD_STORE    0x2
#define CMD_STORE_RW 0x4
/* Run by a prompt, a shim or a script to read the state: lib/'s warnings
 * about a decision (cv_warn) were shown when it was made (use, global,
 * shell, install); repeating them at every prompt would drown them. */
#define CMD_READS_STATE 0x8

/* The config and the store of one run, opened once by the dispatcher (see
 * CMD_STORE) and released after the command returns. */
struct cmd_ctx {
	struct cv_config cfg;
	struct cv_store *st; /* NULL until opened */
	int loaded;          /* cfg is loaded */
	int rw;              /* st was opened for writing */
};
/* Load the config and open the store now, when the command has not got
 * them yet: what is CMD_STORE or CMD_STORE_RW, or CMD_REOPEN with either to
 * open the store again (after a child made it). 0, or prints why and
 * returns the exit status. */
#define CMD_REOPEN 0x100
int cmd_need(struct cmd_ctx *ctx, unsigned what);

/* What a value or an operand is, so that the completions can offer it. */
enum cmd_kind {
	CMD_K_NONE,       /* a flag, or an operand nothing can guess */
	CMD_K_TEXT,       /* a value nothing can guess (N, URL, HEX) */
	CMD_K_FILE,       /* a file name */
	CMD_K_DIR,        /* a folder */
	CMD_K_INSTALLED,  /* an installed version (cudnnvm list) */
	CMD_K_REMOTE,     /* a release of the cached mirror listing */
	CMD_K_COMMAND,    /* a command name */
	CMD_K_WORDS,      /* one of its words */
	CMD_K_WORDS_FILE, /* one of its words, or a file */
};

/* One option of a command, or a global one: the one declaration that the
 * parser (cmd_opts_next), help, the completions and the man page check
 * (tests/e2e/docs.bats, through `cudnnvm commands --options`) read. */
struct cmd_opt {
	int key;          /* what cmd_opts_next returns for it, > 0 */
	const char *name; /* the long form, without "--"; NULL ends a list */
	char short_name;  /* -x, or 0 */
	const char *arg;  /* the value's name in help (N, DIR); NULL: a flag */
	enum cmd_kind kind; /* what the completions offer for the value */
	const char *words;  /* the choices of CMD_K_WORDS*, space-separated */
	const char *help;   /* one line; help wraps it */
	unsigned int flags; /* CMD_OPT_HIDDEN */
};
/* taken but not shown in help or completions, nor needed in the man page:
 * what the shell integration passes (shell --eval) */
#define CMD_OPT_HIDDEN 0x1

struct cmd_spec {
	const char *name;
	/* NULL: run by the helper */
	int (*fn)(int argc, char **argv, struct cmd_ctx *ctx);
	const char *summary;        /* one line for `cudnnvm help` */
	const char *usage;          /* exactly the man page SYNOPSIS line */
	const char *operands_help;  /* lines on the operands, for help */
	const struct cmd_opt *opts; /* NULL: none */
	enum cmd_kind operand;      /* what its operands are */
	const char *operand_words;  /* the choices of CMD_K_WORDS */
	unsigned int flags;
};

/* The global options (main.c takes them anywhere before "--"). */
extern const struct cmd_opt cmd_global_opts[];
/* The declaration of `name` (without "--") in opts, or NULL. */
const struct cmd_opt *cmd_opt_find(const struct cmd_opt *opts,
				   const char *name);

/* Reading a command's options from its declaration, in getopt's way:
 * options and operands in any order, `--` ends the options, `--name=V`
 * or `--name V` for a value, a unique prefix of a long name is the name.
 *
 *	struct cmd_opts o;
 *	cmd_opts_init(&o, argc, argv);
 *	while ((c = cmd_opts_next(&o)) > 0)
 *		... c is the option's key, o.arg its value ...
 *	if (c < 0)
 *		return o.status;
 *	... the operands are argv[o.ind .. argc) ...
 *
 * An option the command does not declare, a missing value or a value
 * given to a flag is a usage error: printed (one line naming `cudnnvm
 * help <command>`), cmd_opts_next returns -1 and o.status is 64. */
struct cmd_opts {
	int argc;
	char **argv;
	const struct cmd_spec *cmd;
	char *arg;        /* the value of the option just returned */
	int ind;          /* at the end: argv[ind..argc) are the operands */
	int after_dashes; /* at the end: the first operand after "--", or
			   * argc when there was no "--" */
	int status;       /* after an error: its exit status */
	int next, nops, dashes; /* the parser's own */
};
void cmd_opts_init(struct cmd_opts *o, int argc, char **argv);
int cmd_opts_next(struct cmd_opts *o);
/* For a command that declares no options: 0 with *argv[0] the command's
 * name and the operands after it (*argc shortened to match), or the exit
 * status of the usage error an option is. */
int cmd_opts_none(int *argc, char ***argv);

/* The source install and list-remote read from: --source (source_s),
 * else pypi when --index names an index, else the configuration's; 0, or
 * the exit status of a usage error (--index with nvidia, --mirror with
 * pypi: each names the other option). */
int cmd_source_of(const char *cmd, const char *source_s, const char *mirror,
		  const char *index, int configured, int *source);
/* 1 when help and the completions list the global option d among c's: its
 * usage line names it (install's --no-wait) and c has no option of that
 * name (install's --version V). */
int cmd_lists_global(const struct cmd_spec *c, const struct cmd_opt *d);
/* `cudnnvm <command> --help` and `cudnnvm help <command>`: the usage, the
 * summary, and the options from the declaration. */
void cmd_print_help(FILE *out, const struct cmd_spec *c);
/* `cudnnvm --help` and `cudnnvm help`: the global options and commands. */
void cmd_print_main_help(FILE *out);
/* `cudnnvm version`, `--version` and `-V`: "cudnnvm <version>", then
 * "commit: <commit>" and "libraries: inih N, jansson N, ...". */
void cmd_print_version(FILE *out);

extern const struct cmd_spec cmd_table[];
/* 1 in cudnnvm-helper, 0 in the front binary (see cmd/table.c) */
extern const int cmd_is_helper;
/* A command's name or one of its aliases -> its row; NULL when none. */
const struct cmd_spec *cmd_find(const char *name);

/* Other names of a command (ls for list): the row stays one. */
struct cmd_alias {
	const char *alias, *command;
};
extern const struct cmd_alias cmd_aliases[];
/* The alias of `command`, or NULL. */
const char *cmd_alias_of(const char *command);
/* The command name or alias closest to a mistyped `typed`, when it is
 * close enough to be what was meant (or the command another tool's word
 * means: remove -> uninstall); else NULL. */
const char *cmd_suggest(const char *typed);
/* The option of opts a mistyped long option `typed` (without "--") was
 * meant to be, written to out as it should be typed ("--cuda 12" for
 * --cuda12, "--refresh" for --refesh): 1, or 0 when none is close. */
int cmd_suggest_option(const struct cmd_opt *opts, const char *typed, char *out,
		       size_t n);
/* The help's command list, each alias beside its command. */
void cmd_list_commands(FILE *out);

/* Global flags, parsed by main.c before dispatch. */
struct cmd_globals {
	int quiet;
	int verbose;
	int color;
	const char *store;  /* --store */
	const char *config; /* --config */
	/* the binary validation's probe child runs (NULL: this one) */
	const char *probe_exe;
	int nowait;         /* --no-wait: a busy lock is exit 75 */
	const char *mirror; /* --mirror: over [remote] mirror */
};
extern struct cmd_globals cmd_g;
/* The global flags of this run, as arguments a child cudnnvm takes after
 * its argv[0] (--store, --config, --mirror, -q, -v, --no-color, --no-wait):
 * written to args, at most CMD_GLOBALS_MAX of them; returns how many. The one
 * way a child learns them, so none is forgotten. */
#define CMD_GLOBALS_MAX 12
size_t cmd_globals_argv(const char **args);

/* Run argv (the command line as main received it) in the helper
 * executable, in this process's place. Returns only on failure: prints why
 * and returns the exit status. Defined in cmd/handoff.c. */
int cmd_handoff(char **argv);

/* Windows: a command cudnnvm.exe has not (cdi, export, modulefiles,
 * bench) says so in one line; exit 64. Defined in cmd/handoff.c. */
int cmd_linux_only(int, char **, struct cmd_ctx *);

int cmd_bench(int, char **, struct cmd_ctx *);
int cmd_commands(int, char **, struct cmd_ctx *);
int cmd_completions(int, char **, struct cmd_ctx *);
int cmd_current(int, char **, struct cmd_ctx *);
int cmd_doctor(int, char **, struct cmd_ctx *);
int cmd_env(int, char **, struct cmd_ctx *);
int cmd_exec(int, char **, struct cmd_ctx *);
int cmd_frameworks(int, char **, struct cmd_ctx *);
int cmd_global(int, char **, struct cmd_ctx *);
int cmd_help(int, char **, struct cmd_ctx *);
int cmd_hook_env(int, char **, struct cmd_ctx *);
int cmd_import(int, char **, struct cmd_ctx *);
int cmd_init(int, char **, struct cmd_ctx *);
int cmd_install(int, char **, struct cmd_ctx *);
int cmd_list(int, char **, struct cmd_ctx *);
int cmd_list_remote(int, char **, struct cmd_ctx *);
int cmd_mirror(int, char **, struct cmd_ctx *);
int cmd_lock(int, char **, struct cmd_ctx *);
int cmd_modulefiles(int, char **, struct cmd_ctx *);
int cmd_shell(int, char **, struct cmd_ctx *);
int cmd_shim(int, char **, struct cmd_ctx *);
int cmd_cache(int, char **, struct cmd_ctx *);
int cmd_config(int, char **, struct cmd_ctx *);
int cmd_implode(int, char **, struct cmd_ctx *);
int cmd_uninstall(int, char **, struct cmd_ctx *);
int cmd_use(int, char **, struct cmd_ctx *);
int cmd_validate(int, char **, struct cmd_ctx *);
int cmd_validate_probe(int, char **, struct cmd_ctx *);
int cmd_venv(int, char **, struct cmd_ctx *);
int cmd_version(int, char **, struct cmd_ctx *);
int cmd_which(int, char **, struct cmd_ctx *);
/* fleets: an OCI image, a CDI spec (cmd/export.c, cmd/cdi.c) */
int cmd_export(int, char **, struct cmd_ctx *);
int cmd_cdi(int, char **, struct cmd_ctx *);

#endif
