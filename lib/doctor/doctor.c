/* doctor.c: findings about the store and the environment that make cuDNN
 * load the wrong files or none: store health, other cuDNN copies that
 * shadow the active one, CUDA toolkit and driver versions, cuBLASLt, and
 * Python environments that bundle their own cuDNN. Each finding says what,
 * why, and the one command that fixes it. Also the catalogue of the
 * classic error messages and their causes. */
#include "activate/activate.h"
#include "base/base.h"
#include "doctor/doctor_int.h"
#include "machine/machine.h"
#include "python/python.h"
#include "store/store.h"
#include "validate/validate.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct findings {
	struct cv_finding *f;
	size_t n, alloc;
	/* folders already reported as holding another cuDNN */
	char **seen;
	size_t nseen;
};

static void add(struct findings *fs, int level, const char *fix,
		const char *why, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void
add(struct findings *fs, int level, const char *fix, const char *why,
    const char *fmt, ...)
{
	struct cv_finding *f;
	va_list ap;

	if (fs->n == fs->alloc) {
		fs->alloc = fs->alloc ? fs->alloc * 2 : 8;
		fs->f = xrealloc(fs->f, fs->alloc * sizeof *fs->f);
	}
	f = &fs->f[fs->n++];
	f->level = level;
	va_start(ap, fmt);
	f->what = xvasprintf(fmt, ap);
	va_end(ap);
	f->why = xstrdup(why ? why : "");
	f->fix = xstrdup(fix ? fix : "");
}

/* ---- store health ----------------------------------------------------- */

static void
check_staging(struct findings *fs, const char *root)
{
	char *dir = cv_path_join(root, ".staging");
	struct cv_dir *d = cv_dir_open(dir);
	const char *e;

	while (d != NULL && (e = cv_dir_next(d, NULL)) != NULL) {
		char *path, *lock, *q, *fix;
		size_t len = strlen(e);

		if (e[0] == '.' ||
		    (len > 5 && strcmp(e + len - 5, ".lock") == 0))
			continue;
		path = cv_path_join(dir, e);
		lock = xasprintf("%s.lock", path);
		/* An install in progress holds the lock: leave it alone. */
		if (cv_fs_lock_busy(lock) != 1) {
			q = cv_shell_quote_word(path);
			fix = xasprintf("rm -rf %s", q);
			add(fs, CV_LEVEL_WARN, fix,
			    "an install was interrupted; the next install also "
			    "sweeps it",
			    "abandoned staging folder %s", path);
			free(fix);
			free(q);
		}
		free(lock);
		free(path);
	}
	cv_dir_close(d);
	free(dir);
}

static void
check_current(struct findings *fs, const struct cv_doctor_ctx *ctx,
	      const char *root)
{
	char *cur = cv_path_join(root, "current"), target[PATH_MAX];
	struct cv_stat st;
	long n;

	if (cv_os_lstat(cur, &st) < 0) {
		free(cur);
		return;
	}
	if (st.kind != CV_KIND_LINK) {
		/* moved aside, never deleted: it may hold someone's files */
		char *aside = xasprintf("%s.moved", cur);
		char *q = cv_shell_quote_word(cur),
		     *qa = cv_shell_quote_word(aside);
		char *pick = cv_hint_pick_global(ctx->store);
		char *fix = xasprintf("mv %s %s && %s", q, qa, pick);
		add(fs, CV_LEVEL_ERROR, fix,
		    "current must be a symbolic link to an install id",
		    "%s is not a symbolic link", cur);
		free(fix);
		free(pick);
		free(qa);
		free(q);
		free(aside);
		free(cur);
		return;
	}
	if ((n = cv_os_readlink(cur, target, sizeof target)) < 0)
		target[0] = '\0';
	if (strcmp(target, CV_SYSTEM) == 0) {
		/* `global system`: no version by default, on purpose */
	} else if (n > 0 &&
		   cv_store_system_link_id(ctx->store, target) != NULL) {
		/* a user's global in the system store: the link global
		 * makes; dangling once the admin removed that version */
		if (cv_os_stat(cur, &st) < 0 || st.kind != CV_KIND_DIR) {
			char *pick = cv_hint_pick_global(ctx->store);

			add(fs, CV_LEVEL_WARN, pick,
			    "its administrator removed that version; nothing "
			    "is active until another is chosen ('cudnnvm "
			    "global --unset' goes back to the system's "
			    "default)",
			    "the global version %s is no longer in the system "
			    "store",
			    cv_store_system_link_id(ctx->store, target));
			free(pick);
		}
	} else if (strchr(target, '/') != NULL || target[0] == '.' || n <= 0) {
		add(fs, CV_LEVEL_ERROR, "cudnnvm global --unset",
		    "cudnnvm only makes links to a folder of the store; "
		    "someone else changed it",
		    "foreign current link: %s -> %s", cur, target);
	} else if (cv_os_stat(cur, &st) < 0 || st.kind != CV_KIND_DIR) {
		/* the version it names, installed again, keeps the default */
		struct cv_version v;
		char *fix = cv_install_id_parse(&v, target, NULL) == 0
				    ? xasprintf("cudnnvm install %s", target)
				    : xstrdup("cudnnvm global --unset");
		add(fs, CV_LEVEL_ERROR, fix,
		    "the version it names is not installed (removed by hand?)",
		    "dangling current link: %s -> %s", cur, target);
		free(fix);
	}
	free(cur);
}

/* Windows has no ld.so, no mode bits for other users and no bash hook:
 * the findings about those are Linux's (Windows's are check_windows's) */
static int
on_windows(void)
{
	return strcmp(cv_os_family(), "windows") == 0;
}

/* The first file under `dir` (recursively) that this user cannot read,
 * or (where files have mode bits) that is not world-readable. */
static int
find_unreadable(const char *dir, char *out, size_t n, int depth)
{
	struct cv_dir *d = cv_dir_open(dir);
	const char *e;
	int found = 0;

	if (d == NULL) {
		if (errno == EACCES) {
			snprintf(out, n, "%s", dir);
			return 1;
		}
		return 0;
	}
	while (!found && (e = cv_dir_next(d, NULL)) != NULL) {
		struct cv_stat st;
		char *p;

		p = cv_path_join(dir, e);
		if (cv_os_lstat(p, &st) == 0) {
			if (st.kind == CV_KIND_DIR && depth < 8)
				found = find_unreadable(p, out, n, depth + 1);
			else if (st.kind == CV_KIND_FILE &&
				 ((!on_windows() && (st.perm & 0444) != 0444) ||
				  cv_os_access(p, CV_ACCESS_READ) != 0)) {
				snprintf(out, n, "%s", p);
				found = 1;
			}
		}
		free(p);
	}
	cv_dir_close(d);
	return found;
}

/* A version whose folders or files another user could change: use
 * refuses it (cv_store_check_trusted); say it here with its fix. */
static void
check_trust(struct findings *fs, const struct cv_store *st, const char *id)
{
	static const char why[] =
		"whoever can change it can change the libraries root loads; "
		"env, exec, use, global and validate refuse this version";
	struct cv_version v;
	struct cv_trust t;
	char *fix;

	if (st == NULL || cv_install_id_parse(&v, id, NULL) < 0 ||
	    !cv_store_trust(st, id, &t))
		return;
	fix = cv_store_trust_fix(st, id, &t);
	if (t.not_folder)
		add(fs, CV_LEVEL_ERROR, fix, why, "%s: %s is not a real folder",
		    id, t.path);
	else if (t.other_owner)
		add(fs, CV_LEVEL_ERROR, fix, why,
		    "%s: %s belongs to another user (uid %ld)", id, t.path,
		    t.uid);
	else
		add(fs, CV_LEVEL_ERROR, fix, why,
		    "%s: %s is writable by other users", id, t.path);
	free(fix);
}

static void
check_installs(struct findings *fs, const char *root,
	       const struct cv_store *store)
{
	struct cv_dir *d = cv_dir_open(root);
	const char *e;

	/* a user who has no store of their own yet (a fresh user, or one
	 * who uses only the system store's versions) gets an info finding,
	 * never an error */
	if (d == NULL) {
		int saved = errno;
		char *q = cv_shell_quote_word(root), *fix;

		/* no fix: "no cuDNN version is active" names the one
		 * install a listing confirms */
		if (saved == ENOENT)
			add(fs, CV_LEVEL_OK, NULL,
			    "the store is made by the first install",
			    "the store %s does not exist yet: no version is "
			    "installed",
			    root);
		else {
			fix = saved == EACCES
				      ? xasprintf(
						"sudo chmod a+rx %s   (or use "
						"a store of your own: export "
						"CUDNNVM_STORE=\"$HOME/.local/"
						"share/cudnnvm\")",
						q)
				      : xasprintf("ls -ld %s", q);
			add(fs, CV_LEVEL_ERROR, fix,
			    "the store folder cannot be listed, so no installed "
			    "version can be used",
			    "cannot read the store %s: %s", root,
			    strerror(saved));
			free(fix);
		}
		free(q);
		return;
	}
	while ((e = cv_dir_next(d, NULL)) != NULL) {
		char *dir, *meta, bad[PATH_MAX];
		struct cv_stat st;

		struct cv_version v;

		/* a version's folder is named by its install id: deps/ (the
		 * dependency store), modulefiles/ and what else a user keeps
		 * there are no installs, and no install fix applies to them */
		if (e[0] == '.' || cv_install_id_parse(&v, e, NULL) < 0)
			continue;
		dir = cv_path_join(root, e);
		if (cv_os_lstat(dir, &st) < 0 || st.kind != CV_KIND_DIR) {
			free(dir);
			continue;
		}
		check_trust(fs, store, e);
		meta = cv_path_join(dir, "cudnnvm.json");
		if (cv_os_access(meta, CV_ACCESS_EXISTS) != 0) {
			char *fix = xasprintf("cudnnvm install %s --force", e);
			add(fs, CV_LEVEL_WARN, fix,
			    "every install has a cudnnvm.json; this folder "
			    "was made or changed by hand",
			    "%s has no cudnnvm.json", dir);
			free(fix);
		}
		if (find_unreadable(dir, bad, sizeof bad, 0)) {
			char *q = cv_shell_quote_word(dir), *fix;
			fix = xasprintf("sudo chmod -R a+rX %s", q);
			add(fs, CV_LEVEL_ERROR, fix,
			    "users other than its owner cannot load it (the "
			    "classic missing chmod a+r after copying cuDNN "
			    "by hand)",
			    "unreadable file in %s: %s", e, bad);
			free(fix);
			free(q);
		}
		free(meta);
		free(dir);
	}
	cv_dir_close(d);
}

/* The versions of the writable store from all[from..n) whose record names
 * the store's dependency folder `dir` (deps/<name>), each reinstalled with
 * its dependencies after the folder is gone: the folder is shared, so it
 * is replaced once for them all. */
static void
dep_reinstalls(struct cv_buf *fix, const struct cv_installed *all, size_t n,
	       size_t from, const char *dir)
{
	for (size_t i = from; i < n; i++)
		for (int k = 0; k < all[i].ndeps; k++)
			if (all[i].deps[k].in_store &&
			    strcmp(all[i].deps[k].dir, dir) == 0) {
				cv_buf_addf(fix,
					    " && cudnnvm install %s --deps "
					    "always",
					    all[i].id);
				break;
			}
}

/* A dependency folder whose libraries are not what its record says (an
 * archive of another component or release filed under its name by older
 * code or by hand): every version of that CUDA major would share it, and
 * an install would take it again as the store's copy. Removing it is the
 * fix; the install after it puts a copy of the right release back. */
static void
check_dep_folders(struct findings *fs, const struct cv_store *st,
		  const char *root)
{
	struct cv_installed *all = NULL;
	struct cv_strv seen = CV_STRV_INIT;
	size_t n = 0;

	if (st == NULL || cv_store_list(st, &all, &n, NULL) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		if (!cv_store_has_own(st, all[i].id))
			continue;
		for (int k = 0; k < all[i].ndeps; k++) {
			const struct cv_dep *d = &all[i].deps[k];
			struct cv_err why = CV_ERR_INIT;
			struct cv_buf fix = CV_BUF_INIT;
			char *folder, *lib;
			int dup = 0;

			if (!d->in_store)
				continue;
			for (size_t j = 0; j < seen.n; j++)
				dup |= strcmp(seen.v[j], d->dir) == 0;
			if (dup)
				continue;
			cv_strv_push(&seen, d->dir);
			folder = cv_path_join(root, d->dir);
			lib = cv_path_join(folder, "lib");
			if (cv_os_access(lib, CV_ACCESS_EXISTS) == 0 &&
			    cv_deps_folder_agrees(lib, d, &why) < 0) {
				cv_buf_adds(&fix, "rm -rf ");
				cv_shell_quote(&fix, CV_SHELL_SH, folder, NULL);
				dep_reinstalls(&fix, all, n, i, d->dir);
				add(fs, CV_LEVEL_ERROR, fix.buf,
				    "every version of that CUDA major shares "
				    "the folder and an install takes it again "
				    "as the store's copy; cuDNN loads what it "
				    "holds",
				    "the dependency folder %s is not the %s %s "
				    "its record says: %s",
				    folder, d->name, d->version, why.msg);
			}
			cv_buf_release(&fix);
			free(lib);
			free(folder);
		}
	}
	cv_strv_release(&seen);
	free(all);
}

/* ---- other cuDNN copies ----------------------------------------------- */

static int
seen_before(struct findings *fs, const char *dir)
{
	char real[PATH_MAX];

	if (cv_os_realpath(dir, real, sizeof real) == NULL)
		snprintf(real, sizeof real, "%s", dir);
	for (size_t i = 0; i < fs->nseen; i++)
		if (strcmp(fs->seen[i], real) == 0)
			return 1;
	fs->seen = xrealloc(fs->seen, (fs->nseen + 1) * sizeof *fs->seen);
	fs->seen[fs->nseen++] = xstrdup(real);
	return 0;
}

/* The libcudnn.so.N that `dir` holds ("libcudnn.so.9"), or NULL. */
static char *
cudnn_in(const char *dir)
{
	struct cv_dir *d = cv_dir_open(dir);
	const char *e;
	char *found = NULL;

	while (d != NULL && found == NULL && (e = cv_dir_next(d, NULL)) != NULL)
		if (strncmp(e, "libcudnn.so.", 12) == 0 && e[12] >= '0' &&
		    e[12] <= '9')
			found = xstrndup(e, 12 + strspn(e + 12, "0123456789"));
	cv_dir_close(d);
	return found;
}

static int
same_dir(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (a == NULL || b == NULL)
		return 0;
	if (cv_os_realpath(a, ra, sizeof ra) == NULL ||
	    cv_os_realpath(b, rb, sizeof rb) == NULL)
		return strcmp(a, b) == 0;
	return strcmp(ra, rb) == 0;
}

static void
check_ld_path(struct findings *fs, const struct cv_doctor_ctx *ctx,
	      const char *active_lib)
{
	const char *ld = getenv("LD_LIBRARY_PATH");
	char *copy, *save = NULL;
	int active_seen = 0;

	if (ld == NULL || *ld == '\0')
		return;
	copy = xstrdup(ld);
	for (char *d = strtok_r(copy, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		char *so, *rest, *q, *fix;

		if (same_dir(d, active_lib)) {
			active_seen = 1;
			continue;
		}
		so = cudnn_in(d);
		if (so == NULL || seen_before(fs, d)) {
			free(so);
			continue;
		}
		rest = cv_env_path_remove(ld, d);
		q = cv_shell_quote_word(rest);
		fix = *rest ? xasprintf("export LD_LIBRARY_PATH=%s", q)
			    : xstrdup("unset LD_LIBRARY_PATH");
		if (ctx->active_id != NULL && !active_seen)
			add(fs, CV_LEVEL_ERROR, fix,
			    "it comes before the active version on "
			    "LD_LIBRARY_PATH, so programs load it instead "
			    "(cuDNN 9 even takes its sub-libraries from it: "
			    "a mixed load)",
			    "LD_LIBRARY_PATH entry %s holds another cuDNN "
			    "(%s)",
			    d, so);
		else
			add(fs, CV_LEVEL_WARN, fix,
			    ctx->active_id
				    ? "a sub-library missing from the active "
				      "version would be taken from it"
				    : "no version is active, so programs load "
				      "this one",
			    "LD_LIBRARY_PATH entry %s holds another cuDNN "
			    "(%s)",
			    d, so);
		free(fix);
		free(q);
		free(rest);
		free(so);
	}
	free(copy);
}

/* `cudnnvm import ROOT` when import can tell the version of the cuDNN in
 * libdir as it does (lib/install/import.c read_version: a versioned
 * libcudnn.so.N.x.y behind libcudnn.so.N, or cudnn_version.h / cudnn.h in
 * ROOT/include or beside the libraries), else NULL: it would ask for
 * --version, which doctor cannot know. */
/* Whether the store holds a copy imported from root already. */
static int
imported_from(const struct cv_store *st, const char *root)
{
	struct cv_installed *all = NULL;
	char buf[PATH_MAX], *src;
	const char *real = cv_os_realpath(root, buf, sizeof buf);
	size_t n = 0;
	int yes = 0;

	if (st == NULL || real == NULL || cv_store_list(st, &all, &n, NULL) < 0)
		return 0;
	src = xasprintf("import:%s", real);
	for (size_t i = 0; i < n && !yes; i++)
		yes = strcmp(all[i].source, src) == 0;
	free(all);
	free(src);
	return yes;
}

static char *
import_fix(const struct cv_store *st, const char *root, const char *libdir,
	   const char *soname)
{
	static const char *const heads[] = { "cudnn_version.h", "cudnn.h" };
	char buf[PATH_MAX], *so = cv_path_join(libdir, soname),
			    *real = cv_os_realpath(so, buf, sizeof buf);
	const char *b = real ? cv_path_base(real) : NULL;
	int known = 0, dots = 0;

	for (const char *s = b ? strstr(b, ".so.") : NULL; s && *s; s++)
		dots += *s == '.';
	known = dots == 4; /* ".so.9.19.0" */
	for (int i = 0; !known && i < 2; i++) {
		char *inc = cv_path_join(root, "include"),
		     *h1 = cv_path_join(inc, heads[i]),
		     *h2 = cv_path_join(libdir, heads[i]);
		known = cv_os_access(h1, CV_ACCESS_READ) == 0 ||
			cv_os_access(h2, CV_ACCESS_READ) == 0;
		free(h2);
		free(h1);
		free(inc);
	}
	free(so);
	if (!known || imported_from(st, root))
		return NULL;
	so = cv_shell_quote_word(root);
	real = xasprintf("cudnnvm import %s", so);
	free(so);
	return real;
}

/* Whether libdir is a CUDA toolkit's (its folder, or the one above, says
 * so in version.json or holds bin/nvcc), as /usr/local/cuda-13.0/lib is. */
static int
toolkit_lib(const char *libdir)
{
	char up[PATH_MAX], *slash;
	int yes = 0;

	snprintf(up, sizeof up, "%s", libdir);
	for (int i = 0; i < 2 && !yes; i++) {
		char *v = cv_path_join(up, "version.json"),
		     *n = cv_path_join(up, "bin/nvcc");
		yes = cv_os_access(v, CV_ACCESS_EXISTS) == 0 ||
		      cv_os_access(n, CV_ACCESS_EXISTS) == 0;
		free(n);
		free(v);
		if ((slash = strrchr(up, '/')) == NULL || slash == up)
			break;
		*slash = '\0';
	}
	return yes;
}

/* The command that takes the cuDNN of `libdir` (whose install root is
 * `root`) under management and removes the copy, so that no program loads
 * it by chance any more. A distribution's folder is left to its package
 * manager. */
static char *
removal_fix(const struct cv_store *st, const char *root, const char *libdir,
	    const char *soname, int in_cache)
{
	char *qr = cv_shell_quote_word(root), *ql = cv_shell_quote_word(libdir),
	     *fix;

	char *import = import_fix(st, root, libdir, soname);

	/* sudo is no fix for a user without it: adopting the copy is; and
	 * nothing when import could not tell the version */
	if (import == NULL || cv_os_euid() != 0)
		fix = import;
	else if (strncmp(libdir, "/usr/lib", 8) == 0 ||
		 strncmp(libdir, "/lib", 4) == 0)
		fix = xasprintf("cudnnvm import %s && sudo apt-get remove "
				"\"$(dpkg -S %s/%s | cut -d: -f1)\"",
				qr, ql, soname);
	else if (strcmp(root, libdir) != 0)
		fix = xasprintf("cudnnvm import %s && sudo rm -f %s/libcudnn* "
				"%s/include/cudnn*.h%s",
				qr, ql, qr,
				in_cache ? " && sudo ldconfig" : "");
	else
		fix = xasprintf(
			"cudnnvm import %s && sudo rm -f %s/libcudnn*%s", qr,
			ql, in_cache ? " && sudo ldconfig" : "");
	if (fix != import)
		free(import);
	free(ql);
	free(qr);
	return fix;
}

struct incache {
	const char *dir;
	int found;
};

static void
incache_cb(void *payload, const char *soname, const char *path)
{
	struct incache *ic = payload;
	char dir[PATH_MAX], *slash;

	if (ic->found || strncmp(soname, "libcudnn.so.", 12) != 0)
		return;
	snprintf(dir, sizeof dir, "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL)
		return;
	*slash = '\0';
	ic->found = same_dir(dir, ic->dir);
}

/* Whether the loader cache (ldconfig) answers libcudnn.so.N from `dir`. */
static int
in_ldcache(const char *dir)
{
	struct incache ic = { dir, 0 };

	cv_ldcache_each(incache_cb, &ic);
	return ic.found;
}

struct ldcheck {
	struct findings *fs;
	const char *root;
	int active; /* a version of the store is active */
	const struct cv_store *st;
};

static void
ldcheck_cb(void *payload, const char *soname, const char *path)
{
	struct ldcheck *lc = payload;
	char dir[PATH_MAX];
	char *slash, *fix;

	if (strncmp(soname, "libcudnn.so.", 12) != 0)
		return;
	snprintf(dir, sizeof dir, "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		return;
	*slash = '\0';
	if (strncmp(dir, lc->root, strlen(lc->root)) == 0 ||
	    seen_before(lc->fs, dir))
		return;
	/* a toolkit's own copy (/usr/local/cuda-13.0/lib): NVIDIA's
	 * layout, never removed by a fix */
	if (toolkit_lib(dir)) {
		char *up = xstrdup(dir), *cut = strrchr(up, '/');
		if (cut != NULL && cut != up)
			*cut = '\0';
		fix = lc->active ? NULL : import_fix(lc->st, up, dir, soname);
		add(lc->fs, CV_LEVEL_OK, fix,
		    lc->active ? "the active version comes first wherever its "
				 "environment is applied; only a program "
				 "started without it loads the toolkit's"
			       : "with no version active, programs load this "
				 "one; import adopts it beside the versions "
				 "cudnnvm installs",
		    "the CUDA toolkit's own cuDNN in %s (%s), which the "
		    "loader cache lists",
		    dir, soname);
		free(fix);
		free(up);
		return;
	}
	fix = removal_fix(lc->st, dir, dir, soname, 1);
	add(lc->fs, CV_LEVEL_WARN, fix,
	    "it is in the system loader cache (ldconfig), so every "
	    "program without the active version on LD_LIBRARY_PATH "
	    "loads it (eval \"$(cudnnvm env)\" only hides it in this "
	    "shell)",
	    "system cuDNN in %s (%s)", dir, soname);
	free(fix);
}

static void
check_ldconfig(struct findings *fs, const char *root, int active,
	       const struct cv_store *st)
{
	struct ldcheck lc = { fs, root, active, st };

	cv_ldcache_each(ldcheck_cb, &lc);
}

/* System mode: say it is on, and which cache entries the loader takes
 * before the store's copy (ld.so.cache answers a soname with its first
 * entry). */
struct sysfirst {
	char sonames[8][32];
	size_t n;
	struct findings *fs;
	const char *libdir;
};

static void
sysfirst_cb(void *payload, const char *soname, const char *path)
{
	struct sysfirst *sf = payload;
	char dir[PATH_MAX];
	char *slash;

	if (strncmp(soname, "libcudnn.so.", 12) != 0)
		return;
	for (size_t i = 0; i < sf->n; i++)
		if (strcmp(sf->sonames[i], soname) == 0)
			return; /* only the first entry counts */
	if (sf->n < 8)
		snprintf(sf->sonames[sf->n++], sizeof sf->sonames[0], "%s",
			 soname);
	snprintf(dir, sizeof dir, "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	if (strcmp(dir, sf->libdir) != 0) {
		char *fix = removal_fix(NULL, dir, dir, soname, 1);
		add(sf->fs, CV_LEVEL_WARN, fix,
		    "system mode is on, but the loader cache answers this "
		    "soname with another copy first; remove that copy (or "
		    "its /etc/ld.so.conf.d entry) and run ldconfig",
		    "the loader picks %s for %s before the store's %s", path,
		    soname, sf->libdir);
		free(fix);
	}
}

static void
check_sysmode(struct findings *fs, const char *root, const char *active_id)
{
	char named[PATH_MAX], *want;
	struct sysfirst sf;
	int r = cv_sysmode_read(named, sizeof named, NULL);

	if (r == 0) {
		char *q = cv_shell_quote_word(cv_sysmode_conf_path());
		char *fix = xasprintf("sudo rm %s && sudo ldconfig", q);
		add(fs, CV_LEVEL_WARN, fix,
		    "cudnnvm did not write it and will not change it; remove "
		    "it when nothing else needs it, then system mode can be "
		    "turned on again",
		    "%s exists but was not written by cudnnvm",
		    cv_sysmode_conf_path());
		free(fix);
		free(q);
		return;
	}
	if (r != 1)
		return;
	want = root != NULL ? xasprintf("%s/current/lib", root) : NULL;
	if (want != NULL && strcmp(want, named) != 0) {
		/* the global version of this store, made the system's */
		char *fix =
			active_id != NULL
				? xasprintf("sudo cudnnvm global --system %s",
					    active_id)
				: xstrdup("sudo cudnnvm global --system "
					  "--unset");
		add(fs, CV_LEVEL_WARN, fix,
		    "the machine's loader follows another store than this one",
		    "system mode names %s, not this store's %s", named, want);
		free(fix);
	} else
		/* nothing to fix: a fix line is a command to run */
		add(fs, CV_LEVEL_OK, NULL,
		    "programs find the global version by soname, with no "
		    "LD_LIBRARY_PATH ('sudo cudnnvm global --system --unset' "
		    "turns it off)",
		    "system mode is on: %s names %s", cv_sysmode_conf_path(),
		    named);
	memset(&sf, 0, sizeof sf);
	sf.fs = fs;
	sf.libdir = named;
	cv_ldcache_each(sysfirst_cb, &sf);
	free(want);
}

/* A CUDA toolkit that carries its own cuDNN is how NVIDIA ships its
 * CUDA images: what programs load when no version is active, and beside an
 * active version harmless wherever its environment is applied. So it is a
 * note, and its one fix adopts the copy; removing the toolkit's files is
 * never offered. */
static void
check_toolkit_dirs(struct findings *fs, const struct cv_doctor_ctx *ctx)
{
	/* CUDNNVM_TEST_CUDA_ROOT: the tests' stand-in for /usr/local/cuda,
	 * on a machine that has one of its own */
	const char *test = getenv("CUDNNVM_TEST_CUDA_ROOT");
	const char *dirs[4] = { getenv("CUDA_HOME"), getenv("CUDA_PATH"),
				test ? test : "/usr/local/cuda", NULL };

	for (int i = 0; i < 3; i++) {
		char *lib, *so;
		int fresh;

		if (dirs[i] == NULL || *dirs[i] == '\0')
			continue;
		lib = cv_path_join(dirs[i], "lib64");
		so = cudnn_in(lib);
		fresh = so != NULL && !seen_before(fs, lib);

		if (fresh && ctx->active_id != NULL)
			add(fs, CV_LEVEL_OK, NULL,
			    "the active version comes first wherever its "
			    "environment is applied (the shell hook, env, "
			    "exec, a venv pin); only a program started "
			    "without it loads the toolkit's",
			    "the CUDA toolkit folder %s holds its own cuDNN "
			    "(%s)%s",
			    lib, so,
			    in_ldcache(lib) ? ", which the loader cache lists"
					    : "");
		else if (fresh) {
			char *fix = import_fix(ctx->store, dirs[i], lib, so);
			add(fs, CV_LEVEL_OK, fix,
			    "with no version active, programs load this one; "
			    "import adopts it as a version beside the ones "
			    "cudnnvm installs, the toolkit left as it is",
			    "the CUDA toolkit folder %s holds its own cuDNN "
			    "(%s)%s",
			    lib, so,
			    in_ldcache(lib) ? ", which the loader cache lists"
					    : "");
			free(fix);
		}
		free(so);
		free(lib);
	}
}

/* ---- CUDA toolkit, driver, cuBLASLt ----------------------------------- */

/* The fix that activates the active release's build for CUDA `cuda`. */
static char *
activate_variant(const struct cv_doctor_ctx *ctx, int cuda)
{
	struct cv_version v;

	if (cv_install_id_parse(&v, ctx->active_id, NULL) < 0) {
		memset(&v, 0, sizeof v);
		v.nparts = 1;
		v.part[0] = (unsigned long)ctx->active_major;
	}
	v.cuda = cuda;
	return cv_hint_activate_known(ctx->store, &v);
}

/* The fix for a missing libcublasLt.so.<active CUDA>: the same release
 * built for a CUDA whose cuBLASLt this machine has, else NVIDIA's wheel
 * of it, put on the library path where pip unpacked it (the layout of
 * the wheels differs between CUDA majors, so the file is looked up). */
static char *
cublaslt_fix(const struct cv_doctor_ctx *ctx)
{
	char so[64], *lt;

	for (int cuda = 13; cuda >= 11; cuda--) {
		if (cuda == ctx->active_cuda)
			continue;
		snprintf(so, sizeof so, "libcublasLt.so.%d", cuda);
		if ((lt = cv_machine_find_lib(so)) != NULL) {
			char *fix = activate_variant(ctx, cuda);
			free(lt);
			if (fix != NULL)
				return fix;
		}
	}
	/* cudnnvm installs it beside the version (NVIDIA's CUDA redist
	 * tree), which every activation then puts on the library path */
	return xasprintf("cudnnvm install %s --deps always", ctx->active_id);
}

/* Whether the active version keeps its cuBLASLt in the store (deps/),
 * which its activation puts on the library path. */
static int
cublaslt_in_store(const struct cv_doctor_ctx *ctx, const char *so)
{
	struct cv_installed inst;
	int ok = 0;

	if (ctx->active_dir == NULL ||
	    cv_store_read_meta(ctx->active_dir, &inst, NULL) < 0)
		return 0;
	for (int i = 0; i < inst.ndeps && !ok; i++) {
		char *lib = cv_store_dep_libdir(ctx->active_dir, &inst.deps[i]),
		     *p = lib ? cv_path_join(lib, so) : NULL;
		ok = p != NULL && cv_os_access(p, CV_ACCESS_READ) == 0;
		free(p);
		free(lib);
	}
	return ok;
}

/* Whether the active version records a store folder of cuBLAS whose
 * libraries disagree with its record: check_dep_folders says so with the
 * fix that replaces it, where installing the dependencies again would
 * record that folder once more. */
static int
cublaslt_folder_bad(const struct cv_doctor_ctx *ctx)
{
	struct cv_installed inst;
	int bad = 0;

	if (ctx->active_dir == NULL ||
	    cv_store_read_meta(ctx->active_dir, &inst, NULL) < 0)
		return 0;
	for (int i = 0; i < inst.ndeps && !bad; i++) {
		char *lib = cv_store_dep_libdir(ctx->active_dir, &inst.deps[i]);
		bad = lib != NULL &&
		      strcmp(inst.deps[i].name, "libcublas") == 0 &&
		      cv_os_access(lib, CV_ACCESS_EXISTS) == 0 &&
		      cv_deps_folder_agrees(lib, &inst.deps[i], NULL) < 0;
		free(lib);
	}
	return bad;
}

static void
check_cuda(struct findings *fs, const struct cv_doctor_ctx *ctx)
{
	const struct cv_machine *m =
		cv_machine_get(CV_MACHINE_TOOLKIT | CV_MACHINE_DRIVER);
	char *fix, so[64], *lt;
	int tk = m->toolkit.major;
	const char *where = m->toolkit.detail;

	if (ctx->active_id == NULL || ctx->active_cuda <= 0)
		return;
	if (tk > 0 && tk != ctx->active_cuda) {
		/* the same release built for the toolkit's major */
		fix = activate_variant(ctx, tk);
		add(fs, CV_LEVEL_WARN, fix,
		    "a cuDNN build works with the CUDA major it was built for; "
		    "programs built with this toolkit need the matching "
		    "variant",
		    "the CUDA toolkit is %d (%s) but the active cuDNN %s is "
		    "the cuda%d variant",
		    tk, where, ctx->active_id, ctx->active_cuda);
		free(fix);
	}
	/* The kernel module's version (machine.c): cheap and needs no GPU
	 * library. */
	if (m->driver_version[0] != '\0' || m->driver.major > 0) {
		const char *min = cv_machine_min_driver(ctx->active_cuda);
		const char *ver = m->driver_version[0] ? m->driver_version
						       : m->driver.detail;

		/* driver.major 0 with a version: older than any CUDA 10 */
		if (m->driver.major < ctx->active_cuda) {
			char *why = xasprintf(
				"CUDA %d needs driver %s or newer; with an older "
				"one cuDNN fails with CUDNN_STATUS_NOT_"
				"INITIALIZED or 'driver version is insufficient'",
				ctx->active_cuda, min ? min : "a newer one");
			/* the same release built for a CUDA this driver runs;
			 * a driver older than every variant needs updating */
			fix = m->driver.major >= 11
				      ? activate_variant(ctx, m->driver.major)
				      : xstrdup("sudo apt-get install "
						"nvidia-driver");
			add(fs, CV_LEVEL_ERROR, fix, why,
			    "the NVIDIA driver %s is too old for %s", ver,
			    ctx->active_id);
			free(fix);
			free(why);
		}
	}
	if (ctx->active_major >= 8) {
		snprintf(so, sizeof so, "libcublasLt.so.%d", ctx->active_cuda);
		lt = cublaslt_in_store(ctx, so) ? xstrdup(so)
						: cv_machine_find_lib(so);
		if (lt == NULL && !cublaslt_folder_bad(ctx)) {
			char *why = xasprintf(
				"cuDNN %d loads %s at run time; without it the "
				"first convolution aborts (\"Cannot load symbol "
				"cublasLtCreate\")",
				ctx->active_major, so);
			fix = cublaslt_fix(ctx);
			/* without a driver nothing here runs a convolution */
			add(fs,
			    m->driver_version[0] || m->driver.major > 0
				    ? CV_LEVEL_ERROR
				    : CV_LEVEL_OK,
			    fix, why, "%s is not found", so);
			free(fix);
			free(why);
		}
		free(lt);
	}
}

/* ---- Python environments ---------------------------------------------- */

/* A command that makes the interpreter `exe` (of the environment
 * `prefix`) load the active cuDNN first: pin the environment when it is a
 * virtualenv or conda env, else a shim in front of it on PATH. */
static char *
preload_fix(const struct cv_doctor_ctx *ctx, const char *exe,
	    const char *prefix)
{
	const char *base = strrchr(exe, '/');
	char *q, *fix, *activate = NULL;

	/* both need a version: with none active, activate one first */
	if (ctx->active_id == NULL)
		activate = cv_hint_pick_global(ctx->store);
	if (prefix != NULL && *prefix != '\0' &&
	    cv_venv_kind(prefix, NULL) > 0) {
		q = cv_shell_quote_word(prefix);
		fix = xasprintf("%s%scudnnvm venv --path %s",
				activate ? activate : "",
				activate ? " && " : "", q);
	} else {
		q = cv_shell_quote_word(base != NULL ? base + 1 : exe);
		fix = xasprintf("%s%scudnnvm shim add %s",
				activate ? activate : "",
				activate ? " && " : "", q);
	}
	free(activate);
	free(q);
	return fix;
}

/* The site-packages folder `sp` of the interpreter `exe`: a framework's
 * own cuDNN there is a finding. */
static void
check_site(struct findings *fs, const struct cv_doctor_ctx *ctx,
	   const char *exe, const char *prefix, const char *sp)
{
	static const char *const sub[] = { "nvidia/cudnn/lib", "torch/lib",
					   NULL };

	for (int i = 0; sub[i]; i++) {
		char *dir = cv_path_join(sp, sub[i]);
		char *so = cudnn_in(dir);
		if (so != NULL && !seen_before(fs, dir)) {
			/* never advise removing the framework's copy: it
			 * needs it whenever nothing is preloaded */
			char *fix = preload_fix(ctx, exe, prefix);
			add(fs, CV_LEVEL_WARN, fix,
			    "torch and TensorFlow load the cuDNN of their own "
			    "environment through RPATH, not the active "
			    "version; with only LD_LIBRARY_PATH set, cuDNN 9 "
			    "mixes the two. cudnnvm exec and a venv pinned "
			    "with cudnnvm venv preload the active version so "
			    "the framework binds to it alone; keep the "
			    "framework's own copy",
			    "%s has its own cuDNN in %s (%s)", exe, dir, so);
			free(fix);
		}
		free(so);
		free(dir);
	}
}

static void
check_python(struct findings *fs, const struct cv_doctor_ctx *ctx)
{
	static const char script[] =
		"import site,sys; print(sys.executable); print(sys.prefix); "
		"[print(p) for p in site.getsitepackages()+"
		"[site.getusersitepackages()]]";
	static const char *const argv[] = { "python3", "-I", "-c", script,
					    NULL };
	struct cv_child child = CV_CHILD_INIT;
	struct cv_buf out = CV_BUF_INIT;
	char *line, *next, *exe = NULL, *prefix = NULL;

	child.argv = argv;
	child.flags = CV_CHILD_SEARCH_PATH | CV_CHILD_STDIN_NULL |
		      CV_CHILD_STDERR_NULL;
	child.timeout_s = 5;
	child.out = &out;
	/* what it printed counts even when it failed later; no python3 is
	 * nothing to report */
	cv_child_run(&child, NULL);
	for (line = out.buf; *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		if (exe == NULL)
			exe = line;
		else if (prefix == NULL)
			prefix = line;
		else
			check_site(fs, ctx, exe, prefix, line);
	}
	cv_buf_release(&out);
}

/* 1 when `inst` has a clean validation cached for this machine's driver,
 * GPUs and cuBLASLt, as `cudnnvm validate` would find it. */
static int
validated_here(const struct cv_store *st, const struct cv_installed *inst)
{
	struct cv_validation v;
	char soname[32], *dir, *cublaslt, *key;
	int ok;

	if (cv_store_cache_dir(st) == NULL)
		return 0;
	snprintf(soname, sizeof soname, "libcublasLt.so.%d",
		 inst->version.cuda);
	dir = cv_store_dir(st, inst->id);
	cublaslt = cv_machine_find_lib(soname);
	key = cv_validate_cache_key(dir, inst->id, 0, cublaslt);
	ok = cv_validate_cache_get(cv_store_cache_dir(st), key, &v) == 0 &&
	     cv_validation_failed(&v) < 0;
	free(key);
	free(cublaslt);
	free(dir);
	return ok;
}

/* The version of a major other than v's that the .pth hook of `prefix`
 * pins (cudnnvm venv 9.19 8.9), loaded whatever is active, into *out and
 * id: 1, or 0 when it pins none. */
static int
hook_pin_beside(const char *prefix, const struct cv_version *v,
		struct cv_version *out, char id[64])
{
	char pins[CV_VENV_MAXPINS][64];
	int n = prefix[0] ? cv_preload_pins(prefix, pins, CV_VENV_MAXPINS) : 0;

	for (int i = 0; i < n; i++)
		if (cv_install_id_parse(out, pins[i], NULL) == 0 &&
		    out->part[0] != v->part[0]) {
			snprintf(id, 64, "%s", pins[i]);
			return 1;
		}
	return 0;
}

/* The frameworks of the Python environment in play (files only): an
 * active version one of them cannot load, and the mixed load that a
 * bundled copy plus LD_LIBRARY_PATH naming another cuDNN folder gives. */
static void
check_frameworks(struct findings *fs, const struct cv_doctor_ctx *ctx)
{
	struct cv_fw_env fe;
	struct cv_version v;
	const char *ldp = getenv("LD_LIBRARY_PATH");
	int have = ctx->active_id != NULL &&
		   cv_install_id_parse(&v, ctx->active_id, NULL) == 0;

	struct cv_installed *all = NULL;
	size_t nall = 0;
	const char *fits = NULL;
	struct cv_version other;
	const struct cv_version *beside = NULL;
	char other_id[64];

	if (cv_frameworks_find(&fe, NULL, NULL) < 0)
		return;
	/* a framework of the hook's other major gets that pin, not this */
	if (have && hook_pin_beside(fe.prefix, &v, &other, other_id))
		beside = &other;
	/* the newest installed version every framework here can load: the
	 * fix is to switch to it, not to install what is already there.
	 * One that passed validation here (a clean result is cached; a
	 * failure never is) comes before one never validated, which may be
	 * the broken copy the user is running away from. */
	if (have && ctx->store != NULL &&
	    cv_store_list(ctx->store, &all, &nall, NULL) == 0 && all != NULL) {
		const char *untested = NULL;
		for (size_t k = 0; k < nall && fits == NULL; k++) {
			size_t j = 0;
			while (j < fe.n &&
			       cv_framework_fits(
				       &fe.fw[j],
				       cv_gate_version_for(&fe.fw[j],
							   &all[k].version,
							   beside)))
				j++;
			if (j < fe.n)
				continue;
			if (validated_here(ctx->store, &all[k]))
				fits = all[k].id;
			else if (untested == NULL)
				untested = all[k].id;
		}
		if (fits == NULL)
			fits = untested;
	}
	for (size_t i = 0; have && i < fe.n; i++) {
		const struct cv_framework *f = &fe.fw[i];
		char need[512], spec[64];
		char *fix, *why;

		if (cv_framework_fits(f, cv_gate_version_for(f, &v, beside)))
			continue;
		cv_framework_need_text(f, need, sizeof need);
		cv_framework_install_spec(f, spec, sizeof spec);
		fix = fits != NULL
			      ? cv_hint_switch(fits)
			      : cv_hint_install_then_switch(spec, f->need.cuda);
		why = xasprintf(
			"%s says '%s'; the framework refuses or misuses an "
			"older minor, another major or another CUDA build%s%s%s",
			f->need.source, f->need.text,
			fe.bundled_dir[0] ? "; or leave its own copy (" : "",
			fe.bundled_dir,
			fe.bundled_dir[0] ? ") by deactivating" : "");
		add(fs, CV_LEVEL_ERROR, fix, why,
		    "%s %s (%s) cannot load the %s cuDNN %s: it needs %s",
		    f->name, f->version, fe.prefix,
		    cv_gate_version_for(f, &v, beside) == &v ? "active"
							     : "pinned",
		    cv_gate_version_for(f, &v, beside) == &v ? ctx->active_id
							     : other_id,
		    need);
		free(fix);
		free(why);
	}
	for (const char *p = ldp; fe.bundled_dir[0] && p && *p;) {
		size_t len = strcspn(p, ":");
		char *dir = xstrndup(p, len);
		char *so = len ? cudnn_in(dir) : NULL;

		if (so != NULL && !same_dir(dir, fe.bundled_dir)) {
			char *fix =
				ctx->active_id
					? xasprintf("cudnnvm exec %s -- "
						    "python3 your_script.py",
						    ctx->active_id)
					: xstrdup("unset LD_LIBRARY_PATH");
			add(fs, CV_LEVEL_WARN, fix,
			    "the framework's RPATH loads its bundled front "
			    "library while cuDNN's loader takes every "
			    "sub-library from LD_LIBRARY_PATH: two builds in "
			    "one process. cudnnvm exec (or a venv pinned with "
			    "cudnnvm venv) preloads one version; without "
			    "LD_LIBRARY_PATH the framework uses its own copy",
			    "mixed cuDNN load in %s: its own copy in %s, and "
			    "LD_LIBRARY_PATH names %s (%s)",
			    fe.prefix, fe.bundled_dir, dir, so);
			free(fix);
			free(so);
			free(dir);
			break;
		}
		free(so);
		free(dir);
		p += len;
		if (*p == ':')
			p++;
	}
	free(all);
	cv_fw_env_release(&fe);
}

/* Pins and the global reach a shell only through the hook `init` loads
 * (pyenv: "shell integration not enabled"); said, not counted as a
 * problem, since scripts run without it on purpose. */
static void
check_hook(struct findings *fs)
{
	int shell = cv_shell_guess();

	if (cv_hook_loaded())
		return;
	if (shell == CV_SHELL_CMD) {
		/* cmd.exe has no startup file of its own: the fix applies the
		 * active version to this session */
		add(fs, CV_LEVEL_OK,
		    "cudnnvm env --shell cmd >\"%TEMP%\\cudnnvm-env.cmd\" "
		    "&& call \"%TEMP%\\cudnnvm-env.cmd\"",
		    "pins and the global version are applied to a shell by "
		    "its hook, which cmd.exe has none of; the fix applies "
		    "the active version to this cmd.exe session (one command "
		    "can run under it with 'cudnnvm exec -- CMD')",
		    "the active version is not applied to this cmd.exe");
		return;
	}
	add(fs, CV_LEVEL_OK, cv_shell_init_line(shell),
	    "pins and the global version are applied to a shell by its "
	    "hook; without it nothing loads the active version here (one "
	    "command can still run under it with 'cudnnvm exec -- CMD'); "
	    "add the fix to the shell's startup file",
	    "the shell hook is not loaded in this shell");
}

#ifdef _WIN32
/* The seed's hand install on Windows (windows.c): the copies in
 * %CUDA_PATH%\bin, the PATH order, zlibwapi.dll for 8.3 to 9.1. */
static void
check_windows(struct findings *fs, const struct cv_doctor_ctx *ctx)
{
	struct cv_doctor_win w;
	struct cv_version v;
	struct cv_finding *f;
	char *bin = NULL;
	size_t n, i;

	memset(&w, 0, sizeof w);
	w.cuda_path = getenv("CUDA_PATH");
	w.path = getenv("PATH");
	if (ctx->active_id != NULL && ctx->active_dir != NULL &&
	    cv_install_id_parse(&v, ctx->active_id, NULL) == 0) {
		bin = cv_store_dll_dir(ctx->active_dir, &v);
		w.store_bin = bin;
		w.major = (int)v.part[0];
		w.needs_zlibwapi = (v.part[0] == 8 && v.part[1] >= 3) ||
				   (v.part[0] == 9 && v.part[1] < 2);
	}
	n = cv_doctor_win_check(&w, &f);
	for (i = 0; i < n; i++) {
		add(fs, f[i].level, f[i].fix, f[i].why, "%s", f[i].what);
		free(f[i].what);
		free(f[i].why);
		free(f[i].fix);
	}
	free(f);
	free(bin);
}
#endif

void
cv_doctor_run(const struct cv_doctor_ctx *ctx, struct cv_finding **out,
	      size_t *n)
{
	struct findings fs = { NULL, 0, 0, NULL, 0 };
	char *active_lib = NULL;

	if (ctx->store_root != NULL) {
		check_staging(&fs, ctx->store_root);
		check_current(&fs, ctx, ctx->store_root);
		check_installs(&fs, ctx->store_root, ctx->store);
		check_dep_folders(&fs, ctx->store, ctx->store_root);
	}
	if (ctx->active_dir != NULL)
		active_lib = cv_path_join(ctx->active_dir, "lib");
	if (active_lib != NULL)
		seen_before(&fs, active_lib);
	if (!on_windows()) {
		/* LD_LIBRARY_PATH, /usr/local/cuda*, the system store's
		 * ld.so.conf, ld.so.cache, libcublasLt.so */
		check_ld_path(&fs, ctx, active_lib);
		check_toolkit_dirs(&fs, ctx);
		check_sysmode(&fs, ctx->store_root, ctx->active_id);
		check_ldconfig(
			&fs, ctx->store_root ? ctx->store_root : "/nonexistent",
			ctx->active_id != NULL, ctx->store);
		check_cuda(&fs, ctx);
	}
	check_python(&fs, ctx);
	check_frameworks(&fs, ctx);
	check_hook(&fs);
#ifdef _WIN32
	check_windows(&fs, ctx);
#endif
	if (ctx->active_id == NULL) {
		/* only a build the store or a cached listing has */
		char *fix = cv_hint_pick_global_known(ctx->store);

		add(&fs, CV_LEVEL_OK, fix,
		    fix != NULL ? "without one, programs find cuDNN only "
				  "through the system"
				: "without one, programs find cuDNN only "
				  "through the system; 'cudnnvm list-remote' "
				  "shows what the mirror has for this machine",
		    "no cuDNN version is active");
		free(fix);
	}
	if (cv_machine_get(CV_MACHINE_DRIVER)->driver_version[0] == '\0')
		/* a fact, not a fault: a machine without a GPU needs none */
		add(&fs, CV_LEVEL_OK, NULL,
		    "programs here run no GPU code; validation checks the "
		    "files and that the libraries load, and skips its GPU "
		    "steps",
		    "no NVIDIA driver is loaded");
	for (size_t i = 0; i < fs.nseen; i++)
		free(fs.seen[i]);
	free(fs.seen);
	free(active_lib);
	*out = fs.f;
	*n = fs.n;
}

void
cv_findings_free(struct cv_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].what);
		free(f[i].why);
		free(f[i].fix);
	}
	free(f);
}

/* ---- the classic messages --------------------------------------------- */

/* The numbers of a version at s: "8.6.0", "(9, 19, 0)", "9.1" (up to three
 * parts; missing ones stay -1). Returns how many were read. */
static int
read_version(const char *s, int v[3])
{
	int n = 0;

	v[0] = v[1] = v[2] = -1;
	while (*s == ' ' || *s == '(' || *s == '\'' || *s == '"')
		s++;
	while (n < 3 && *s >= '0' && *s <= '9') {
		char *end;
		long x = strtol(s, &end, 10);
		if (x > 99999)
			break;
		v[n++] = (int)x;
		s = end;
		if (*s == '.' && s[1] >= '0' && s[1] <= '9')
			s++;
		else if (*s == ',' && s[1] == ' ' && s[2] >= '0' && s[2] <= '9')
			s += 2;
		else
			break;
	}
	return n;
}

/* The version that follows `key` in msg; 0 when it has no major.minor. */
static int
version_after(const char *msg, const char *key, int v[3])
{
	const char *p = cv_strcasestr(msg, key);
	return p != NULL && read_version(p + strlen(key), v) >= 2;
}

/* The cuDNN major a library name in msg carries ("libcudnn.so.8",
 * "libcudnn_ops_infer.so.8"), or 0. */
static int
soname_major(const char *msg)
{
	for (const char *p = strstr(msg, "libcudnn"); p != NULL;
	     p = strstr(p + 1, "libcudnn")) {
		const char *so =
			p + 8 + strspn(p + 8, "_abcdefghijklmnopqrstuvwxyz");
		if (strncmp(so, ".so.", 4) == 0 && so[4] >= '1' && so[4] <= '9')
			return (int)strtol(so + 4, NULL, 10);
	}
	return 0;
}

/* The path (or bare name) of the first libcudnn* file msg names:
 * "/usr/local/cuda/lib64/libcudnn_cnn.so.9" out of "OSError: ...: cannot
 * open shared object file: Permission denied". */
static char *
cudnn_file_in(const char *msg)
{
	static const char stop[] = " \t\n'\"`:;,()[]{}";
	const char *p = strstr(msg, "libcudnn"), *start;

	if (p == NULL)
		return NULL;
	start = p;
	while (start > msg && strchr(stop, start[-1]) == NULL)
		start--;
	return xstrndup(start, (size_t)(p - start) + strcspn(p, stop));
}

struct explain_entry {
	const char *pattern; /* the message contains this... */
	const char *also;    /* ...and this (may be NULL) */
	const char *cause, *fix;
	/* the cause and fix for the versions and names the message holds,
	 * the fix built from what is installed here; may leave them */
	void (*exact)(const struct cv_store *st, const char *msg,
		      struct cv_explanation *e);
};

static void
replace(char **slot, char *value)
{
	free(*slot);
	*slot = value;
}

/* A spec of one to three numbers, for the hint module. */
static struct cv_version
spec_of(int nparts, int major, int minor)
{
	struct cv_version v;

	memset(&v, 0, sizeof v);
	v.nparts = nparts;
	v.part[0] = (unsigned long)major;
	v.part[1] = (unsigned long)(minor > 0 ? minor : 0);
	return v;
}

static void
exact_not_found(const struct cv_store *st, const char *msg,
		struct cv_explanation *e)
{
	int major = soname_major(msg);
	struct cv_version v = spec_of(1, major, 0);

	if (major > 0)
		replace(&e->fix, cv_hint_activate(st, &v));
}

/* cuDNN 8's sub-libraries: the major their names carry, validated. */
static void
exact_sublibrary(const struct cv_store *st, const char *msg,
		 struct cv_explanation *e)
{
	int major = soname_major(msg);
	struct cv_version v = spec_of(1, major > 0 ? major : 8, 0);
	char *fix = cv_hint_activate(st, &v);

	replace(&e->fix, xasprintf("%s && cudnnvm validate", fix));
	free(fix);
}

static void
exact_unreadable(const struct cv_store *st, const char *msg,
		 struct cv_explanation *e)
{
	char *file = cudnn_file_in(msg), *slash, *dir, *q;

	if (file == NULL || (slash = strrchr(file, '/')) == NULL) {
		free(file);
		return;
	}
	dir = xstrndup(file, (size_t)(slash - file));
	q = cv_shell_quote_word(dir);
	replace(&e->cause,
		xasprintf("%s exists but this user may not read it: cuDNN was "
			  "copied by hand with root's permissions (the classic "
			  "missing chmod a+r); the loader reports it as it "
			  "would a missing file",
			  file));
	replace(&e->fix,
		xasprintf("sudo chmod a+r %s/libcudnn*   (or adopt it: "
			  "cudnnvm import %s)",
			  q, q));
	free(q);
	free(dir);
	free(file);
}

static void
exact_unable_to_load(const struct cv_store *st, const char *msg,
		     struct cv_explanation *e)
{
	const char *p = strstr(msg, "Unable to load any of");
	const char *name = p != NULL ? strstr(p, "libcudnn") : NULL;
	char *sub;
	int v[3];

	if (name == NULL)
		return;
	sub = xstrndup(name, strcspn(name, ".,} \n"));
	{
		const char *so = strstr(name, ".so.");
		if (so == NULL || read_version(so + 4, v) < 2) {
			free(sub);
			return;
		}
	}
	replace(&e->cause,
		xasprintf(
			"cuDNN %d.%d's libcudnn.so.%d loads %s of exactly its "
			"own version at run time, and no %s.so.%d.%d is on the "
			"loader path: the folder holds only part of cuDNN (a "
			"dispatcher without its sub-libraries), or "
			"LD_LIBRARY_PATH names another version's folder",
			v[0], v[1], v[0], sub, sub, v[0], v[1]));
	{
		struct cv_version spec = spec_of(2, v[0], v[1]);
		char *fix = cv_hint_activate(st, &spec);
		replace(&e->fix, xasprintf("%s && cudnnvm validate", fix));
		free(fix);
	}
	free(sub);
}

/* TensorFlow, JAX and XLA: same major, at least the minor compiled with. */
static void
exact_tf_runtime(const struct cv_store *st, const char *msg,
		 struct cv_explanation *e)
{
	int run[3], built[3];

	if (!version_after(msg, "compiled with:", built))
		return;
	if (version_after(msg, "Loaded runtime CuDNN library:", run))
		replace(&e->cause,
			xasprintf("the framework was compiled with cuDNN %d.%d "
				  "and needs cuDNN %d.%d or a newer %d.x; the "
				  "cuDNN it loaded is %d.%d ('cudnnvm "
				  "frameworks' shows the versions that fit)",
				  built[0], built[1], built[0], built[1],
				  built[0], run[0], run[1]));
	replace(&e->fix, cv_hint_at_least(st, built[0], built[1]));
}

/* PyTorch: same major, runtime minor at least the compiled one. */
static void
exact_torch_runtime(const struct cv_store *st, const char *msg,
		    struct cv_explanation *e)
{
	int run[3], built[3];

	if (!version_after(msg, "against", built))
		return;
	if (version_after(msg, "runtime version", run))
		replace(&e->cause,
			xasprintf(
				"PyTorch was compiled with cuDNN %d.%d and "
				"needs %d.%d or a newer %d.x, but found %d.%d "
				"first: LD_LIBRARY_PATH (or the active version) "
				"points it at an older cuDNN than the one it "
				"bundles ('cudnnvm frameworks' shows the "
				"versions that fit)",
				built[0], built[1], built[0], built[1],
				built[0], run[0], run[1]));
	replace(&e->fix, cv_hint_at_least(st, built[0], built[1]));
}

/* The last release with code for Maxwell, Pascal and Volta. */
static void
exact_arch(const struct cv_store *st, const char *msg, struct cv_explanation *e)
{
	struct cv_version v = spec_of(2, 9, 10);

	replace(&e->fix, cv_hint_activate(st, &v));
}

/* First match wins: the specific ones come before "libcudnn.so". */
static const struct explain_entry catalogue[] = {
	{ "Permission denied", "libcudnn",
	  "a cuDNN file exists but this user may not read it: it was copied "
	  "by hand with root's permissions (the classic missing chmod a+r); "
	  "the loader reports it as it would a missing file",
	  "find it with 'ldconfig -p | grep libcudnn', then sudo chmod a+r "
	  "on its folder's libcudnn* (or adopt it: cudnnvm import <folder>)",
	  exact_unreadable },
	{ "Unable to load any of", "libcudnn",
	  "cuDNN 9's libcudnn.so.9 loads its sub-libraries of exactly its own "
	  "version at run time and found none on the loader path",
	  "eval \"$(cudnnvm env)\" && cudnnvm validate", exact_unable_to_load },
	{ "Could not load library libcudnn_", NULL,
	  "cuDNN 8 loads its sub-libraries (libcudnn_cnn_infer.so.8, ...) by "
	  "name at run time: their folder is not on the loader path, or one "
	  "of their own dependencies (libcublas, libcublasLt, libz, the "
	  "unversioned libcuda.so) is missing; the process then aborts",
	  "eval \"$(cudnnvm env 8)\" && cudnnvm validate", exact_sublibrary },
	{ "Attempt to open cnn_infer failed", NULL,
	  "PyTorch on cuDNN 8 could not load libcudnn_cnn_infer.so.8: the "
	  "active cuDNN's lib folder is not on LD_LIBRARY_PATH",
	  "eval \"$(cudnnvm env 8)\" && cudnnvm validate", exact_sublibrary },
	{ "libcuda.so: cannot open shared object file", NULL,
	  "cuDNN 8's cnn_infer loads the unversioned libcuda.so; only "
	  "libcuda.so.1 exists (WSL, containers)",
	  "sudo ln -s libcuda.so.1 \"$(dirname \"$(ldconfig -p | awk "
	  "'/libcuda.so.1 /{print $NF; exit}')\")/libcuda.so\"",
	  NULL },
	{ "Could not load dynamic library 'libcudnn", NULL,
	  "TensorFlow's loader found no libcudnn.so.N on the loader path",
	  "eval \"$(cudnnvm env)\" && cudnnvm validate", exact_not_found },
	{ "libcudnn.so", NULL,
	  "the loader cannot find cuDNN: no version is active in this shell "
	  "(LD_LIBRARY_PATH lacks its lib folder) or none is installed",
	  "cudnnvm install 9 && eval \"$(cudnnvm env 9)\"", exact_not_found },
	{ "CUDNN_STATUS_NOT_INITIALIZED", NULL,
	  "cuDNN could not start on the GPU: a driver too old for the build's "
	  "CUDA major, a cuDNN/CUDA variant mismatch, a GPU this release no "
	  "longer supports, or no free GPU memory",
	  "cudnnvm validate && cudnnvm doctor", NULL },
	{ "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", NULL,
	  "cuDNN 9's dispatcher loaded sub-libraries of another version: "
	  "another cuDNN 9 folder is on LD_LIBRARY_PATH (a mixed load)",
	  "cudnnvm doctor", NULL },
	{ "CUDNN_STATUS_VERSION_MISMATCH", NULL,
	  "the cuDNN 8 sub-libraries loaded (libcudnn_ops_infer, "
	  "libcudnn_cnn_infer, ...) are not of the same version as "
	  "libcudnn.so.8: two cuDNN 8 installs are mixed through "
	  "LD_LIBRARY_PATH or the loader cache",
	  "cudnnvm doctor && eval \"$(cudnnvm env)\" && cudnnvm validate",
	  NULL },
	{ "cudnnFinalize failed", NULL,
	  "often a mixed cuDNN 9 load: sub-libraries from another folder (or "
	  "a missing engine library) reject the graph",
	  "cudnnvm doctor && cudnnvm validate", NULL },
	{ "cuDNN version incompatibility", NULL,
	  "PyTorch found a runtime cuDNN older (or of another major) than it "
	  "was compiled against: the active version (or the sub-libraries "
	  "LD_LIBRARY_PATH gives its bundled front library: a mixed load) "
	  "is one torch cannot load; 'cudnnvm frameworks' names the versions "
	  "that fit, and activation refuses the others unless --force",
	  "cudnnvm frameworks   (then: cudnnvm install <the version it "
	  "names> && cudnnvm exec <it> -- python3 ...)",
	  exact_torch_runtime },
	{ "Loaded runtime CuDNN library", NULL,
	  "TensorFlow needs the same cuDNN major and at least the minor it was "
	  "compiled with; the active version is older (activation refuses it "
	  "unless --force; 'cudnnvm frameworks' shows what fits)",
	  "cudnnvm frameworks   (then: cudnnvm install <the compiled "
	  "version> && eval \"$(cudnnvm env <it>)\")",
	  exact_tf_runtime },
	{ "DNN library initialization failed", NULL,
	  "JAX/XLA could not start cuDNN: the loaded cuDNN is older than the "
	  "one jaxlib was built against, of another major or built for "
	  "another CUDA major (XLA logs 'Loaded runtime CuDNN library: X but "
	  "source was compiled with: Y')",
	  "cudnnvm frameworks   (then: cudnnvm install <the version it "
	  "names> && eval \"$(cudnnvm env <it>)\")",
	  exact_tf_runtime },
	{ "Cannot load symbol cublasLt", NULL,
	  "cuDNN loads libcublasLt.so.<CUDA major> at run time and it is not "
	  "on the loader path; the process aborts",
	  "install the CUDA libraries of the variant (cuBLAS) and run "
	  "cudnnvm doctor",
	  NULL },
	{ "not defined in file libcudnn", NULL,
	  "two cuDNN 8 installs are mixed: symbols of one sub-library are "
	  "resolved against another version's file",
	  "cudnnvm doctor", NULL },
	{ "cudnn_status_arch_mismatch", NULL,
	  "this cuDNN has no kernels for the GPU's compute capability (9.11 "
	  "and newer need 7.5; 9.10 still runs on 5.0)",
	  "cudnnvm install 9.10 && eval \"$(cudnnvm env 9.10)\"", exact_arch },
	{ NULL, NULL, NULL, NULL, NULL },
};

size_t
cv_doctor_catalogue_size(void)
{
	return sizeof catalogue / sizeof catalogue[0] - 1;
}

int
cv_doctor_explain(const struct cv_store *st, const char *msg,
		  struct cv_explanation *out)
{
	memset(out, 0, sizeof *out);
	if (msg == NULL)
		return 0;
	for (const struct explain_entry *e = catalogue; e->pattern; e++) {
		if (cv_strcasestr(msg, e->pattern) == NULL ||
		    (e->also != NULL && cv_strcasestr(msg, e->also) == NULL))
			continue;
		out->pattern = e->pattern;
		out->cause = xstrdup(e->cause);
		out->fix = xstrdup(e->fix);
		if (e->exact != NULL)
			e->exact(st, msg, out);
		return 1;
	}
	return 0;
}

void
cv_explanation_release(struct cv_explanation *e)
{
	free(e->cause);
	free(e->fix);
	memset(e, 0, sizeof *e);
}
