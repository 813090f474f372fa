/* venv.c: pin a version to a Python virtualenv or a conda environment.
 * A venv gets a block at the end of bin/activate (and activate.fish,
 * activate.csh) that applies the version (nothing once the binary is
 * gone, so an environment outlives cudnnvm), and one line inside its
 * deactivate function (csh: at the head of its deactivate alias) that
 * undoes it; a conda prefix gets etc/conda/activate.d and deactivate.d
 * scripts. The version is carried by CUDNNVM_VERSION while the environment
 * is active, so the prompt hook agrees with it. --remove takes it all out.
 * The templates are the shims/venv-* and shims/conda-* files. */
#include "base/base.h"
#include "python/python_int.h"
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BEGIN     "# >>> cudnnvm >>>"
#define END       "# <<< cudnnvm <<<"
#define DEACT_TAG "# cudnnvm-deactivate"

static const char act_sh[] = BEGIN
	" (added by 'cudnnvm venv'; 'cudnnvm venv --remove' takes it out)\n"
	"_CUDNNVM_VENV_PREV=\"${CUDNNVM_VERSION-}\"\n"
	"CUDNNVM_VERSION=@ID@; export CUDNNVM_VERSION\n"
	"if [ -x @EXE@ ]; then eval \"$(@EXE@ hook-env --shell sh)\"; fi\n"
	"_CUDNNVM_VENV=1\n" END "\n";
static const char deact_sh[] =
	"    if [ -n \"${_CUDNNVM_VENV-}\" ]; then if [ -x @EXE@ ]; then eval \"$(@EXE@ hook-env --shell sh --leave)\"; fi; "
	"if [ -n \"${_CUDNNVM_VENV_PREV-}\" ]; then CUDNNVM_VERSION=\"$_CUDNNVM_VENV_PREV\"; export CUDNNVM_VERSION; "
	"else unset CUDNNVM_VERSION; fi; unset _CUDNNVM_VENV _CUDNNVM_VENV_PREV _CUDNNVM_PWD; fi " DEACT_TAG
	"\n";
static const char act_fish[] = BEGIN
	" (added by 'cudnnvm venv'; 'cudnnvm venv --remove' takes it out)\n"
	"set -g _CUDNNVM_VENV_PREV \"$CUDNNVM_VERSION\"\n"
	"set -gx CUDNNVM_VERSION @ID@\n"
	"test -x @EXE@; and @EXE@ hook-env --shell fish | source\n"
	"set -g _CUDNNVM_VENV 1\n" END "\n";
static const char deact_fish[] =
	"    if set -q _CUDNNVM_VENV; test -x @EXE@; and @EXE@ hook-env --shell fish --leave | source; "
	"if test -n \"$_CUDNNVM_VENV_PREV\"; set -gx CUDNNVM_VERSION $_CUDNNVM_VENV_PREV; else; set -e CUDNNVM_VERSION; end; "
	"set -e _CUDNNVM_VENV; set -e _CUDNNVM_VENV_PREV; set -e _CUDNNVM_PWD; end " DEACT_TAG
	"\n";

/* An environment with Python: the scripts carry no version of their own.
 * Each reads, as it is sourced, the primary pin of the hook's module (its
 * "# Pinned:" line) when the hook's .pth line is there too, the rule the
 * interpreter and cv_preload_pin_of follow: a re-pin is made at the one
 * rename of that module, so a kill between the scripts' writes leaves
 * every shell, `current` and Python on one version. */
#define PIN_AWK \
	"awk '$1 == \"#\" && $2 == \"Pinned:\" { print $3; exit }' @MODULE@"
static const char act_sh_hook[] = BEGIN
	" (added by 'cudnnvm venv'; 'cudnnvm venv --remove' takes it out)\n"
	"_CUDNNVM_VENV_PREV=\"${CUDNNVM_VERSION-}\"\n"
	"_CUDNNVM_PIN=\n"
	"if [ -f @PTH@ ] && [ -r @MODULE@ ]; then _CUDNNVM_PIN=$(" PIN_AWK
	"); fi\n"
	"if [ -n \"$_CUDNNVM_PIN\" ]; then CUDNNVM_VERSION=$_CUDNNVM_PIN; export CUDNNVM_VERSION; fi\n"
	"unset _CUDNNVM_PIN\n"
	"if [ -x @EXE@ ]; then eval \"$(@EXE@ hook-env --shell sh)\"; fi\n"
	"_CUDNNVM_VENV=1\n" END "\n";
static const char act_fish_hook[] = BEGIN
	" (added by 'cudnnvm venv'; 'cudnnvm venv --remove' takes it out)\n"
	"set -g _CUDNNVM_VENV_PREV \"$CUDNNVM_VERSION\"\n"
	"set -l _cudnnvm_pin\n"
	"test -f @PTH@; and test -r @MODULE@; and set _cudnnvm_pin (" PIN_AWK
	")\n"
	"test -n \"$_cudnnvm_pin\"; and set -gx CUDNNVM_VERSION $_cudnnvm_pin\n"
	"test -x @EXE@; and @EXE@ hook-env --shell fish | source\n"
	"set -g _CUDNNVM_VENV 1\n" END "\n";

/* csh: python's activate.csh has no deactivate function but an alias,
 * one line in single quotes. Its first command becomes ours (csh expands
 * each command's variables only when it runs, so the tests guard the
 * rest); it reaches the binary through $_CUDNNVM_EXE, which the block
 * sets, so no path has to be quoted inside the alias. */
static const char act_csh[] = BEGIN
	" (added by 'cudnnvm venv'; 'cudnnvm venv --remove' takes it out)\n"
	"if ($?CUDNNVM_VERSION) then\n"
	"set _CUDNNVM_VENV_PREV=\"$CUDNNVM_VERSION\"\n"
	"else\n"
	"set _CUDNNVM_VENV_PREV=\"\"\n"
	"endif\n"
	"set _CUDNNVM_EXE=@EXE@\n"
	"setenv CUDNNVM_VERSION @ID@\n"
	"if ( -x @EXE@ ) then\n"
	"eval `@EXE@ hook-env --shell tcsh`\n"
	"endif\n"
	"set _CUDNNVM_VENV=1\n" END "\n";
static const char act_csh_hook[] = BEGIN
	" (added by 'cudnnvm venv'; 'cudnnvm venv --remove' takes it out)\n"
	"if ($?CUDNNVM_VERSION) then\n"
	"set _CUDNNVM_VENV_PREV=\"$CUDNNVM_VERSION\"\n"
	"else\n"
	"set _CUDNNVM_VENV_PREV=\"\"\n"
	"endif\n"
	"set _CUDNNVM_EXE=@EXE@\n"
	"set _CUDNNVM_PIN=\"\"\n"
	"if ( -f @PTH@ && -r @MODULE@ ) then\n"
	"set _CUDNNVM_PIN=`" PIN_AWK "`\n"
	"endif\n"
	"if ( \"$_CUDNNVM_PIN\" != \"\" ) then\n"
	"setenv CUDNNVM_VERSION \"$_CUDNNVM_PIN\"\n"
	"endif\n"
	"unset _CUDNNVM_PIN\n"
	"if ( -x @EXE@ ) then\n"
	"eval `@EXE@ hook-env --shell tcsh`\n"
	"endif\n"
	"set _CUDNNVM_VENV=1\n" END "\n";
#define CSH_ALIAS     "alias deactivate '"
#define CSH_DEACT_END "unset _CUDNNVM_VENV _CUDNNVM_VENV_PREV _CUDNNVM_EXE; "
static const char deact_csh[] =
	"test $?_CUDNNVM_VENV != 0 && eval `\"$_CUDNNVM_EXE\" hook-env --shell tcsh --leave`; "
	"test $?_CUDNNVM_VENV != 0 && unsetenv CUDNNVM_VERSION; "
	"test $?_CUDNNVM_VENV != 0 && test \"$_CUDNNVM_VENV_PREV\" != \"\" && setenv CUDNNVM_VERSION \"$_CUDNNVM_VENV_PREV\"; "
	"test $?_CUDNNVM_VENV != 0 && " CSH_DEACT_END;

/* Where the activate scripts of an environment with Python read its pin
 * (the hook's module and .pth line); both "" in one without. */
struct pin_files {
	char module[PATH_MAX * 2 + 32], pth[PATH_MAX * 2 + 32];
};

/* Expand @ID@, @EXE@, @MODULE@ and @PTH@ (each quoted for the shell). */
static int
expand(struct cv_buf *out, const char *tpl, int sh, const char *id,
       const char *exe, const struct pin_files *pf, struct cv_err *err)
{
	const char *const vars[] = { "@ID@",     id,
				     "@EXE@",    exe,
				     "@MODULE@", pf ? pf->module : "",
				     "@PTH@",    pf ? pf->pth : "",
				     NULL };

	return cv_shell_expand(out, tpl, sh, vars, err);
}

static char *
slurp(const char *path, struct cv_stat *sb, struct cv_err *err)
{
	int fd = cv_os_open(path, CV_OPEN_READ | CV_OPEN_NOFOLLOW, 0);
	char *buf;
	long n;

	if (fd < 0) {
		cv_err_errno(err, CV_EIO, "cannot read '%s'", path);
		return NULL;
	}
	if (cv_os_fstat(fd, sb) < 0 || sb->kind != CV_KIND_FILE ||
	    sb->size > (1 << 20)) {
		cv_os_close(fd);
		cv_err_set(err, CV_EDATA,
			   "'%s' is not a regular file of at most 1 MiB", path);
		return NULL;
	}
	buf = xmalloc((size_t)sb->size + 1);
	n = cv_os_read(fd, buf, (size_t)sb->size);
	cv_os_close(fd);
	if (n < 0 || (uint64_t)n != sb->size) {
		free(buf);
		cv_err_set(err, CV_EIO, "cannot read '%s'", path);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* The activate block for shell sh: reading the hook's pin where pf names
 * one, else carrying id itself. */
static const char *
act_block(int sh, const struct pin_files *pf)
{
	if (pf != NULL)
		return sh == CV_SHELL_FISH  ? act_fish_hook
		       : sh == CV_SHELL_CSH ? act_csh_hook
					    : act_sh_hook;
	return sh == CV_SHELL_FISH  ? act_fish
	       : sh == CV_SHELL_CSH ? act_csh
				    : act_sh;
}

/* Rewrite one activate script: drop our block and line, then (unless
 * removing) add them again. */
static int
edit_activate(const char *path, int sh, const char *id, const char *exe,
	      const struct pin_files *pf, int remove, struct cv_err *err)
{
	const char *act = act_block(sh, pf);
	const char *deact = sh == CV_SHELL_FISH ? deact_fish : deact_sh;
	const char *anchor =
		sh == CV_SHELL_FISH ? "function deactivate" : "deactivate () {";
	struct cv_buf *out = cv_text_new();
	struct cv_stat sb;
	char *buf = slurp(path, &sb, err), *line, *next;
	int skip = 0, anchored = 0, r = 0;

	if (buf == NULL) {
		cv_text_free(out);
		return err->code;
	}
	for (line = buf; r == 0 && *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		if (strncmp(line, BEGIN, strlen(BEGIN)) == 0) {
			skip = 1;
			continue;
		}
		if (skip) {
			if (strncmp(line, END, strlen(END)) == 0)
				skip = 0;
			continue;
		}
		if (strstr(line, DEACT_TAG) != NULL)
			continue;
		if (sh == CV_SHELL_CSH &&
		    strncmp(line, CSH_ALIAS, strlen(CSH_ALIAS)) == 0) {
			/* our commands lead the alias; drop, then re-add */
			char *rest = line + strlen(CSH_ALIAS);
			char *ours = strstr(rest, CSH_DEACT_END);
			if (strncmp(rest, deact_csh, 14) == 0 && ours != NULL)
				rest = ours + strlen(CSH_DEACT_END);
			cv_text_add(out, CSH_ALIAS, strlen(CSH_ALIAS));
			if (!remove)
				cv_text_add(out, deact_csh, strlen(deact_csh));
			cv_text_add(out, rest, strlen(rest));
			if (nl)
				cv_text_add(out, "\n", 1);
			anchored = 1;
			continue;
		}
		cv_text_add(out, line, strlen(line));
		if (nl)
			cv_text_add(out, "\n", 1);
		if (!remove && !anchored &&
		    strncmp(line, anchor, strlen(anchor)) == 0) {
			r = expand(out, deact, sh, id, exe, NULL, err);
			anchored = 1;
		}
	}
	if (r == 0 && !remove && !anchored)
		r = cv_err_set(
			err, CV_EDATA,
			"'%s' has no deactivate function; is it a Python venv activate script?",
			path);
	if (r == 0 && !remove)
		r = expand(out, act, sh, id, exe, pf, err);
	if (r == 0)
		r = cv_fs_write_atomic(path, cv_text_str(out),
				       strlen(cv_text_str(out)),
				       sb.perm & 07777, err);
	free(buf);
	cv_text_free(out);
	return r;
}

static int
conda_script(const char *prefix, const char *sub, const char *ext,
	     const char *tpl, int sh, const char *id, const char *exe,
	     const struct pin_files *pf, int remove, struct cv_err *err)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	struct cv_buf *out;
	int r;

	snprintf(dir, sizeof dir, "%s/etc/conda/%s", prefix, sub);
	snprintf(path, sizeof path, "%s/cudnnvm.%s", dir, ext);
	if (remove) {
		if (cv_os_unlink(path) < 0 && errno != ENOENT)
			return cv_err_errno(err, CV_EIO, "cannot remove '%s'",
					    path);
		return 0;
	}
	for (char *p = dir + strlen(prefix) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			cv_os_mkdir(dir, 0755);
			*p = '/';
		}
	if (cv_os_mkdir(dir, 0755) < 0 && errno != EEXIST)
		return cv_err_errno(err, CV_EIO, "cannot create '%s'", dir);
	out = cv_text_new();
	r = expand(out, tpl, sh, id, exe, pf, err);
	if (r == 0)
		r = cv_fs_write_atomic(path, cv_text_str(out),
				       strlen(cv_text_str(out)), 0644, err);
	cv_text_free(out);
	return r;
}

/* Whether the activate script at `path` carries our block, and the block
 * sets CUDNNVM_VERSION to `spec` (quoted or not). */
static int
block_sets(const char *path, const char *spec)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_stat sb;
	char *buf = slurp(path, &sb, &err), *begin, *end, *p;
	int found = 0;

	if (buf == NULL)
		return 0;
	begin = strstr(buf, BEGIN);
	end = begin != NULL ? strstr(begin, END) : NULL;
	if (end != NULL) {
		*end = '\0';
		for (p = strstr(begin, "CUDNNVM_VERSION"); p && !found;
		     p = strstr(p + 1, "CUDNNVM_VERSION")) {
			p += strlen("CUDNNVM_VERSION");
			p += strspn(p, " =");
			p += strspn(p, "'\"");
			found = strncmp(p, spec, strlen(spec)) == 0 &&
				strchr("'\"; \n", p[strlen(spec)]) != NULL;
		}
	}
	free(buf);
	return found;
}

/* Whether the environment at `prefix` has our block setting `spec`. */
static int
env_sets(const char *prefix, const char *spec)
{
	char id[64];
	static const char *const scripts[] = {
		"bin/activate", "bin/activate.fish", "bin/activate.csh",
		"etc/conda/activate.d/cudnnvm.sh",
		"etc/conda/activate.d/cudnnvm.fish"
	};

	/* with Python, the scripts read the hook's pin */
	if (cv_venv_pin_of(prefix, id))
		return strcmp(id, spec) == 0;
	for (size_t j = 0; j < sizeof scripts / sizeof scripts[0]; j++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", prefix, scripts[j]);
		if (block_sets(path, spec))
			return 1;
	}
	return 0;
}

int
cv_venv_pinned_by(const char *spec, char *dir, size_t n)
{
	static const char *const envs[] = { "VIRTUAL_ENV", "CONDA_PREFIX" };

	for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
		const char *prefix = getenv(envs[i]);
		if (prefix == NULL || *prefix != '/')
			continue;
		if (env_sets(prefix, spec)) {
			snprintf(dir, n, "%s", prefix);
			return 1;
		}
	}
	return 0;
}

void
cv_venv_pinning(const char *id, struct cv_strv *dirs)
{
	const char *cands[] = { getenv("VIRTUAL_ENV"), getenv("CONDA_PREFIX"),
				".venv" };

	for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
		char real[PATH_MAX];
		int seen = 0;

		if (cands[i] == NULL || *cands[i] == '\0' ||
		    cv_os_realpath(cands[i], real, sizeof real) == NULL ||
		    (i == 2 && cv_fs_project_foreign(CV_AT_CWD, real,
						     "pyvenv.cfg", real)) ||
		    !env_sets(real, id))
			continue;
		for (size_t j = 0; j < dirs->n; j++)
			seen |= strcmp(dirs->v[j], real) == 0;
		if (!seen)
			cv_strv_push(dirs, real);
	}
}

int
cv_venv_pin_of(const char *prefix, char id[64])
{
	static const char *const scripts[] = {
		"bin/activate", "etc/conda/activate.d/cudnnvm.sh"
	};
	struct cv_version v;
	struct cv_err not_env = CV_ERR_INIT;
	int hooked;

	/* only what `cudnnvm venv` pins (a stat or two): the prompt hook
	 * never lists a system prefix's lib/ (/usr/lib) */
	if (cv_venv_kind(prefix, &not_env) < 0)
		return 0;
	hooked = cv_preload_pin_of(prefix, id);

	/* the module is written last of a pin's files, renamed into place:
	 * the one point a pin is made at, for Python and for this */
	if (hooked >= 0)
		return hooked == 1 && cv_install_id_parse(&v, id, NULL) == 0;
	for (size_t j = 0; j < sizeof scripts / sizeof scripts[0]; j++) {
		char path[PATH_MAX], *buf, *begin, *end, *p;
		size_t len = 0;
		ssize_t got;

		snprintf(path, sizeof path, "%s/%s", prefix, scripts[j]);
		/* read without blocking (a FIFO in its place cannot hang the
		 * prompt hook that asks), our block near the end of 64 KiB */
		buf = xmalloc(64 * 1024 + 1);
		got = cv_fs_read_head(CV_AT_CWD, path, 1, buf, 64 * 1024);
		if (got <= 0) {
			free(buf);
			continue;
		}
		buf[got] = '\0';
		begin = strstr(buf, BEGIN);
		end = begin != NULL ? strstr(begin, END) : NULL;
		p = end != NULL ? strstr(begin, "CUDNNVM_VERSION=") : NULL;
		if (p != NULL && p < end) {
			p += strlen("CUDNNVM_VERSION=");
			p += strspn(p, "'\"");
			len = strspn(p, "0123456789.-cuda");
		}
		if (len > 0 && len < 64) {
			memcpy(id, p, len);
			id[len] = '\0';
		}
		free(buf);
		if (len > 0 && len < 64 &&
		    cv_install_id_parse(&v, id, NULL) == 0)
			return 1;
	}
	return 0;
}

int
cv_venv_kind(const char *dir, struct cv_err *err)
{
	char path[PATH_MAX + 32];
	struct cv_stat sb;

	snprintf(path, sizeof path, "%s/bin/activate", dir);
	if (cv_os_lstat(path, &sb) == 0 && sb.kind == CV_KIND_FILE)
		return CV_VENV_PYTHON;
	snprintf(path, sizeof path, "%s/conda-meta", dir);
	if (cv_os_stat(path, &sb) == 0 && sb.kind == CV_KIND_DIR)
		return CV_VENV_CONDA;
	/* a venv made by a Windows Python: its scripts are cmd's and
	 * PowerShell's, its hook would go in Lib/site-packages; neither is
	 * written yet, so say that rather than "no venv" */
	snprintf(path, sizeof path, "%s/Scripts/activate.bat", dir);
	if (cv_os_lstat(path, &sb) == 0 && sb.kind == CV_KIND_FILE)
		return cv_err_set(
			err, CV_EUSAGE,
			"'%s' is a Windows venv (Scripts\\activate.bat): "
			"'cudnnvm venv' does not pin those yet; pin its "
			"project folder with 'cudnnvm use <spec>' instead",
			dir);
	return cv_err_set(
		err, CV_EUSAGE,
		"'%s' is neither a Python venv (bin/activate) nor a conda env (conda-meta/)",
		dir);
}

/* bin/activate, and activate.fish and activate.csh where they are. */
static int
write_python(const char *dir, const char *id, const char *exe,
	     const struct pin_files *pf, int remove, struct cv_err *err)
{
	static const struct {
		const char *name;
		int sh, optional;
	} scripts[] = { { "activate", CV_SHELL_SH, 0 },
			{ "activate.fish", CV_SHELL_FISH, 1 },
			{ "activate.csh", CV_SHELL_CSH, 1 } };
	char path[PATH_MAX + 32];
	struct cv_stat sb;
	int r = 0;

	for (size_t i = 0; r == 0 && i < sizeof scripts / sizeof *scripts;
	     i++) {
		snprintf(path, sizeof path, "%s/bin/%s", dir, scripts[i].name);
		if (scripts[i].optional && cv_os_lstat(path, &sb) < 0)
			continue;
		r = edit_activate(path, scripts[i].sh, id, exe, pf, remove,
				  err);
		/* where a test kills a write between two of the scripts */
		if (i == 0)
			cv_checkpoint("venv-activate-written");
	}
	return r;
}

/* etc/conda/activate.d and deactivate.d, for sh and fish. */
static int
write_conda(const char *dir, const char *id, const char *exe,
	    const struct pin_files *pf, int remove, struct cv_err *err)
{
	int r = conda_script(dir, "activate.d", "sh",
			     act_block(CV_SHELL_SH, pf), CV_SHELL_SH, id, exe,
			     pf, remove, err);

	if (r == 0)
		r = conda_script(dir, "deactivate.d", "sh", deact_sh,
				 CV_SHELL_SH, id, exe, NULL, remove, err);
	if (r == 0)
		r = conda_script(dir, "activate.d", "fish",
				 act_block(CV_SHELL_FISH, pf), CV_SHELL_FISH,
				 id, exe, pf, remove, err);
	if (r == 0)
		r = conda_script(dir, "deactivate.d", "fish", deact_fish,
				 CV_SHELL_FISH, id, exe, NULL, remove, err);
	return r;
}

/* The activate scripts of the environment, for pinning `id` (n of them)
 * or for removing. */
static int
write_scripts(const char *dir, int kind, const char *id, const char *exe,
	      int remove, struct cv_err *err)
{
	struct pin_files pf = { "", "" };
	const struct pin_files *with = NULL;

	if (cv_preload_site_files(dir, pf.module, pf.pth, sizeof pf.module))
		with = &pf;
	return kind == CV_VENV_CONDA
		       ? write_conda(dir, id, exe, with, remove, err)
		       : write_python(dir, id, exe, with, remove, err);
}

/* The environments `cudnnvm venv` pinned, one real path a line, so that
 * `implode` can take its blocks out again:
 * $XDG_DATA_HOME/cudnnvm/venvs. */
void
cv_venv_registry_path(char *out, size_t n)
{
	const char *d = getenv("XDG_DATA_HOME");
	const char *h = getenv("HOME");

	if (d != NULL && *d == '/')
		snprintf(out, n, "%s/cudnnvm/venvs", d);
	else
		snprintf(out, n, "%s/.local/share/cudnnvm/venvs", h ? h : "/");
}

void
cv_venv_registered(struct cv_strv *dirs)
{
	char path[PATH_MAX];
	struct cv_err err = CV_ERR_INIT;
	struct cv_stat sb;
	char *buf, *line, *save = NULL;

	cv_venv_registry_path(path, sizeof path);
	if ((buf = slurp(path, &sb, &err)) == NULL)
		return;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		if (*line == '/')
			cv_strv_push(dirs, line);
	free(buf);
}

/* Add or drop `dir` in the registry; a failure only costs implode its
 * knowledge of that environment. */
static void
registry_update(const char *dir, int add)
{
	struct cv_strv all = CV_STRV_INIT;
	struct cv_buf out = CV_BUF_INIT;
	char path[PATH_MAX], real[PATH_MAX], *parent;
	int found = 0;

	if (cv_os_realpath(dir, real, sizeof real) == NULL)
		return;
	cv_venv_registered(&all);
	for (size_t i = 0; i < all.n; i++) {
		if (strcmp(all.v[i], real) == 0) {
			found = 1;
			if (!add)
				continue;
		}
		cv_buf_addf(&out, "%s\n", all.v[i]);
	}
	if (add && !found)
		cv_buf_addf(&out, "%s\n", real);
	if (add != found) {
		cv_venv_registry_path(path, sizeof path);
		parent = xstrdup(path);
		*strrchr(parent, '/') = '\0';
		if (cv_fs_mkdirs(parent, 0755, NULL) == 0)
			cv_fs_write_atomic(path, out.buf ? out.buf : "",
					   out.len, 0644, NULL);
		free(parent);
	}
	cv_buf_release(&out);
	cv_strv_release(&all);
}

/* An environment, and the folders venv writes into, must be this user's
 * (or root's): another user's environment holds links they chose, and
 * root writing its scripts there would write them wherever those lead
 * (/etc/profile.d). */
static int
check_owner(const char *dir, const char *const *ids, size_t n,
	    struct cv_err *err)
{
	static const char *const subs[] = { "",
					    "/bin",
					    "/etc",
					    "/etc/conda",
					    "/etc/conda/activate.d",
					    "/etc/conda/deactivate.d" };
	struct cv_buf cmd = CV_BUF_INIT;
	char *q;
	long uid = 0;
	int r = 0;

	for (size_t i = 0; i < sizeof subs / sizeof subs[0] && r == 0; i++) {
		char *p = xasprintf("%s%s", dir, subs[i]);
		if (cv_fs_foreign_at(CV_AT_CWD, p, &uid))
			r = cv_err_set(
				err, CV_EPERM,
				"'%s' belongs to another user (uid %ld): "
				"writing this environment's scripts "
				"would follow the links they made; run "
				"it as that user",
				p, uid);
		free(p);
	}
	if (r == 0)
		return 0;
	q = cv_shell_quote_word(dir);
	cv_buf_addf(&cmd, "sudo -u '#%ld' cudnnvm venv", uid);
	for (size_t i = 0; i < n; i++)
		cv_buf_addf(&cmd, " %s", ids[i]);
	cv_buf_addf(&cmd, "%s --path %s", n == 0 ? " --remove" : "", q);
	cv_err_hint(err, "%s", cmd.buf);
	cv_buf_release(&cmd);
	free(q);
	return r;
}

int
cv_venv_write(const char *dir, const struct cv_store *st,
	      const char *const *ids, size_t n, const char *exe, int remove,
	      struct cv_err *err)
{
	char store[CV_VENV_MAXPINS][PATH_MAX];
	struct cv_preload_pin pins[CV_VENV_MAXPINS];
	int kind = cv_venv_kind(dir, err), r;

	if (kind < 0)
		return kind;
	if (remove)
		n = 0;
	if ((r = check_owner(dir, ids, n, err)) < 0)
		return r;
	if (n > CV_VENV_MAXPINS)
		return cv_err_set(err, CV_EUSAGE,
				  "at most %d versions, one per cuDNN major",
				  CV_VENV_MAXPINS);
	if (!remove && (r = cv_preload_hook_check(dir, err)) < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		/* the store that holds it: with a system and a user store,
		 * the version's own folder's parent */
		char *vdir = cv_store_dir(st, ids[i]), *slash;
		snprintf(store[i], sizeof store[i], "%s", vdir);
		slash = strrchr(store[i], '/');
		if (slash != NULL && slash != store[i])
			*slash = '\0';
		free(vdir);
		pins[i].store = store[i];
		pins[i].id = ids[i];
	}
	/* the hook's module is the one point a pin is made at, for the
	 * scripts too: pinned after the scripts, unpinned (its .pth line
	 * first) before them, so a kill between reads as one version */
	if (remove) {
		r = cv_preload_hook(dir, pins, n, remove, err);
		cv_checkpoint("venv-hook-removed");
		if (r == 0)
			r = write_scripts(dir, kind, "", exe, remove, err);
		cv_checkpoint("venv-scripts-written");
	} else {
		r = write_scripts(dir, kind, n ? ids[0] : "", exe, remove, err);
		cv_checkpoint("venv-scripts-written");
		if (r == 0)
			r = cv_preload_hook(dir, pins, n, remove, err);
	}
	if (r == 0)
		registry_update(dir, !remove);
	return r;
}
