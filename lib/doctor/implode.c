/* implode.c: `cudnnvm implode`: everything cudnnvm wrote for this user,
 * so that removing it leaves nothing behind: the store this user owns, the
 * cache, the configuration, shims, the hook's stamps, the blocks `venv`
 * wrote into environments (it keeps a list of them), system mode's
 * loader file; and the lines of shell startup files that load it, which
 * are the user's to edit and are only named. */
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
#include <sys/stat.h>
#include <unistd.h>

/* Push `path` when it exists and belongs to this user. A folder a
 * configuration named (the store, the cache) whose name does not say
 * cudnn may hold other things: it is named for the user instead. */
static void
push_owned(struct cv_implode *p, const char *path, int configured)
{
	const char *base = strrchr(path, '/');
	struct stat sb;

	for (size_t i = 0; i < p->paths.n; i++)
		if (strcmp(p->paths.v[i], path) == 0)
			return;
	if (lstat(path, &sb) < 0 || sb.st_uid != geteuid())
		return;
	if (configured && (base == NULL || strstr(base, "cudnn") == NULL)) {
		char *s = xasprintf("%s: left in place (its name is not "
				    "cudnnvm's; remove it yourself)",
				    path);
		cv_strv_push(&p->startup, s);
		free(s);
		return;
	}
	cv_strv_push(&p->paths, path);
}

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

	memset(p, 0, sizeof *p);
	startup_lines(&p->startup);
	cv_venv_registered(&p->venvs);
	p->sysmode = geteuid() == 0 && cv_sysmode_names(cv_store_root(st));
	push_owned(p, cv_store_root(st), 1);
	push_owned(p, cv_store_cache_dir(st), 1);
	xdg(dir, sizeof dir, "XDG_DATA_HOME", ".local/share");
	push_owned(p, dir, 0);
	xdg(dir, sizeof dir, "XDG_CACHE_HOME", ".cache");
	push_owned(p, dir, 0);
	xdg(dir, sizeof dir, "XDG_CONFIG_HOME", ".config");
	push_owned(p, dir, 0);
	cv_hook_dir(dir, sizeof dir);
	push_owned(p, dir, 0);
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
	for (size_t i = 0; i < p->paths.n; i++)
		if (cv_fs_rmtree(p->paths.v[i], &err) < 0) {
			cv_strv_push(failed, err.msg);
			r = CV_ERROR;
		}
	return r;
}

void
cv_implode_release(struct cv_implode *p)
{
	cv_strv_release(&p->paths);
	cv_strv_release(&p->venvs);
	cv_strv_release(&p->startup);
}
