/* test_env.c: the environment of a version: first activation, idempotence,
 * switching that removes only the previous version's entries, and leaving
 * that restores exactly what the user had. The environment is a table. */
#include "activate/activate.h"
#include "base/base.h"
#include "store/store.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXV 64
static struct {
	char *name, *value;
} tab[MAXV];
static int ntab;

static const char *
get(void *ctx, const char *name)
{
	(void)ctx;
	for (int i = 0; i < ntab; i++)
		if (strcmp(tab[i].name, name) == 0)
			return tab[i].value;
	return NULL;
}

static void
set(const char *name, const char *value)
{
	for (int i = 0; i < ntab; i++)
		if (strcmp(tab[i].name, name) == 0) {
			free(tab[i].value);
			if (value == NULL) {
				free(tab[i].name);
				tab[i] = tab[--ntab];
			} else
				tab[i].value = strdup(value);
			return;
		}
	if (value != NULL) {
		tab[ntab].name = strdup(name);
		tab[ntab].value = strdup(value);
		ntab++;
	}
}

static void
clear(void)
{
	while (ntab > 0)
		set(tab[0].name, NULL);
}

/* the store at `root` (it need not exist: only paths are computed) */
static struct cv_store *
store_at(const char *root)
{
	struct cv_config cfg;
	struct cv_store *st = NULL;

	cv_config_init(&cfg);
	cfg.store_path = strdup(root);
	if (cv_store_open(&st, &cfg, NULL, 0, NULL) < 0)
		st = NULL;
	cv_config_release(&cfg);
	return st;
}

/* apply one computed change set to the table; returns how many changed */
static int
step(const char *root, const char *id)
{
	struct cv_env e = CV_ENV_INIT;
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st = store_at(root);
	int changed = 0, r;

	if (st == NULL)
		return -1;
	r = cv_env_build(&e, st, id, get, NULL, &err);
	cv_store_free(st);
	if (r < 0)
		return -1;
	for (size_t i = 0; i < e.n; i++) {
		const char *cur = get(NULL, e.v[i].name);
		if ((cur == NULL) != (e.v[i].value == NULL) ||
		    (cur && strcmp(cur, e.v[i].value) != 0))
			changed++;
		set(e.v[i].name, e.v[i].value);
	}
	cv_env_release(&e);
	return changed;
}

static int
is(const char *name, const char *want)
{
	const char *v = get(NULL, name);
	if (want == NULL)
		return v == NULL;
	if (v == NULL || strcmp(v, want) != 0) {
		printf("# %s = '%s', want '%s'\n", name, v ? v : "(unset)",
		       want);
		return 0;
	}
	return 1;
}

int
main(void)
{
	const char *R = "/s t/o'r$e";
	char *s;

	/* path list surgery */
	s = cv_env_path_remove("/a:/x/lib:/b:/x/lib/", "/x/lib");
	CHECK(strcmp(s, "/a:/b") == 0);
	free(s);
	s = cv_env_path_remove("/x/lib", "/x/lib");
	CHECK(strcmp(s, "") == 0);
	free(s);
	s = cv_env_path_remove("/a::/b", "/x");
	CHECK(strcmp(s, "/a::/b") == 0);
	free(s);

	/* a user with their own values */
	set("LD_LIBRARY_PATH", "/usr/local/lib:/opt/x");
	set("CUDNN_HOME", "/my/cudnn");
	set("PATH", "/usr/bin:/bin");
	CHECK(step(R, "9.1.0.70-cuda12") > 0);
	CHECK(is("LD_LIBRARY_PATH",
		 "/s t/o'r$e/9.1.0.70-cuda12/lib:/usr/local/lib:/opt/x"));
	CHECK(is("CPATH", "/s t/o'r$e/9.1.0.70-cuda12/include"));
	CHECK(is("LIBRARY_PATH", "/s t/o'r$e/9.1.0.70-cuda12/lib"));
	CHECK(is("CUDNN_HOME", "/s t/o'r$e/9.1.0.70-cuda12"));
	CHECK(is("CUDNN_PATH", "/s t/o'r$e/9.1.0.70-cuda12"));
	CHECK(is("CUDNN_ROOT", "/s t/o'r$e/9.1.0.70-cuda12"));
	CHECK(is("CUDNN_INCLUDE_DIR", "/s t/o'r$e/9.1.0.70-cuda12/include"));
	CHECK(is("CUDNN_LIB_DIR", "/s t/o'r$e/9.1.0.70-cuda12/lib"));
	CHECK(is("CUDNNVM_ACTIVE", "9.1.0.70-cuda12"));
	CHECK(is("PATH", "/usr/bin:/bin"));
	/* idempotent */
	CHECK(step(R, "9.1.0.70-cuda12") == 0);
	/* the user adds an entry while active; switching keeps it */
	set("LD_LIBRARY_PATH",
	    "/mine:/s t/o'r$e/9.1.0.70-cuda12/lib:/usr/local/lib:/opt/x");
	CHECK(step(R, "9.13.0.50-cuda12") > 0);
	CHECK(is(
		"LD_LIBRARY_PATH",
		"/s t/o'r$e/9.13.0.50-cuda12/lib:/mine:/usr/local/lib:/opt/x"));
	CHECK(is("CPATH", "/s t/o'r$e/9.13.0.50-cuda12/include"));
	CHECK(is("CUDNNVM_ACTIVE", "9.13.0.50-cuda12"));
	CHECK(step(R, "9.13.0.50-cuda12") == 0);
	/* leaving restores exactly (plus the user's own later entry) */
	CHECK(step(R, NULL) > 0);
	CHECK(is("LD_LIBRARY_PATH", "/mine:/usr/local/lib:/opt/x"));
	CHECK(is("CUDNN_HOME", "/my/cudnn"));
	CHECK(is("CPATH", NULL));
	CHECK(is("LIBRARY_PATH", NULL));
	CHECK(is("CUDNN_PATH", NULL));
	CHECK(is("CUDNN_LIB_DIR", NULL));
	CHECK(is("CUDNNVM_ACTIVE", NULL));
	CHECK(is("CUDNNVM_SAVED_CUDNN_HOME", NULL));
	CHECK(is("CUDNNVM_SAVED_UNSET", NULL));
	CHECK(is("PATH", "/usr/bin:/bin"));
	CHECK(step(R, NULL) == 0);
	CHECK(ntab == 3);

	/* an empty (set) list stays set and empty, and never gets an empty
	 * entry (which would mean the current folder) */
	clear();
	set("LD_LIBRARY_PATH", "");
	CHECK(step("/s", "9.1.0.70-cuda12") > 0);
	CHECK(is("LD_LIBRARY_PATH", "/s/9.1.0.70-cuda12/lib"));
	CHECK(step("/s", NULL) > 0);
	CHECK(is("LD_LIBRARY_PATH", ""));
	CHECK(ntab == 1);

	/* a previous version from another store root (CUDNN_HOME) is
	 * removed too */
	clear();
	CHECK(step("/old", "8.9.7.29-cuda12") > 0);
	CHECK(step("/new", "9.1.0.70-cuda12") > 0);
	CHECK(is("LD_LIBRARY_PATH", "/new/9.1.0.70-cuda12/lib"));
	CHECK(step("/new", NULL) > 0);
	CHECK(ntab == 0);

	/* CUDNN_HOME belongs to the user: set to /usr while a version is
	 * active, it does not make switching or leaving take /usr/bin out of
	 * PATH or /usr/lib out of LD_LIBRARY_PATH */
	clear();
	set("PATH", "/usr/bin:/bin");
	set("LD_LIBRARY_PATH", "/usr/lib");
	CHECK(step("/s", "9.1.0.70-cuda12") > 0);
	set("CUDNN_HOME", "/usr");
	CHECK(step("/s", "9.13.0.50-cuda12") > 0);
	CHECK(is("PATH", "/usr/bin:/bin"));
	CHECK(is("LD_LIBRARY_PATH", "/s/9.13.0.50-cuda12/lib:/usr/lib"));
	set("CUDNN_HOME", "/usr");
	CHECK(step("/s", NULL) > 0);
	CHECK(is("PATH", "/usr/bin:/bin"));
	CHECK(is("LD_LIBRARY_PATH", "/usr/lib"));
	CHECK(is("CUDNNVM_SAVED_ADDED_LD_LIBRARY_PATH", NULL));

	/* bad ids are refused */
	{
		struct cv_env e = CV_ENV_INIT;
		struct cv_err err = CV_ERR_INIT;
		struct cv_store *st = store_at("/s");
		CHECK(st != NULL);
		CHECK(cv_env_build(&e, st, "../../etc", get, NULL, &err) ==
		      CV_EUSAGE);
		cv_env_release(&e);
		cv_store_free(st);
	}
	clear();
	return TEST_DONE();
}
