/* completions.c: `completions <bash|zsh|fish>` prints the completion script,
 * written from the command table (cmd/table.c): each command's options,
 * what their values are and what its operands are. completions/ holds the
 * same scripts, written by `make completions` (tests/e2e/docs.bats checks
 * them). */
#include "cmd.h"
#include "ui.h"

#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {
	[CMD_K_NONE] = NULL,
	[CMD_K_TEXT] = NULL,
	[CMD_K_FILE] = "file",
	[CMD_K_DIR] = "dir",
	[CMD_K_INSTALLED] = "installed",
	[CMD_K_REMOTE] = "remote",
	[CMD_K_COMMAND] = "command",
	[CMD_K_WORDS] = "words",
	[CMD_K_WORDS_FILE] = "words-file",
};

/* `_cudnnvm_offer KIND 'WORDS'`, the shell function both bash and zsh
 * scripts define, or "return" with nothing offered */
static void
put_offer(enum cmd_kind kind, const char *words, const char *end)
{
	if (kind_names[kind] == NULL)
		printf("return ;;\n");
	else if (words != NULL)
		printf("_cudnnvm_offer %s '%s'%s ;;\n", kind_names[kind], words,
		       end);
	else
		printf("_cudnnvm_offer %s%s ;;\n", kind_names[kind], end);
}

/* "\t--store | --config) ": the global options that take a value */
static void
put_global_values_pattern(void)
{
	const char *sep = "\t\t";

	for (const struct cmd_opt *d = cmd_global_opts; d->name; d++)
		if (d->arg != NULL) {
			printf("%s--%s", sep, d->name);
			sep = " | ";
		}
	printf(") ((i++)) ;;\n");
}

/* the case arms that turn an alias into its command */
static void
put_aliases(void)
{
	printf("\tcase $cmd in\n");
	for (const struct cmd_alias *a = cmd_aliases; a->alias; a++)
		printf("\t%s) cmd=%s ;;\n", a->alias, a->command);
	printf("\tesac\n");
}

/* The value of the option before the cursor: a global one's anywhere, a
 * command's after it (prev: the shell's word for it). */
static void
put_values(const char *prev)
{
	printf("\tcase %s in\n", prev);
	for (const struct cmd_opt *d = cmd_global_opts; d->name; d++)
		if (d->arg != NULL) {
			printf("\t--%s) ", d->name);
			put_offer(d->kind, d->words, "; return");
		}
	printf("\tesac\n\tcase \"$cmd %s\" in\n", prev);
	for (const struct cmd_spec *c = cmd_table; c->name; c++)
		for (const struct cmd_opt *d = c->opts;
		     !(c->flags & CMD_HIDDEN) && d && d->name; d++)
			if (d->arg != NULL && !(d->flags & CMD_OPT_HIDDEN)) {
				printf("\t\"%s --%s\") ", c->name, d->name);
				put_offer(d->kind, d->words, "; return");
			}
	printf("\tesac\n");
}

/* the options of each visible command, as `<var>=(...)` or `<var>="..."` */
static void
put_flags(const char *open, const char *close)
{
	printf("\t\tcase $cmd in\n");
	for (const struct cmd_spec *c = cmd_table; c->name; c++) {
		const char *sep = "";
		if (c->flags & CMD_HIDDEN || c->opts == NULL)
			continue;
		printf("\t\t%s) %s", c->name, open);
		for (const struct cmd_opt *d = c->opts; d->name; d++)
			if (!(d->flags & CMD_OPT_HIDDEN)) {
				printf("%s--%s", sep, d->name);
				sep = " ";
			}
		for (const struct cmd_opt *d = cmd_global_opts; d->name; d++)
			if (cmd_lists_global(c, d))
				printf(" --%s", d->name);
		printf("%s ;;\n", close);
	}
	printf("\t\tesac\n");
}

/* 'OPT:HELP' for zsh's _describe: a single-quoted word, ' as '\'' */
static void
put_zsh_described(const struct cmd_opt *d)
{
	printf(" '--%s:", d->name);
	for (const char *p = d->help ? d->help : ""; *p; p++)
		if (*p == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*p);
	putchar('\'');
}

/* zsh: the options of each visible command with their help, for
 * _describe */
static void
put_zsh_flags(void)
{
	printf("\t\tcase $cmd in\n");
	for (const struct cmd_spec *c = cmd_table; c->name; c++) {
		if (c->flags & CMD_HIDDEN || c->opts == NULL)
			continue;
		printf("\t\t%s) flags=(", c->name);
		for (const struct cmd_opt *d = c->opts; d->name; d++)
			if (!(d->flags & CMD_OPT_HIDDEN))
				put_zsh_described(d);
		for (const struct cmd_opt *d = cmd_global_opts; d->name; d++)
			if (cmd_lists_global(c, d))
				put_zsh_described(d);
		printf(" ) ;;\n");
	}
	printf("\t\tesac\n");
}

/* the global options, each after `sep` */
static void
put_global_flags(const char *first, const char *sep)
{
	for (const struct cmd_opt *d = cmd_global_opts; d->name; d++)
		printf("%s--%s", d == cmd_global_opts ? first : sep, d->name);
}

static void
put_operands(void)
{
	printf("\tcase $cmd in\n");
	for (const struct cmd_spec *c = cmd_table; c->name; c++)
		if (!(c->flags & CMD_HIDDEN) && kind_names[c->operand]) {
			printf("\t%s) ", c->name);
			put_offer(c->operand, c->operand_words, "");
		}
	printf("\tesac\n");
}

static const char header[] =
	"completion for cudnnvm, written by `cudnnvm completions %s`\n"
	"# from its command table: each command's options, what their values "
	"and\n# operands are. Installed versions come from `cudnnvm list`, the "
	"versions\n# `install` offers from the cached mirror listing "
	"(`cudnnvm commands\n# --remote-versions`, which never waits on the "
	"network).\n";

static const char bash_offer[] =
	"_cudnnvm_versions() {\n"
	"\tlocal line re='([0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+-cuda[0-9]+)'\n"
	"\twhile IFS= read -r line; do\n"
	"\t\t[[ $line =~ $re ]] && echo \"${BASH_REMATCH[1]}\"\n"
	"\tdone < <(command cudnnvm list 2>/dev/null)\n"
	"}\n"
	"# _cudnnvm_offer KIND [WORDS]: what a value or an operand may be\n"
	"_cudnnvm_offer() {\n"
	"\tcase $1 in\n"
	"\tfile) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
	"\tdir) COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n"
	"\tinstalled) COMPREPLY=($(compgen -W \"$(_cudnnvm_versions)\" -- \"$cur\")) ;;\n"
	"\tremote) COMPREPLY=($(compgen -W \"$(command cudnnvm commands --remote-versions 2>/dev/null)\" -- \"$cur\")) ;;\n"
	"\tcommand) COMPREPLY=($(compgen -W \"$(command cudnnvm commands 2>/dev/null)\" -- \"$cur\")) ;;\n"
	"\twords) COMPREPLY=($(compgen -W \"$2\" -- \"$cur\")) ;;\n"
	"\twords-file) COMPREPLY=($(compgen -W \"$2\" -- \"$cur\") $(compgen -f -- \"$cur\")) ;;\n"
	"\tesac\n"
	"}\n";

static const char bash_exec[] =
	"\tif [[ $cmd == exec ]]; then\n"
	"\t\t# exec [<spec>] -- <command> [args]: a command, then its files\n"
	"\t\tfor ((w = i + 1; w < COMP_CWORD; w++)); do\n"
	"\t\t\t[[ ${COMP_WORDS[w]} == -- ]] || continue\n"
	"\t\t\tif ((w == COMP_CWORD - 1)); then\n"
	"\t\t\t\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n"
	"\t\t\telse\n"
	"\t\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"\t\t\tfi\n"
	"\t\t\treturn\n"
	"\t\tdone\n"
	"\tfi\n";

static void
put_bash(void)
{
	printf("# bash ");
	printf(header, "bash");
	fputs(bash_offer, stdout);
	printf("_cudnnvm() {\n"
	       "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	       "\tlocal cmd= i w\n"
	       "\tCOMPREPLY=()\n"
	       "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	       "\t\tw=${COMP_WORDS[i]}\n"
	       "\t\tcase $w in\n");
	put_global_values_pattern();
	printf("\t\t-*) ;;\n\t\t*) cmd=$w; break ;;\n\t\tesac\n\tdone\n");
	put_aliases();
	fputs(bash_exec, stdout);
	put_values("$prev");
	printf("\tif [[ -z $cmd ]]; then\n"
	       "\t\tif [[ $cur == -* ]]; then\n"
	       "\t\t\tCOMPREPLY=($(compgen -W \"");
	put_global_flags("", " ");
	printf("\" -- \"$cur\"))\n"
	       "\t\telse\n"
	       "\t\t\t_cudnnvm_offer command\n"
	       "\t\tfi\n"
	       "\t\treturn\n"
	       "\tfi\n"
	       "\tif [[ $cur == -* ]]; then\n"
	       "\t\tw=\n");
	put_flags("w=\"", "\"");
	printf("\t\tCOMPREPLY=($(compgen -W \"$w\" -- \"$cur\"))\n"
	       "\t\treturn\n"
	       "\tfi\n");
	put_operands();
	printf("}\ncomplete -F _cudnnvm cudnnvm\n");
}

static const char zsh_offer[] =
	"# _cudnnvm_offer KIND [WORDS]: what a value or an operand may be\n"
	"_cudnnvm_offer() {\n"
	"\tlocal -a found\n"
	"\tlocal w\n"
	"\tcase $1 in\n"
	"\tfile) _files ;;\n"
	"\tdir) _files -/ ;;\n"
	"\tinstalled)\n"
	"\t\tfor w in ${=${\"$(command cudnnvm list 2>/dev/null)\"//[^0-9a-z.-]/ }}; do\n"
	"\t\t\t[[ $w =~ '^[0-9]+(\\.[0-9]+){3}-cuda[0-9]+$' ]] && found+=($w)\n"
	"\t\tdone\n"
	"\t\tcompadd -a found ;;\n"
	"\tremote)\n"
	"\t\tfound=(${(f)\"$(command cudnnvm commands --remote-versions 2>/dev/null)\"})\n"
	"\t\tcompadd -a found ;;\n"
	"\tcommand)\n"
	"\t\tfound=(${(f)\"$(command cudnnvm commands 2>/dev/null)\"})\n"
	"\t\tcompadd -a found ;;\n"
	"\twords) compadd ${=2} ;;\n"
	"\twords-file) compadd ${=2}; _files ;;\n"
	"\tesac\n"
	"}\n";

static const char zsh_exec[] =
	"\tif [[ $cmd == exec ]]; then\n"
	"\t\t# exec [<spec>] -- <command> [args]: complete that command line\n"
	"\t\tfor ((w = i + 1; w < CURRENT; w++)); do\n"
	"\t\t\tif [[ ${words[w]} == -- ]]; then\n"
	"\t\t\t\tshift $w words\n"
	"\t\t\t\t((CURRENT -= w))\n"
	"\t\t\t\t_normal\n"
	"\t\t\t\treturn\n"
	"\t\t\tfi\n"
	"\t\tdone\n"
	"\tfi\n";

static void
put_zsh(void)
{
	printf("#compdef cudnnvm\n# zsh ");
	printf(header, "zsh");
	fputs(zsh_offer, stdout);
	printf("_cudnnvm() {\n"
	       "\tlocal -a cmds flags\n"
	       "\tlocal cmd w i\n"
	       "\tfor ((i = 2; i < CURRENT; i++)); do\n"
	       "\t\tcase ${words[i]} in\n");
	put_global_values_pattern();
	printf("\t\t-*) ;;\n\t\t*) cmd=${words[i]}; break ;;\n\t\tesac\n"
	       "\tdone\n");
	put_aliases();
	fputs(zsh_exec, stdout);
	put_values("${words[CURRENT-1]}");
	printf("\tif [[ -z $cmd ]]; then\n"
	       "\t\tif [[ ${words[CURRENT]} == -* ]]; then\n"
	       "\t\t\tflags=(");
	for (const struct cmd_opt *d = cmd_global_opts; d->name; d++)
		put_zsh_described(d);
	printf(" )\n"
	       "\t\t\t_describe -t options 'cudnnvm option' flags\n"
	       "\t\telse\n"
	       "\t\t\tcmds=(${(f)\"$(command cudnnvm commands --describe 2>/dev/null)\"})\n"
	       "\t\t\tcmds=(${cmds//$'\\t'/:})\n"
	       "\t\t\t_describe -t commands 'cudnnvm command' cmds\n"
	       "\t\tfi\n"
	       "\t\treturn\n"
	       "\tfi\n"
	       "\tif [[ ${words[CURRENT]} == -* ]]; then\n");
	put_zsh_flags();
	printf("\t\t_describe -t options 'option' flags\n"
	       "\t\treturn\n"
	       "\tfi\n");
	put_operands();
	printf("}\n"
	       "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
	       "\t_cudnnvm \"$@\"\n"
	       "else\n"
	       "\tcompdef _cudnnvm cudnnvm\n"
	       "fi\n");
}

static const char fish_functions[] =
	"function __cudnnvm_versions\n"
	"    command cudnnvm list 2>/dev/null | string match -r '[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+-cuda[0-9]+'\n"
	"end\n"
	"# __cudnnvm_is NAME...: 0 when the command being completed is one of them\n"
	"function __cudnnvm_is\n"
	"    contains -- (__cudnnvm_cmd) $argv\n"
	"end\n"
	"# exec [<spec>] -- <command> [args]: 0 once the command line after -- began\n"
	"function __cudnnvm_after_dashdash\n"
	"    set -l words (commandline -opc)\n"
	"    contains -- exec $words; and contains -- -- $words\n"
	"end\n"
	"function __cudnnvm_exec_command\n"
	"    set -l words (commandline -opc)\n"
	"    test \"$words[-1]\" = --; and contains -- exec $words\n"
	"end\n"
	"complete -c cudnnvm -f\n"
	"complete -c cudnnvm -n 'not __cudnnvm_cmd' -a '(command cudnnvm commands --describe 2>/dev/null)'\n"
	"complete -c cudnnvm -n '__cudnnvm_exec_command' -a '(__fish_complete_command)'\n"
	"complete -c cudnnvm -n '__cudnnvm_after_dashdash; and not __cudnnvm_exec_command' -F\n";

/* fish's arguments for a value or an operand of this kind */
static const char *
fish_offer(enum cmd_kind kind)
{
	switch (kind) {
	case CMD_K_FILE:
	case CMD_K_WORDS_FILE:
		return "-F";
	case CMD_K_DIR:
		return "-a '(__fish_complete_directories)'";
	case CMD_K_INSTALLED:
		return "-a '(__cudnnvm_versions)'";
	case CMD_K_REMOTE:
		return "-a '(command cudnnvm commands --remote-versions 2>/dev/null)'";
	case CMD_K_COMMAND:
		return "-a '(command cudnnvm commands 2>/dev/null)'";
	default:
		return "";
	}
}

/* a fish single-quoted string: \ and ' escaped */
static void
put_fish_quoted(const char *s)
{
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\\' || *s == '\'')
			putchar('\\');
		putchar(*s);
	}
	putchar('\'');
}

/* One `complete` line: an option (d) or, d NULL, the operands of when. */
static void
put_fish_line(const char *when, const struct cmd_opt *d, enum cmd_kind kind,
	      const char *words)
{
	printf("complete -c cudnnvm -n '%s'", when);
	if (d != NULL && d->short_name)
		printf(" -s %c", d->short_name);
	if (d != NULL)
		printf(" -l %s", d->name);
	/* a value: -r, and -x (no files) unless it may be one */
	if (d != NULL && d->arg != NULL)
		printf(" %s", kind == CMD_K_FILE || kind == CMD_K_WORDS_FILE
				      ? "-r"
				      : "-x");
	if (*fish_offer(kind))
		printf(" %s", fish_offer(kind));
	if (words != NULL) {
		printf(" -a ");
		put_fish_quoted(words);
	}
	if (d != NULL && d->help != NULL) {
		printf(" -d ");
		put_fish_quoted(d->help);
	}
	printf("\n");
}

/* "__cudnnvm_is list ls; and not __cudnnvm_after_dashdash" */
static void
fish_when(char *buf, size_t size, const struct cmd_spec *c, int operand)
{
	const char *alias = cmd_alias_of(c->name);

	snprintf(buf, size, "__cudnnvm_is %s%s%s%s", c->name, alias ? " " : "",
		 alias ? alias : "",
		 operand ? "; and not __cudnnvm_after_dashdash" : "");
}

static void
put_fish(void)
{
	char when[128];

	printf("# fish ");
	printf(header, "fish");
	printf("function __cudnnvm_cmd\n"
	       "    set -l words (commandline -opc)\n"
	       "    set -e words[1]\n"
	       "    set -l skip 0\n"
	       "    for w in $words\n"
	       "        if test $skip = 1\n"
	       "            set skip 0\n"
	       "            continue\n"
	       "        end\n"
	       "        switch $w\n"
	       "            case");
	for (const struct cmd_opt *d = cmd_global_opts; d->name; d++)
		if (d->arg != NULL)
			printf(" --%s", d->name);
	printf("\n                set skip 1\n"
	       "            case '-*'\n"
	       "            case '*'\n"
	       "                echo $w\n"
	       "                return 0\n"
	       "        end\n"
	       "    end\n"
	       "    return 1\n"
	       "end\n");
	fputs(fish_functions, stdout);
	for (const struct cmd_opt *d = cmd_global_opts; d->name; d++)
		put_fish_line("not __cudnnvm_cmd", d, d->kind, d->words);
	for (const struct cmd_spec *c = cmd_table; c->name; c++) {
		if (c->flags & CMD_HIDDEN)
			continue;
		fish_when(when, sizeof when, c, 0);
		for (const struct cmd_opt *d = c->opts; d && d->name; d++)
			if (!(d->flags & CMD_OPT_HIDDEN))
				put_fish_line(when, d, d->kind, d->words);
		for (const struct cmd_opt *d = cmd_global_opts; d->name; d++)
			if (cmd_lists_global(c, d))
				put_fish_line(when, d, d->kind, d->words);
		fish_when(when, sizeof when, c, 1);
		if (kind_names[c->operand] != NULL)
			put_fish_line(when, NULL, c->operand, c->operand_words);
	}
}

int
cmd_completions(int argc, char **argv, struct cmd_ctx *ctx)
{
	int r;

	/* it declares no options: any is a usage error */
	if ((r = cmd_opts_none(&argc, &argv)) != 0)
		return r;
	if (argc != 2)
		return cmd_usage_error("completions", "expected a shell name");
	if (strcmp(argv[1], "bash") == 0)
		put_bash();
	else if (strcmp(argv[1], "zsh") == 0)
		put_zsh();
	else if (strcmp(argv[1], "fish") == 0)
		put_fish();
	else
		return cmd_usage_error(
			"completions",
			"no completions for '%s'; use bash, zsh or fish",
			argv[1]);
	return 0;
}
