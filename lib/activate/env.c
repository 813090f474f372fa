/* env.c: the variables of a version, computed against the environment they
 * will change. Applying twice changes nothing; switching removes the
 * previous version's path entries and nothing else; leaving restores what
 * the user had: scalars the user had set are kept in CUDNNVM_SAVED_<NAME>,
 * list variables that did not exist are named in CUDNNVM_SAVED_UNSET, and
 * the entry put into each list is recorded in CUDNNVM_SAVED_ADDED_<LIST>,
 * so that switching removes exactly that entry: what cudnnvm added is
 * never inferred from variables the user may have changed since (a
 * CUDNN_HOME=/usr set meanwhile must not take /usr/bin out of PATH).
 * Paths are the resolved versioned folders, never <store>/current. */
#include "activate/activate_int.h"
#include "base/base.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scalars[] = { "CUDNN_HOME",    "CUDNN_PATH",
				       "CUDNN_ROOT",    "CUDNN_INCLUDE_DIR",
				       "CUDNN_LIB_DIR", NULL };
static const char *const lists[] = { "LD_LIBRARY_PATH", "CPATH", "LIBRARY_PATH",
				     "PATH", NULL };
#define SAVED_UNSET "CUDNNVM_SAVED_UNSET"
/* what a list variable is cut at: Windows's ';', POSIX's ':' */
#ifdef _WIN32
#define LIST_SEP ";"
#else
#define LIST_SEP ":"
#endif
#define SAVED_ADDED "CUDNNVM_SAVED_ADDED_"

static const char *
lookup(cv_getenv_fn get, void *ctx, const char *name)
{
	return get != NULL ? get(ctx, name) : getenv(name);
}

static void
add(struct cv_env *e, const char *name, const char *value)
{
	for (size_t i = 0; i < e->n; i++)
		if (strcmp(e->v[i].name, name) == 0) {
			free(e->v[i].value);
			e->v[i].value = value ? xstrdup(value) : NULL;
			return;
		}
	if (e->n == e->alloc) {
		e->alloc = e->alloc ? e->alloc * 2 : 16;
		e->v = xrealloc(e->v, e->alloc * sizeof *e->v);
	}
	e->v[e->n].name = xstrdup(name);
	e->v[e->n].value = value ? xstrdup(value) : NULL;
	e->n++;
}

void
cv_env_release(struct cv_env *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].name);
		free(e->v[i].value);
	}
	free(e->v);
	e->v = NULL;
	e->n = e->alloc = 0;
}

char *
cv_env_path_remove(const char *list, const char *dir)
{
	struct cv_buf b = CV_BUF_INIT;
	const char *p = list;
	size_t dl = strlen(dir);
	int first = 1;

	for (;;) {
		const char *c = strchr(p, LIST_SEP[0]);
		size_t n = c ? (size_t)(c - p) : strlen(p);
		int drop = (n == dl && memcmp(p, dir, n) == 0) ||
			   (n == dl + 1 && memcmp(p, dir, dl) == 0 &&
			    p[dl] == '/');
		if (!drop) {
			if (!first)
				cv_buf_add(&b, LIST_SEP, 1);
			cv_buf_add(&b, p, n);
			first = 0;
		}
		if (c == NULL)
			break;
		p = c + 1;
	}
	return cv_buf_detach(&b);
}

/* Whether a space-separated word list holds `w`. */
static int
has_word(const char *list, const char *w)
{
	size_t wl = strlen(w);

	for (const char *p = list; p && *p;) {
		const char *s = strchr(p, ' ');
		size_t n = s ? (size_t)(s - p) : strlen(p);
		if (n == wl && memcmp(p, w, n) == 0)
			return 1;
		p = s ? s + 1 : NULL;
	}
	return 0;
}

/* The entries a version at `home` may have put into list variables. */
static char *
strip_home(char *val, const char *home)
{
	static const char *const subs[] = { "lib",     "include", "bin",
					    "lib/x64", "lib64",   NULL };
	for (int i = 0; subs[i]; i++) {
		char *d = cv_path_join(home, subs[i]);
		char *n = cv_env_path_remove(val, d);
		free(d);
		free(val);
		val = n;
	}
	return val;
}

/* What one build's variables are made of: the folders of the version
 * coming in (id) and of the one going out (prev). */
struct env_plan {
	const char *id, *prev, *unset0;
	char *home, *prevroot, *libdir, *incdir, *bindir, *ldpath;
	int windows;
	struct cv_buf unset; /* the variables it adds that were not set */
};

static void
plan_release(struct env_plan *p)
{
	cv_buf_release(&p->unset);
	free(p->home);
	free(p->prevroot);
	free(p->libdir);
	free(p->ldpath);
	free(p->incdir);
	free(p->bindir);
}

/* path past its drive ("C:"), the one ':' a Windows path has and no
 * list cuts there (Windows cuts its lists at ';' alone) */
static const char *
windows_drive(const char *path)
{
#ifdef _WIN32
	if (((path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z') &&
	    path[1] == ':')
		return path + 2;
#endif
	return path;
}

/* The folders of installed p->id, held to the store's trust rule. */
static int
plan_folders(struct env_plan *p, const struct cv_store *st, struct cv_err *err)
{
	const char *id = p->id;
	struct cv_version v;
	struct cv_stat sb;
	char *deps = NULL;

	if (cv_install_id_parse(&v, id, err) < 0)
		return CV_EUSAGE;
	if (cv_store_check_trusted(st, id, err) < 0)
		return CV_ESTORE;
	p->home = cv_store_dir(st, id);
	/* every list variable is cut at ':' (and ';' where the shell or
	 * Windows reads it): a piece of such a path would name a folder
	 * relative to the working folder, from which a cloned repository
	 * could have the loader open a library */
	if (strpbrk(windows_drive(p->home), ":;") != NULL) {
		cv_err_set(err, CV_ESTORE,
			   "cannot put '%s' on LD_LIBRARY_PATH, CPATH, "
			   "LIBRARY_PATH or PATH: they are cut at ':' and ';', "
			   "so pieces of that path would name folders relative "
			   "to the working folder",
			   p->home);
		cv_err_hint(err, "cudnnvm --store %s install %s",
			    "\"$HOME/.local/share/cudnnvm\"", id);
		return CV_ESTORE;
	}
	p->libdir = cv_path_join(p->home, "lib/x64");
	p->windows = cv_os_stat(p->libdir, &sb) == 0 && sb.kind == CV_KIND_DIR;
	if (!p->windows) {
		free(p->libdir);
		p->libdir = cv_path_join(p->home, "lib");
	}
	p->incdir = cv_path_join(p->home, "include");
	p->bindir = cv_path_join(p->home, "bin");
	if (p->windows)
		return 0;
	/* what cuDNN loads beside itself comes right after it */
	if (cv_store_dep_path(st, id, &deps, err) < 0)
		return CV_ESTORE;
	p->ldpath = deps ? xasprintf("%s" LIST_SEP "%s", p->libdir, deps)
			 : xstrdup(p->libdir);
	free(deps);
	return 0;
}

/* The folder list variable `name` gets from p->id, or NULL. */
static const char *
list_want(const struct env_plan *p, const char *name)
{
	if (p->id == NULL)
		return NULL;
	if (strcmp(name, "LD_LIBRARY_PATH") == 0 && !p->windows)
		return p->ldpath;
	if (strcmp(name, "PATH") == 0 && p->windows)
		return p->bindir;
	if (strcmp(name, "CPATH") == 0)
		return p->incdir;
	if (strcmp(name, "LIBRARY_PATH") == 0)
		return p->libdir;
	return NULL;
}

/* One list variable: the old version's entries stripped, the new one's
 * put first. */
static void
set_list(struct cv_env *out, struct env_plan *p, const char *name,
	 cv_getenv_fn get, void *ctx)
{
	const char *cur = lookup(get, ctx, name);
	const char *want = list_want(p, name);
	char *added = xasprintf(SAVED_ADDED "%s", name);
	const char *was = p->prev != NULL ? lookup(get, ctx, added) : NULL;
	char *val;

	add(out, added, want);
	free(added);
	if (cur == NULL && want == NULL)
		return;
	val = xstrdup(cur ? cur : "");
	/* the entry recorded when it was added (it may lie in another
	 * store), and the store's own folders of both versions */
	if (was != NULL && was[0] == '/') {
		/* each entry it added (a version and its deps) */
		char *copy = xstrdup(was), *save = NULL;
		for (char *e = strtok_r(copy, LIST_SEP, &save); e;
		     e = strtok_r(NULL, LIST_SEP, &save)) {
			char *n = cv_env_path_remove(val, e);
			free(val);
			val = n;
		}
		free(copy);
	}
	if (p->prevroot != NULL)
		val = strip_home(val, p->prevroot);
	if (p->home != NULL)
		val = strip_home(val, p->home);
	if (want != NULL) {
		char *n = *val ? xasprintf("%s" LIST_SEP "%s", want, val)
			       : xstrdup(want);
		free(val);
		val = n;
		if (cur == NULL &&
		    (p->prev == NULL || !has_word(p->unset0, name))) {
			if (p->unset.len)
				cv_buf_add(&p->unset, " ", 1);
			cv_buf_adds(&p->unset, name);
		}
		add(out, name, val);
	} else if (*val == '\0' && p->prev != NULL &&
		   has_word(p->unset0, name)) {
		add(out, name, NULL);
	} else if (cur == NULL || strcmp(val, cur) != 0) {
		add(out, name, val);
	}
	free(val);
}

/* The scalars, the user's own values saved on first activation, and the
 * record of what to unset on leaving. */
static void
set_scalars(struct cv_env *out, struct env_plan *p, cv_getenv_fn get, void *ctx)
{
	for (int i = 0; scalars[i]; i++) {
		char *saved = xasprintf("CUDNNVM_SAVED_%s", scalars[i]);
		const char *cur = lookup(get, ctx, scalars[i]);
		const char *sv = lookup(get, ctx, saved);

		if (p->id != NULL) {
			const char *val = p->home;
			if (strcmp(scalars[i], "CUDNN_INCLUDE_DIR") == 0)
				val = p->incdir;
			else if (strcmp(scalars[i], "CUDNN_LIB_DIR") == 0)
				val = p->libdir;
			if (p->prev == NULL)
				add(out, saved, cur);
			add(out, scalars[i], val);
		} else {
			add(out, scalars[i], sv);
			add(out, saved, NULL);
		}
		free(saved);
	}
	if (p->id == NULL) {
		add(out, SAVED_UNSET, NULL);
		add(out, "CUDNNVM_ACTIVE", NULL);
		return;
	}
	if (p->prev == NULL)
		add(out, SAVED_UNSET, p->unset.len ? p->unset.buf : NULL);
	else if (p->unset.len) {
		char *n = p->unset0 && *p->unset0
				  ? xasprintf("%s %s", p->unset0, p->unset.buf)
				  : xstrdup(p->unset.buf);
		add(out, SAVED_UNSET, n);
		free(n);
	}
	add(out, "CUDNNVM_ACTIVE", p->id);
}

/* Drop no-op unsets of variables that are not there. */
static void
drop_noop_unsets(struct cv_env *out, cv_getenv_fn get, void *ctx)
{
	for (size_t i = 0; i < out->n;) {
		if (out->v[i].value == NULL &&
		    lookup(get, ctx, out->v[i].name) == NULL) {
			free(out->v[i].name);
			memmove(&out->v[i], &out->v[i + 1],
				(out->n - i - 1) * sizeof out->v[0]);
			out->n--;
		} else
			i++;
	}
}

int
cv_env_build(struct cv_env *out, const struct cv_store *st, const char *id,
	     cv_getenv_fn get, void *ctx, struct cv_err *err)
{
	struct env_plan p;
	struct cv_version v;
	int r;

	memset(&p, 0, sizeof p);
	p.unset = (struct cv_buf)CV_BUF_INIT;
	p.id = id;
	p.prev = lookup(get, ctx, "CUDNNVM_ACTIVE");
	p.unset0 = lookup(get, ctx, SAVED_UNSET);
	if (p.prev != NULL &&
	    (*p.prev == '\0' || cv_install_id_parse(&v, p.prev, NULL) < 0))
		p.prev = NULL;
	if (p.prev == NULL && id == NULL)
		return 0; /* nothing of ours to leave */
	if (id != NULL && (r = plan_folders(&p, st, err)) < 0) {
		plan_release(&p);
		return r;
	}
	if (p.prev != NULL)
		p.prevroot = cv_store_dir(st, p.prev);
	for (int i = 0; lists[i]; i++)
		set_list(out, &p, lists[i], get, ctx);
	set_scalars(out, &p, get, ctx);
	drop_noop_unsets(out, get, ctx);
	plan_release(&p);
	return 0;
}

int
cv_env_apply(const struct cv_env *e, struct cv_err *err)
{
	for (size_t i = 0; i < e->n; i++) {
		int r = cv_os_setenv(e->v[i].name, e->v[i].value);
		if (r < 0)
			return cv_err_errno(err, CV_ERROR, "cannot set %s",
					    e->v[i].name);
	}
	return 0;
}

/* ---- the container view (export.h) ------------------------------------ */

static int
container_deps(struct cv_ctr_view *out, const struct cv_store *st,
	       const struct cv_installed *inst, const char *home,
	       struct cv_err *err)
{
	const char *slash = strrchr(home, '/');
	char *path = NULL;
	int r;

	/* checks each folder is there and nobody else may change it */
	if ((r = cv_store_dep_path(st, inst->id, &path, err)) < 0)
		return r;
	free(path);
	for (int i = 0; i < inst->ndeps; i++) {
		const struct cv_dep *d = &inst->deps[i];
		struct cv_ctr_mount *m = &out->m[out->nm];
		if (!d->in_store) {
			cv_err_set(err, CV_ERROR,
				   "cuDNN %s loads %s %s from %s, outside the "
				   "store, where no container sees it",
				   inst->id, d->name, d->version, d->dir);
			return cv_err_hint(err,
					   "cudnnvm install %s --deps always "
					   "--force",
					   inst->id);
		}
		m->host =
			xasprintf("%.*s/%s", (int)(slash - home), home, d->dir);
		m->ctr = xasprintf(CV_CTR_ROOT "/%s", d->dir);
		out->nm++;
	}
	return 0;
}

int
cv_env_container(struct cv_ctr_view *out, const struct cv_store *st,
		 const char *id, struct cv_err *err)
{
	struct cv_installed inst;
	struct cv_buf ld = CV_BUF_INIT;
	char *home;
	int r;

	memset(out, 0, sizeof *out);
	if ((r = cv_store_get(st, id, &inst, err)) < 0)
		return r;
	if (strncmp(inst.platform, "windows", 7) == 0) {
		cv_err_set(err, CV_EUSAGE,
			   "cuDNN %s is a Windows build; containers run Linux",
			   id);
		return cv_err_hint(err, "cudnnvm list");
	}
	snprintf(out->id, sizeof out->id, "%s", inst.id);
	snprintf(out->platform, sizeof out->platform, "%s", inst.platform);
	snprintf(out->sha256, sizeof out->sha256, "%s", inst.sha256);
	home = cv_store_dir(st, id);
	out->m[0].host = home;
	out->m[0].ctr = xasprintf(CV_CTR_ROOT "/%s", inst.id);
	out->nm = 1;
	if ((r = container_deps(out, st, &inst, home, err)) < 0) {
		cv_env_container_release(out);
		return r;
	}
	cv_buf_addf(&ld, "%s/lib", out->m[0].ctr);
	for (size_t i = 1; i < out->nm; i++)
		cv_buf_addf(&ld, ":%s/lib", out->m[i].ctr);
	add(&out->env, "CUDNN_PATH", out->m[0].ctr);
	add(&out->env, "CUDNN_HOME", out->m[0].ctr);
	add(&out->env, "LD_LIBRARY_PATH", ld.buf);
	cv_buf_release(&ld);
	return 0;
}

void
cv_env_container_release(struct cv_ctr_view *v)
{
	for (size_t i = 0; i < v->nm; i++) {
		free(v->m[i].host);
		free(v->m[i].ctr);
	}
	v->nm = 0;
	cv_env_release(&v->env);
}

const char *
cv_env_container_get(const struct cv_ctr_view *v, const char *name)
{
	for (size_t i = 0; i < v->env.n; i++)
		if (strcmp(v->env.v[i].name, name) == 0)
			return v->env.v[i].value;
	return NULL;
}
