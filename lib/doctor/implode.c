/* implode.c: `cudnnvm implode`: everything cudnnvm wrote for this user,
 * so that removing it leaves nothing behind: the store this user owns, the
 * cache, the configuration, shims, the hook's stamps, the blocks `venv`
 * wrote into environments (it keeps a list of them), system mode's
 * loader file; and the lines of shell startup files that load it, which
 * are the user's to edit and are only named. Of each folder only what the
 * inventory proves cudnnvm's goes: a store may be a folder the user keeps
 * other things in. */

#include "activate/activate.h"
#include "base/base.h"
#include "doctor/doctor_int.h"
#include "python/python.h"
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
xdg(char *out, size_t n, const char *var, const char *fallback)
{
	const char *d = getenv(var), *h = getenv("HOME");

	if (d != NULL && *d == '/')
		snprintf(out, n, "%s/cudnnvm", d);
	else
		snprintf(out, n, "%s/%s/cudnnvm", h ? h : "/", fallback);
}

/* Lines of the usual startup files that mention cudnnvm. */
static void
startup_lines(struct cv_strv *out)
{
	static const char *const files[] = {
		".bashrc",
		".bash_profile",
		".profile",
		".zshrc",
		".zprofile",
		".tcshrc",
		".cshrc",
		".config/fish/config.fish",
		".config/powershell/Microsoft.PowerShell_profile.ps1"
	};
	const char *home = getenv("HOME");

	for (size_t i = 0; home && i < sizeof files / sizeof files[0]; i++) {
		char *path = xasprintf("%s/%s", home, files[i]), line[1024];
		FILE *f = fopen(path, "re");
		int no = 0;

		while (f != NULL && fgets(line, sizeof line, f) != NULL) {
			no++;
			line[strcspn(line, "\n")] = '\0';
			if (strstr(line, "cudnnvm") != NULL) {
				char *s =
					xasprintf("%s:%d: %s", path, no, line);
				cv_strv_push(out, s);
				free(s);
			}
		}
		if (f != NULL)
			fclose(f);
		free(path);
	}
}

void
cv_implode_plan(const struct cv_store *st, struct cv_implode *p)
{
	char dir[PATH_MAX];

	char data[PATH_MAX], cache[PATH_MAX];
	const char *root = cv_store_root(st), *sc = cv_store_cache_dir(st);
	int dk = CV_INV_DATA, ck = CV_INV_CACHE | CV_INV_HOOK;

	memset(p, 0, sizeof *p);
	p->inv = xcalloc(1, sizeof *p->inv);
	startup_lines(&p->startup);
	cv_venv_registered(&p->venvs);
	p->sysmode = cv_os_euid() == 0 && cv_sysmode_names(root);
	xdg(data, sizeof data, "XDG_DATA_HOME", ".local/share");
	xdg(cache, sizeof cache, "XDG_CACHE_HOME", ".cache");
	/* one walk of a folder that is two of them (the default store is
	 * the data folder, the default cache the XDG one) */
	if (strcmp(data, root) == 0)
		dk |= CV_INV_STORE;
	else
		cv_inventory_add(p->inv, root, CV_INV_STORE);
	if (strcmp(sc, cache) != 0)
		cv_inventory_add(p->inv, sc, CV_INV_CACHE);
	cv_inventory_add(p->inv, data, dk);
	cv_inventory_add(p->inv, cache, ck);
	xdg(dir, sizeof dir, "XDG_CONFIG_HOME", ".config");
	cv_inventory_add(p->inv, dir, CV_INV_CONFIG);
	cv_hook_dir(dir, sizeof dir);
	cv_inventory_add(p->inv, dir, CV_INV_HOOK);
}

int
cv_implode(const struct cv_implode *p, struct cv_strv *failed)
{
	struct cv_err err = CV_ERR_INIT;
	int r = 0;

	/* the environments first: their blocks run the binary and load
	 * from the store about to go */
	for (size_t i = 0; i < p->venvs.n; i++)
		if (cv_venv_kind(p->venvs.v[i], NULL) > 0 &&
		    cv_venv_write(p->venvs.v[i], NULL, NULL, 0, "", 1, &err) <
			    0) {
			cv_strv_push(failed, err.msg);
			r = CV_ERROR;
		}
	if (p->sysmode && cv_sysmode_disable(&err) < 0) {
		cv_strv_push(failed, err.msg);
		r = CV_ERROR;
	}
	if (cv_inventory_apply(p->inv, failed) < 0)
		r = CV_ERROR;
	return r;
}

void
cv_implode_release(struct cv_implode *p)
{
	if (p->inv != NULL)
		cv_inventory_release(p->inv);
	free(p->inv);
	cv_strv_release(&p->venvs);
	cv_strv_release(&p->startup);
}
