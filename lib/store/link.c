/* link.c: the global default, <store>/current, a relative symlink that is
 * replaced atomically (doc/reliability.md §3.1): a new link under a temporary
 * name, renameat(2) over the old one, fsync of the store folder, all under
 * the store's current lock so that concurrent switches are serialised.
 * Readers take no lock: rename(2) guarantees they never see it missing.
 * While system mode names this store's current/lib, a switch is held to
 * system mode's rule on which libraries a version may hold and the loader
 * cache is rebuilt after it (sysmode.c owns both). */
#include "base/base.h"
#include "store/store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CURRENT    "current"
#define TMP_PREFIX ".current."

#ifdef _WIN32
/* the first n bytes of a equal the folder b, as Windows compares paths */
static int
win_same_dir(const char *a, size_t n, const char *b)
{
	size_t nb = strlen(b), i;

	while (nb > 1 && (b[nb - 1] == '\\' || b[nb - 1] == '/'))
		nb--;
	if (n != nb)
		return 0;
	for (i = 0; i < n; i++) {
		int x = a[i] == '/' ? '\\' : (unsigned char)a[i];
		int y = b[i] == '/' ? '\\' : (unsigned char)b[i];

		if (x >= 'A' && x <= 'Z')
			x += 'a' - 'A';
		if (y >= 'A' && y <= 'Z')
			y += 'a' - 'A';
		if (x != y)
			return 0;
	}
	return 1;
}
#endif

int
cv_store_global_get(const struct cv_store *st, char id[64], struct cv_err *err)
{
#ifdef _WIN32
	char buf[4096]; /* a junction's absolute target */
#else
	char buf[256];
#endif
	struct cv_version v;
	const char *root = cv_store_root(st);
	int dfd = cv_store_dirfd(st);
	long n = dfd < 0 ? (errno = ENOENT, -1)
			 : cv_os_readlink_at(dfd, CURRENT, buf, sizeof buf);
	struct cv_stat sb;

	if (n < 0 && errno == ENAMETOOLONG) {
		/* too long for an id: said below, as a link to no id */
		buf[0] = '\0';
		n = (long)sizeof buf - 1;
	}
	if (n < 0) {
		int e = errno;
		if (e == EINVAL && cv_os_stat_at(dfd, CURRENT, 1, &sb) == 0)
			return cv_store_current_not_link(err, root);
		if (e == ENOENT || e == ENOTDIR)
			return cv_err_set(err, CV_ENOTFOUND,
					  "no global version is set");
		errno = e;
		return cv_err_errno(err, cv_code_from_errno(e),
				    "cannot read the global link in '%s'",
				    root);
	}
	buf[n] = '\0';
	/* a version of the system store is linked by its absolute path;
	 * only its last part, the id, is taken: the view decides where it
	 * lives */
	if (buf[0] == '/') {
		const char *base = strrchr(buf, '/') + 1;
		n -= base - buf;
		memmove(buf, base, (size_t)n + 1);
	}
#ifdef _WIN32
	/* a junction names its folder absolutely: one of this store's (or
	 * the machine store's) versions, or it points out of the store */
	else if (n > 2 && (buf[1] == ':' || buf[0] == '\\')) {
		char *bs = strrchr(buf, '\\');
		const char *sys = cv_store_system_root(st);

		if (bs == NULL ||
		    (!win_same_dir(buf, (size_t)(bs - buf), root) &&
		     (sys == NULL ||
		      !win_same_dir(buf, (size_t)(bs - buf), sys)))) {
			cv_err_set(err, CV_ESTORE,
				   "the global junction '%s\\current' points "
				   "out of the store, at '%s'",
				   root, buf);
			return cv_err_hint(err, "cudnnvm global <version>");
		}
		n -= bs + 1 - buf;
		memmove(buf, bs + 1, (size_t)n + 1);
	}
#endif
	if ((size_t)n >= 64 || (strcmp(buf, CV_SYSTEM) != 0 &&
				cv_install_id_parse(&v, buf, NULL) < 0))
		return cv_store_current_moved_hint(
			err, root,
			cv_err_set(err, CV_ESTORE,
				   "the global link '%s/current' points at "
				   "something that is not an install id",
				   root));
	memcpy(id, buf, (size_t)n + 1);
	return 0;
}

const char *
cv_store_system_link_id(const struct cv_store *st, const char *target)
{
	const char *sys = cv_store_system_root(st);
	size_t len = sys ? strlen(sys) : 0;
	const char *id = target + len + 1;

	if (sys == NULL || strncmp(target, sys, len) != 0 ||
	    target[len] != '/' || *id == '\0' || strchr(id, '/') != NULL)
		return NULL;
	return id;
}

int
cv_store_global_in_system(const struct cv_store *st)
{
	char buf[PATH_MAX];
	int dfd = cv_store_dirfd(st);
	long n =
		dfd < 0 ? -1 : cv_os_readlink_at(dfd, CURRENT, buf, sizeof buf);

	if (n <= 0)
		return 0;
	return cv_store_system_link_id(st, buf) != NULL;
}

/* Remove stray .current.* links that a killed switch left behind. Only
 * called under current.lock, so no live switch owns them. */
static void
sweep(int dfd)
{
	struct cv_dir *d = cv_dir_open_at(dfd, ".", 0);
	struct cv_stat sb;
	const char *de;

	if (d == NULL)
		return;
	while ((de = cv_dir_next(d, NULL)) != NULL) {
		if (strncmp(de, TMP_PREFIX, strlen(TMP_PREFIX)) != 0)
			continue;
		if (cv_os_stat_at(dfd, de, 1, &sb) == 0 &&
		    sb.kind == CV_KIND_LINK)
			cv_os_remove_at(dfd, de, 0);
	}
	cv_dir_close(d);
}

#ifdef _WIN32
/* Windows: <store>\current is a junction to the version's folder (a
 * symbolic link needs a privilege; a junction names an absolute folder).
 * A first one is made under a temporary name and renamed into place; a
 * later switch rewrites its target in place (cv_os_junction: Windows
 * renames nothing over a folder), one file-system operation. */
static int
win_junction(struct cv_store *st, int dfd, const char *id, struct cv_err *err)
{
	const char *root = cv_store_root(st);
	char *target = cv_store_dir(st, id), *cur = cv_path_join(root, CURRENT),
	     tmp[64], *tpath;
	struct cv_stat sb;
	int r = 0;

	if (cv_os_stat_at(dfd, CURRENT, 1, &sb) == 0) {
		if (cv_os_junction(cur, target, 1) < 0)
			r = cv_err_errno(err, cv_code_from_errno(errno),
					 "cannot point the global junction "
					 "'%s' at '%s'",
					 cur, target);
		goto done;
	}
	snprintf(tmp, sizeof tmp, TMP_PREFIX "%ld", cv_os_pid());
	tpath = cv_path_join(root, tmp);
	if (cv_os_junction(tpath, target, 0) < 0)
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot create the global junction in '%s'%s",
				 root,
				 errno == ENOSYS ? " (its file system has no "
						   "junctions)"
						 : "");
	else if (cv_os_rename_at(dfd, tmp, dfd, CURRENT) < 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot rename the global junction into '%s'",
				 cur);
		cv_os_remove_at(dfd, tmp, 1);
	}
	free(tpath);
done:
	free(cur);
	free(target);
	return r;
}
#endif

int
cv_store_global_set(struct cv_store *st, const char *id, struct cv_err *err)
{
	struct cv_version v;
	struct cv_stat sb;
	char tmp[64];
	const char *root = cv_store_root(st);
	int dfd, lockfd = -1, r = 0, sys;
	struct timespec ts;
	char *target;

	if (id != NULL && strcmp(id, CV_SYSTEM) != 0 &&
	    cv_install_id_parse(&v, id, err) < 0)
		return CV_EUSAGE;
	/* the store's own descriptor: the version checked below and the
	 * link replaced are in the same folder, whatever happens to the path */
	dfd = cv_store_dirfd(st);
	if (dfd < 0)
		return cv_err_set(err, CV_ENOTFOUND,
				  "the store '%s' does not exist: nothing is "
				  "installed in it",
				  root);
	if ((r = cv_store_lock(st, "current", 0, NULL, NULL, &lockfd, err)) < 0)
		goto out;
	sys = cv_sysmode_names(root);
	sweep(dfd);
	if (cv_os_stat_at(dfd, CURRENT, 1, &sb) == 0 &&
	    sb.kind != CV_KIND_LINK) {
		r = cv_store_current_not_link(err, root);
		goto out;
	}
	if (id == NULL) {
		if (cv_os_remove_at(dfd, CURRENT, 0) < 0 && errno != ENOENT) {
			r = cv_err_errno(err, cv_code_from_errno(errno),
					 "cannot remove '%s/current'", root);
			goto out;
		}
		goto sync;
	}
	if (strcmp(id, CV_SYSTEM) == 0)
		goto link;
	if (!cv_store_has(st, id)) {
		cv_err_set(err, CV_ENOTFOUND, "%s is not installed", id);
		r = cv_err_hint(err, "cudnnvm install %s", id);
		goto out;
	}
	if ((r = cv_store_check_trusted(st, id, err)) < 0)
		goto out;
	if (sys) {
		char *dir = cv_store_dir(st, id),
		     *lib = cv_path_join(dir, "lib");
		r = cv_sysmode_check_libdir(lib, err);
		free(lib);
		free(dir);
		if (r < 0)
			goto out;
	}
link:
#ifdef _WIN32
	if ((r = win_junction(st, dfd, id, err)) < 0)
		goto out;
	goto sync;
#endif
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(tmp, sizeof tmp, TMP_PREFIX "%ld.%08lx", cv_os_pid(),
		 (unsigned long)(ts.tv_nsec ^ (ts.tv_sec << 20)) &
			 0xffffffffUL);
	/* relative for our own versions (the store may move); a system
	 * store's version by its path, so <store>/current/lib still works */
	target =
		cv_store_in_system(st, id) ? cv_store_dir(st, id) : xstrdup(id);
	if (cv_os_symlink_at(target, dfd, tmp) < 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot create the global link in '%s'", root);
		free(target);
		goto out;
	}
	free(target);
	cv_checkpoint("global-before-rename");
	if (cv_os_rename_at(dfd, tmp, dfd, CURRENT) < 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot replace '%s/current'", root);
		cv_os_remove_at(dfd, tmp, 0);
		goto out;
	}
sync:
	if (cv_os_sync(dfd) < 0 && errno != EINVAL)
		r = cv_err_errno(err, CV_EIO, "cannot sync the store '%s'",
				 root);
	/* still under the lock: the cache ends up naming the last switch */
	if (r == 0 && sys && id != NULL)
		r = cv_sysmode_write_conf(st, id, err);
	if (r == 0 && sys)
		r = cv_sysmode_reload(err);
out:
	cv_fs_unlock(lockfd);
	return r;
}

int
cv_store_default_get(const struct cv_store *st, char id[64], int *from_system,
		     struct cv_err *err)
{
	const char *sysroot = cv_store_system_root(st);
	int r = cv_store_global_get(st, id, err);
	char buf[256], *link;
	long n;
	struct cv_version v;

	*from_system = 0;
	if (r != CV_ENOTFOUND || sysroot == NULL)
		return r;
	/* the admin's default, for a user who chose none: one readlink */
	link = cv_path_join(sysroot, CURRENT);
	n = cv_os_readlink(link, buf, sizeof buf);
	free(link);
	if (n <= 0 || (size_t)n >= 64)
		return r;
	if (cv_install_id_parse(&v, buf, NULL) < 0)
		return r;
	memcpy(id, buf, (size_t)n + 1);
	*from_system = 1;
	return 0;
}

/* `global --system`: the switch, then the loader configuration that
 * names it (sysmode.c) */
int
cv_store_global_system(struct cv_store *st, const char *id, struct cv_err *err)
{
	const char *store_root = cv_store_root(st);
	char *dir, *lib;
	int r, already;

	if (cv_os_euid() != 0) {
		cv_err_set(err, CV_EPERM,
			   "system mode changes the loader of every program; "
			   "it needs root");
		return cv_err_hint(err, "sudo cudnnvm global --system %s", id);
	}
	if ((r = cv_sysmode_root_only(store_root, err)) < 0)
		return r;
	if (strchr(store_root, '\n') != NULL ||
	    strchr(store_root, ' ') != NULL || strchr(store_root, '#') != NULL)
		return cv_err_set(
			err, CV_ESTORE,
			"the store path '%.200s' cannot be written into ld.so.conf; use a plain path",
			store_root);
	if ((r = cv_sysmode_read(NULL, 0, err)) == 0)
		r = cv_sysmode_refuse_foreign(err);
	if (r < 0)
		return r;
	dir = cv_store_dir(st, id);
	lib = cv_path_join(dir, "lib");
	r = cv_sysmode_check_libdir(lib, err);
	free(lib);
	free(dir);
	if (r < 0)
		return r;
	/* on already: the switch itself rewrites the file and reloads the
	 * cache */
	already = cv_sysmode_names(store_root);
	if ((r = cv_store_global_set(st, id, err)) < 0 || already)
		return r;
	r = cv_sysmode_write_conf(st, id, err);
	return r < 0 ? r : cv_sysmode_reload(err);
}
