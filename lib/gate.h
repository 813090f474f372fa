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

enum cv_say { CV_SAY_NOTE, CV_SAY_WARN, CV_SAY_ERROR };
#define CV_VERDICT_LINES 4
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
	const char *probe_exe; /* validation's child (NULL: this binary) */
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

/* 1 with the reason in msg when a framework of the Python environment
 * `prefix` (NULL: the one in play) cannot load install `id` (or, where
 * the environment's .pth hook pins a version of another major, that one);
 * else 0.
 * *uses_cudnn (may be NULL): a framework there loads cuDNN. */
int cv_gate_frameworks(const struct cv_store *st, const char *id,
		       const char *prefix, int *uses_cudnn, char *msg,
		       size_t n);

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
