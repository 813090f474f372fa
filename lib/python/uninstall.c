/* uninstall.c: which installed version an `uninstall <spec>` removes, and
 * whether it may: the global default and the active version only with
 * force, one that running programs map only with in_use_ok, the system
 * store's copy never; the global link is removed first so that it never
 * dangles. */
#include "activate/activate.h"
#include "base/base.h"
#include "python/python_int.h"
#include "store/store.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one installed id spec names (`shown` as the user wrote it). */
static int
pick(const struct cv_store *st, const struct cv_version *spec,
     const char *shown, char id[64], struct cv_err *err)
{
	struct cv_installed *all = NULL;
	size_t n = 0, matches = 0;
	int r;

	if ((r = cv_store_list(st, &all, &n, err)) < 0)
		return r;
	struct cv_buf names = CV_BUF_INIT;

	for (size_t i = 0; i < n; i++)
		if (cv_version_matches(spec, &all[i].version)) {
			if (matches++ == 0)
				snprintf(id, 64, "%s", all[i].id);
			cv_buf_addf(&names, "%s%s", matches > 1 ? ", " : "",
				    all[i].id);
		}
	if (matches == 0)
		r = cv_err_set(
			err, CV_ENOTFOUND,
			"no installed cuDNN matches '%s'; see 'cudnnvm list'",
			shown);
	else if (matches > 1) {
		/* each match, and the command that removes it */
		r = cv_err_set(err, CV_EUSAGE,
			       "'%s' matches %zu installed versions: %s; name "
			       "one exactly",
			       shown, matches, names.buf);
		for (size_t i = 0; i < n; i++)
			if (cv_version_matches(spec, &all[i].version))
				cv_err_hint(err, "cudnnvm uninstall %s",
					    all[i].id);
	}
	free(all);
	cv_buf_release(&names);
	return r < 0 ? r : 0;
}

static int
not_this_one(void *payload, const struct cv_version *v)
{
	char id[64];

	cv_version_format_id(v, id, sizeof id);
	return strcmp(id, payload) != 0;
}

/* Another installed build to make the global default instead of `id`. */
static int
other_installed(const struct cv_store *st, const char *id, char other[64])
{
	return cv_hint_installed(st, not_this_one, (void *)id, other);
}

/* Refuse what force does not override: the global default, the version
 * active here. */
static int
check_in_use_here(const struct cv_store *st, const char *id, const char *global,
		  struct cv_err *err)
{
	struct cv_active act;

	if (strcmp(global, id) == 0) {
		char other[64];

		cv_err_set(err, CV_ERROR,
			   "cuDNN %s is the global default; switch it first, "
			   "or pass --force",
			   id);
		if (other_installed(st, id, other))
			return cv_err_hint(err,
					   "cudnnvm global %s && cudnnvm "
					   "uninstall %s",
					   other, id);
		return cv_err_hint(err, "cudnnvm uninstall %s --force", id);
	}
	if (cv_active_resolve(st, NULL, &act, NULL, NULL, NULL) == 0 &&
	    strcmp(act.id, id) == 0)
		return cv_err_set(
			err, CV_ERROR,
			"cuDNN %s is the active version here; switch away first, or pass --force",
			id);
	return 0;
}

int
cv_uninstall(struct cv_store *st, const struct cv_version *spec,
	     const char *shown, int force, int in_use_ok, char id[64],
	     struct cv_err *err)
{
	char global[64];
	int r;

	id[0] = '\0';
	if ((r = pick(st, spec, shown, id, err)) < 0)
		return r;
	if (cv_store_in_system(st, id)) {
		/* the system store's copy is not this user's to remove; a
		 * copy of their own that it hides is, and removing that
		 * changes nothing that resolves to it */
		if (!cv_store_has_own(st, id))
			return cv_err_set(
				err, CV_EPERM,
				"cuDNN %s is owned by the system store %s; ask its admin",
				id, cv_store_system_root(st));
		force = 1;
	}
	if (cv_store_global_get(st, global, NULL) < 0)
		global[0] = '\0';
	if (!force && (r = check_in_use_here(st, id, global, err)) < 0)
		return r;
	if (!in_use_ok && (r = cv_store_check_unused(st, id, 0, err)) < 0)
		return r;
	if (strcmp(global, id) == 0 && !cv_store_in_system(st, id) &&
	    (r = cv_store_global_set(st, NULL, err)) < 0)
		return r;
	return cv_store_uninstall(st, id, err);
}
