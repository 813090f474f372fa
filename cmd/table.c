/* table.c: every subcommand, its usage line and its options. Help, the man
 * page check and the completions all read this table. */
#include "cmd.h"

#include <stdint.h>
#include <string.h>

/* A command that downloads, hashes or unpacks needs libcurl, libarchive or
 * libcrypto, which cost every start of a program that links them some
 * 5-6 ms. So it runs in the helper executable (cudnnvm-helper), and the
 * front binary, built from this file with CUDNNVM_FRONT, has no code for
 * it: main.c execs the helper in its place (cmd/handoff.c). */
#ifdef CUDNNVM_FRONT
#define HELPER_CMD(fn) NULL
const int cmd_is_helper = 0;
#else
#define HELPER_CMD(fn) fn
const int cmd_is_helper = 1;
#endif

const struct cmd_spec cmd_table[] = {
	{ "install", HELPER_CMD(cmd_install),
	  "download, verify and install a cuDNN version",
	  "install [<spec>] [--cuda N] [--platform P] [--source nvidia|pypi] [--mirror URL] [--force] [--no-validate] [--no-wait] [--refresh] [--jobs N]\n"
	  "       cudnnvm install --archive FILE --sha256 HEX [--version V --cuda N] [--force] [--no-wait] [--jobs N]",
	  "  <spec>            default: the version pinned for this folder\n"
	  "  --cuda N          CUDA major of the build (11, 12, 13)\n"
	  "  --platform P      linux-x86_64, linux-sbsa, linux-aarch64, windows-x86_64\n"
	  "  --source S        nvidia (the redist mirror) or pypi (NVIDIA's\n"
	  "                    nvidia-cudnn-cuN wheels on [remote] index)\n"
	  "  --mirror URL      redist mirror (https:// or file://); with\n"
	  "                    --source pypi, the simple index\n"
	  "  --archive FILE    install a local NVIDIA archive or wheel (.whl;\n"
	  "                    needs --sha256)\n"
	  "  --sha256 HEX      expected sha256 of --archive\n"
	  "  --version V       version when the file name does not carry it\n"
	  "  --force           reinstall an installed version\n"
	  "  --even-if-in-use  with --force: replace it even while running\n"
	  "                    programs have its libraries loaded\n"
	  "  --no-validate     do not validate after installing\n"
	  "  --no-wait         exit 75 instead of waiting for a busy lock\n"
	  "  --refresh         re-read the mirror's index now\n"
	  "  --jobs N          threads that decompress the archive (default:\n"
	  "                    [install] threads, else the usable cores)\n",
	  0 },
	{ "uninstall", cmd_uninstall, "remove an installed version",
	  "uninstall <spec> [--force] [--even-if-in-use]",
	  "  --force           also remove the active (global) version\n"
	  "  --even-if-in-use  remove it even while running programs have\n"
	  "                    its libraries loaded (their next cuDNN load\n"
	  "                    fails)\n",
	  CMD_STORE_RW },
	{ "list", cmd_list, "list installed versions (* global, > active)",
	  "list [--json]", "  --json            machine-readable output\n",
	  CMD_STORE | CMD_READS_STATE },
	{ "list-remote", HELPER_CMD(cmd_list_remote),
	  "list versions available on the mirror",
	  "list-remote [<spec>] [--cuda N] [--platform P] [--source nvidia|pypi] [--json] [--refresh]",
	  "  --cuda N          only builds for this CUDA major\n"
	  "  --platform P      only builds for this platform\n"
	  "  --source S        nvidia (the redist mirror) or pypi (wheels)\n"
	  "  --json            machine-readable output\n"
	  "  --refresh         re-read the mirror's index now\n",
	  CMD_STORE },
	{ "use", cmd_use, "pin a version for this project (./.cudnn-version)",
	  "use <spec> [--cuda N] [--force] [--no-validate] [--no-install]",
	  "  --cuda N          the build for CUDA major N (as <spec>-cudaN)\n"
	  "  --force           pin even when validation or a framework says no\n"
	  "  --no-validate     do not validate before pinning\n"
	  "  --no-install      fail instead of installing a missing version\n",
	  0 },
	{ "global", cmd_global, "show or set the default version",
	  "global [<spec> [--cuda N] | --unset] [--system] [--force] "
	  "[--no-validate]",
	  "  --cuda N          the build for CUDA major N (as <spec>-cudaN)\n"
	  "  --system          root: also point the machine's loader at it\n"
	  "                    (/etc/ld.so.conf.d/cudnnvm.conf + ldconfig)\n",
	  0 },
	{ "shell", cmd_shell, "use a version in this shell only (needs init)",
	  "shell <spec> [--cuda N] | --unset",
	  "  --cuda N          the build for CUDA major N (as <spec>-cudaN)\n",
	  0 },
	{ "current", cmd_current, "show the active version and why",
	  "current [--json]", "", CMD_STORE | CMD_READS_STATE },
	{ "which", cmd_which, "print a path inside the active version",
	  "which [lib|include|root|<file>]", "", CMD_STORE | CMD_READS_STATE },
	{ "env", cmd_env, "print the environment script of a version",
	  "env [--shell sh|bash|zsh|fish|tcsh|powershell|cmd] [<spec>]", "",
	  CMD_STORE | CMD_READS_STATE },
	{ "exec", cmd_exec, "run one command under a version",
	  "exec [<spec>] [--force] -- <command> [args]",
	  "  --force           run even when a framework cannot load the version\n",
	  CMD_STORE },
	{ "validate", cmd_validate, "prove a version loads and computes",
	  "validate [<spec>] [--no-gpu] [--json] [--frameworks]",
	  "  --no-gpu          skip the driver and GPU steps (4-5)\n"
	  "  --json            machine-readable output\n"
	  "  --frameworks      also run torch/TensorFlow/JAX's own convolution\n"
	  "                    under the version and check what they bound to\n",
	  CMD_STORE },
	{ "frameworks", cmd_frameworks,
	  "the Python environment's frameworks and the cuDNN they can load",
	  "frameworks [<spec>] [--path DIR] [--json]",
	  "  --path DIR        the environment to read (default: $VIRTUAL_ENV,\n"
	  "                    $CONDA_PREFIX, else the python3 on PATH)\n"
	  "  --json            machine-readable output\n",
	  CMD_STORE },
	{ "bench", cmd_bench,
	  "time convolutions on each installed version: which is fastest",
	  "bench [<spec>...] [--shapes resnet50|resnet50-b1|FILE] [--dtype fp32|fp16|bf16] [--layout nchw|nhwc] [--runs N] [--warmup N] [--json]",
	  "  --shapes SET      resnet50 (batch 64, default), resnet50-b1, or a\n"
	  "                    file: name N C H W K R S stride pad dilation\n"
	  "                    groups [dtype [layout]] per line\n"
	  "  --dtype D         fp32, fp16 (default) or bf16; a comma list for more\n"
	  "  --layout L        nchw, nhwc; both by default\n"
	  "  --runs N          timed runs per layer (default 30)\n"
	  "  --warmup N        untimed runs first (default 5)\n"
	  "  --json            every figure, the GPU and the versions as JSON\n",
	  CMD_STORE },
	{ "doctor", cmd_doctor, "diagnose the store and the environment",
	  "doctor [--json] [--explain MESSAGE]",
	  "  --json            machine-readable output\n"
	  "  --explain MSG     the cause and fix of a cuDNN error message\n",
	  0 },
	{ "init", cmd_init, "print the shell integration to eval",
	  "init <bash|zsh|fish|tcsh|powershell>", "", 0 },
	{ "hook-env", cmd_hook_env, "called by the shell integration",
	  "hook-env --shell <shell>", "",
	  CMD_HIDDEN | CMD_STORE | CMD_READS_STATE },
	{ "shim", cmd_shim, "manage shims for programs that run no hook",
	  "shim add <program> | shim remove <program> | shim list", "",
	  CMD_READS_STATE },
	{ "venv", cmd_venv, "pin a version to a virtualenv or conda env",
	  "venv [<spec>] [--path DIR] [--remove] [--force]",
	  "  --path DIR        the virtualenv or conda env (default: the active one)\n"
	  "  --remove          take the hooks out again\n"
	  "  --force           pin even when a framework cannot load the version\n",
	  0 },
	{ "import", HELPER_CMD(cmd_import),
	  "adopt a hand-installed cuDNN into the store",
	  "import <dir> [--version V] [--cuda N] [--no-validate]",
	  "  --version V       version when the files do not say (adds the build)\n"
	  "  --cuda N          CUDA major it was built for, when not detectable\n"
	  "  --no-validate     do not validate after importing\n",
	  CMD_STORE_RW },
	{ "mirror", HELPER_CMD(cmd_mirror),
	  "copy releases into an offline mirror folder",
	  "mirror <dir> <spec>... [--cuda N] [--platform P] [--mirror URL] [--verify] [--refresh]",
	  "  --cuda N          only builds for this CUDA major (default: all)\n"
	  "  --platform P      builds for this platform (default: this machine's)\n"
	  "  --mirror URL      the mirror to copy from\n"
	  "  --verify          re-hash every archive in the folder\n"
	  "  --refresh         re-read the mirror's index now\n",
	  CMD_STORE },
	{ "modulefiles", cmd_modulefiles,
	  "write Lmod / Environment Modules files for installed versions",
	  "modulefiles [--format lua|tcl] [--out DIR]",
	  "  --format F        lua (Lmod) or tcl (both; the default)\n"
	  "  --out DIR         module folder (default <store>/modulefiles)\n",
	  0 },
	{ "completions", cmd_completions, "print a completion script",
	  "completions <bash|zsh|fish>", "", CMD_READS_STATE },
	{ "help", cmd_help, "show help for a command", "help [<command>]", "",
	  0 },
	{ "commands", cmd_commands, "list command names (for the completions)",
	  "commands [--describe | --remote-versions | --all]", "",
	  CMD_HIDDEN | CMD_READS_STATE },
	{ "validate-probe", cmd_validate_probe, "the validation child",
	  "validate-probe --libdir DIR --major N --expect V --cuda N "
	  "[--bench-layer L]... [--bench-runs N] [--bench-warmup N]",
	  "", CMD_HIDDEN },
	{ NULL, NULL, NULL, NULL, NULL, 0 },
};

/* The short names nvm, pyenv and mise users type. Help shows each beside
 * its command; `commands` lists them, so the completions offer them. */
const struct cmd_alias cmd_aliases[] = {
	{ "ls", "list" },
	{ "ls-remote", "list-remote" },
	{ "rm", "uninstall" },
	{ NULL, NULL },
};

const char *
cmd_alias_of(const char *command)
{
	for (const struct cmd_alias *a = cmd_aliases; a->alias; a++)
		if (strcmp(a->command, command) == 0)
			return a->alias;
	return NULL;
}

const struct cmd_spec *
cmd_find(const char *name)
{
	if (name == NULL)
		return NULL;
	for (const struct cmd_alias *a = cmd_aliases; a->alias; a++)
		if (strcmp(a->alias, name) == 0) {
			name = a->command;
			break;
		}
	for (const struct cmd_spec *c = cmd_table; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/* Optimal string alignment distance: edits, with a swap of two
 * neighbouring letters counting as one (the commonest typo). */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[CMD_NAME_MAX + 1][CMD_NAME_MAX + 1];

	if (la > CMD_NAME_MAX || lb > CMD_NAME_MAX)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

static void
consider(const char *typed, const char *name, const char **best, size_t *best_d)
{
	size_t dist = edit_distance(typed, name);

	if (dist < *best_d) {
		*best = name;
		*best_d = dist;
	}
}

const char *
cmd_suggest(const char *typed)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, len = strlen(typed), limit;

	for (const struct cmd_spec *c = cmd_table; c->name; c++)
		if (!(c->flags & CMD_HIDDEN))
			consider(typed, c->name, &best, &best_d);
	for (const struct cmd_alias *a = cmd_aliases; a->alias; a++)
		consider(typed, a->alias, &best, &best_d);
	/* close only: one edit for short words, two from five letters on,
	 * and never most of the word (so 'x' suggests nothing) */
	limit = len >= 5 ? 2 : 1;
	if (best == NULL || best_d > limit || best_d * 2 > len)
		return NULL;
	return best;
}

void
cmd_list_commands(FILE *out)
{
	for (const struct cmd_spec *c = cmd_table; c->name; c++) {
		const char *alias = cmd_alias_of(c->name);
		if (c->flags & CMD_HIDDEN)
			continue;
		fprintf(out, "  %-12s %s%s%s%s\n", c->name, c->summary,
			alias ? " (alias: " : "", alias ? alias : "",
			alias ? ")" : "");
	}
}
