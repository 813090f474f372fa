/* shell.c: quoting and emission per shell, and the shell integrations that
 * `cudnnvm init` prints (the one source of the hook code; shims/ holds
 * copies that tests keep equal). Any byte a path may hold is quoted so that
 * eval gives it back unchanged; a shell that cannot carry it is refused. */
#include "base/base_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a program's file name, as long as Windows's MAX_PATH */
#define MAX_PATH_NAME 260

struct cv_buf *
cv_text_new(void)
{
	struct cv_buf *b = xmalloc(sizeof *b);
	struct cv_buf init = CV_BUF_INIT;

	*b = init;
	return b;
}

const char *
cv_text_str(const struct cv_buf *b)
{
	return b->buf;
}

int
cv_text_add(struct cv_buf *b, const char *s, size_t n)
{
	return cv_buf_add(b, s, n);
}

void
cv_text_free(struct cv_buf *b)
{
	if (b == NULL)
		return;
	cv_buf_release(b);
	free(b);
}

int
cv_shell_parse(const char *name, int *shell, struct cv_err *err)
{
	static const struct {
		const char *name;
		int shell;
	} map[] = {
		{ "sh", CV_SHELL_SH },     { "dash", CV_SHELL_SH },
		{ "ksh", CV_SHELL_SH },    { "posix", CV_SHELL_SH },
		{ "bash", CV_SHELL_BASH }, { "zsh", CV_SHELL_ZSH },
		{ "fish", CV_SHELL_FISH }, { "powershell", CV_SHELL_PWSH },
		{ "pwsh", CV_SHELL_PWSH }, { "cmd", CV_SHELL_CMD },
		{ "tcsh", CV_SHELL_CSH },  { "csh", CV_SHELL_CSH },
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(name, map[i].name) == 0) {
			*shell = map[i].shell;
			return 0;
		}
	return cv_err_set(
		err, CV_EUSAGE,
		"unknown shell '%.40s'; use sh, bash, zsh, fish, tcsh, powershell or cmd",
		name);
}

/* The shell that runs us is our parent: `eval "$(cudnnvm env)"` forks it for
 * the command substitution and `cudnnvm env | source` runs us from fish
 * itself. $SHELL names the login shell, which may be another one (a fish
 * user running a bash script), so it is not asked. A Windows program's
 * name ends in .exe ("cmd.exe", "powershell.exe", "pwsh.exe", "bash.exe"
 * of Git for Windows): only such a name is cmd, and where programs are
 * .exe files a parent that is no shell (Explorer, an IDE) or that is gone
 * means cmd, Windows's own. */
int
cv_shell_guess(void)
{
	char comm[MAX_PATH_NAME];
	const char *name = comm;
	/* sh where a POSIX shell is the system's, cmd where .exe are */
	int fallback = *cv_os_exe_suffix() ? CV_SHELL_CMD : CV_SHELL_SH;
	int sh = CV_SHELL_SH, exe = 0;
	size_t n;

	if (cv_os_process_name(cv_os_ppid(), comm, sizeof comm) < 0)
		return fallback;
	n = strlen(comm);
	if (n > 4 && comm[n - 4] == '.' && (comm[n - 3] | 0x20) == 'e' &&
	    (comm[n - 2] | 0x20) == 'x' && (comm[n - 1] | 0x20) == 'e') {
		/* Windows's names are the same in any case */
		comm[n - 4] = '\0';
		for (char *c = comm; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		exe = 1;
	}
	if (*name == '-') /* a login shell's argv[0] */
		name++;
	if (cv_shell_parse(name, &sh, NULL) < 0 || (sh == CV_SHELL_CMD && !exe))
		return exe ? CV_SHELL_CMD : fallback;
	return sh;
}

const char *
cv_shell_init_line(int shell)
{
	switch (shell) {
	case CV_SHELL_ZSH:
		return "eval \"$(cudnnvm init zsh)\"";
	case CV_SHELL_FISH:
		return "cudnnvm init fish | source";
	case CV_SHELL_CSH:
		return "eval \"`cudnnvm init tcsh`\"";
	case CV_SHELL_PWSH:
		return "cudnnvm init powershell | Out-String | "
		       "Invoke-Expression";
	default:
		return "eval \"$(cudnnvm init bash)\"";
	}
}

int
cv_shell_quote(struct cv_buf *b, int shell, const char *s, struct cv_err *err)
{
	const char *p;

	switch (shell) {
	case CV_SHELL_FISH:
		cv_buf_add(b, "'", 1);
		for (p = s; *p; p++) {
			if (*p == '\\' || *p == '\'')
				cv_buf_add(b, "\\", 1);
			cv_buf_add(b, p, 1);
		}
		return cv_buf_add(b, "'", 1);
	case CV_SHELL_PWSH:
		cv_buf_add(b, "'", 1);
		for (p = s; *p; p++) {
			/* ' and the typographic single quotes all close a
			 * PowerShell string: double each */
			if (*p == '\'')
				cv_buf_add(b, "'", 1);
			else if ((unsigned char)p[0] == 0xe2 &&
				 (unsigned char)p[1] == 0x80 &&
				 (unsigned char)p[2] >= 0x98 &&
				 (unsigned char)p[2] <= 0x9b) {
				cv_buf_add(b, p, 3);
				cv_buf_add(b, p, 3);
				p += 2;
				continue;
			}
			cv_buf_add(b, p, 1);
		}
		return cv_buf_add(b, "'", 1);
	case CV_SHELL_CSH:
		/* csh keeps everything inside '' except ' and history's !
		 * (expanded even there, also by eval and source; \! is a
		 * plain !); a newline cannot be carried at all (backquote
		 * output is joined into one line) */
		cv_buf_add(b, "'", 1);
		for (p = s; *p; p++) {
			if (*p == '\n' || *p == '\r')
				return cv_err_set(
					err, CV_EDATA,
					"csh cannot carry a newline in a value; use another shell or a store path without one");
			if (*p == '\'')
				cv_buf_adds(b, "'\\''");
			else if (*p == '!')
				cv_buf_adds(b, "\\!");
			else
				cv_buf_add(b, p, 1);
		}
		return cv_buf_add(b, "'", 1);
	case CV_SHELL_CMD:
		for (p = s; *p; p++) {
			if (*p == '\n' || *p == '\r' || *p == '"')
				return cv_err_set(
					err, CV_EDATA,
					"cmd.exe cannot carry a newline or '\"' in a value; use another shell or a store path without them");
			if (*p == '%')
				cv_buf_add(b, "%", 1);
			cv_buf_add(b, p, 1);
		}
		return 0;
	default:
		cv_buf_add(b, "'", 1);
		for (p = s; *p; p++) {
			if (*p == '\'')
				cv_buf_adds(b, "'\\''");
			else
				cv_buf_add(b, p, 1);
		}
		return cv_buf_add(b, "'", 1);
	}
}

static int
valid_name(const char *n)
{
	if (!(*n == '_' || (*n >= 'A' && *n <= 'Z') ||
	      (*n >= 'a' && *n <= 'z')))
		return 0;
	for (; *n; n++)
		if (!(*n == '_' || (*n >= 'A' && *n <= 'Z') ||
		      (*n >= 'a' && *n <= 'z') || (*n >= '0' && *n <= '9')))
			return 0;
	return 1;
}

int
cv_shell_set(struct cv_buf *b, int shell, const char *name, const char *value,
	     int exported, struct cv_err *err)
{
	int r = 0;

	if (!valid_name(name))
		return cv_err_set(err, CV_EUSAGE, "bad variable name '%.40s'",
				  name);
	switch (shell) {
	case CV_SHELL_FISH:
		if (value == NULL)
			return cv_buf_addf(b, "set -e %s\n", name);
		cv_buf_addf(b, "set -g%s %s ", exported ? "x" : "", name);
		break;
	case CV_SHELL_PWSH:
		if (value == NULL)
			return exported
				       ? cv_buf_addf(
						 b,
						 "Remove-Item -ErrorAction SilentlyContinue Env:%s\n",
						 name)
				       : cv_buf_addf(
						 b,
						 "Remove-Variable -Scope Global -ErrorAction SilentlyContinue %s\n",
						 name);
		cv_buf_addf(b, "$%s:%s = ", exported ? "env" : "global", name);
		break;
	case CV_SHELL_CSH:
		/* every command ends in ';': eval `...` joins the lines */
		if (value == NULL)
			return cv_buf_addf(b, "%s %s;\n",
					   exported ? "unsetenv" : "unset",
					   name);
		cv_buf_addf(b, exported ? "setenv %s " : "set %s=", name);
		if ((r = cv_shell_quote(b, shell, value, err)) < 0)
			return r;
		return cv_buf_adds(b, ";\n");
	case CV_SHELL_CMD:
		if (value == NULL)
			return cv_buf_addf(b, "set %s=\r\n", name);
		cv_buf_addf(b, "set \"%s=", name);
		if ((r = cv_shell_quote(b, shell, value, err)) < 0)
			return r;
		return cv_buf_adds(b, "\"\r\n");
	default:
		if (value == NULL)
			return cv_buf_addf(b, "unset %s\n", name);
		cv_buf_addf(b, "%s%s=", exported ? "export " : "", name);
		break;
	}
	if ((r = cv_shell_quote(b, shell, value, err)) < 0)
		return r;
	return cv_buf_add(b, shell == CV_SHELL_FISH ? ";\n" : "\n",
			  shell == CV_SHELL_FISH ? 2 : 1);
}

int
cv_shell_emit(struct cv_buf *b, int shell, const struct cv_env *e,
	      struct cv_err *err)
{
	for (size_t i = 0; i < e->n; i++) {
		int r = cv_shell_set(b, shell, e->v[i].name, e->v[i].value, 1,
				     err);
		if (r < 0)
			return r;
	}
	return 0;
}

int
cv_shell_set_list(struct cv_buf *b, int shell, const char *name,
		  char *const *items, size_t n, struct cv_err *err)
{
	int r;

	if (!valid_name(name))
		return cv_err_set(err, CV_EUSAGE, "bad variable name");
	switch (shell) {
	case CV_SHELL_BASH:
	case CV_SHELL_ZSH:
		cv_buf_addf(b, "%s=(", name);
		break;
	case CV_SHELL_FISH:
		cv_buf_addf(b, "set -g %s", name);
		break;
	case CV_SHELL_PWSH:
		cv_buf_addf(b, "$global:%s = @(", name);
		break;
	case CV_SHELL_CSH:
		cv_buf_addf(b, "set %s=(", name);
		break;
	default:
		return cv_err_set(err, CV_EUSAGE,
				  "this shell has no list variables");
	}
	for (size_t i = 0; i < n; i++) {
		if (i || shell == CV_SHELL_FISH)
			cv_buf_adds(b, shell == CV_SHELL_PWSH ? "," : " ");
		if ((r = cv_shell_quote(b, shell, items[i], err)) < 0)
			return r;
	}
	return cv_buf_adds(b, shell == CV_SHELL_FISH  ? ";\n"
			      : shell == CV_SHELL_CSH ? ");\n"
						      : ")\n");
}

/* The prompt hooks. At an unchanged prompt they only compare two strings
 * and test `-nt` on the watched files against the stamp (builtins, no
 * process); `cudnnvm hook-env` runs only when something could have
 * changed the answer. bash and zsh share the hook; only how it is
 * registered differs. The binary is named by its absolute path, quoted
 * as @EXE@, so the hook works when cudnnvm is not on PATH (as direnv's and
 * mise's do). */
static const char hook_posix[] =
	"CUDNNVM_HOOK=$$; export CUDNNVM_HOOK\n"
	"_cudnnvm_hook() {\n"
	"\tlocal _cv_s=$? _cv_f _cv_run=1\n"
	"\tif [[ -n \"${_CUDNNVM_STAMP-}\" && \"$PWD\" == \"${_CUDNNVM_PWD-}\" && \"${CUDNNVM_VERSION-}\" == \"${_CUDNNVM_VER-}\" ]]; then\n"
	"\t\t_cv_run=0\n"
	"\t\tfor _cv_f in \"${_CUDNNVM_WATCH[@]}\"; do\n"
	"\t\t\tif [[ \"$_cv_f\" -nt \"$_CUDNNVM_STAMP\" ]]; then _cv_run=1; break; fi\n"
	"\t\tdone\n"
	"\tfi\n"
	"\tif ((_cv_run)); then\n"
	"\t\tif [[ -n \"${_CUDNNVM_STAMP-}\" ]]; then\n"
	"\t\t\teval \"$(@EXE@ hook-env --shell @SH@ --stamp \"$_CUDNNVM_STAMP\")\"\n"
	"\t\telse\n"
	"\t\t\teval \"$(@EXE@ hook-env --shell @SH@)\"\n"
	"\t\tfi\n"
	"\tfi\n"
	"\treturn $_cv_s\n"
	"}\n"
	"cudnnvm() {\n"
	"\tif [[ \"${1-}\" == shell ]]; then\n"
	"\t\tshift\n"
	"\t\tlocal _cv_out\n"
	"\t\t_cv_out=$(@EXE@ shell --eval @SH@ \"$@\") || return\n"
	"\t\teval \"$_cv_out\"\n"
	"\t\t_cudnnvm_hook\n"
	"\telse\n"
	"\t\t@EXE@ \"$@\"\n"
	"\tfi\n"
	"}\n";

/* bash has no hook on `cd` short of redefining cd itself, which other
 * tools redefine too: it switches at the next prompt. */
static const char hook_bash[] =
	"# cudnnvm shell integration for bash; in ~/.bashrc: eval \"$(cudnnvm init bash)\"\n"
	"@POSIX@"
	"if [[ \"${PROMPT_COMMAND[*]-}\" != *_cudnnvm_hook* ]]; then\n"
	"\tPROMPT_COMMAND=\"_cudnnvm_hook${PROMPT_COMMAND:+;$PROMPT_COMMAND}\"\n"
	"fi\n"
	"# the completion, also where bash-completion does not look (a PREFIX\n"
	"# of its own): written by this binary at the first Tab\n"
	"if ! complete -p cudnnvm >/dev/null 2>&1; then\n"
	"\t_cudnnvm_complete_load() {\n"
	"\t\tcomplete -r cudnnvm\n"
	"\t\teval \"$(@EXE@ completions bash)\" && _cudnnvm \"$@\"\n"
	"\t}\n"
	"\tcomplete -F _cudnnvm_complete_load cudnnvm\n"
	"fi\n"
	"_cudnnvm_hook\n";

/* zsh also switches at `cd`, so `cd proj && python train.py` runs under
 * the project's version. */
static const char hook_zsh[] =
	"# cudnnvm shell integration for zsh; in ~/.zshrc: eval \"$(cudnnvm init zsh)\"\n"
	"@POSIX@"
	"typeset -ag precmd_functions chpwd_functions\n"
	"if (( ! ${precmd_functions[(I)_cudnnvm_hook]} )); then\n"
	"\tprecmd_functions=(_cudnnvm_hook $precmd_functions)\n"
	"fi\n"
	"if (( ! ${chpwd_functions[(I)_cudnnvm_hook]} )); then\n"
	"\tchpwd_functions=(_cudnnvm_hook $chpwd_functions)\n"
	"fi\n"
	"_cudnnvm_hook\n";

/* fish runs --on-variable PWD handlers as soon as `cd` changes PWD. */
static const char hook_fish[] =
	"# cudnnvm shell integration for fish; in config.fish: cudnnvm init fish | source\n"
	"set -gx CUDNNVM_HOOK $fish_pid\n"
	"function __cudnnvm_hook --on-event fish_prompt --on-variable PWD\n"
	"    set -l run 1\n"
	"    if set -q _CUDNNVM_STAMP; and test \"$PWD\" = \"$_CUDNNVM_PWD\"; and test \"$CUDNNVM_VERSION\" = \"$_CUDNNVM_VER\"\n"
	"        set run 0\n"
	"        for f in $_CUDNNVM_WATCH\n"
	"            if test \"$f\" -nt \"$_CUDNNVM_STAMP\"\n"
	"                set run 1\n"
	"                break\n"
	"            end\n"
	"        end\n"
	"    end\n"
	"    if test $run = 1\n"
	"        if set -q _CUDNNVM_STAMP\n"
	"            @EXE@ hook-env --shell fish --stamp \"$_CUDNNVM_STAMP\" | source\n"
	"        else\n"
	"            @EXE@ hook-env --shell fish | source\n"
	"        end\n"
	"    end\n"
	"end\n"
	"function cudnnvm --wraps cudnnvm\n"
	"    if test \"$argv[1]\" = shell\n"
	"        set -l out (@EXE@ shell --eval fish $argv[2..-1]); or return $status\n"
	"        printf '%s\\n' $out | source\n"
	"        __cudnnvm_hook\n"
	"    else\n"
	"        @EXE@ $argv\n"
	"    end\n"
	"end\n"
	"__cudnnvm_hook\n";

static const char hook_pwsh[] =
	"# cudnnvm shell integration for PowerShell; in $PROFILE: cudnnvm init powershell | Out-String | Invoke-Expression\n"
	"$env:CUDNNVM_HOOK = \"$PID\"\n"
	"function global:__cudnnvm_hook {\n"
	"    $cv_s = $global:LASTEXITCODE\n"
	"    $out = & @EXE@ hook-env --shell powershell\n"
	"    if ($out) { Invoke-Expression ($out -join \"`n\") }\n"
	"    $global:LASTEXITCODE = $cv_s\n"
	"}\n"
	"if (-not $global:__cudnnvm_prompt) { $global:__cudnnvm_prompt = $function:prompt }\n"
	"function global:prompt { __cudnnvm_hook; & $global:__cudnnvm_prompt }\n"
	"function global:cudnnvm {\n"
	"    if ($args.Count -gt 0 -and $args[0] -eq 'shell') {\n"
	"        $rest = @($args | Select-Object -Skip 1)\n"
	"        $out = & @EXE@ shell --eval powershell @rest\n"
	"        if ($LASTEXITCODE -eq 0) { Invoke-Expression ($out -join \"`n\"); __cudnnvm_hook }\n"
	"    } else { & @EXE@ @args }\n"
	"}\n"
	"__cudnnvm_hook\n";

/* tcsh reads `eval "`cudnnvm init tcsh`"` as one line, so the script is
 * commands joined by ';' with no comment. precmd runs at every prompt
 * (one hook-env process: tcsh has no builtin mtime test to skip it) and
 * cwdcmd at every `cd`. @HOOK@ is the hook command quoted once more for
 * the alias. tcsh has one precmd and one cwdcmd alias: the user's own
 * (`alias precmd` prints it) runs after ours, and a second init chains
 * nothing more. */
static const char hook_tcsh[] =
	"setenv CUDNNVM_HOOK $$;\n"
	"alias _cudnnvm_hook @HOOK@;\n"
	"if ( ! $?_cudnnvm_hooked ) alias precmd \"_cudnnvm_hook;`alias precmd`\";\n"
	"if ( ! $?_cudnnvm_hooked ) alias cwdcmd \"_cudnnvm_hook;`alias cwdcmd`\";\n"
	"set _cudnnvm_hooked;\n"
	"eval `@EXE@ hook-env --shell tcsh`;\n";

/* Append `tpl` with @EXE@ (and @HOOK@, @SH@, @POSIX@) replaced. */
static int
expand_hook(struct cv_buf *b, const char *tpl, int shell, const char *sh,
	    const char *exe_q, const char *hook_q)
{
	static const char *const names[] = { "@EXE@", "@HOOK@", "@SH@",
					     "@POSIX@" };
	const char *p = tpl;

	while (*p) {
		const char *at = strchr(p, '@');
		size_t i;

		if (at == NULL)
			return cv_buf_adds(b, p);
		cv_buf_add(b, p, (size_t)(at - p));
		for (i = 0; i < 4; i++)
			if (strncmp(at, names[i], strlen(names[i])) == 0)
				break;
		if (i == 4) {
			cv_buf_add(b, "@", 1);
			p = at + 1;
			continue;
		}
		p = at + strlen(names[i]);
		if (i == 0)
			cv_buf_adds(b, exe_q);
		else if (i == 1)
			cv_buf_adds(b, hook_q);
		else if (i == 2)
			cv_buf_adds(b, sh);
		else if (expand_hook(b, hook_posix, shell, sh, exe_q, hook_q) <
			 0)
			return -1;
	}
	return 0;
}

int
cv_shell_init_script(struct cv_buf *b, int shell, const char *exe,
		     struct cv_err *err)
{
	struct cv_buf exe_q = CV_BUF_INIT, hook = CV_BUF_INIT,
		      hook_q = CV_BUF_INIT;
	const char *tpl, *sh = "";
	int r;

	switch (shell) {
	case CV_SHELL_BASH:
		tpl = hook_bash, sh = "bash";
		break;
	case CV_SHELL_ZSH:
		tpl = hook_zsh, sh = "zsh";
		break;
	case CV_SHELL_FISH:
		tpl = hook_fish;
		break;
	case CV_SHELL_PWSH:
		tpl = hook_pwsh;
		break;
	case CV_SHELL_CSH:
		tpl = hook_tcsh;
		break;
	case CV_SHELL_CMD:
		/* cmd.exe runs nothing at its prompt or at cd (AutoRun runs
		 * once, at its start; doskey macros only at the console):
		 * say what works there instead */
		cv_err_set(err, CV_EUSAGE,
			   "cmd.exe has no prompt hook to follow 'cd' with; "
			   "run one command with 'cudnnvm exec <spec> -- "
			   "<command>', or set this cmd.exe's variables:");
		return cv_err_hint(
			err,
			"cudnnvm env --shell cmd > \"%%TEMP%%\\cudnnvm-env.cmd\" && call \"%%TEMP%%\\cudnnvm-env.cmd\"");
	default:
		return cv_err_set(
			err, CV_EUSAGE,
			"no prompt integration for this shell; use bash, zsh, fish, tcsh or powershell (or 'eval \"$(cudnnvm env)\"' in sh)");
	}
	r = cv_shell_quote(&exe_q, shell, exe, err);
	if (r == 0 && shell == CV_SHELL_CSH) {
		cv_buf_addf(&hook, "eval `%s hook-env --shell tcsh`",
			    exe_q.buf);
		r = cv_shell_quote(&hook_q, shell, hook.buf, err);
	}
	if (r == 0 && expand_hook(b, tpl, shell, sh, exe_q.buf,
				  hook_q.buf ? hook_q.buf : "") < 0)
		r = cv_err_set(err, CV_EIO, "out of memory");
	cv_buf_release(&exe_q);
	cv_buf_release(&hook);
	cv_buf_release(&hook_q);
	return r;
}

int
cv_shell_expand(struct cv_buf *out, const char *tpl, int sh,
		const char *const *vars, struct cv_err *err)
{
	const char *p = tpl;
	int r = 0;

	while (r == 0 && *p) {
		size_t i = 0;
		while (vars[i] != NULL &&
		       strncmp(p, vars[i], strlen(vars[i])) != 0)
			i += 2;
		if (vars[i] != NULL) {
			r = cv_shell_quote(out, sh, vars[i + 1], err);
			p += strlen(vars[i]);
		} else {
			const char *n = strchr(p + 1, '@');
			size_t len = n ? (size_t)(n - p) : strlen(p);
			r = cv_text_add(out, p, len);
			p += len;
		}
	}
	return r;
}

/* The plain single-quoted form the hints print: what a user pastes into
 * the shell they typed the command in. */
char *
cv_shell_quote_word(const char *s)
{
	struct cv_buf b = CV_BUF_INIT;

	cv_buf_adds(&b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			cv_buf_adds(&b, "'\\''");
		else
			cv_buf_add(&b, s, 1);
	}
	cv_buf_adds(&b, "'");
	return cv_buf_detach(&b);
}
