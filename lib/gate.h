/* gate.h: whether a version may become active (use, global, shell, venv,
 * exec, install, import). Two checks: every framework of the Python
 * environment in play can load it, and it passes validation. A gate
 * prints nothing: it returns a verdict, the lines cmd/ says, in order. */
#ifndef CUDNNVM_GATE_H
#define CUDNNVM_GATE_H

#include <stddef.h>

struct cv_err;
struct cv_config;
struct cv_store;
struct cv_version;
struct cv_fw_env;

/* How a fix names a version in the command that failed: head, the
 * spec, tail ("cudnnvm use" ""; "eval \"$(cudnnvm env" ")\""). */
struct cv_gate_fix {
	const char *head, *tail;
};

enum cv_say { CV_SAY_NOTE, CV_SAY_WARN, CV_SAY_ERROR, CV_SAY_HINT };
#define CV_VERDICT_LINES 8
#define CV_VERDICT_TEXT  3072
struct cv_verdict {
	int refused;    /* 1: the version must not become active */
	int uses_cudnn; /* a framework of the environment loads cuDNN */
	int n;          /* lines to say, oldest first */
	struct {
		int say; /* enum cv_say: a note, a warning, the refusal */
		char text[CV_VERDICT_TEXT];
	} line[CV_VERDICT_LINES];
};

struct cv_gate_opts {
	int force;       /* a refusal becomes a warning */
	int no_validate; /* skip validation (also [install] validate = no) */
	int frameworks;  /* check the Python environment's frameworks */
	/* install or import just put it in the store: a failed validation
	 * says the version stays installed, not "not activating" */
	int installed;
	const char *prefix; /* the Python environment (NULL: in play) */
	/* another install pinned beside this one, of another cuDNN major
	 * (cudnnvm venv 9.19 8.9): a framework that needs its major is
	 * checked against it instead. NULL: the environment's .pth hook's
	 * pin of another major, if it has one (it loads that whatever is
	 * active); "": none (venv, which rewrites the hook) */
	const char *beside;
	const char *probe_exe;  /* validation's child (NULL: this binary) */
	struct cv_gate_fix fix; /* the hints' command (head NULL: use) */
	/* exec's program: a misfit refuses only when it is the environment's
	 * interpreter (cv_fw_env_runs), else it is a warning */
	const char *command;
};
#define CV_GATE_OPTS_INIT \
	{                 \
		0         \
	}

struct cv_framework;
/* The version f is checked against of v and `beside` (NULL, or a version
 * of another major pinned beside v): beside when f needs its major. */
const struct cv_version *cv_gate_version_for(const struct cv_framework *f,
					     const struct cv_version *v,
					     const struct cv_version *beside);

/* 1 when a framework of the environment fe cannot load install `id` (or,
 * where the environment's .pth hook pins a version of another major, that
 * one): the reason in why->msg (one line), and as its hint the fix in the
 * words of `fix` (NULL: use): the installed build every framework there
 * loads, else the install of what the misfit needs. 0 when all can load
 * it. */
int cv_gate_misfit(const struct cv_store *st, const struct cv_fw_env *fe,
		   const char *id, const struct cv_gate_fix *fix,
		   struct cv_err *why);
/* cv_gate_misfit for the Python environment `prefix` (NULL: the one in
 * play). *uses_cudnn (may be NULL): a framework there loads cuDNN. */
int cv_gate_frameworks(const struct cv_store *st, const char *id,
		       const char *prefix, const struct cv_gate_fix *fix,
		       int *uses_cudnn, struct cv_err *why);

/* A pin file or the global default named a->id; when the Python
 * environment in play was pinned with `cudnnvm venv` to an installed
 * version that every framework there loads, and one of them cannot load
 * a->id, that pin wins (unless CUDNNVM_VERSION or a spec chose: those are
 * never passed over): a->id becomes it, and a->venv, a->passed_over and
 * a->why say so. 1 when it won. Cheap when the environment has no pin
 * (two failed opens); the frameworks are read only when it has one. */
struct cv_active;
int cv_gate_venv_pin(const struct cv_store *st, struct cv_active *a);
/* The warning that says cv_gate_venv_pin's pin won, and over what. */
void cv_gate_venv_said(const struct cv_active *a, char *buf, size_t n);

/* What env and the prompt hook say when they make install `id` active
 * (never a refusal): with `misfit`, a framework of the environment in play
 * that cannot load it, as a warning with the fix in the words of `fix`;
 * when one loads cuDNN from the environment's own copy and the environment
 * has no .pth hook of `cudnnvm venv`, that the framework's front library
 * will be that copy (said once per environment: `said` is what the caller
 * remembers, the environment's folder; noted gets the folder to remember
 * when it was said now, else ""). Lines in *v. */
void cv_gate_notes(const struct cv_store *st, const char *id,
		   const struct cv_gate_fix *fix, int misfit, const char *said,
		   struct cv_verdict *v, char *noted, size_t n);

/* Both checks on install `id`, as o asks. Returns 0 with the verdict in
 * *v (refused or not), or <0 with err when validation could not run
 * (with force, a warning in *v instead). */
int cv_gate_check(const struct cv_config *cfg, struct cv_store *st,
		  const char *id, const struct cv_gate_opts *o,
		  struct cv_verdict *v, struct cv_err *err);

/* The install `spec` names among the installed ones, then cv_gate_check:
 * what use, global and shell make active. */
int cv_gate_choose(const struct cv_config *cfg, struct cv_store *st,
		   const struct cv_version *spec, const struct cv_gate_opts *o,
		   char id[64], struct cv_verdict *v, struct cv_err *err);

#endif
