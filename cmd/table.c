/* table.c: every subcommand, its usage line and its options, each option
 * declared once. The parser of every command (cmd_opts_next), help, the
 * completions and the man page check all read this table. */
#include "base/base.h"
#include "cmd.h"

#include <string.h>

/* A command that downloads, hashes or unpacks needs libcurl, libarchive or
 * libcrypto, which cost every start of a program that links them some
 * 5-6 ms. So it runs in the helper executable (cudnnvm-helper), and the
 * front binary, built from this file with CUDNNVM_FRONT, has no code for
 * it: main.c execs the helper in its place (cmd/handoff.c). */

/* What Windows has not (cmd/handoff.c: one cudnnvm.exe, where these
 * answer in one line, exit 64). */
#ifdef _WIN32
#define LINUX_CMD(fn) cmd_linux_only
#else
#define LINUX_CMD(fn) fn
#endif

#ifdef CUDNNVM_FRONT
#define HELPER_CMD(fn) NULL
const int cmd_is_helper = 0;
#else
#define HELPER_CMD(fn) fn
const int cmd_is_helper = 1;
#endif

/* A flag, an option with a value nothing can guess, and one whose value
 * the completions offer (a kind of enum cmd_kind, with its words). */
#define FLAG(key, name, help)                                 \
	{                                                     \
		key, name, 0, NULL, CMD_K_NONE, NULL, help, 0 \
	}
#define VALUE(key, name, arg, help)                          \
	{                                                    \
		key, name, 0, arg, CMD_K_TEXT, NULL, help, 0 \
	}
#define KIND(key, name, arg, kind, words, help)         \
	{                                               \
		key, name, 0, arg, kind, words, help, 0 \
	}
#define END                                                 \
	{                                                   \
		0, NULL, 0, NULL, CMD_K_NONE, NULL, NULL, 0 \
	}
#define SHELLS "sh bash zsh fish tcsh powershell cmd"

/* main.c reads these, anywhere before "--" */
const struct cmd_opt cmd_global_opts[] = {
	{ 'h', "help", 'h', NULL, CMD_K_NONE, NULL,
	  "usage; after a command, its usage and options", 0 },
	{ 'V', "version", 'V', NULL, CMD_K_NONE, NULL,
	  "the version of cudnnvm, its commit and libraries (as 'version')",
	  0 },
	{ 'q', "quiet", 'q', NULL, CMD_K_NONE, NULL,
	  "print nothing but errors and requested output", 0 },
	{ 'v', "verbose", 'v', NULL, CMD_K_NONE, NULL,
	  "say more about what is done", 0 },
	KIND('s', "store", "DIR", CMD_K_DIR, NULL, "use the store in DIR"),
	KIND('c', "config", "FILE", CMD_K_FILE, NULL,
	     "read FILE after the system and user configuration files"),
	VALUE('m', "mirror", "URL",
	      "NVIDIA's redist mirror (https:// or file://) instead of "
	      "[remote] mirror and CUDNNVM_MIRROR"),
	FLAG('C', "no-color",
	     "no colour in output (also when NO_COLOR is set)"),
	FLAG('W', "no-wait", "exit 75 instead of waiting for a busy lock"),
	END,
};

static const struct cmd_opt install_opts[] = {
	VALUE('c', "cuda", "N", "CUDA major of the build (11, 12, 13)"),
	VALUE('p', "platform", "P",
	      "linux-x86_64, linux-sbsa, linux-aarch64, windows-x86_64"),
	KIND('S', "source", "S", CMD_K_WORDS, "nvidia pypi",
	     "nvidia (the redist mirror) or pypi (NVIDIA's nvidia-cudnn-cuN "
	     "wheels on [remote] index)"),
	VALUE('I', "index", "URL",
	      "the PyPI simple index (.../simple/) instead of [remote] index, "
	      "as pip's --index-url; implies --source pypi"),
	KIND('a', "archive", "FILE", CMD_K_FILE, NULL,
	     "install a local NVIDIA archive or wheel (.whl; needs --sha256)"),
	VALUE('x', "sha256", "HEX", "expected sha256 of --archive"),
	VALUE('V', "version", "V",
	      "version when the file name does not carry it"),
	FLAG('f', "force", "reinstall an installed version"),
	FLAG('u', "even-if-in-use",
	     "with --force: replace it even while running programs have its "
	     "libraries loaded"),
	FLAG('n', "no-validate", "do not validate after installing"),
	FLAG('r', "refresh", "re-read the mirror's index now"),
	VALUE('j', "jobs", "N",
	      "threads that decompress the archive (default: [install] "
	      "threads, else two per usable core for a tar.xz on 4 cores "
	      "or more (64 at most), one per core otherwise)"),
	KIND('D', "deps", "MODE", CMD_K_WORDS, "auto always never",
	     "cuBLAS and nvrtc beside cuDNN: auto (install what this machine "
	     "cannot find), always (into the store), never (default: [install] "
	     "deps)"),
	FLAG('k', "keep",
	     "keep the verified archive in the cache (as [install] "
	     "keep_archives = yes) for a reinstall without the network"),
	FLAG('L', "locked",
	     "with no spec: fail (exit 1) unless cudnnvm.lock locks the pin"),
	FLAG('F', "frozen",
	     "with no spec: install what cudnnvm.lock names, reading no "
	     "manifest and not checking it against the pin"),
	KIND('P', "prefix", "DIR", CMD_K_DIR, NULL,
	     "with --layout: also copy the version into this tree"),
	KIND('Y', "layout", "L", CMD_K_WORDS, "easybuild",
	     "easybuild: an EESSI host_injections tree, "
	     "software/cuDNN/<ver>/ (needs --prefix and --accept-eula)"),
	FLAG('E', "accept-eula",
	     "with --layout easybuild: you accept NVIDIA's cuDNN licence "
	     "(its LICENSE file) for the site"),
	END,
};
static const struct cmd_opt uninstall_opts[] = {
	FLAG('f', "force", "also remove the active (global) version"),
	FLAG('u', "even-if-in-use",
	     "remove it even while running programs have its libraries loaded "
	     "(their next cuDNN load fails)"),
	END,
};
static const struct cmd_opt json_opts[] = {
	FLAG('j', "json", "machine-readable output"),
	END,
};
static const struct cmd_opt list_remote_opts[] = {
	VALUE('c', "cuda", "N", "only builds for this CUDA major"),
	VALUE('p', "platform", "P", "only builds for this platform"),
	KIND('S', "source", "S", CMD_K_WORDS, "nvidia pypi",
	     "nvidia (the redist mirror) or pypi (wheels)"),
	VALUE('I', "index", "URL",
	      "the PyPI simple index instead of [remote] index; implies "
	      "--source pypi"),
	FLAG('j', "json", "machine-readable output"),
	FLAG('r', "refresh", "re-read the mirror's index now"),
	FLAG('D', "deps",
	     "also what installing the first build adds beside it (cuBLAS, "
	     "nvrtc): component, version, channel, size"),
	END,
};
/* use, global and shell: cmd_activation_opts reads these keys */
#define ACT_CUDA \
	VALUE('c', "cuda", "N", "the build for CUDA major N (as <spec>-cudaN)")
#define ACT_FORCE(what) FLAG('f', "force", what)
#define ACT_NO_VALIDATE FLAG('n', "no-validate", "do not validate first")
static const struct cmd_opt use_opts[] = {
	ACT_CUDA,
	FLAG('u', "unset", "remove this folder's pin"),
	ACT_FORCE("pin even when validation or a framework says no"),
	FLAG('n', "no-validate", "do not validate before pinning"),
	FLAG('i', "no-install", "fail instead of installing a missing version"),
	END,
};
static const struct cmd_opt global_opts[] = {
	ACT_CUDA,
	FLAG('u', "unset", "remove the global version"),
	FLAG('s', "system",
	     "root: also point the machine's loader at it "
	     "(/etc/ld.so.conf.d/cudnnvm.conf + ldconfig)"),
	ACT_FORCE("set it even when validation or a framework says no"),
	ACT_NO_VALIDATE,
	END,
};
static const struct cmd_opt shell_opts[] = {
	ACT_CUDA,
	FLAG('u', "unset", "remove this shell's version"),
	ACT_FORCE("use it even when validation or a framework says no"),
	ACT_NO_VALIDATE,
	/* what the function `cudnnvm init` defines passes: print the
	 * assignments for that shell to evaluate */
	{ 'e', "eval", 0, "SHELL", CMD_K_WORDS, SHELLS, NULL, CMD_OPT_HIDDEN },
	END,
};
static const struct cmd_opt implode_opts[] = {
	FLAG('n', "dry-run", "say what would be removed, remove nothing"),
	FLAG('y', "yes", "do not ask (needed when not on a terminal)"),
	END,
};
static const struct cmd_opt env_opts[] = {
	KIND('s', "shell", "SH", CMD_K_WORDS, SHELLS,
	     "the shell's syntax (default: the shell running cudnnvm)"),
	KIND('f', "format", "F", CMD_K_WORDS, "pyxis apptainer k8s",
	     "instead of a script: srun's Pyxis flags, apptainer exec's "
	     "flags, or a Kubernetes Pod's image volume and mount"),
	VALUE('i', "image", "REF",
	      "with --format k8s: the image 'export oci' wrote, as the "
	      "cluster pulls it (default cudnn:<id>)"),
	END,
};
static const struct cmd_opt export_opts[] = {
	VALUE('t', "tag", "REF",
	      "the image's name in the layout's index.json (default: the "
	      "install id)"),
	END,
};
static const struct cmd_opt cdi_opts[] = {
	KIND('o', "output", "FILE", CMD_K_FILE, NULL,
	     "write the spec to FILE atomically (e.g. "
	     "/etc/cdi/cudnnvm.json) instead of stdout"),
	VALUE('p', "prefix", "P",
	      "name each device P<id> (default: the id alone)"),
	END,
};
static const struct cmd_opt exec_opts[] = {
	FLAG('f', "force", "run even when a framework cannot load the version"),
	END,
};
static const struct cmd_opt validate_opts[] = {
	FLAG('g', "no-gpu", "skip the driver and GPU steps (4-5)"),
	FLAG('j', "json", "machine-readable output"),
	FLAG('F', "frameworks",
	     "also run torch/TensorFlow/JAX's own convolution under the "
	     "version and check what they bound to"),
	END,
};
static const struct cmd_opt frameworks_opts[] = {
	KIND('p', "path", "DIR", CMD_K_DIR, NULL,
	     "the environment to read (default: $VIRTUAL_ENV, $CONDA_PREFIX, "
	     "else the python3 on PATH)"),
	FLAG('j', "json", "machine-readable output"),
	END,
};
static const struct cmd_opt bench_opts[] = {
	KIND('s', "shapes", "SET", CMD_K_WORDS_FILE, "resnet50 resnet50-b1",
	     "resnet50 (batch 64, default), resnet50-b1, or a file: name N C "
	     "H W K R S stride pad dilation groups [dtype [layout]] per line"),
	KIND('d', "dtype", "D", CMD_K_WORDS, "fp32 fp16 bf16",
	     "fp32, fp16 (default) or bf16; a comma list for more"),
	KIND('l', "layout", "L", CMD_K_WORDS, "nchw nhwc",
	     "nchw, nhwc; both by default"),
	VALUE('r', "runs", "N", "timed runs per layer (default 30)"),
	VALUE('w', "warmup", "N", "untimed runs first (default 5)"),
	FLAG('j', "json", "every figure, the GPU and the versions as JSON"),
	END,
};
static const struct cmd_opt doctor_opts[] = {
	FLAG('j', "json", "machine-readable output"),
	VALUE('e', "explain", "MSG",
	      "the cause and fix of a cuDNN error message"),
	END,
};
static const struct cmd_opt hook_env_opts[] = {
	KIND('s', "shell", "SH", CMD_K_WORDS, SHELLS, "the shell's syntax"),
	KIND('t', "stamp", "FILE", CMD_K_FILE, NULL, "the hook's stamp"),
	FLAG('l', "leave", "only remove the version's variables"),
	END,
};
static const struct cmd_opt venv_opts[] = {
	KIND('p', "path", "DIR", CMD_K_DIR, NULL,
	     "the virtualenv or conda env (default: the active one)"),
	FLAG('r', "remove", "take the hooks out again"),
	FLAG('f', "force", "pin even when a framework cannot load the version"),
	END,
};
static const struct cmd_opt import_opts[] = {
	VALUE('V', "version", "V",
	      "version when the files do not say (adds the build)"),
	VALUE('c', "cuda", "N",
	      "CUDA major it was built for, when not detectable"),
	FLAG('n', "no-validate", "do not validate after importing"),
	END,
};
static const struct cmd_opt mirror_opts[] = {
	VALUE('c', "cuda", "N",
	      "only builds for this CUDA major (default: all)"),
	VALUE('p', "platform", "P",
	      "builds for this platform (default: this machine's)"),
	FLAG('v', "verify", "re-hash every archive in the folder"),
	FLAG('r', "refresh", "re-read the mirror's index now"),
	KIND('l', "from-lock", "FILE", CMD_K_FILE, NULL,
	     "copy exactly the manifest and archives a cudnnvm.lock names"),
	END,
};
static const struct cmd_opt lock_opts[] = {
	VALUE('p', "platform", "P",
	      "also lock this platform's archive (repeatable; linux-x86_64, "
	      "linux-sbsa, linux-aarch64, windows-x86_64)"),
	FLAG('u', "upgrade",
	     "re-resolve the pin to the newest build the mirror lists"),
	FLAG('k', "check",
	     "exit 1 unless the lock locks the pin for these platforms "
	     "(reads files only)"),
	END,
};
static const struct cmd_opt modulefiles_opts[] = {
	KIND('f', "format", "F", CMD_K_WORDS, "lua tcl",
	     "lua (Lmod) or tcl (both; the default)"),
	KIND('o', "out", "DIR", CMD_K_DIR, NULL,
	     "module folder (default <store>/modulefiles)"),
	END,
};
static const struct cmd_opt commands_opts[] = {
	FLAG('d', "describe", "each with its summary, name<TAB>summary"),
	FLAG('r', "remote-versions",
	     "the releases of the cached mirror listings, never fetched"),
	FLAG('a', "all", "the hidden commands too"),
	FLAG('o', "options",
	     "every declared option, 'command --option' a line (global ones "
	     "as 'cudnnvm --option'), hidden ones marked"),
	END,
};
static const struct cmd_opt probe_opts[] = {
	KIND('L', "libdir", "DIR", CMD_K_DIR, NULL, "the version's libraries"),
	VALUE('m', "major", "N", "its major"),
	VALUE('e', "expect", "V", "the version it must report"),
	VALUE('c', "cuda", "N", "the CUDA major it must report (0: any)"),
	KIND('b', "cublaslt", "FILE", CMD_K_FILE, NULL, "the cuBLASLt to load"),
	FLAG('g', "no-gpu", "skip the driver and GPU steps"),
	VALUE('l', "bench-layer", "L", "a layer to time (repeatable)"),
	VALUE('r', "bench-runs", "N", "timed runs per layer"),
	VALUE('w', "bench-warmup", "N", "untimed runs first"),
	END,
};

#define SHELL_NAMES "bash zsh fish tcsh powershell"

const struct cmd_spec cmd_table[] = {
	{ "install", HELPER_CMD(cmd_install),
	  "download, verify and install a cuDNN version",
	  "install [<spec>] [--cuda N] [--platform P] [--source nvidia|pypi] [--mirror URL | --index URL] [--force [--even-if-in-use]] [--no-validate] [--no-wait] [--refresh] [--jobs N] [--deps auto|always|never] [--keep]\n"
	  "       cudnnvm install [--locked | --frozen] [--platform P] [--mirror URL] [--force] [--no-validate]\n"
	  "       cudnnvm install [<spec>] --prefix DIR --layout easybuild --accept-eula [--force]\n"
	  "       cudnnvm install --archive FILE --sha256 HEX [--version V --cuda N] [--force] [--no-wait] [--jobs N] [--deps auto|always|never]",
	  "  <spec>            default: the version pinned for this folder\n",
	  install_opts, CMD_K_REMOTE, NULL, 0 },
	{ "uninstall", cmd_uninstall, "remove an installed version",
	  "uninstall <spec> [--force] [--even-if-in-use]", NULL, uninstall_opts,
	  CMD_K_INSTALLED, NULL, CMD_STORE_RW },
	{ "list", cmd_list, "list installed versions (* global, > active)",
	  "list [--json]", NULL, json_opts, CMD_K_NONE, NULL,
	  CMD_STORE | CMD_READS_STATE },
	{ "list-remote", HELPER_CMD(cmd_list_remote),
	  "list versions available on the mirror",
	  "list-remote [<spec>] [--cuda N] [--platform P] [--source nvidia|pypi] [--mirror URL | --index URL] [--json] [--refresh] [--deps]",
	  NULL, list_remote_opts, CMD_K_REMOTE, NULL, CMD_STORE },
	{ "use", cmd_use, "pin a version for this project (./.cudnn-version)",
	  "use <spec|system> [--cuda N] [--force] [--no-validate] [--no-install]\n"
	  "       cudnnvm use --unset",
	  NULL, use_opts, CMD_K_INSTALLED, NULL, 0 },
	{ "global", cmd_global, "show or set the default version",
	  "global [<spec> [--cuda N] | system | --unset] [--system] [--force] "
	  "[--no-validate]",
	  NULL, global_opts, CMD_K_INSTALLED, NULL, 0 },
	{ "shell", cmd_shell, "use a version in this shell only (needs init)",
	  "shell <spec> [--cuda N] [--force] [--no-validate] | --unset", NULL,
	  shell_opts, CMD_K_INSTALLED, NULL, 0 },
	{ "current", cmd_current, "show the active version and why",
	  "current [--json]", NULL, json_opts, CMD_K_NONE, NULL,
	  CMD_STORE | CMD_READS_STATE },
	{ "which", cmd_which, "print a path inside the active version",
	  "which [lib|include|root|<file>]", NULL, NULL, CMD_K_WORDS,
	  "lib include root", CMD_STORE | CMD_READS_STATE },
	{ "env", cmd_env, "print the environment script of a version",
	  "env [--shell sh|bash|zsh|fish|tcsh|powershell|cmd] [<spec>]\n"
	  "       cudnnvm env [<spec>] --format pyxis|apptainer|k8s [--image REF]",
	  NULL, env_opts, CMD_K_INSTALLED, NULL, CMD_STORE | CMD_READS_STATE },
	{ "export", LINUX_CMD(HELPER_CMD(cmd_export)),
	  "write the locked build as an OCI image layout",
	  "export oci <dir> [<spec>] [--tag REF]",
	  "  <spec>            default: the build cudnnvm.lock locks\n",
	  export_opts, CMD_K_DIR, NULL, CMD_STORE },
	{ "cdi", LINUX_CMD(cmd_cdi),
	  "print a CDI spec with one device per installed version",
	  "cdi [<spec>...] [--output FILE] [--prefix P]", NULL, cdi_opts,
	  CMD_K_INSTALLED, NULL, CMD_STORE },
	{ "exec", cmd_exec, "run one command under a version",
	  "exec [<spec>] [--force] -- <command> [args]", NULL, exec_opts,
	  CMD_K_INSTALLED, NULL, CMD_STORE },
	{ "validate", cmd_validate, "prove a version loads and computes",
	  "validate [<spec>] [--no-gpu] [--json] [--frameworks]", NULL,
	  validate_opts, CMD_K_INSTALLED, NULL, CMD_STORE },
	{ "frameworks", cmd_frameworks,
	  "the Python environment's frameworks and the cuDNN they can load",
	  "frameworks [<spec>] [--path DIR] [--json]", NULL, frameworks_opts,
	  CMD_K_INSTALLED, NULL, CMD_STORE },
	{ "bench", LINUX_CMD(cmd_bench),
	  "time convolutions on each installed version: which is fastest",
	  "bench [<spec>...] [--shapes resnet50|resnet50-b1|FILE] [--dtype fp32|fp16|bf16] [--layout nchw|nhwc] [--runs N] [--warmup N] [--json]",
	  NULL, bench_opts, CMD_K_INSTALLED, NULL, CMD_STORE },
	{ "doctor", cmd_doctor, "diagnose the store and the environment",
	  "doctor [--json] [--explain MESSAGE]", NULL, doctor_opts, CMD_K_NONE,
	  NULL, 0 },
	{ "init", cmd_init, "print the shell integration to eval",
	  "init [bash|zsh|fish|tcsh|powershell]", NULL, NULL, CMD_K_WORDS,
	  SHELL_NAMES, 0 },
	{ "hook-env", cmd_hook_env, "called by the shell integration",
	  "hook-env --shell <shell>", NULL, hook_env_opts, CMD_K_NONE, NULL,
	  CMD_HIDDEN | CMD_STORE | CMD_READS_STATE },
	{ "shim", cmd_shim, "manage shims for programs that run no hook",
	  "shim add <program> | shim remove <program> | shim list", NULL, NULL,
	  CMD_K_WORDS, "add remove list", CMD_READS_STATE },
	{ "cache", cmd_cache, "where downloads are kept; prune or clean them",
	  "cache [dir|prune|clean]", NULL, NULL, CMD_K_WORDS, "dir prune clean",
	  CMD_STORE },
	{ "config", cmd_config,
	  "show or change settings (the user's config.ini)",
	  "config [list] | config get KEY | config set KEY VALUE | config "
	  "unset KEY",
	  "  KEY               section.name, as in cudnnvm.ini(5): "
	  "remote.mirror, install.keep_archives, ...\n",
	  NULL, CMD_K_WORDS, "list get set unset", 0 },
	{ "implode", cmd_implode,
	  "remove everything cudnnvm wrote for you (store, cache, config, "
	  "shims, venv hooks)",
	  "implode [--dry-run] [--yes]", NULL, implode_opts, CMD_K_NONE, NULL,
	  CMD_STORE },
	{ "venv", cmd_venv, "pin a version to a virtualenv or conda env",
	  "venv [<spec> [<spec>]] [--path DIR] [--remove] [--force]", NULL,
	  venv_opts, CMD_K_INSTALLED, NULL, 0 },
	{ "import", HELPER_CMD(cmd_import),
	  "adopt a hand-installed cuDNN into the store",
	  "import <dir> [--version V] [--cuda N] [--no-validate]", NULL,
	  import_opts, CMD_K_DIR, NULL, CMD_STORE_RW },
	{ "mirror", HELPER_CMD(cmd_mirror),
	  "copy releases into an offline mirror folder",
	  "mirror <dir> <spec>... [--cuda N] [--platform P] [--mirror URL] [--verify] [--refresh]\n"
	  "       cudnnvm mirror --from-lock FILE <dir> [--mirror URL]",
	  NULL, mirror_opts, CMD_K_DIR, NULL, CMD_STORE },
	{ "lock", HELPER_CMD(cmd_lock),
	  "lock the project's pin to one build (cudnnvm.lock)",
	  "lock [--platform P]... [--upgrade] [--check] [--mirror URL]", NULL,
	  lock_opts, CMD_K_NONE, NULL, CMD_STORE },
	{ "modulefiles", LINUX_CMD(cmd_modulefiles),
	  "write Lmod / Environment Modules files for installed versions",
	  "modulefiles [--format lua|tcl] [--out DIR]", NULL, modulefiles_opts,
	  CMD_K_NONE, NULL, 0 },
	{ "completions", cmd_completions, "print a completion script",
	  "completions <bash|zsh|fish>", NULL, NULL, CMD_K_WORDS,
	  "bash zsh fish", CMD_READS_STATE },
	{ "help", cmd_help, "show help for a command", "help [<command>]", NULL,
	  NULL, CMD_K_COMMAND, NULL, 0 },
	{ "version", cmd_version,
	  "the version, commit and library versions (for bug reports)",
	  "version", NULL, NULL, CMD_K_NONE, NULL, 0 },
	{ "commands", cmd_commands, "list command names (for the completions)",
	  "commands [--describe | --remote-versions | --all | --options]", NULL,
	  commands_opts, CMD_K_NONE, NULL, CMD_HIDDEN | CMD_READS_STATE },
	{ "validate-probe", cmd_validate_probe, "the validation child",
	  "validate-probe --libdir DIR --major N --expect V --cuda N "
	  "[--bench-layer L]... [--bench-runs N] [--bench-warmup N]",
	  NULL, probe_opts, CMD_K_NONE, NULL, CMD_HIDDEN },
	{ NULL, NULL, NULL, NULL, NULL, NULL, CMD_K_NONE, NULL, 0 },
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

/* What users of other tools type for a command (mise's `remove`): never
 * run as the command, only suggested. */
static const struct cmd_alias synonyms[] = {
	{ "remove", "uninstall" },
	{ "delete", "uninstall" },
	{ "local", "use" },
	{ NULL, NULL },
};

const char *
cmd_suggest(const char *typed)
{
	struct cv_suggest s = CV_SUGGEST_INIT(typed);

	for (const struct cmd_alias *a = synonyms; a->alias; a++)
		if (strcmp(a->alias, typed) == 0)
			return a->command;
	for (const struct cmd_spec *c = cmd_table; c->name; c++)
		if (!(c->flags & CMD_HIDDEN))
			cv_suggest_consider(&s, c->name);
	for (const struct cmd_alias *a = cmd_aliases; a->alias; a++)
		cv_suggest_consider(&s, a->alias);
	return cv_suggest_result(&s);
}

int
cmd_suggest_option(const struct cmd_opt *opts, const char *typed, char *out,
		   size_t n)
{
	struct cv_suggest s = CV_SUGGEST_INIT(typed);
	const char *near;

	/* --cuda12: the value run into an option that takes one */
	for (const struct cmd_opt *d = opts; d != NULL && d->name; d++) {
		size_t len = strlen(d->name);
		if (d->arg != NULL && !(d->flags & CMD_OPT_HIDDEN) &&
		    strncmp(typed, d->name, len) == 0 && typed[len] != '\0' &&
		    typed[len] != '=') {
			snprintf(out, n, "--%s %s", d->name, typed + len);
			return 1;
		}
	}
	for (const struct cmd_opt *d = opts; d != NULL && d->name; d++)
		if (!(d->flags & CMD_OPT_HIDDEN))
			cv_suggest_consider(&s, d->name);
	if ((near = cv_suggest_result(&s)) == NULL)
		return 0;
	snprintf(out, n, "--%s", near);
	return 1;
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
