/* opts.c: reading a command's options from its declaration in cmd/table.c,
 * and the options that use, global and shell share. */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct cmd_opt *
cmd_opt_find(const struct cmd_opt *opts, const char *name)
{
	for (; opts != NULL && opts->name != NULL; opts++)
		if (strcmp(opts->name, name) == 0)
			return opts;
	return NULL;
}

void
cmd_opts_init(struct cmd_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof *o);
	o->argc = argc;
	o->argv = argv;
	o->cmd = cmd_find(argv[0]);
	o->next = 1;
	o->dashes = -1;
}

/* One line, as every usage error: what is wrong with `arg`, the usage, and
 * where the options are listed. */
static int
option_error(struct cmd_opts *o, const char *before, const char *arg, int len,
	     const char *after)
{
	const char *name = o->cmd != NULL ? o->cmd->name : o->argv[0];

	if (o->cmd != NULL && strchr(o->cmd->usage, '\n') == NULL)
		ui_error("%s: %s'%.*s'%s; usage: cudnnvm %s; options: "
			 "'cudnnvm help %s'",
			 name, before, len, arg, after, o->cmd->usage, name);
	else
		ui_error("%s: %s'%.*s'%s; options: 'cudnnvm help %s'", name,
			 before, len, arg, after, name);
	o->status = 64;
	return -1;
}

/* The declaration a long option names: its whole name, else the one
 * option it begins (getopt_long's abbreviations). *ambiguous is set when
 * it begins more than one. */
static const struct cmd_opt *
find_long(const struct cmd_opt *opts, const char *name, size_t len,
	  int *ambiguous)
{
	const struct cmd_opt *found = NULL;

	*ambiguous = 0;
	for (const struct cmd_opt *d = opts; d != NULL && d->name; d++) {
		if (strncmp(d->name, name, len) != 0)
			continue;
		if (d->name[len] == '\0')
			return d;
		*ambiguous = found != NULL;
		found = d;
	}
	return *ambiguous ? NULL : found;
}

/* The option `a` (it starts with '-'): its key, its value in o->arg. */
static int
take(struct cmd_opts *o, char *a)
{
	const struct cmd_opt *opts = o->cmd != NULL ? o->cmd->opts : NULL;
	const struct cmd_opt *d = NULL;
	char *eq = NULL;
	int ambiguous = 0, len = (int)strlen(a);

	if (a[1] == '-') {
		eq = strchr(a, '=');
		if (eq != NULL)
			len = (int)(eq - a);
		d = find_long(opts, a + 2, (size_t)len - 2, &ambiguous);
	} else if (a[2] == '\0') {
		for (d = opts; d != NULL && d->name; d++)
			if (d->short_name == a[1])
				break;
		if (d != NULL && d->name == NULL)
			d = NULL;
	}
	if (d == NULL && !ambiguous && a[1] == '-') {
		/* the command's own, else a global one misspelt after it */
		char name[64], near[64], after[96] = "";
		snprintf(name, sizeof name, "%.*s", len - 2, a + 2);
		if (cmd_suggest_option(opts, name, near, sizeof near) ||
		    cmd_suggest_option(cmd_global_opts, name, near,
				       sizeof near))
			snprintf(after, sizeof after, " (did you mean '%s'?)",
				 near);
		return option_error(o, "unknown option ", a, len, after);
	}
	if (d == NULL)
		return option_error(
			o, ambiguous ? "ambiguous option " : "unknown option ",
			a, len, "");
	o->arg = NULL;
	if (d->arg == NULL && eq != NULL)
		return option_error(o, "", a, len, " takes no value");
	if (d->arg != NULL && eq != NULL)
		o->arg = eq + 1;
	else if (d->arg != NULL && o->next < o->argc)
		o->arg = o->argv[o->next++];
	else if (d->arg != NULL)
		return option_error(o, "", a, len, " needs a value");
	return d->key;
}

int
cmd_opts_next(struct cmd_opts *o)
{
	char **argv = o->argv;

	if (o->ind != 0)
		return 0;
	while (o->next < o->argc) {
		char *a = argv[o->next++];
		if (strcmp(a, "--") == 0) {
			o->dashes = o->nops;
			while (o->next < o->argc)
				argv[1 + o->nops++] = argv[o->next++];
			break;
		}
		/* ("-" alone is an operand, as getopt has it) */
		if (a[0] == '-' && a[1] != '\0')
			return take(o, a);
		/* operands gather at the front, over what was read */
		argv[1 + o->nops++] = a;
	}
	/* and end at the back, as getopt leaves them */
	o->ind = o->argc - o->nops;
	memmove(argv + o->ind, argv + 1, (size_t)o->nops * sizeof *argv);
	o->after_dashes = o->dashes < 0 ? o->argc : o->ind + o->dashes;
	return 0;
}

int
cmd_opts_none(int *argc, char ***argv)
{
	struct cmd_opts o;

	cmd_opts_init(&o, *argc, *argv);
	if (cmd_opts_next(&o) < 0)
		return o.status;
	*argc -= o.ind - 1;
	*argv += o.ind - 1;
	return 0;
}

int
cmd_source_of(const char *cmd, const char *source_s, const char *mirror,
	      const char *index, int configured, int *source)
{
	struct cv_err err = CV_ERR_INIT;

	*source = -1;
	if (source_s != NULL && cv_source_parse(source_s, source, &err) < 0)
		return cmd_usage_error(cmd, "%s", err.msg);
	/* as pip's --index-url: naming an index asks for its wheels */
	if (*source < 0)
		*source = index != NULL ? CV_SOURCE_PYPI : configured;
	if (index != NULL && *source != CV_SOURCE_PYPI)
		return cmd_usage_error(cmd,
				       "--index names the package index of "
				       "--source pypi; NVIDIA's redist mirror "
				       "is --mirror URL");
	if (mirror != NULL && *source == CV_SOURCE_PYPI)
		return cmd_usage_error(cmd,
				       "--mirror names NVIDIA's redist mirror; "
				       "the package index of --source pypi is "
				       "--index URL");
	return 0;
}

int
cmd_activation_opts(int argc, char **argv, struct cmd_activation *a)
{
	struct cmd_opts o;
	int c;

	memset(a, 0, sizeof *a);
	a->gate.frameworks = 1;
	a->gate.probe_exe = cmd_g.probe_exe;
	cmd_opts_init(&o, argc, argv);
	/* the keys of use_opts, global_opts and shell_opts in cmd/table.c */
	while ((c = cmd_opts_next(&o)) > 0) {
		switch (c) {
		case 'u':
			a->unset = 1;
			break;
		case 'e':
			a->eval = o.arg;
			break;
		case 'f':
			a->gate.force = 1;
			break;
		case 'n':
			a->gate.no_validate = 1;
			break;
		case 's':
			a->system = 1;
			break;
		case 'i':
			a->no_install = 1;
			break;
		case 'c':
			a->cuda = o.arg;
			break;
		}
	}
	a->ind = o.ind;
	return c < 0 ? o.status : 0;
}

int
cmd_activation_spec(const struct cmd_activation *a, const char *text,
		    struct cv_version *spec)
{
	struct cv_err err = CV_ERR_INIT;

	if (cv_spec_parse(spec, text, &err) < 0 ||
	    cv_spec_with_cuda(spec, a->cuda, &err) < 0)
		return cmd_fail(&err);
	return 0;
}

void
cmd_hook_note(const char *id)
{
	const char *applied = getenv("CUDNNVM_ACTIVE");

	/* said once per shell, and only to a person at a terminal: a
	 * script runs without the hook on purpose */
	if (cmd_g.quiet || !cv_os_isatty(2) || cv_hook_loaded() ||
	    (applied != NULL && strcmp(applied, id) == 0) ||
	    !cv_hook_first_note())
		return;
	ui_note("the shell hook is not loaded in this shell, so nothing "
		"applies %s here: add '%s' to the shell's startup file and "
		"start it again (exec $SHELL), or run one command under it "
		"with 'cudnnvm exec -- CMD'",
		id, cv_shell_init_line(cv_shell_guess()));
}
