/* gate.c: the checks a version passes before it becomes active: the
 * frameworks of the Python environment can load it, and it validates.
 * The verdict carries the lines to say; cmd/ prints them. */
#include "activate/activate.h"
#include "base/base.h"
#include "python/python_int.h"
#include "store/store.h"
#include "validate/validate.h"

#include <limits.h>
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

/* A framework's check: the environment, and the version pinned beside
 * the one checked (NULL: none), for the frameworks of its major. */
struct fit_ctx {
	const struct cv_fw_env *fe;
	const struct cv_version *beside;
};

static int
accept_fit(void *payload, const struct cv_version *v)
{
	const struct fit_ctx *c = payload;

	return first_misfit(c->fe, v, c->beside) == NULL;
}

/* What a printed command names for install id: the version's major.minor
 * when the resolver picks id for it here, else the id itself. */
static void
short_spec(const struct cv_store *st, const char *id, char *out, size_t n)
{
	struct cv_version v, s;
	char got[64];

	snprintf(out, n, "%s", id);
	if (cv_install_id_parse(&v, id, NULL) < 0)
		return;
	memset(&s, 0, sizeof s);
	s.nparts = 2;
	s.part[0] = v.part[0];
	s.part[1] = v.part[1];
	if (cv_active_find(st, &s, got, NULL) == 0 && strcmp(got, id) == 0)
		cv_version_format_id(&s, out, n);
}

/* The fix as a hint: the installed build every framework of fe loads,
 * else an install of what the misfit needs and the same command on it. */
static void
fit_hint(const struct cv_store *st, struct fit_ctx *c,
	 const struct cv_framework *f, const struct cv_gate_fix *fix,
	 struct cv_err *why)
{
	char id[64], spec[64], install[64];

	if (cv_hint_installed(st, accept_fit, c, id)) {
		short_spec(st, id, spec, sizeof spec);
		cv_err_hint(why, "%s %s%s", fix->head, spec, fix->tail);
		return;
	}
	cv_framework_install_spec(f, spec, sizeof spec);
	cv_framework_install_hint(f, install, sizeof install);
	if (f->need.cuda)
		cv_err_hint(why, "cudnnvm install %s && %s %s-cuda%d%s",
			    install, fix->head, spec, f->need.cuda, fix->tail);
	else
		cv_err_hint(why, "cudnnvm install %s && %s %s%s", install,
			    fix->head, spec, fix->tail);
}

/* The version pinned beside id of another major: `beside` as given ("":
 * none), or with NULL the environment's .pth hook's pin of another major
 * (it loads that one whatever becomes active); NULL when none. */
static const char *
beside_of(const struct cv_fw_env *fe, const char *id, const char *beside,
	  char buf[64])
{
	char pins[CV_VENV_MAXPINS][64];
	int npins;

	if (beside != NULL)
		return *beside ? beside : NULL;
	if (!fe->prefix[0])
		return NULL;
	npins = cv_preload_pins(fe->prefix, pins, CV_VENV_MAXPINS);
	for (int i = 0; i < npins; i++)
		if (strtol(pins[i], NULL, 10) != strtol(id, NULL, 10)) {
			snprintf(buf, 64, "%s", pins[i]);
			return buf;
		}
	return NULL;
}

static int
misfit_beside(const struct cv_store *st, const struct cv_fw_env *fe,
	      const char *id, const char *beside_id,
	      const struct cv_gate_fix *fix, struct cv_err *why)
{
	static const struct cv_gate_fix use = { "cudnnvm use", "" };
	struct cv_version v, bv;
	struct fit_ctx c = { fe, NULL };
	const struct cv_framework *f;
	char need[512];

	if (cv_install_id_parse(&v, id, NULL) < 0)
		return 0;
	if (beside_id != NULL && cv_install_id_parse(&bv, beside_id, NULL) == 0)
		c.beside = &bv;
	f = first_misfit(fe, &v, c.beside);
	if (f == NULL)
		return 0;
	cv_framework_need_text(f, need, sizeof need);
	cv_err_set(why, CV_ERROR, "%s %s (%s) needs %s", f->name, f->version,
		   fe->prefix, need);
	fit_hint(st, &c, f, fix != NULL ? fix : &use, why);
	return 1;
}

int
cv_gate_misfit(const struct cv_store *st, const struct cv_fw_env *fe,
	       const char *id, const struct cv_gate_fix *fix,
	       struct cv_err *why)
{
	char buf[64];

	return misfit_beside(st, fe, id, beside_of(fe, id, NULL, buf), fix,
			     why);
}

int
cv_gate_frameworks(const struct cv_store *st, const char *id,
		   const char *prefix, const struct cv_gate_fix *fix,
		   int *uses_cudnn, struct cv_err *why)
{
	struct cv_fw_env fe;
	int bad;

	if (uses_cudnn != NULL)
		*uses_cudnn = 0;
	/* no Python environment to read is nothing to refuse */
	if (cv_frameworks_find(&fe, prefix, NULL) < 0)
		return 0;
	bad = cv_gate_misfit(st, &fe, id, fix, why);
	if (uses_cudnn != NULL)
		*uses_cudnn = cv_fw_env_uses_cudnn(&fe);
	cv_fw_env_release(&fe);
	return bad;
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
say_failed(const struct cv_store *st, struct cv_verdict *v, const char *id,
	   const struct cv_gate_opts *o, const struct cv_validation *val,
	   int failed)
{
	const char *step = cv_step_name(failed),
		   *why = val->step[failed].reason;
	char *fix = cv_hint_validation(st, id, val, failed);

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
	if (fix != NULL && !o->force)
		say(v, CV_SAY_HINT, "%s", fix);
	free(fix);
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
		say_failed(st, v, id, o, &val, failed);
	return 0;
}

/* The refusal's hint lines, then the same command with --force. */
static void
say_hints(struct cv_verdict *v, const struct cv_err *why,
	  const struct cv_gate_fix *fix, const char *spec)
{
	const char *p = why->hint;

	while (*p) {
		size_t len = strcspn(p, "\n");
		say(v, CV_SAY_HINT, "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
	}
	if (fix != NULL)
		say(v, CV_SAY_HINT, "%s --force %s%s", fix->head, spec,
		    fix->tail);
}

/* The frameworks' check of cv_gate_check. */
static void
gate_frameworks(const struct cv_store *st, const char *id,
		const struct cv_gate_opts *o, struct cv_verdict *v)
{
	static const struct cv_gate_fix use = { "cudnnvm use", "" };
	const struct cv_gate_fix *fix = o->fix.head ? &o->fix : &use;
	struct cv_err why = CV_ERR_INIT;
	struct cv_fw_env fe;
	char spec[64], bbuf[64];

	if (cv_frameworks_find(&fe, o->prefix, NULL) < 0)
		return;
	v->uses_cudnn = cv_fw_env_uses_cudnn(&fe);
	if (!misfit_beside(st, &fe, id, beside_of(&fe, id, o->beside, bbuf),
			   fix, &why)) {
		cv_fw_env_release(&fe);
		return;
	}
	if (o->command != NULL && !cv_fw_env_runs(&fe, o->command))
		/* a program that is not the environment's interpreter
		 * imports none of its frameworks */
		say(v, CV_SAY_WARN,
		    "%s; running '%s' under %s anyway: it is not %s's "
		    "interpreter",
		    why.msg, o->command, id, fe.prefix);
	else if (o->force)
		say(v, CV_SAY_WARN, "activating %s anyway (--force): %s", id,
		    why.msg);
	else {
		say(v, CV_SAY_ERROR, "not activating %s: %s", id, why.msg);
		short_spec(st, id, spec, sizeof spec);
		say_hints(v, &why, fix, spec);
	}
	cv_fw_env_release(&fe);
}

int
cv_gate_check(const struct cv_config *cfg, struct cv_store *st, const char *id,
	      const struct cv_gate_opts *o, struct cv_verdict *v,
	      struct cv_err *err)
{
	memset(v, 0, sizeof *v);
	if (o->frameworks)
		gate_frameworks(st, id, o, v);
	if (v->refused)
		return 0;
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

int
cv_gate_venv_pin(const struct cv_store *st, struct cv_active *a)
{
	char prefix[PATH_MAX], how[32], pin[64], bbuf[64];
	struct cv_err why = CV_ERR_INIT, ignored = CV_ERR_INIT;
	struct cv_version pv;
	struct cv_fw_env fe;
	int won = 0;

	a->venv[0] = a->passed_over[0] = a->why[0] = '\0';
	if (a->origin != CV_ORIGIN_FILE && a->origin != CV_ORIGIN_GLOBAL &&
	    a->origin != CV_ORIGIN_SYSTEM)
		return 0;
	if (!cv_fw_env_in_play(prefix, sizeof prefix, how) ||
	    !cv_venv_pin_of(prefix, pin) || strcmp(pin, a->id) == 0 ||
	    cv_install_id_parse(&pv, pin, NULL) < 0 || !cv_store_has(st, pin))
		return 0;
	if (cv_frameworks_find(&fe, prefix, NULL) < 0)
		return 0;
	/* a pin its frameworks load (a --force pin they cannot is no
	 * better), over a choice one of them cannot */
	if (!misfit_beside(st, &fe, pin, beside_of(&fe, pin, NULL, bbuf), NULL,
			   &ignored) &&
	    cv_gate_misfit(st, &fe, a->id, NULL, &why)) {
		snprintf(a->why, sizeof a->why, "%s", why.msg);
		snprintf(a->venv, sizeof a->venv, "%s", prefix);
		snprintf(a->passed_over, sizeof a->passed_over, "%s", a->id);
		snprintf(a->id, sizeof a->id, "%s", pin);
		a->version = pv;
		won = 1;
	}
	cv_fw_env_release(&fe);
	return won;
}

void
cv_gate_venv_said(const struct cv_active *a, char *buf, size_t n)
{
	if (a->origin == CV_ORIGIN_FILE)
		snprintf(buf, n,
			 "%s (set by %s) is passed over: %s; using %s, pinned "
			 "to that environment with 'cudnnvm venv'",
			 a->passed_over, a->file, a->why, a->id);
	else
		snprintf(buf, n,
			 "%s (the global default) is passed over: %s; using "
			 "%s, pinned to that environment with 'cudnnvm venv'",
			 a->passed_over, a->why, a->id);
}

/* Whether a site-packages of prefix (or the one holding the bundled
 * nvidia/cudnn/lib) has the .pth hook of `cudnnvm venv`. */
static int
has_pth(const char *prefix, const char *bundled)
{
	char lib[PATH_MAX], path[PATH_MAX * 2];
	const char *tail = "/nvidia/cudnn/lib";
	size_t bl = strlen(bundled), tl = strlen(tail);
	struct cv_dir *d;
	const char *de;
	int found = 0;

	if (bl > tl && strcmp(bundled + bl - tl, tail) == 0) {
		snprintf(path, sizeof path, "%.*s/%s", (int)(bl - tl), bundled,
			 CV_PRELOAD_PTH);
		if (cv_os_access(path, CV_ACCESS_EXISTS) == 0)
			return 1;
	}
	snprintf(lib, sizeof lib, "%s/lib", prefix);
	if ((d = cv_dir_open(lib)) == NULL)
		return 0;
	while (!found && (de = cv_dir_next(d, NULL)) != NULL) {
		if (strncmp(de, "python3", 7) != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s/site-packages/%s", lib, de,
			 CV_PRELOAD_PTH);
		found = cv_os_access(path, CV_ACCESS_EXISTS) == 0;
	}
	cv_dir_close(d);
	return found;
}

/* The first framework of fe that states a cuDNN need, or NULL. */
static const struct cv_framework *
first_user(const struct cv_fw_env *fe)
{
	for (size_t i = 0; i < fe->n; i++)
		if (fe->fw[i].need.have)
			return &fe->fw[i];
	return NULL;
}

void
cv_gate_notes(const struct cv_store *st, const char *id,
	      const struct cv_gate_fix *fix, int misfit, const char *said,
	      struct cv_verdict *v, char *noted, size_t n)
{
	struct cv_err why = CV_ERR_INIT;
	const struct cv_framework *f;
	struct cv_fw_env fe;
	char *quoted, spec[64];

	/* the counts alone: say() writes each line it adds, and zeroing all
	 * 24 KiB of lines at every prompt's env would be work for nothing */
	v->refused = v->uses_cudnn = v->n = 0;
	noted[0] = '\0';
	if (cv_frameworks_find(&fe, NULL, NULL) < 0 || fe.prefix[0] == '\0')
		return;
	if (misfit && cv_gate_misfit(st, &fe, id, fix, &why)) {
		say(v, CV_SAY_WARN, "%s is active but %s", id, why.msg);
		say_hints(v, &why, NULL, NULL);
	} else if ((f = first_user(&fe)) != NULL && fe.bundled_dir[0] &&
		   (said == NULL || strcmp(said, fe.prefix) != 0) &&
		   !has_pth(fe.prefix, fe.bundled_dir)) {
		/* lib/python/preload.c says why: its RPATH and its own dlopen
		 * by path beat LD_LIBRARY_PATH for the front library */
		say(v, CV_SAY_WARN,
		    "%s %s (%s) loads its own cuDNN front library from %s "
		    "before %s's, and mixes the two: an activation by env or "
		    "the shell hook alone cannot change that; 'cudnnvm venv' "
		    "makes the environment bind the version it pins",
		    f->name, f->version, fe.prefix, fe.bundled_dir, id);
		quoted = cv_shell_quote_word(fe.prefix);
		short_spec(st, id, spec, sizeof spec);
		say(v, CV_SAY_HINT, "cudnnvm venv %s --path %s", spec, quoted);
		free(quoted);
		snprintf(noted, n, "%s", fe.prefix);
	}
	cv_fw_env_release(&fe);
}
