/* gate.c: the checks a version passes before it becomes active: the
 * frameworks of the Python environment can load it, and it validates.
 * The verdict carries the lines to say; cmd/ prints them. */
#include "gate.h"
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void __attribute__((format(printf, 3, 4)))
say(struct cv_verdict *v, int what, const char *fmt, ...)
{
	va_list ap;

	if (v->n >= CV_VERDICT_LINES)
		return;
	v->line[v->n].say = what;
	va_start(ap, fmt);
	vsnprintf(v->line[v->n].text, sizeof v->line[v->n].text, fmt, ap);
	va_end(ap);
	v->n++;
	if (what == CV_SAY_ERROR)
		v->refused = 1;
}

const struct cv_version *
cv_gate_version_for(const struct cv_framework *f, const struct cv_version *v,
		    const struct cv_version *beside)
{
	if (beside != NULL && f->need.have && f->need.min.nparts >= 1 &&
	    f->need.min.part[0] == beside->part[0] &&
	    v->part[0] != beside->part[0])
		return beside;
	return v;
}

/* The first framework of `fe` that cannot load `v`, or NULL. With
 * `beside`, the frameworks cv_gate_version_for gives it are left to the
 * check of that version. */
static const struct cv_framework *
first_misfit(const struct cv_fw_env *fe, const struct cv_version *v,
	     const struct cv_version *beside)
{
	for (size_t i = 0; i < fe->n; i++)
		if (cv_gate_version_for(&fe->fw[i], v, beside) == v &&
		    !cv_framework_fits(&fe->fw[i], v))
			return &fe->fw[i];
	return NULL;
}

/* ", "-separated installed ids that every framework of fe can load. */
static void
fitting_ids(const struct cv_store *st, const struct cv_fw_env *fe,
	    const struct cv_version *beside, char *buf, size_t n)
{
	struct cv_installed *all = NULL;
	size_t count = 0, len = 0;

	buf[0] = '\0';
	if (cv_store_list(st, &all, &count, NULL) < 0)
		return;
	for (size_t i = 0; i < count; i++) {
		if (first_misfit(fe, &all[i].version, beside) != NULL)
			continue;
		if (len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s",
						len ? ", " : "", all[i].id);
	}
	free(all);
}

/* The refusal's text for id in msg; 1 when a framework cannot load it. */
static int
misfit_message(const struct cv_store *st, const struct cv_fw_env *fe,
	       const char *id, const char *beside_id, char *msg, size_t n)
{
	struct cv_version v, bv;
	const struct cv_version *beside = NULL;
	const struct cv_framework *f;
	char need[512], fits[1024], hint[64];

	if (cv_install_id_parse(&v, id, NULL) < 0)
		return 0;
	if (beside_id != NULL && cv_install_id_parse(&bv, beside_id, NULL) == 0)
		beside = &bv;
	f = first_misfit(fe, &v, beside);
	if (f == NULL)
		return 0;
	cv_framework_need_text(f, need, sizeof need);
	fitting_ids(st, fe, beside, fits, sizeof fits);
	cv_framework_install_hint(f, hint, sizeof hint);
	snprintf(msg, n,
		 "%s %s (%s) needs %s; installed versions that fit: %s (or: "
		 "cudnnvm install %s)",
		 f->name, f->version, fe->prefix, need, fits[0] ? fits : "none",
		 hint);
	return 1;
}

static int
gate_frameworks(const struct cv_store *st, const char *id, const char *beside,
		const char *prefix, int *uses_cudnn, char *msg, size_t n)
{
	struct cv_fw_env fe;
	char pins[CV_VENV_MAXPINS][64];
	int bad, npins = 0;

	if (uses_cudnn != NULL)
		*uses_cudnn = 0;
	/* no Python environment to read is nothing to refuse */
	if (cv_frameworks_find(&fe, prefix, NULL) < 0)
		return 0;
	/* whatever becomes active, the environment's .pth hook still loads
	 * its pin of another major for the frameworks that need that one */
	if (beside == NULL && fe.prefix[0])
		npins = cv_preload_pins(fe.prefix, pins, CV_VENV_MAXPINS);
	for (int i = 0; i < npins; i++)
		if (strtol(pins[i], NULL, 10) != strtol(id, NULL, 10))
			beside = pins[i];
	bad = misfit_message(st, &fe, id, beside, msg, n);
	if (uses_cudnn != NULL) {
		*uses_cudnn = fe.bundled_dir[0] != '\0';
		for (size_t i = 0; i < fe.n; i++)
			*uses_cudnn |= fe.fw[i].need.have;
	}
	cv_fw_env_release(&fe);
	return bad;
}

int
cv_gate_frameworks(const struct cv_store *st, const char *id,
		   const char *prefix, int *uses_cudnn, char *msg, size_t n)
{
	return gate_frameworks(st, id, NULL, prefix, uses_cudnn, msg, n);
}

/* What a passed validation proved, said once (a cached result is silent:
 * it was said when it was made). */
static void
say_passed(struct cv_verdict *v, const char *id,
	   const struct cv_validation *val)
{
	if (val->cached)
		return;
	if (val->step[CV_STEP_GPU].status == CV_CHECK_PASS)
		say(v, CV_SAY_NOTE,
		    "validated %s: it loads from its own folder and a "
		    "convolution on %s matches the CPU",
		    id, val->gpu);
	else
		say(v, CV_SAY_NOTE,
		    "validated %s: files, version and library provenance "
		    "pass; GPU steps skipped (%s)",
		    id, val->step[CV_STEP_GPU].reason);
}

static void
say_failed(struct cv_verdict *v, const char *id, const struct cv_gate_opts *o,
	   const struct cv_validation *val, int failed)
{
	const char *step = cv_step_name(failed),
		   *why = val->step[failed].reason;

	if (o->force)
		say(v, CV_SAY_WARN,
		    "%s failed validation (%s: %s); activating it anyway "
		    "because of --force",
		    id, step, why);
	else if (o->installed)
		say(v, CV_SAY_ERROR,
		    "installed %s, but it failed validation (step %d, %s): "
		    "%s; 'use' and 'global' refuse it until that is fixed "
		    "(see 'cudnnvm validate %s'; --force overrides)",
		    id, failed + 1, step, why, id);
	else
		say(v, CV_SAY_ERROR,
		    "not activating %s: validation failed (step %d, %s): %s; "
		    "fix that and retry, or pass --force (run 'cudnnvm "
		    "validate %s' for every step)",
		    id, failed + 1, step, why, id);
}

static int
gate_validation(const struct cv_config *cfg, struct cv_store *st,
		const char *id, const struct cv_gate_opts *o,
		struct cv_verdict *v, struct cv_err *err)
{
	struct cv_validate_opts opts = CV_VALIDATE_OPTS_INIT;
	struct cv_validation val;
	struct cv_installed inst;
	char *dir;
	int r, failed;

	if (o->no_validate || (cfg != NULL && !cfg->validate))
		return 0;
	if ((r = cv_store_get(st, id, &inst, err)) < 0)
		return r;
	dir = cv_store_dir(st, id);
	cv_validate_opts_default(&opts, st, o->probe_exe, 0);
	r = cv_validate(dir, &inst, &opts, &val, err);
	free(dir);
	if (r < 0 && o->force) {
		say(v, CV_SAY_WARN, "%s; activating anyway (--force)",
		    err->msg);
		return 0;
	}
	if (r < 0)
		return r;
	failed = cv_validation_failed(&val);
	if (failed < 0)
		say_passed(v, id, &val);
	else
		say_failed(v, id, o, &val, failed);
	return 0;
}

int
cv_gate_check(const struct cv_config *cfg, struct cv_store *st, const char *id,
	      const struct cv_gate_opts *o, struct cv_verdict *v,
	      struct cv_err *err)
{
	char msg[CV_VERDICT_TEXT - 128];

	memset(v, 0, sizeof *v);
	if (o->frameworks && gate_frameworks(st, id, o->beside, o->prefix,
					     &v->uses_cudnn, msg, sizeof msg)) {
		if (!o->force) {
			say(v, CV_SAY_ERROR,
			    "not activating %s: %s; --force overrides", id,
			    msg);
			return 0;
		}
		say(v, CV_SAY_WARN, "activating %s anyway (--force): %s", id,
		    msg);
	}
	return gate_validation(cfg, st, id, o, v, err);
}

int
cv_gate_choose(const struct cv_config *cfg, struct cv_store *st,
	       const struct cv_version *spec, const struct cv_gate_opts *o,
	       char id[64], struct cv_verdict *v, struct cv_err *err)
{
	int r;

	memset(v, 0, sizeof *v);
	if ((r = cv_active_find(st, spec, id, err)) < 0)
		return r;
	return cv_gate_check(cfg, st, id, o, v, err);
}
