/* store.c: where the store is, its private folders, locks, staging,
 * publishing, metadata (cudnnvm.json), listing, lookup and uninstall. The
 * store's layout is known here and nowhere else: other modules and cmd/
 * ask for a version's folder with cv_store_dir().
 *
 * Layout: <root>/<id>/ (published by one rename, complete when it holds
 * cudnnvm.json), <root>/current (link.c), <root>/.staging/<tag>.<pid>.<rand>
 * with its owner lock <root>/.staging/<same>.lock, <root>/.locks/<name>.lock.
 * Lock order: a version lock, then the store lock (held briefly), never the
 * other way round.
 *
 * A version's folder name is its install id, so finding the version a spec
 * means reads the store folder once and then only the chosen version's
 * completion marker: the prompt hook costs the same with 2 versions or
 * 200, whatever each version holds.
 *
 * Two stores, one view: a user who cannot write the system store writes
 * their own and reads the system store beside it (st->system, opened
 * read-only and never swept, locked or written). Lookups see both, the
 * system store's copy of an id first, so every user of a machine gets the
 * copy its admin installed and validated; writes go to the user's store
 * only. The system store costs lookups one more folder read at most. */
#include "base/base.h"
#include "machine/machine.h"
#include "release/release.h"
#include "store/store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cv_store {
	char *root;    /* absolute, symlinks resolved once at open */
	char *cache;   /* absolute */
	int dirfd;     /* O_DIRECTORY on root, -1 when it does not exist */
	int locksfd;   /* <root>/.locks, opened without following a link */
	int stagingfd; /* <root>/.staging, likewise; -1 when absent */
	int writable;
	int kind; /* enum cv_store_kind */
	/* the system store read beside this one, or NULL */
	struct cv_store *system;
	/* how every lock of this store waits (cv_store_set_lock_wait) */
	int nowait;
	void (*waiting)(void *, const char *);
	void *payload;
};

const char *
cv_store_kind_name(int kind)
{
	return kind == CV_STORE_SYSTEM ? "system"
	       : kind == CV_STORE_USER ? "user"
				       : "store";
}

int
cv_store_kind(const struct cv_store *st)
{
	return st->kind;
}

const char *
cv_store_system_root(const struct cv_store *st)
{
	return st->system != NULL ? st->system->root : NULL;
}

void
cv_store_set_lock_wait(struct cv_store *st, int nowait,
		       void (*waiting)(void *payload, const char *what),
		       void *payload)
{
	st->nowait = nowait;
	st->waiting = waiting;
	st->payload = payload;
}

int
cv_store_dirfd(const struct cv_store *st)
{
	return st->dirfd;
}

int
cv_store_writable(const struct cv_store *st)
{
	return st->writable;
}

int
cv_store_in_system(const struct cv_store *st, const char *id)
{
	return st->system != NULL && cv_store_has_own(st->system, id);
}

char *
cv_store_dir(const struct cv_store *st, const char *id)
{
	if (cv_store_in_system(st, id))
		return cv_path_join(st->system->root, id);
	return cv_path_join(st->root, id);
}

char *
cv_store_hidden_dir(const struct cv_store *st, const char *id)
{
	if (!cv_store_in_system(st, id) || !cv_store_has_own(st, id))
		return NULL;
	return cv_path_join(st->root, id);
}

const char *
cv_store_root(const struct cv_store *st)
{
	return st->root;
}

const char *
cv_store_cache_dir(const struct cv_store *st)
{
	return st->cache;
}

void
cv_store_free(struct cv_store *st)
{
	if (st == NULL)
		return;
	if (st->dirfd >= 0)
		cv_os_close(st->dirfd);
	cv_store_free(st->system);
	if (st->locksfd >= 0)
		cv_os_close(st->locksfd);
	if (st->stagingfd >= 0)
		cv_os_close(st->stagingfd);
	free(st->root);
	free(st->cache);
	free(st);
}

/* 1 when `path` exists and is writable, or does not exist and its nearest
 * existing parent is writable (so it can be made). */
static int
writable_or_creatable(const char *path)
{
	char *p = xstrdup(path);
	int ok = 0;

	for (;;) {
		struct cv_stat sb;
		char *slash;
		if (cv_os_stat(p, &sb) == 0) {
			ok = sb.kind == CV_KIND_DIR &&
			     cv_os_access(p, CV_ACCESS_WRITE |
						     CV_ACCESS_EXEC) == 0;
			break;
		}
		if (errno != ENOENT)
			break;
		slash = strrchr(p, '/');
		if (slash == NULL)
			break;
		if (slash == p) {
			p[1] = '\0';
			if (strcmp(p, "/") == 0 && strcmp(path, "/") == 0)
				break;
		} else
			*slash = '\0';
	}
	free(p);
	return ok;
}

static char *
absolute(const char *path)
{
	char *cwd = cv_os_is_absolute(path) ? NULL : cv_os_getcwd(), *r;
	size_t n;

	if (cwd == NULL)
		r = xstrdup(path);
	else
		r = cv_path_join(cwd, path);
	free(cwd);
	n = strlen(r);
	while (n > 1 && r[n - 1] == '/')
		r[--n] = '\0';
	return r;
}

static int check_owners(const struct cv_store *st, struct cv_err *err);

/* The system store of a two-store view, opened for reading only: a
 * store that is missing or that this user may not read is simply not
 * seen. */
static struct cv_store *
open_system(const char *root)
{
	struct cv_store *sys = xcalloc(1, sizeof *sys);

	sys->root = absolute(root);
	sys->cache = xstrdup(sys->root);
	sys->kind = CV_STORE_SYSTEM;
	sys->locksfd = sys->stagingfd = -1;
	sys->dirfd = cv_os_open(sys->root, CV_OPEN_READ | CV_OPEN_DIR, 0);
	/* a system store another user could change is not seen at all:
	 * its libraries would run in this user's programs */
	if (sys->dirfd >= 0 && check_owners(sys, NULL) < 0) {
		cv_os_close(sys->dirfd);
		sys->dirfd = -1;
	}
	return sys;
}

/* Which store this process writes, and which system store it sees. The
 * default places are the platform's (cv_os_place): /opt/cudnn and
 * $XDG_DATA_HOME/cudnnvm, %ProgramData%\cudnnvm and
 * %LOCALAPPDATA%\cudnnvm. */
static int
choose_root(struct cv_store *st, const struct cv_config *cfg,
	    const char *flag_store, struct cv_err *err)
{
	char *place = cfg->system_store_path != NULL
			      ? NULL
			      : cv_os_place(CV_PLACE_MACHINE_DATA);
	const char *sys = cfg->system_store_path != NULL
				  ? cfg->system_store_path
			  : place != NULL ? place
					  : "/opt/cudnn";
	char *sysabs;

	if (flag_store != NULL && *flag_store != '\0') {
		st->root = absolute(flag_store);
		st->kind = CV_STORE_EXPLICIT;
	} else if (cfg->store_only && cfg->store_path != NULL) {
		st->root = absolute(cfg->store_path);
		st->kind = CV_STORE_EXPLICIT;
	} else if (cfg->store_path == NULL && writable_or_creatable(sys)) {
		/* root (or the store's owner) writes the system store, and
		 * reads no store another user could change */
		st->root = absolute(sys);
		st->kind = CV_STORE_SYSTEM;
	} else {
		st->kind = CV_STORE_USER;
		st->root = cfg->store_path != NULL
				   ? absolute(cfg->store_path)
				   : cv_os_place(CV_PLACE_USER_DATA);
		if (st->root == NULL) {
			int r = cv_err_set(
				err, CV_ESTORE,
				"'%s' is not writable and HOME is not set; pass --store DIR",
				sys);
			free(place);
			return r;
		}
		sysabs = absolute(sys);
		if (strcmp(sysabs, st->root) != 0)
			st->system = open_system(sysabs);
		else
			st->kind = CV_STORE_SYSTEM;
		free(sysabs);
	}
	free(place);
	return 0;
}

static int
is_private(const char *name)
{
	return name[0] == '.';
}

/* Whoever may change a folder of the store could plant a libcudnn that
 * root then loads, so, as ssh's StrictModes does for ~/.ssh, every folder
 * from / down to the store, and the store's own folders, must belong to
 * this user or root and be writable by nobody else. A sticky parent (/tmp)
 * is allowed: others may add names there but not replace ours. */
static int
untrusted(const char *path, const struct cv_stat *sb, int sticky_ok,
	  struct cv_err *err)
{
	int who = cv_fs_foreign_writer(sb, sticky_ok);

	if (who == 'u')
		return cv_err_set(
			err, CV_ESTORE,
			"'%s' belongs to another user (uid %ld), who could plant libraries in the store; refusing to use it (chown it to %s, or use --store DIR)",
			path, sb->uid, cv_os_euid() == 0 ? "root" : "yourself");
	if (who != 0)
		return cv_err_set(
			err, CV_ESTORE,
			"'%s' is writable by %s, who could plant libraries in the store; refusing to use it (chmod go-w '%s')",
			path, who == 'o' ? "every user" : "its group", path);
	return 0;
}

/* The store root (its descriptor when open) and each folder above it up
 * to /; for a store not made yet, the folders that exist. */
#define STOP_WALK 1

/* A folder above the store: sticky ones allowed; a folder that cannot be
 * looked at (not there yet is fine) ends the walk, as the kernel will
 * refuse the paths below it anyway. */
static int
owner_above(const char *dir, const struct cv_stat *sb, void *err)
{
	if (sb == NULL)
		return errno == ENOENT ? 0 : STOP_WALK;
	return untrusted(dir, sb, 1, err);
}

static int
check_owners(const struct cv_store *st, struct cv_err *err)
{
	struct cv_stat sb;
	int r = 0;

	if (st->dirfd >= 0 && cv_os_fstat(st->dirfd, &sb) == 0)
		r = untrusted(st->root, &sb, 0, err);
	else if (cv_os_stat(st->root, &sb) == 0)
		r = untrusted(st->root, &sb, 0, err);
	else if (errno != ENOENT)
		return 0;
	if (r == 0)
		r = cv_fs_walk_up(st->root, 0, owner_above, err);
	return r < 0 ? r : 0;
}

/* `name` in the store's folder: absent (0: whoever asks reports it), or a
 * real folder that nobody but this user or root controls; anything else
 * fails, its message ending with `remedy`. */
static int
check_folder_at(const struct cv_store *st, const char *name, const char *remedy,
		struct cv_err *err)
{
	struct cv_stat sb;
	char *path;
	int r;

	if (st->dirfd < 0 || cv_os_stat_at(st->dirfd, name, 1, &sb) != 0)
		return 0;
	path = cv_path_join(st->root, name);
	if (sb.kind != CV_KIND_DIR)
		r = cv_err_set(err, CV_ESTORE,
			       "'%s' is not a folder (a symlink?); %s", path,
			       remedy);
	else
		r = untrusted(path, &sb, 0, err);
	free(path);
	return r;
}

/* 1 when `sb` could be changed by a user other than this one or root. */
static int
foreign(const struct cv_stat *sb, struct cv_trust *t, const char *path)
{
	long me = cv_os_euid();

	t->other_owner = sb->uid != me && sb->uid != 0;
	if (!t->other_owner && (sb->perm & 022) == 0)
		return 0;
	t->uid = sb->uid;
	snprintf(t->path, sizeof t->path, "%s", path);
	return 1;
}

/* The folders of a version that env puts on the loader's, compiler's and
 * shell's paths, and the files in them: whoever may change one of those
 * changes what root loads, as ssh checks authorized_keys as well as
 * ~/.ssh. One fstatat per folder and file, no file opened, so the prompt
 * hook pays microseconds and never blocks. 1 and *t filled at the first
 * at fault. */
static int
inner_foreign(int vfd, const char *vpath, struct cv_trust *t)
{
	static const char *const dirs[] = { "lib", "lib/x64", "include",
					    "bin", "bin/x64", NULL };
	long me = cv_os_euid();
	int bad = 0;

	for (int i = 0; dirs[i] && !bad; i++) {
		struct cv_stat sb;
		struct cv_dir *d;
		const char *de;
		char *path;
		int kind;

		if (cv_os_stat_at(vfd, dirs[i], 1, &sb) != 0)
			continue;
		path = cv_path_join(vpath, dirs[i]);
		if (sb.kind != CV_KIND_DIR && sb.kind != CV_KIND_LINK) {
			free(path);
			continue; /* a file of that name is on no path */
		}
		if (sb.kind == CV_KIND_LINK) {
			/* env names these folders, so a link there leads the
			 * loader wherever it points */
			snprintf(t->path, sizeof t->path, "%s", path);
			t->not_folder = 1;
			free(path);
			return 1;
		}
		bad = foreign(&sb, t, path);
		d = bad ? NULL : cv_dir_open_at(vfd, dirs[i], 1);
		while (d != NULL && !bad &&
		       (de = cv_dir_next(d, &kind)) != NULL) {
			/* links are replaced, never changed, by whoever
			 * controls the folder checked above: the entry's type
			 * from the folder says so without a stat (a real
			 * cuDNN's lib/ is half links), and a path is made
			 * only for the file at fault */
			if ((kind != CV_KIND_FILE && kind != CV_KIND_NONE) ||
			    cv_os_stat_at(cv_dir_fd(d), de, 1, &sb) != 0 ||
			    sb.kind != CV_KIND_FILE)
				continue;
			if ((sb.uid != 0 && sb.uid != me) ||
			    (sb.perm & 022) != 0) {
				char *file = cv_path_join(path, de);
				bad = foreign(&sb, t, file);
				free(file);
			}
		}
		cv_dir_close(d);
		free(path);
	}
	return bad;
}

/* The store folders of what version `vpath` loads beside itself
 * (deps/<name>/lib and its files), held to the rule of the version's own
 * libraries: every activation path and the .pth hook put them right after
 * cuDNN's, and system mode caches them machine-wide. A missing one is
 * cv_store_dep_path's to report. */
static int
deps_foreign(const struct cv_store *st, const char *vpath, struct cv_trust *t)
{
	struct cv_installed inst;
	struct cv_stat dsb;
	int bad = 0;

	/* a store without deps/ pays no metadata read: the prompt hook's
	 * budget */
	if (cv_os_stat_at(st->dirfd, "deps", 1, &dsb) != 0 ||
	    cv_store_read_meta(vpath, &inst, NULL) < 0)
		return 0;
	for (int i = 0; i < inst.ndeps && !bad; i++) {
		struct cv_stat sb;
		char *path;
		int fd;
		if (!inst.deps[i].in_store ||
		    cv_os_stat_at(st->dirfd, inst.deps[i].dir, 1, &sb) != 0)
			continue;
		path = cv_path_join(st->root, inst.deps[i].dir);
		if (sb.kind != CV_KIND_DIR) {
			snprintf(t->path, sizeof t->path, "%s", path);
			t->not_folder = 1;
			bad = 1;
		} else if (!(bad = foreign(&sb, t, path)) &&
			   (fd = cv_os_open_at(st->dirfd, inst.deps[i].dir,
					       CV_OPEN_READ | CV_OPEN_DIR |
						       CV_OPEN_NOFOLLOW,
					       0)) >= 0) {
			bad = inner_foreign(fd, path, t);
			cv_os_close(fd);
		}
		free(path);
	}
	return bad;
}

int
cv_store_trust(const struct cv_store *st, const char *id, struct cv_trust *t)
{
	struct cv_stat sb;
	char *vpath;
	int vfd, bad;

	memset(t, 0, sizeof *t);
	if (st->system != NULL && cv_store_in_system(st, id))
		return cv_store_trust(st->system, id, t);
	if (st->dirfd < 0 || cv_os_stat_at(st->dirfd, id, 1, &sb) != 0)
		return 0;
	vpath = cv_path_join(st->root, id);
	if (sb.kind != CV_KIND_DIR) {
		snprintf(t->path, sizeof t->path, "%s", vpath);
		t->not_folder = 1;
		free(vpath);
		return 1;
	}
	bad = foreign(&sb, t, vpath);
	if (!bad &&
	    (vfd = cv_os_open_at(st->dirfd, id,
				 CV_OPEN_READ | CV_OPEN_DIR | CV_OPEN_NOFOLLOW,
				 0)) >= 0) {
		bad = inner_foreign(vfd, vpath, t);
		cv_os_close(vfd);
	}
	if (!bad)
		bad = deps_foreign(st, vpath, t);
	free(vpath);
	return bad;
}

/* A version about to be used: its folder, and what env puts on a path,
 * real folders and files nobody else controls. */
/* The last version this thread found trusted, by store and folder
 * identity: a command asks again when it resolves a spec and then builds
 * its environment, and the second walk over every file of the version
 * would be a third of what `env` costs at a prompt. A folder replaced
 * since (reinstalled, swapped by someone) has another inode and is walked
 * again; one changed inside in the microseconds between the two questions
 * would have been as open to change right after the first. */
static _Thread_local struct trusted_memo {
	const struct cv_store *st;
	char id[64];
	unsigned long long dev, ino;
} last_trusted;

static int
trusted_before(const struct cv_store *st, const char *id, struct cv_stat *sb)
{
	if (st->dirfd < 0 || cv_os_stat_at(st->dirfd, id, 1, sb) != 0) {
		sb->ino = 0;
		return 0;
	}
	return last_trusted.st == st && strcmp(last_trusted.id, id) == 0 &&
	       last_trusted.dev == sb->dev && last_trusted.ino == sb->ino;
}

static void
remember_trusted(const struct cv_store *st, const char *id,
		 const struct cv_stat *sb)
{
	last_trusted.st = NULL;
	if (sb->ino == 0 || strlen(id) >= sizeof last_trusted.id)
		return;
	memcpy(last_trusted.id, id, strlen(id) + 1);
	last_trusted.dev = sb->dev;
	last_trusted.ino = sb->ino;
	last_trusted.st = st;
}

int
cv_store_check_trusted(const struct cv_store *st, const char *id,
		       struct cv_err *err)
{
	struct cv_trust t;
	struct cv_stat sb;
	char *fix;
	int r;

	if (st->system != NULL && cv_store_in_system(st, id))
		return cv_store_check_trusted(st->system, id, err);
	if (trusted_before(st, id, &sb))
		return 0;
	/* the folder itself, said as the store's other folders are */
	if ((r = check_folder_at(st, id, "remove it and reinstall that version",
				 err)) < 0)
		return r;
	if (!cv_store_trust(st, id, &t)) {
		remember_trusted(st, id, &sb);
		return r;
	}
	fix = cv_store_trust_fix(st, id, &t);
	if (t.not_folder)
		r = cv_err_set(
			err, CV_ESTORE,
			"'%s' is not a folder (a symlink?), so it could lead the loader out of the store; refusing to use cuDNN %s (%s)",
			t.path, id, fix);
	else if (t.other_owner)
		r = cv_err_set(
			err, CV_ESTORE,
			"'%s' belongs to another user (uid %ld), who could have changed cuDNN %s; refusing to use it (%s)",
			t.path, t.uid, id, fix);
	else
		r = cv_err_set(
			err, CV_ESTORE,
			"'%s' is writable by other users, who could have changed cuDNN %s; refusing to use it (%s)",
			t.path, id, fix);
	free(fix);
	return r;
}

/* The private folders: real folders nobody else controls, never links to
 * follow. Readers check them too, since they lock and cache there. */
static int
check_private(const struct cv_store *st, struct cv_err *err)
{
	static const char *const priv[] = { ".staging", ".locks", ".cache",
					    NULL };
	int r = 0;

	for (int i = 0; r == 0 && priv[i]; i++)
		r = check_folder_at(
			st, priv[i],
			"refusing to use this store until it is removed", err);
	return r;
}

/* The store must not be a trap: private folders are real folders,
 * `current` is a symlink, every version is a real folder, and nobody but
 * this user or root controls any of them. */
static int
check_layout(struct cv_store *st, struct cv_err *err)
{
	struct cv_stat sb;
	struct cv_dir *d;
	const char *de;
	int r = 0;

	if ((r = check_private(st, err)) < 0)
		return r;
	if (cv_os_stat_at(st->dirfd, "current", 1, &sb) == 0 &&
	    sb.kind != CV_KIND_LINK)
		return cv_store_current_not_link(err, st->root);
	if ((d = cv_dir_open_at(st->dirfd, ".", 0)) == NULL)
		return cv_err_errno(err, CV_ESTORE,
				    "cannot read the store '%s'", st->root);
	while ((de = cv_dir_next(d, NULL)) != NULL) {
		struct cv_version v;
		if (is_private(de) || cv_install_id_parse(&v, de, NULL) < 0)
			continue;
		/* the folder only: what is inside is checked when the
		 * version is used, and install --force or uninstall must
		 * still be able to replace a version whose lib/ is bad */
		if ((r = check_folder_at(st, de,
					 "remove it and reinstall that version",
					 err)) < 0)
			break;
	}
	cv_dir_close(d);
	return r;
}

/* Make <root>/<name> (0755 whatever the umask) and open it without
 * following a link into *fd. */
static int
mkdir_at(struct cv_store *st, const char *name, int *fd, struct cv_err *err)
{
	/* -1 on every failure, so that no caller closes a stray number */
	*fd = -1;
	if (cv_os_mkdir_at(st->dirfd, name, 0755) == 0)
		cv_os_chmod_at(st->dirfd, name, 0755, 0);
	else if (errno != EEXIST)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot create '%s/%s'", st->root, name);
	*fd = cv_os_open_at(st->dirfd, name,
			    CV_OPEN_READ | CV_OPEN_DIR | CV_OPEN_NOFOLLOW, 0);
	if (*fd < 0)
		return cv_err_errno(err, CV_ESTORE, "cannot open '%s/%s'",
				    st->root, name);
	return 0;
}

/* An existing private folder, opened without following a link; -1. */
static int
open_private(const struct cv_store *st, const char *name)
{
	return cv_os_open_at(st->dirfd, name,
			     CV_OPEN_READ | CV_OPEN_DIR | CV_OPEN_NOFOLLOW, 0);
}

/* Remove what dead runs left in .staging: folders whose owner lock is free
 * (or absent) and orphan lock files. Under the store lock. */
static void
sweep(struct cv_store *st)
{
	int lfd;
	struct cv_dir *d;
	const char *de;

	if (st->stagingfd < 0)
		return;
	if ((d = cv_dir_open_at(st->stagingfd, ".", 0)) == NULL)
		return;
	while ((de = cv_dir_next(d, NULL)) != NULL) {
		size_t len = strlen(de);
		char *lock, *shown;
		struct cv_stat sb;
		int r;
		if (len > 5 && strcmp(de + len - 5, ".lock") == 0) {
			/* Orphan lock: its folder is gone. */
			char *dir = xstrndup(de, len - 5);
			if (cv_os_stat_at(st->stagingfd, dir, 1, &sb) != 0 &&
			    cv_fs_trylock_at(st->stagingfd, de, de, &lfd,
					     NULL) == 1) {
				cv_os_remove_at(st->stagingfd, de, 0);
				cv_fs_unlock(lfd);
			}
			free(dir);
			continue;
		}
		lock = xasprintf("%s.lock", de);
		shown = cv_path_join(st->root, lock);
		lfd = -1;
		r = cv_os_stat_at(st->stagingfd, lock, 1, &sb) == 0
			    ? cv_fs_trylock_at(st->stagingfd, lock, shown, &lfd,
					       NULL)
			    : 1;
		if (r == 1) {
			cv_fs_rmtree_at(st->stagingfd, de, NULL);
			if (lfd >= 0) {
				cv_os_remove_at(st->stagingfd, lock, 0);
				cv_fs_unlock(lfd);
			}
		}
		free(lock);
		free(shown);
	}
	cv_dir_close(d);
}

int
cv_store_lock(const struct cv_store *st, const char *name, int nowait,
	      void (*waiting)(void *, const char *), void *payload, int *fd,
	      struct cv_err *err)
{
	char *file = xasprintf("%s.lock", name);
	char *shown = xasprintf("%s/.locks/%s", st->root, file);
	char *what = strcmp(name, "store") == 0 ? xstrdup("using the store")
		     : strcmp(name, "current") == 0
			     ? xstrdup("changing the global version")
			     : xasprintf("installing or removing %s", name);
	int r;

	*fd = -1;
	if (st->locksfd < 0)
		r = cv_err_set(
			err, CV_ESTORE,
			"cannot lock '%s': the store has no .locks folder; run a command that writes the store (e.g. cudnnvm install)",
			shown);
	else
		r = cv_fs_lock_at(
			st->locksfd, file, shown, nowait || st->nowait,
			waiting != NULL ? waiting : st->waiting,
			waiting != NULL ? payload : st->payload, what, fd, err);
	free(file);
	free(shown);
	free(what);
	return r;
}

/* A store path that is a symlink (or lies under one) is resolved once:
 * every later step works from the real folder's descriptor and names the
 * real path, so a link re-pointed meanwhile changes nothing. */
static void
resolve_root(struct cv_store *st)
{
	char real[PATH_MAX];

	if (cv_os_realpath(st->root, real, sizeof real) != NULL) {
		free(st->root);
		st->root = xstrdup(real);
	}
}

static int
open_for_write(struct cv_store *st, struct cv_err *err)
{
	int lfd, r;

	if ((r = check_owners(st, err)) < 0)
		return r;
	if ((r = cv_fs_mkdirs(st->root, 0755, err)) < 0) {
		if (r == CV_EPERM && err != NULL)
			return cv_err_prefix(
				err, "%s",
				"cannot create the store (use --store DIR, or run as root): ");
		return r;
	}
	resolve_root(st);
	st->dirfd = cv_os_open(st->root, CV_OPEN_READ | CV_OPEN_DIR, 0);
	if (st->dirfd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot open the store '%s'", st->root);
	if (cv_os_access_at(st->dirfd, ".",
			    CV_ACCESS_WRITE | CV_ACCESS_EFFECTIVE) != 0) {
		if (errno == EROFS)
			return cv_err_set(
				err, CV_ESTORE,
				"the store '%s' is read-only; use --store DIR for a writable one",
				st->root);
		return cv_err_errno(
			err, CV_EPERM,
			"the store '%s' is not writable (use --store DIR, or run as its owner)",
			st->root);
	}
	if ((r = check_owners(st, err)) < 0 || (r = check_layout(st, err)) < 0)
		return r;
	if ((r = mkdir_at(st, ".locks", &st->locksfd, err)) < 0 ||
	    (r = mkdir_at(st, ".staging", &st->stagingfd, err)) < 0)
		return r;
	if ((r = check_layout(st, err)) < 0)
		return r;
	if (cv_fs_mkdirs(st->cache, 0755, err) < 0)
		return cv_err_prefix(err, "%s", "cannot create the cache: ");
	/* housekeeping only: when another run holds the store lock, it
	 * sweeps, and this one neither waits here nor ignores --no-wait */
	if (cv_fs_trylock_at(st->locksfd, "store.lock", "store.lock", &lfd,
			     NULL) == 1) {
		sweep(st);
		cv_fs_unlock(lfd);
	}
	st->writable = 1;
	return 0;
}

int
cv_store_open(struct cv_store **out, const struct cv_config *cfg,
	      const char *flag_store, int for_write, struct cv_err *err)
{
	struct cv_store *st = xcalloc(1, sizeof *st);
	int r;

	*out = NULL;
	st->dirfd = st->locksfd = st->stagingfd = -1;
	if ((r = choose_root(st, cfg, flag_store, err)) < 0) {
		cv_store_free(st);
		return r;
	}
	/* the cache default below follows the real root too */
	resolve_root(st);
	if (cfg->cache_path != NULL)
		st->cache = xstrdup(cfg->cache_path);
	else if (cv_os_euid() != 0 &&
		 (st->cache = cv_os_place(CV_PLACE_USER_CACHE)) != NULL)
		;
	else
		st->cache = cv_path_join(st->root, ".cache");
	if (for_write) {
		r = open_for_write(st, err);
	} else {
		st->dirfd = cv_os_open(st->root, CV_OPEN_READ | CV_OPEN_DIR, 0);
		if (st->dirfd < 0 && errno == EACCES)
			r = cv_err_errno(err, CV_EPERM,
					 "cannot open the store '%s' (ask its "
					 "owner for read access, or use "
					 "--store DIR)",
					 st->root);
		else if (st->dirfd < 0 && errno != ENOENT)
			r = cv_err_errno(err, cv_code_from_errno(errno),
					 "cannot open the store '%s'",
					 st->root);
		else if ((r = check_owners(st, err)) == 0 && st->dirfd >= 0)
			r = check_private(st, err);
		if (r == 0 && st->dirfd >= 0) {
			st->locksfd = open_private(st, ".locks");
			st->stagingfd = open_private(st, ".staging");
		}
		/* A reader sweeps too, when it may (best effort). */
		if (st->stagingfd >= 0 && st->locksfd >= 0 &&
		    cv_os_access_at(st->stagingfd, ".",
				    CV_ACCESS_WRITE | CV_ACCESS_EFFECTIVE) ==
			    0) {
			int lfd;
			if (cv_fs_trylock_at(st->locksfd, "store.lock",
					     "store.lock", &lfd, NULL) == 1) {
				sweep(st);
				cv_fs_unlock(lfd);
			}
		}
	}
	if (r < 0) {
		cv_store_free(st);
		return r;
	}
	*out = st;
	return 0;
}

int
cv_store_has(const struct cv_store *st, const char *id)
{
	return cv_store_has_own(st, id) || cv_store_in_system(st, id);
}

int
cv_store_has_own(const struct cv_store *st, const char *id)
{
	struct cv_stat sb;
	char *meta = xasprintf("%s/cudnnvm.json", id);
	int ok;

	ok = st->dirfd >= 0 && cv_os_stat_at(st->dirfd, id, 1, &sb) == 0 &&
	     sb.kind == CV_KIND_DIR &&
	     cv_os_stat_at(st->dirfd, meta, 1, &sb) == 0 &&
	     sb.kind == CV_KIND_FILE;
	free(meta);
	return ok;
}

int
cv_store_staging_new(struct cv_store *st, const char *tag, char **name,
		     int *lockfd, struct cv_err *err)
{
	unsigned int rnd;
	char *lock, *shown;
	int sfd, r;

	*lockfd = -1;
	if (st->stagingfd < 0)
		return cv_err_set(err, CV_ESTORE,
				  "the store is not open for writing");
	if ((r = cv_store_lock(st, "store", 0, NULL, NULL, &sfd, err)) < 0)
		return r;
	for (int tries = 0;; tries++) {
		struct timespec ts;
		int retry = 1;
		clock_gettime(CLOCK_REALTIME, &ts);
		rnd = (unsigned int)ts.tv_nsec ^
		      ((unsigned int)cv_os_pid() << 16) ^
		      (unsigned int)tries * 2654435761u;
		*name = xasprintf("%s.%ld.%08x", tag, cv_os_pid(), rnd);
		lock = xasprintf("%s.lock", *name);
		shown = xasprintf("%s/.staging/%s", st->root, lock);
		r = cv_fs_lock_at(st->stagingfd, lock, shown, 1, NULL, NULL,
				  "staging", lockfd, err);
		if (r == 0 && cv_os_mkdir_at(st->stagingfd, *name, 0755) == 0) {
			cv_os_chmod_at(st->stagingfd, *name, 0755, 0);
		} else if (r == 0) {
			int e = errno;
			cv_os_remove_at(st->stagingfd, lock, 0);
			cv_fs_unlock(*lockfd);
			errno = e;
			r = cv_err_errno(err, cv_code_from_errno(e),
					 "cannot create '%s/.staging/%s'",
					 st->root, *name);
			retry = e == EEXIST;
		}
		free(lock);
		free(shown);
		if (r == 0)
			break;
		free(*name);
		*name = NULL;
		if (!retry || tries > 8)
			break;
	}
	cv_fs_unlock(sfd);
	return r;
}

void
cv_store_staging_drop(struct cv_store *st, const char *name, int lockfd)
{
	char *lock = xasprintf("%s.lock", name);

	cv_fs_rmtree_at(st->stagingfd, name, NULL);
	cv_os_remove_at(st->stagingfd, lock, 0);
	cv_fs_unlock(lockfd);
	free(lock);
}

char *
cv_store_staging_path(const struct cv_store *st, const char *name)
{
	return xasprintf("%s/.staging/%s", st->root, name);
}

int
cv_store_publish(struct cv_store *st, const char *name, const char *id,
		 int replace, struct cv_err *err)
{
	char *stagepath = cv_store_staging_path(st, name);
	int sfd, r;

	/* every writer of a version (install, import) gets this: nothing
	 * is published that a power loss could leave empty */
	r = cv_fs_sync_tree(stagepath, err);
	free(stagepath);
	if (r < 0 ||
	    (r = cv_store_lock(st, "store", 0, NULL, NULL, &sfd, err)) < 0)
		return r;
	if ((replace ? cv_os_rename_exchange(st->stagingfd, name, st->dirfd, id)
		     : cv_os_rename_noreplace(st->stagingfd, name, st->dirfd,
					      id)) != 0)
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot publish '%s/%s'", st->root, id);
	else if (cv_os_sync(st->dirfd) != 0)
		r = cv_err_errno(err, CV_EIO, "cannot sync the store '%s'",
				 st->root);
	cv_fs_unlock(sfd);
	return r;
}

static char *
meta_text(const struct cv_installed *inst)
{
	char ver[64], *text;
	struct cv_json *o = cv_json_object();

	cv_version_format(&inst->version, ver, sizeof ver);
	cv_json_object_set_new(o, "id", cv_json_string(inst->id));
	cv_json_object_set_new(o, "version", cv_json_string(ver));
	cv_json_object_set_new(o, "cuda", cv_json_integer(inst->version.cuda));
	cv_json_object_set_new(o, "platform", cv_json_string(inst->platform));
	cv_json_object_set_new(o, "sha256", cv_json_string(inst->sha256));
	cv_json_object_set_new(o, "size", cv_json_integer((int64_t)inst->size));
	cv_json_object_set_new(o, "source", cv_json_string(inst->source));
	/* older installs have no origin: they came from NVIDIA's archives */
	cv_json_object_set_new(
		o, "origin",
		cv_json_string(inst->origin[0] ? inst->origin : "nvidia"));
	cv_json_object_set_new(o, "installed_at",
			       cv_json_string(inst->installed_at));
	if (inst->ndeps > 0)
		cv_json_object_set_new(o, "deps", cv_store_deps_json(inst));
	text = cv_json_dumps(o, CV_JSON_INDENT(2));
	cv_json_decref(o);
	return text;
}

int
cv_store_write_meta(const char *dir, const struct cv_installed *inst,
		    struct cv_err *err)
{
	char *path = cv_path_join(dir, "cudnnvm.json");
	char *text = meta_text(inst);
	int fd, r = 0;

	if (text == NULL) {
		free(path);
		return cv_err_set(err, CV_ERROR, "cannot encode the metadata");
	}
	fd = cv_os_open(path,
			CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL |
				CV_OPEN_NOFOLLOW,
			0644);
	if (fd < 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot write '%s'", path);
		goto out;
	}
	if (cv_os_write_all(fd, text, strlen(text)) != 0 ||
	    cv_os_write_all(fd, "\n", 1) != 0 || cv_os_sync(fd) != 0)
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot write '%s'", path);
	if (cv_os_close(fd) != 0 && r == 0)
		r = cv_err_errno(err, CV_EIO, "cannot write '%s'", path);
	cv_os_chmod_at(CV_AT_CWD, path, 0644, 0);
out:
	free(text);
	free(path);
	return r;
}

/* A dependency folder's name under the store: deps/<component>-<version>,
 * one component of [A-Za-z0-9._+-] after deps/, so a hand-edited
 * cudnnvm.json cannot point the loader anywhere else. */
static int
dep_dir_ok(const char *dir)
{
	const char *p = dir + 5;

	if (strncmp(dir, "deps/", 5) != 0 || *p == '\0' || *p == '.' ||
	    strlen(p) > 128)
		return 0;
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
		      *p == '+' || *p == '-'))
			return 0;
	return 1;
}

struct cv_json *
cv_store_deps_json(const struct cv_installed *inst)
{
	struct cv_json *a = cv_json_array();

	for (int i = 0; i < inst->ndeps; i++) {
		const struct cv_dep *d = &inst->deps[i];
		struct cv_json *o = cv_json_object();
		cv_json_object_set_new(o, "name", cv_json_string(d->name));
		cv_json_object_set_new(o, "version",
				       cv_json_string(d->version));
		cv_json_object_set_new(o, "cuda", cv_json_integer(d->cuda));
		cv_json_object_set_new(o, d->in_store ? "dir" : "found",
				       cv_json_string(d->dir));
		if (d->in_store) {
			cv_json_object_set_new(o, "sha256",
					       cv_json_string(d->sha256));
			cv_json_object_set_new(
				o, "size", cv_json_integer((int64_t)d->size));
		}
		cv_json_array_append_new(a, o);
	}
	return a;
}

/* A folder found on the machine: absolute, printable, no "." or ".."
 * segment, and no ':' or ';', which would split it on LD_LIBRARY_PATH
 * into entries relative to the working folder. */
static int
dep_found_ok(const char *p)
{
	if (p[0] != '/')
		return 0;
	for (const char *c = p; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f || *c == ':' ||
		    *c == ';')
			return 0;
	for (const char *seg = p + 1; seg != NULL;) {
		const char *end = strchr(seg, '/');
		size_t len = end ? (size_t)(end - seg) : strlen(seg);
		if ((len == 1 && seg[0] == '.') ||
		    (len == 2 && seg[0] == '.' && seg[1] == '.'))
			return 0;
		seg = end ? end + 1 : NULL;
	}
	return 1;
}

/* One dependency record into *d, as cv_store_deps_json writes it: a
 * component cuDNN loads, its dotted version, a CUDA major, and either its
 * store folder (exactly deps/<name>-<version>, with the archive's sha256
 * and size) or the absolute folder it was found in. */
static int
read_dep(struct cv_json *o, struct cv_dep *d)
{
	const char *name = cv_json_string_value(cv_json_object_get(o, "name"));
	const char *ver =
		cv_json_string_value(cv_json_object_get(o, "version"));
	const char *dir = cv_json_string_value(cv_json_object_get(o, "dir"));
	const char *found =
		cv_json_string_value(cv_json_object_get(o, "found"));
	const char *sha = cv_json_string_value(cv_json_object_get(o, "sha256"));
	struct cv_json *cuda = cv_json_object_get(o, "cuda");
	struct cv_json *size = cv_json_object_get(o, "size");
	char want[96];

	if (!cv_json_is_object(o) || name == NULL || ver == NULL ||
	    (strcmp(name, "libcublas") != 0 &&
	     strcmp(name, "cuda_nvrtc") != 0) ||
	    strlen(ver) >= sizeof d->version ||
	    /* a folder found on the machine has no release of its own */
	    !(cv_version_dotted(ver) || (found != NULL && ver[0] == '\0')) ||
	    !cv_json_is_integer(cuda) || cv_json_integer_value(cuda) < 1 ||
	    cv_json_integer_value(cuda) > 99 ||
	    (dir == NULL) == (found == NULL))
		return -1;
	snprintf(want, sizeof want, "deps/%s-%s", name, ver);
	if (dir != NULL &&
	    (strcmp(dir, want) != 0 || !dep_dir_ok(dir) || sha == NULL ||
	     strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64 ||
	     !cv_json_is_integer(size) || cv_json_integer_value(size) < 0 ||
	     (unsigned long long)cv_json_integer_value(size) >
		     CV_ARCHIVE_MAX_BYTES))
		return -1;
	if (found != NULL &&
	    (strlen(found) >= sizeof d->dir || !dep_found_ok(found)))
		return -1;
	memset(d, 0, sizeof *d);
	strcpy(d->name, name);
	strcpy(d->version, ver);
	d->cuda = (int)cv_json_integer_value(cuda);
	d->in_store = dir != NULL;
	strcpy(d->dir, dir != NULL ? dir : found);
	if (dir != NULL) {
		strcpy(d->sha256, sha);
		d->size = (uint64_t)cv_json_integer_value(size);
	}
	return 0;
}

/* The "deps" array of a cudnnvm.json (absent: none). */
static int
read_deps(struct cv_json *a, struct cv_installed *out)
{
	size_t i;
	struct cv_json *o;

	if (a == NULL)
		return 0;
	if (!cv_json_is_array(a) || cv_json_array_size(a) > CV_MAX_DEPS)
		return -1;
	cv_json_array_foreach(a, i, o)
	{
		if (read_dep(o, &out->deps[out->ndeps]) < 0)
			return -1;
		out->ndeps++;
	}
	return 0;
}

int
cv_store_deps_parse(const char *text, size_t n, struct cv_installed *out)
{
	struct cv_json *a =
		cv_json_loadb(text, n, CV_JSON_REJECT_DUPLICATES, NULL);
	int r;

	memset(out, 0, sizeof *out);
	r = a == NULL ? -1 : read_deps(a, out);
	cv_json_decref(a);
	return r;
}

int
cv_store_dep_record_parse(const char *text, size_t n, const char *folder,
			  struct cv_dep *dep)
{
	struct cv_json *o =
		cv_json_loadb(text, n, CV_JSON_REJECT_DUPLICATES, NULL);
	struct cv_dep one;
	int r = -1;

	/* a record of the store, for the folder that holds it */
	if (o != NULL && read_dep(o, &one) == 0 && one.in_store &&
	    strcmp(one.dir + 5, folder) == 0) {
		*dep = one;
		r = 0;
	}
	cv_json_decref(o);
	return r;
}

static int
bad_meta(const char *path, const char *why, struct cv_err *err)
{
	return cv_err_set(
		err, CV_ESTORE,
		"'%s' is damaged (%s); reinstall that version with --force",
		path, why);
}

int
cv_store_read_meta(const char *dir, struct cv_installed *out,
		   struct cv_err *err)
{
	char *path = cv_path_join(dir, "cudnnvm.json");
	struct cv_json_error je;
	struct cv_json *o, *v;
	const char *s;
	int r = 0;

	memset(out, 0, sizeof *out);
	o = cv_json_load_file(path, CV_JSON_REJECT_DUPLICATES, &je);
	if (o == NULL) {
		r = bad_meta(path, je.text, err);
		goto out;
	}
#define STR(key, dst)                                             \
	do {                                                      \
		v = cv_json_object_get(o, key);                   \
		s = cv_json_string_value(v);                      \
		if (s == NULL || strlen(s) >= sizeof(dst)) {      \
			r = bad_meta(path, "bad '" key "'", err); \
			goto done;                                \
		}                                                 \
		strcpy(dst, s);                                   \
	} while (0)
	STR("id", out->id);
	STR("platform", out->platform);
	STR("sha256", out->sha256);
	STR("source", out->source);
	STR("installed_at", out->installed_at);
#undef STR
	if (cv_install_id_parse(&out->version, out->id, NULL) < 0) {
		r = bad_meta(path, "bad 'id'", err);
		goto done;
	}
	v = cv_json_object_get(o, "size");
	if (!cv_json_is_integer(v) || cv_json_integer_value(v) < 0) {
		r = bad_meta(path, "bad 'size'", err);
		goto done;
	}
	out->size = (uint64_t)cv_json_integer_value(v);
	s = cv_json_string_value(cv_json_object_get(o, "origin"));
	snprintf(out->origin, sizeof out->origin, "%s",
		 s != NULL && strcmp(s, "pypi") == 0 ? "pypi" : "nvidia");
	if (read_deps(cv_json_object_get(o, "deps"), out) < 0)
		r = bad_meta(path, "bad 'deps'", err);
done:
	cv_json_decref(o);
out:
	free(path);
	return r;
}

static int
cmp_installed(const void *a, const void *b)
{
	const struct cv_installed *x = a, *y = b;
	int c = cv_version_cmp(&y->version, &x->version);

	if (c != 0)
		return c;
	return y->version.cuda - x->version.cuda;
}

/* Append the versions of one store to *out; with `skip`, those that
 * store also holds are left out (the system store's copy wins). */
static int
list_one(const struct cv_store *st, const struct cv_store *skip,
	 struct cv_installed **out, size_t *n, size_t *capp, struct cv_err *err)
{
	struct cv_dir *d;
	const char *de;
	size_t cap = *capp;

	if (st->dirfd < 0)
		return 0;
	if ((d = cv_dir_open_at(st->dirfd, ".", 0)) == NULL)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot read the store '%s'", st->root);
	while ((de = cv_dir_next(d, NULL)) != NULL) {
		struct cv_version v;
		struct cv_installed inst;
		char *dir;
		if (is_private(de) || cv_install_id_parse(&v, de, NULL) < 0 ||
		    !cv_store_has_own(st, de) ||
		    (skip != NULL && cv_store_has_own(skip, de)))
			continue;
		dir = cv_path_join(st->root, de);
		if (cv_store_read_meta(dir, &inst, NULL) == 0 &&
		    strcmp(inst.id, de) == 0) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 8;
				*out = xrealloc(*out, cap * sizeof **out);
			}
			inst.store = st->kind;
			(*out)[(*n)++] = inst;
		}
		free(dir);
	}
	cv_dir_close(d);
	*capp = cap;
	return 0;
}

int
cv_store_list(const struct cv_store *st, struct cv_installed **out, size_t *n,
	      struct cv_err *err)
{
	size_t cap = 0;
	int r;

	*out = NULL;
	*n = 0;
	if (st->system != NULL &&
	    list_one(st->system, NULL, out, n, &cap, NULL) < 0)
		*n = 0; /* an unreadable system store is not seen */
	if ((r = list_one(st, st->system, out, n, &cap, err)) < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
		return r;
	}
	if (*n > 1)
		qsort(*out, *n, sizeof **out, cmp_installed);
	return 0;
}

/* The error for a version that is not in the store, with the install
 * that puts it there. */
static int
not_installed(struct cv_err *err, const char *id)
{
	cv_err_set(err, CV_ENOTFOUND, "cuDNN %s is not installed", id);
	return cv_err_hint(err, "cudnnvm install %s", id);
}

int
cv_store_get(const struct cv_store *st, const char *id,
	     struct cv_installed *out, struct cv_err *err)
{
	struct cv_version v;
	char *dir;
	int r;

	if ((r = cv_install_id_parse(&v, id, err)) < 0)
		return r;
	if (!cv_store_has(st, id))
		return not_installed(err, id);
	if ((r = cv_store_check_trusted(st, id, err)) < 0)
		return r;
	dir = cv_store_dir(st, id);
	r = cv_store_read_meta(dir, out, err);
	out->store = cv_store_in_system(st, id) ? CV_STORE_SYSTEM : st->kind;
	free(dir);
	return r;
}

/* A folder whose name is an install id the spec matches. */
struct candidate {
	struct cv_version v;
	char id[64];
};

static int
cmp_candidate(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	int c = cv_version_cmp(&y->v, &x->v);

	return c != 0 ? c : y->v.cuda - x->v.cuda;
}

/* Append the folders of one store whose names are ids accept() takes. */
static void
candidates(const struct cv_store *st, cv_accept_fn accept, void *payload,
	   struct candidate **cand, size_t *n, size_t *cap)
{
	struct cv_dir *d = NULL;
	const char *de;

	if (st->dirfd >= 0)
		d = cv_dir_open_at(st->dirfd, ".", 0);
	while (d != NULL && (de = cv_dir_next(d, NULL)) != NULL) {
		struct cv_version v;
		if (is_private(de) || strlen(de) >= 64 ||
		    cv_install_id_parse(&v, de, NULL) < 0 ||
		    !accept(payload, &v))
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 8;
			*cand = xrealloc(*cand, *cap * sizeof **cand);
		}
		(*cand)[*n].v = v;
		strcpy((*cand)[*n].id, de);
		(*n)++;
	}
	cv_dir_close(d);
}

/* Both views' candidates (the user's store and the system one), newest
 * first. */
static void
all_candidates(const struct cv_store *st, cv_accept_fn accept, void *payload,
	       struct candidate **cand, size_t *n)
{
	size_t cap = 0;

	candidates(st, accept, payload, cand, n, &cap);
	if (st->system != NULL)
		candidates(st->system, accept, payload, cand, n, &cap);
	if (*n > 1)
		qsort(*cand, *n, sizeof **cand, cmp_candidate);
}

static int
matches_spec(void *spec, const struct cv_version *v)
{
	return cv_version_matches(spec, v);
}

int
cv_store_pick(const struct cv_store *st, cv_accept_fn accept, void *payload,
	      char id[64])
{
	struct candidate *cand = NULL;
	size_t n = 0, pick = SIZE_MAX;
	int want = 0;

	all_candidates(st, accept, payload, &cand, &n);
	/* the machine is asked only when its answer could change the pick */
	for (size_t i = 1; i < n && want == 0; i++)
		if (cand[i].v.cuda != cand[0].v.cuda)
			want = cv_machine_cuda(NULL, 0, NULL);
	for (size_t i = 0; i < n; i++) {
		if (!cv_store_has(st, cand[i].id))
			continue;
		if (pick == SIZE_MAX)
			pick = i;
		if (want <= 0 || cand[i].v.cuda == want) {
			pick = i;
			break;
		}
	}
	if (pick != SIZE_MAX)
		snprintf(id, 64, "%s", cand[pick].id);
	free(cand);
	return pick != SIZE_MAX;
}

/* The installed build a spec means on this machine. A spec without
 * -cudaN takes the newest release that has a build of the CUDA major
 * cv_machine_want_cuda gives (the toolkit's, else the newest the driver
 * runs), exactly as install resolves it on the mirror; a build of another
 * variant is taken only when none of that major is installed, and then
 * never silently. */
int
cv_store_find(const struct cv_store *st, const struct cv_version *spec,
	      char id[64], struct cv_err *err)
{
	struct candidate *cand = NULL;
	size_t n = 0, pick = SIZE_MAX, any = SIZE_MAX;
	char s[64], how[PATH_MAX + 64] = "";
	int want = 0;

	cv_version_format_id(spec, s, sizeof s);
	/* a full id names its folder: no listing at all */
	if (spec->nparts == CV_VERSION_MAXPARTS && spec->cuda > 0) {
		if (!cv_store_has(st, s))
			return not_installed(err, s);
		memcpy(id, s, strlen(s) + 1);
		return cv_store_check_trusted(st, id, err);
	}
	all_candidates(st, matches_spec, (void *)spec, &cand, &n);
	/* The machine is asked only when it can change the answer (builds of
	 * several variants match) or a warning can be shown: a prompt that
	 * resolves a pin of one variant reads no toolkit file. */
	if (spec->cuda == 0) {
		int mixed = 0;
		for (size_t i = 1; i < n && !mixed; i++)
			mixed = cand[i].v.cuda != cand[0].v.cuda;
		if ((mixed || cv_warn_enabled()) &&
		    (want = cv_machine_want_cuda(0, 0, how, sizeof how, err)) <
			    0) {
			free(cand);
			return want;
		}
	}
	/* newest first; a folder still without its marker is not installed */
	for (size_t i = 0; i < n; i++) {
		if (!cv_store_has(st, cand[i].id))
			continue;
		if (any == SIZE_MAX)
			any = i;
		if (want == 0 || cand[i].v.cuda == want) {
			pick = i;
			break;
		}
	}
	if (pick == SIZE_MAX && any != SIZE_MAX) {
		/* none of the variant this machine wants is installed */
		pick = any;
		if (want > 0)
			cv_warn("no cuda%d build matching %s is installed; using "
				"%s, built for CUDA %d (this machine's CUDA %d "
				"comes from %s); 'cudnnvm install %s --cuda %d' "
				"gets a matching build",
				want, s, cand[any].id, cand[any].v.cuda, want,
				how, s, want);
	}
	if (pick != SIZE_MAX) {
		strcpy(id, cand[pick].id);
		free(cand);
		return cv_store_check_trusted(st, id, err);
	}
	free(cand);
	cv_err_set(err, CV_ENOTFOUND, "no installed cuDNN matches '%s'", s);
	return cv_err_hint(err, "cudnnvm install %s", s);
}

/* ---- dependency folders (deps/<component>-<version>) -------------------- */

int
cv_store_set_deps(struct cv_store *st, const char *id,
		  const struct cv_dep *deps, int n, struct cv_err *err)
{
	struct cv_installed inst;
	char *dir, *path, *text;
	int vfd = -1, r;

	if ((r = cv_store_lock(st, id, 0, NULL, NULL, &vfd, err)) < 0)
		return r;
	dir = cv_store_dir(st, id);
	path = cv_path_join(dir, "cudnnvm.json");
	if ((r = check_folder_at(st, id, "remove it and reinstall that version",
				 err)) == 0 &&
	    (r = cv_store_read_meta(dir, &inst, err)) == 0) {
		inst.ndeps = 0;
		for (int i = 0; i < n && i < CV_MAX_DEPS; i++)
			inst.deps[inst.ndeps++] = deps[i];
		char *body = meta_text(&inst);
		text = body ? xasprintf("%s\n", body) : NULL;
		r = text == NULL ? cv_err_set(err, CV_ERROR,
					      "cannot encode the metadata")
				 : cv_fs_write_atomic(path, text, strlen(text),
						      0644, err);
		free(body);
		free(text);
	}
	free(path);
	free(dir);
	cv_fs_unlock(vfd);
	return r;
}

int
cv_store_deps_mkdir(struct cv_store *st, struct cv_err *err)
{
	int fd, r;

	if ((r = check_folder_at(st, "deps", "move it away", err)) < 0 ||
	    (r = mkdir_at(st, "deps", &fd, err)) < 0)
		return r;
	cv_os_close(fd);
	return 0;
}

void
cv_store_dep_lockname(const char *component, int cuda, char *out, size_t n)
{
	snprintf(out, n, "deps-%s-%d", component, cuda);
}

int
cv_store_dep_lock_shared(const struct cv_store *st, const char *component,
			 int cuda, int *fd, struct cv_err *err)
{
	char name[96], file[112], *shown;
	int r;

	cv_store_dep_lockname(component, cuda, name, sizeof name);
	snprintf(file, sizeof file, "%s.lock", name);
	shown = xasprintf("%s/.locks/%s", st->root, file);
	r = st->locksfd < 0
		    ? cv_err_set(err, CV_ESTORE, "cannot lock '%s'", shown)
		    : cv_fs_lock_shared_at(st->locksfd, file, shown, fd, err);
	free(shown);
	return r;
}

int
cv_store_dep_write_meta(const char *dir, const struct cv_dep *dep,
			struct cv_err *err)
{
	struct cv_installed one;
	struct cv_json *a;
	char *path = cv_path_join(dir, "cudnnvm-dep.json"), *text;
	int r;

	memset(&one, 0, sizeof one);
	one.deps[0] = *dep;
	one.ndeps = 1;
	a = cv_store_deps_json(&one);
	text = cv_json_dumps(cv_json_array_get(a, 0), CV_JSON_INDENT(2));
	cv_json_decref(a);
	r = text == NULL
		    ? cv_err_set(err, CV_ERROR, "cannot encode the metadata")
		    : cv_fs_write_atomic(path, text, strlen(text), 0644, err);
	free(text);
	free(path);
	return r;
}

/* The record of dependency folder deps/<name>, from its cudnnvm-dep.json. */
static int
dep_read_meta(const struct cv_store *st, const char *name, struct cv_dep *dep)
{
	char *file = xasprintf("deps/%s/cudnnvm-dep.json", name), buf[4096];
	ssize_t n = cv_fs_read_head(st->dirfd, file, 1, buf, sizeof buf);

	free(file);
	if (n <= 0)
		return -1;
	return cv_store_dep_record_parse(buf, (size_t)n, name, dep);
}

/* The store's deps/ folder to read, when it is one nobody else controls;
 * NULL when there is none. */
static struct cv_dir *
open_deps(const struct cv_store *st)
{
	if (st->dirfd < 0 || check_folder_at(st, "deps", "", NULL) < 0)
		return NULL;
	return cv_dir_open_at(st->dirfd, "deps", 1);
}

int
cv_store_dep_find(const struct cv_store *st, const char *component, int cuda,
		  struct cv_dep *dep)
{
	char prefix[64];
	struct cv_version best, v;
	int found = 0;
	struct cv_dir *d;
	const char *de;

	if ((d = open_deps(st)) == NULL)
		return 0;
	snprintf(prefix, sizeof prefix, "%s-%d.", component, cuda);
	while ((de = cv_dir_next(d, NULL)) != NULL) {
		struct cv_dep one;
		char *sub;
		if (strncmp(de, prefix, strlen(prefix)) != 0 ||
		    cv_version_parse(&v, de + strlen(component) + 1, NULL) <
			    0 ||
		    (found && cv_version_cmp(&v, &best) <= 0))
			continue;
		sub = xasprintf("deps/%s", de);
		if (check_folder_at(st, sub, "", NULL) == 0 &&
		    dep_read_meta(st, de, &one) == 0 &&
		    strcmp(one.name, component) == 0 && one.cuda == cuda) {
			*dep = one;
			best = v;
			found = 1;
		}
		free(sub);
	}
	cv_dir_close(d);
	return found;
}

int
cv_store_dep_get(const struct cv_store *st, const char *component,
		 const char *version, struct cv_dep *dep)
{
	char *name = xasprintf("%s-%s", component, version);
	char *sub = xasprintf("deps/%s", name);
	int found = st->dirfd >= 0 &&
		    check_folder_at(st, "deps", "", NULL) == 0 &&
		    check_folder_at(st, sub, "", NULL) == 0 &&
		    dep_read_meta(st, name, dep) == 0 &&
		    strcmp(dep->name, component) == 0;

	free(sub);
	free(name);
	return found;
}

const char *
cv_store_dll_subdir(const struct cv_version *v)
{
	static const struct cv_version moved = { 2, { 9, 18, 0, 0 }, 0 };

	return cv_version_cmp(v, &moved) >= 0 ? "bin/x64" : "bin";
}

char *
cv_store_dll_dir(const char *version_dir, const struct cv_version *v)
{
	return cv_path_join(version_dir, cv_store_dll_subdir(v));
}

char *
cv_store_dep_libdir(const char *version_dir, const struct cv_dep *dep)
{
	const char *slash = cv_path_last_sep(version_dir);

	if (!dep->in_store || slash == NULL)
		return NULL;
	return xasprintf("%.*s/%s/lib", (int)(slash - version_dir), version_dir,
			 dep->dir);
}

int
cv_store_dep_path(const struct cv_store *st, const char *id, char **out,
		  struct cv_err *err)
{
	struct cv_installed inst;
	struct cv_buf b = CV_BUF_INIT;
	char *home, *root;
	int r = 0;

	*out = NULL;
	if (st->system != NULL && cv_store_in_system(st, id))
		return cv_store_dep_path(st->system, id, out, err);
	home = cv_store_dir(st, id);
	/* a version without metadata is judged by whoever reads it; one
	 * whose metadata is damaged is refused here as list refuses it, so
	 * that no activation follows records the reader does not trust */
	if ((r = cv_store_read_meta(home, &inst, NULL)) < 0) {
		char *meta = cv_path_join(home, "cudnnvm.json");
		r = cv_os_access(meta, CV_ACCESS_EXISTS) == 0
			    ? cv_store_read_meta(home, &inst, err)
			    : 0;
		free(meta);
		free(home);
		return r < 0 ? r : 0;
	}
	if (inst.ndeps == 0) {
		free(home);
		return 0;
	}
	root = st->root;
	for (int i = 0; i < inst.ndeps && r == 0; i++) {
		const struct cv_dep *d = &inst.deps[i];
		char *lib;
		if (!d->in_store)
			continue;
		lib = xasprintf("%s/lib", d->dir);
		if ((r = check_folder_at(st, "deps", "move it away", err)) ==
			    0 &&
		    (r = check_folder_at(st, d->dir, "remove it", err)) == 0 &&
		    (r = check_folder_at(st, lib, "remove it", err)) == 0 &&
		    cv_os_access_at(st->dirfd, lib,
				    CV_ACCESS_EXEC | CV_ACCESS_NOFOLLOW) != 0) {
			cv_err_set(
				err, CV_ESTORE,
				"%s %s, which cuDNN %s loads, is missing from %s/%s",
				d->name, d->version, id, root, d->dir);
			r = cv_err_hint(err, "cudnnvm install %s --deps always",
					id);
		} else if (r < 0)
			cv_err_hint(err, "cudnnvm install %s --deps always",
				    id);
		if (r == 0) {
			if (b.len)
				cv_buf_add(&b, ":", 1);
			cv_buf_addf(&b, "%s/%s", root, lib);
		}
		free(lib);
	}
	free(home);
	if (r == 0 && b.len)
		*out = cv_buf_detach(&b);
	cv_buf_release(&b);
	return r;
}

/* Whether dependency folder deps/<name> is named by a version's metadata. */
static int
dep_needed(const struct cv_installed *all, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < all[i].ndeps; k++)
			if (all[i].deps[k].in_store &&
			    strcmp(all[i].deps[k].dir + 5, name) == 0)
				return 1;
	return 0;
}

/* Read again under the dependency's exclusive lock: an install that held
 * it shared published its version (which may need this folder) before it
 * let go, after the list the collection started from was read. */
static int
still_unneeded(struct cv_store *st, const char *name)
{
	struct cv_store *sys = st->system;
	struct cv_installed *all = NULL;
	size_t n = 0;
	int r;

	st->system = NULL;
	r = cv_store_list(st, &all, &n, NULL) == 0 && !dep_needed(all, n, name);
	st->system = sys;
	free(all);
	return r;
}

int
cv_store_deps_collect(struct cv_store *st)
{
	struct cv_installed *all = NULL;
	size_t n = 0;
	int removed = 0;
	struct cv_dir *d;
	const char *de;

	if (!st->writable || (d = open_deps(st)) == NULL)
		return 0;
	/* only this store's versions: the system store keeps its own */
	{
		struct cv_store *sys = st->system;
		st->system = NULL;
		if (cv_store_list(st, &all, &n, NULL) < 0) {
			all = NULL;
			n = 0;
		}
		st->system = sys;
	}
	/* where a test parks the collection while an install publishes a
	 * version that needs a folder this list says nobody does (H20) */
	cv_checkpoint("deps-collect-listed");
	while ((de = cv_dir_next(d, NULL)) != NULL) {
		struct cv_dep dep;
		char lock[112], *shown, *sub;
		int lfd = -1;
		if (dep_needed(all, n, de))
			continue;
		/* only what the inventory proves a dependency folder (its
		 * record is written before the publish), and whose record
		 * reads: anything else in deps/ is not cudnnvm's to remove */
		if (!cv_inventory_is_dep(cv_dir_fd(d), de) ||
		    dep_read_meta(st, de, &dep) < 0)
			continue;
		cv_store_dep_lockname(dep.name, dep.cuda, lock, sizeof lock);
		strcat(lock, ".lock");
		shown = cv_path_join(st->root, lock);
		if (cv_fs_trylock_at(st->locksfd, lock, shown, &lfd, NULL) ==
		    1) {
			char *name = NULL;
			int slfd = -1;
			/* into staging first: it vanishes in one step, and a
			 * killed run leaves only sweepable staging */
			sub = xasprintf("deps/%s", de);
			if (still_unneeded(st, de) &&
			    cv_store_staging_new(st, "rm", &name, &slfd,
						 NULL) == 0) {
				char *to = xasprintf("%s/old", name);
				if (cv_os_rename_at(st->dirfd, sub,
						    st->stagingfd, to) == 0)
					removed++;
				free(to);
				cv_store_staging_drop(st, name, slfd);
				free(name);
			}
			free(sub);
			cv_fs_unlock(lfd);
		}
		free(shown);
	}
	if (removed > 0)
		cv_os_sync(cv_dir_fd(d));
	cv_dir_close(d);
	free(all);
	return removed;
}

int
cv_store_uninstall(struct cv_store *st, const char *id, struct cv_err *err)
{
	struct cv_version v;
	char *name = NULL, *dir;
	int vfd = -1, lfd = -1, r;

	if ((r = cv_install_id_parse(&v, id, err)) < 0)
		return r;
	if ((r = cv_store_lock(st, id, 0, NULL, NULL, &vfd, err)) < 0)
		return r;
	if (!cv_store_has_own(st, id)) {
		cv_fs_unlock(vfd);
		if (cv_store_in_system(st, id))
			return cv_err_set(
				err, CV_EPERM,
				"cuDNN %s is owned by the system store %s; ask its admin",
				id, st->system->root);
		return cv_err_set(err, CV_ENOTFOUND,
				  "cuDNN %s is not installed", id);
	}
	if (!cv_inventory_is_version(st->dirfd, id)) {
		char *path = cv_path_join(st->root, id);
		char *q = cv_shell_quote_word(path);
		cv_fs_unlock(vfd);
		cv_err_set(err, CV_ESTORE,
			   "'%s' holds no cudnnvm.json: cudnnvm did not "
			   "install it, so it is left in place",
			   path);
		r = cv_err_hint(err, "ls -la %s", q);
		free(q);
		free(path);
		return r;
	}
	if ((r = cv_store_staging_new(st, "rm", &name, &lfd, err)) < 0) {
		cv_fs_unlock(vfd);
		return r;
	}
	/* Move the version into staging: it vanishes in one step, and a
	 * killed run leaves only sweepable staging. */
	dir = xasprintf("%s/old", name);
	if (cv_os_rename_at(st->dirfd, id, st->stagingfd, dir) != 0)
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot remove '%s/%s'", st->root, id);
	else
		cv_os_sync(st->dirfd);
	free(dir);
	cv_store_staging_drop(st, name, lfd);
	free(name);
	cv_fs_unlock(vfd);
	if (r == 0)
		cv_store_deps_collect(st);
	return r;
}

/* The hint for a `current` that is not what cudnnvm makes: move it out of
 * the way (nothing is deleted), then set the global version again. */
int
cv_store_current_moved_hint(struct cv_err *err, const char *root, int code)
{
	char *cur = xasprintf("%s/current", root), *aside, *q, *qa;

	aside = xasprintf("%s.moved", cur);
	q = cv_shell_quote_word(cur);
	qa = cv_shell_quote_word(aside);
	cv_err_hint(err, "mv %s %s", q, qa);
	free(q);
	free(qa);
	free(aside);
	free(cur);
	return code;
}

int
cv_store_current_not_link(struct cv_err *err, const char *root)
{
	return cv_store_current_moved_hint(
		err, root,
		cv_err_set(err, CV_ESTORE, "'%s/current' is not a symlink",
			   root));
}

/* When `path` lies in a dependency folder of the store holding `id`:
 * 1, and "rm -rf <that folder>" added to b. */
static int
dep_folder(const struct cv_store *st, const char *id, const char *path,
	   struct cv_buf *b)
{
	char *home = cv_store_dir(st, id), *deps;
	const char *slash = cv_path_last_sep(home), *end;
	size_t dl;
	int r = 0;

	deps = xasprintf("%.*s/deps/", (int)(slash - home), home);
	dl = strlen(deps);
	if (strncmp(path, deps, dl) == 0 && path[dl] != '\0') {
		char *folder;
		end = strchr(path + dl, '/');
		folder = xstrndup(path,
				  end ? (size_t)(end - path) : strlen(path));
		cv_buf_adds(b, "rm -rf ");
		cv_shell_quote(b, CV_SHELL_SH, folder, NULL);
		free(folder);
		r = 1;
	}
	free(deps);
	free(home);
	return r;
}

char *
cv_store_trust_fix(const struct cv_store *st, const char *id,
		   const struct cv_trust *t)
{
	struct cv_buf b = CV_BUF_INIT, cmd = CV_BUF_INIT;
	struct cv_installed inst;
	const char *sys = cv_store_system_root(st);
	char *dir;

	if (!t->other_owner && !t->not_folder) {
		/* the owner (this user, or root) takes the others' write
		 * bit away */
		cv_buf_adds(&b,
			    cv_os_euid() != 0 && t->uid == 0 ? "sudo " : "");
		cv_buf_adds(&b, "chmod go-w ");
		cv_shell_quote(&b, CV_SHELL_SH, t->path, NULL);
		return cv_buf_detach(&b);
	}
	/* someone else may have changed the files: put back a copy nobody
	 * else has touched, in the store that holds it; a dependency folder
	 * is shared, so it is replaced on its own */
	if (sys != NULL && cv_store_in_system(st, id)) {
		cv_buf_adds(&cmd, "sudo cudnnvm --store ");
		cv_shell_quote(&cmd, CV_SHELL_SH, sys, NULL);
	} else
		cv_buf_adds(&cmd, "cudnnvm");
	dir = cv_store_dir(st, id);
	memset(&inst, 0, sizeof inst);
	if (dep_folder(st, id, t->path, &b))
		cv_buf_addf(&b, " && %s install %s --deps always", cmd.buf, id);
	else if (cv_store_read_meta(dir, &inst, NULL) == 0 &&
		 strncmp(inst.source, "import:", 7) == 0) {
		cv_buf_addf(&b, "%s uninstall --force %s && %s import ",
			    cmd.buf, id, cmd.buf);
		cv_shell_quote(&b, CV_SHELL_SH, inst.source + 7, NULL);
	} else
		cv_buf_addf(&b, "%s install --force %s", cmd.buf, id);
	cv_buf_release(&cmd);
	free(dir);
	return cv_buf_detach(&b);
}
