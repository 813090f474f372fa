/* fs.c: mkdir -p, rm -rf that never follows links, flock locks (kernel
 * locks die with their process: there is no stale lock) and the one
 * write-to-a-temporary-then-rename that every small file cudnnvm replaces
 * goes through (pins, shims, venv scripts, caches). */
#include "base/base_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

int
cv_fs_mkdirs(const char *path, mode_t mode, struct cv_err *err)
{
	char *p = xstrdup(path);
	struct stat sb;
	int rc = 0;

	for (char *s = p + 1;; s++) {
		char c = *s;
		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, mode) == 0) {
			/* the mode asked for, not what the umask leaves */
			chmod(p, mode);
		} else if (errno != EEXIST) {
			rc = cv_err_errno(err, cv_code_from_errno(errno),
					  "cannot create folder '%s'", p);
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	if (rc == 0 && (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
		errno = ENOTDIR;
		rc = cv_err_errno(err, CV_ESTORE, "'%s' is not a folder", path);
	}
	free(p);
	return rc;
}

static int
rm_dirfd(int dfd, const char *what, struct cv_err *err)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int rc = 0;

	if (d == NULL) {
		close(dfd);
		return cv_err_errno(err, CV_EIO, "cannot read '%s'", what);
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if ((rc = cv_fs_rmtree_at(dirfd(d), de->d_name, err)) < 0)
			break;
	}
	closedir(d);
	return rc;
}

int
cv_fs_rmtree_at(int dirfd, const char *name, struct cv_err *err)
{
	struct stat sb;
	int fd, r;

	if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT
			       ? 0
			       : cv_err_errno(err, CV_EIO, "cannot remove '%s'",
					      name);
	if (!S_ISDIR(sb.st_mode)) {
		if (unlinkat(dirfd, name, 0) != 0 && errno != ENOENT)
			return cv_err_errno(err, cv_code_from_errno(errno),
					    "cannot remove '%s'", name);
		return 0;
	}
	fd = openat(dirfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot open '%s'", name);
	/* A folder we cannot list (mode 0) can still be emptied by us. */
	if ((r = rm_dirfd(fd, name, err)) < 0)
		return r;
	if (unlinkat(dirfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot remove '%s'", name);
	return 0;
}

int
cv_fs_rmtree(const char *path, struct cv_err *err)
{
	return cv_fs_rmtree_at(AT_FDCWD, path, err);
}

/* Lock files are opened from a folder descriptor, never through a link,
 * and are 0644 whatever the umask (a reader may take a shared look). */
static int
open_lock(int dirfd, const char *name, const char *shown, int *fd,
	  struct cv_err *err)
{
	struct stat sb;

	*fd = openat(dirfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		     0644);
	if (*fd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot open lock '%s'", shown);
	if (fstat(*fd, &sb) == 0 && (sb.st_mode & 07777) != 0644 &&
	    sb.st_uid == geteuid())
		fchmod(*fd, 0644);
	return 0;
}

static int
lock_error(const char *path, struct cv_err *err)
{
	if (errno == ENOLCK)
		return cv_err_errno(
			err, CV_ESTORE,
			"cannot lock '%s' (a file system without locks, e.g. NFS with nolock?); put the store on a local file system",
			path);
	return cv_err_errno(err, CV_EIO, "cannot lock '%s'", path);
}

int
cv_fs_trylock_at(int dirfd, const char *name, const char *shown, int *fd,
		 struct cv_err *err)
{
	int r;

	*fd = -1;
	if ((r = open_lock(dirfd, name, shown, fd, err)) < 0)
		return r;
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return 1;
	r = errno == EWOULDBLOCK ? 0 : lock_error(shown, err);
	close(*fd);
	*fd = -1;
	return r;
}

int
cv_fs_trylock(const char *path, int *fd, struct cv_err *err)
{
	return cv_fs_trylock_at(AT_FDCWD, path, path, fd, err);
}

/* The process holding a flock on the file open at `fd`, from /proc/locks
 * ("1: FLOCK ADVISORY WRITE <pid> <maj>:<min>:<inode> 0 EOF"); 0 when it
 * cannot be told (no /proc, another pid namespace). The device is matched
 * when it agrees; an overlay or FUSE file reports another one than stat,
 * so a lone match on the inode is taken too. */
long
cv_fs_lock_holder(int fd)
{
	struct stat sb;
	char line[256];
	long by_dev = 0, by_ino = 0;
	int n_ino = 0;
	FILE *f;

	if (fstat(fd, &sb) != 0 || (f = fopen("/proc/locks", "re")) == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL) {
		char *tok[6], *save = NULL, *end;
		unsigned long maj, min;
		unsigned long long ino;
		long pid;
		int n = 0;

		for (char *t = strtok_r(line, " \t\n", &save); t && n < 6;
		     t = strtok_r(NULL, " \t\n", &save))
			tok[n++] = t;
		/* a blocked waiter reads "1: -> FLOCK ...": tok[1] differs */
		if (n < 6 || strcmp(tok[1], "FLOCK") != 0)
			continue;
		pid = strtol(tok[4], &end, 10);
		if (*end != '\0' || pid <= 0)
			continue;
		maj = strtoul(tok[5], &end, 16);
		if (*end != ':')
			continue;
		min = strtoul(end + 1, &end, 16);
		if (*end != ':')
			continue;
		ino = strtoull(end + 1, &end, 10);
		if (ino != (unsigned long long)sb.st_ino)
			continue;
		if (maj == major(sb.st_dev) && min == minor(sb.st_dev))
			by_dev = pid;
		by_ino = pid;
		n_ino++;
	}
	fclose(f);
	if (by_dev > 0)
		return by_dev;
	return n_ino == 1 ? by_ino : 0;
}

/* Block for the flock `op` on the open *fd; on failure it is closed. */
static int
wait_lock(int *fd, int op, const char *shown, struct cv_err *err)
{
	int r;

	while (flock(*fd, op) != 0) {
		if (errno == EINTR)
			continue;
		r = lock_error(shown, err);
		close(*fd);
		*fd = -1;
		return r;
	}
	return 0;
}

int
cv_fs_lock_at(int dirfd, const char *name, const char *shown, int nowait,
	      void (*waiting)(void *payload, const char *what), void *payload,
	      const char *what, int *fd, struct cv_err *err)
{
	int r = cv_fs_trylock_at(dirfd, name, shown, fd, err);

	if (r != 0)
		return r < 0 ? r : 0;
	if (nowait)
		return cv_err_set(
			err, CV_ELOCKED,
			"another cudnnvm is %s; try again when it is done (or drop --no-wait to wait)",
			what);
	if ((r = open_lock(dirfd, name, shown, fd, err)) < 0)
		return r;
	if (waiting != NULL) {
		long pid = cv_fs_lock_holder(*fd);
		char *text =
			pid > 0 ? xasprintf("%s (held by pid %ld)", what, pid)
				: xstrdup(what);
		waiting(payload, text);
		free(text);
	}
	return wait_lock(fd, LOCK_EX, shown, err);
}

int
cv_fs_lock_shared_at(int dirfd, const char *name, const char *shown, int *fd,
		     struct cv_err *err)
{
	int r;

	if ((r = open_lock(dirfd, name, shown, fd, err)) < 0)
		return r;
	return wait_lock(fd, LOCK_SH, shown, err);
}

int
cv_fs_lock(const char *path, int nowait,
	   void (*waiting)(void *payload, const char *what), void *payload,
	   const char *what, int *fd, struct cv_err *err)
{
	return cv_fs_lock_at(AT_FDCWD, path, path, nowait, waiting, payload,
			     what, fd, err);
}

void
cv_fs_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

int
cv_fs_lock_busy(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), busy = 0;

	if (fd >= 0) {
		/* taken for an instant at most, and given back by the close */
		busy = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
		close(fd);
	}
	return busy;
}

/* The temporaries of earlier writes of `base` in `dir` whose writer is
 * gone (killed between open and rename): nothing else would ever remove
 * them from a project, a venv or the shim folder. Only this user's
 * regular files named .<base>.<pid>.<hex>.tmp, of a pid no process has. */
static void
sweep_temporaries(const char *dir, const char *base)
{
	DIR *d = opendir(*dir ? dir : ".");
	struct dirent *de;
	size_t bl = strlen(base);

	while (d != NULL && (de = readdir(d)) != NULL) {
		const char *n = de->d_name, *p;
		size_t len = strlen(n);
		struct stat sb;
		char *end;
		long pid;
		if (n[0] != '.' || len < bl + 8 ||
		    strncmp(n + 1, base, bl) != 0 || n[bl + 1] != '.' ||
		    strcmp(n + len - 4, ".tmp") != 0)
			continue;
		p = n + bl + 2;
		pid = strtol(p, &end, 10);
		if (end == p || *end != '.' || pid <= 0 || pid == getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(dirfd(d), n, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(sb.st_mode) && sb.st_uid == geteuid())
			unlinkat(dirfd(d), n, 0);
	}
	if (d != NULL)
		closedir(d);
}

/* A hidden name beside `path` (same file system, so the rename is
 * atomic), never an existing file or a link planted there: its descriptor,
 * or -1 with errno (*tmp NULL). */
static int
open_temp_beside(const char *path, mode_t mode, char **tmp)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash != NULL ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dirlen;
	int fd = -1, e;

	*tmp = NULL;
	for (int tries = 0; fd < 0 && tries < 8; tries++) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		free(*tmp);
		*tmp = xasprintf("%.*s.%s.%ld.%lx.tmp", (int)dirlen, path, base,
				 (long)getpid(),
				 (unsigned long)ts.tv_nsec ^
					 (unsigned long)tries * 2654435761u);
		fd = open(*tmp,
			  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		e = errno;
		free(*tmp);
		*tmp = NULL;
		errno = e;
	}
	return fd;
}

int
cv_fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
		   struct cv_err *err)
{
	char *tmp = NULL;
	size_t off = 0;
	int fd = -1, e;

	fd = open_temp_beside(path, mode, &tmp);
	if (fd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot write '%s'", path);
	while (off < len) {
		ssize_t n = write(fd, (const char *)data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EIO;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	if (off < len || fchmod(fd, mode) != 0 || fsync(fd) != 0) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) != 0) {
		e = errno;
		goto fail;
	}
	if (rename(tmp, path) != 0) {
		e = errno;
		unlink(tmp);
		free(tmp);
		errno = e;
		return cv_err_errno(err, cv_code_from_errno(e),
				    "cannot replace '%s'", path);
	}
	free(tmp);
	{
		const char *slash = strrchr(path, '/');
		size_t dirlen = slash != NULL ? (size_t)(slash - path) + 1 : 0;
		char *dir = xstrndup(path, dirlen);
		sweep_temporaries(dir, path + dirlen);
		free(dir);
	}
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	errno = e;
	return cv_err_errno(err, e == EACCES ? CV_EPERM : CV_EIO,
			    "cannot write '%s'", path);
}

ssize_t
cv_fs_read_head(int dirfd, const char *name, int nofollow, char *buf, size_t n)
{
	int fd = openat(dirfd, name,
			O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY |
				(nofollow ? O_NOFOLLOW : 0));
	struct stat sb;
	size_t got = 0;
	ssize_t r = 0;

	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	/* a large head (a conda record) may come in several reads */
	while (got < n - 1 && ((r = read(fd, buf + got, n - 1 - got)) > 0 ||
			       (r < 0 && errno == EINTR)))
		got += r > 0 ? (size_t)r : 0;
	close(fd);
	if (r < 0)
		return -1;
	buf[got] = '\0';
	return (ssize_t)got;
}

int
cv_fs_walk_up(const char *path, int nofollow,
	      int (*check)(const char *dir, const struct cv_stat *sb,
			   void *payload),
	      void *payload)
{
	char *p = xstrdup(path);
	struct cv_stat sb;
	int r = 0;

	while (r == 0 && strcmp(p, "/") != 0) {
		char *slash = strrchr(p, '/');
		if (slash == NULL)
			break;
		if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
		if (cv_os_stat_at(AT_FDCWD, p, nofollow, &sb) == 0)
			r = check(p, &sb, payload);
		else
			r = check(p, NULL, payload);
	}
	free(p);
	return r;
}

int
cv_fs_foreign_writer(const struct cv_stat *sb, int sticky_ok)
{
	if (sb->uid != (long)geteuid() && sb->uid != 0)
		return 'u';
	if ((sb->perm & 022) == 0 || (sticky_ok && (sb->perm & S_ISVTX) != 0))
		return 0;
	return (sb->perm & 002) != 0 ? 'o' : 'g';
}

int
cv_fs_foreign_at(int dirfd, const char *path, long *uid)
{
	struct stat sb;

	if (fstatat(dirfd, path, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
	    sb.st_uid == geteuid() || sb.st_uid == 0)
		return 0;
	if (uid != NULL)
		*uid = (long)sb.st_uid;
	return 1;
}

int
cv_fs_project_foreign(int dirfd, const char *dir, const char *file,
		      const char *shown)
{
	char *path = strcmp(dir, "/") == 0 ? xasprintf("/%s", file)
					   : xasprintf("%s/%s", dir, file);
	long uid = 0;
	int r = cv_fs_foreign_at(dirfd, path, &uid) ||
		cv_fs_foreign_at(dirfd, dir, &uid);

	/* what another user may write decides nothing here, as git passes
	 * over a repository another user owns (safe.directory) */
	if (r)
		cv_warn("passing over %s: it belongs to another user (uid "
			"%ld), who could choose what runs here",
			shown, uid);
	free(path);
	return r;
}

/* ---- streams, sorted walks and whole-file reads (export, layouts) ---- */

struct cv_fs_stream {
	int fd;
	char *tmp;
	char *path; /* where commit puts it, for messages */
};

int
cv_fs_stream_open(const char *path, mode_t mode, struct cv_fs_stream **out,
		  struct cv_err *err)
{
	struct cv_fs_stream *s;
	char *tmp = NULL;
	int fd = open_temp_beside(path, mode, &tmp);

	*out = NULL;
	if (fd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot write '%s'", path);
	s = xmalloc(sizeof *s);
	s->fd = fd;
	s->tmp = tmp;
	s->path = xstrdup(path);
	*out = s;
	return 0;
}

int
cv_fs_stream_write(struct cv_fs_stream *s, const void *data, size_t len,
		   struct cv_err *err)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(s->fd, (const char *)data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return cv_err_errno(err,
					    n == 0 ? CV_EIO
						   : cv_code_from_errno(errno),
					    "cannot write '%s'", s->path);
		off += (size_t)n;
	}
	return 0;
}

void
cv_fs_stream_abort(struct cv_fs_stream *s)
{
	if (s == NULL)
		return;
	if (s->fd >= 0)
		close(s->fd);
	unlink(s->tmp);
	free(s->tmp);
	free(s->path);
	free(s);
}

int
cv_fs_stream_commit(struct cv_fs_stream *s, const char *path,
		    struct cv_err *err)
{
	int fd = s->fd;

	s->fd = -1;
	if (fsync(fd) != 0 || close(fd) != 0) {
		int e = errno;
		cv_fs_stream_abort(s);
		errno = e;
		return cv_err_errno(err, CV_EIO, "cannot write '%s'", path);
	}
	if (rename(s->tmp, path) != 0) {
		int e = errno;
		cv_fs_stream_abort(s);
		errno = e;
		return cv_err_errno(err, cv_code_from_errno(e),
				    "cannot replace '%s'", path);
	}
	free(s->tmp);
	free(s->path);
	free(s);
	return 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in folder `dir`, sorted bytewise (C locale): the order every
 * reproducible listing needs, whatever order the file system keeps. */
static int
sorted_names(const char *dir, char ***out, size_t *n, struct cv_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (d == NULL)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot read '%s'", dir);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		(*out)[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n > 1)
		qsort(*out, *n, sizeof **out, cmp_names);
	return 0;
}

static int
walk_sorted(const char *full, const char *rel, cv_fs_visit_fn visit,
	    void *payload, int depth, struct cv_err *err)
{
	char **names = NULL;
	size_t n = 0;
	int r;

	if (depth > 64)
		return cv_err_set(err, CV_EDATA, "'%s' is nested too deeply",
				  full);
	if ((r = sorted_names(full, &names, &n, err)) < 0)
		return r;
	for (size_t i = 0; i < n && r == 0; i++) {
		char *f = cv_path_join(full, names[i]);
		char *rl =
			*rel ? cv_path_join(rel, names[i]) : xstrdup(names[i]);
		struct cv_stat sb;
		if (cv_os_lstat(f, &sb) != 0)
			r = cv_err_errno(err, cv_code_from_errno(errno),
					 "cannot read '%s'", f);
		else if ((r = visit(rl, f, &sb, payload, err)) == 0 &&
			 sb.kind == CV_KIND_DIR)
			r = walk_sorted(f, rl, visit, payload, depth + 1, err);
		free(f);
		free(rl);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

int
cv_fs_lock_dir(const char *dir, int *fd, struct cv_err *err)
{
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot open '%s' to lock it", dir);
	return wait_lock(fd, LOCK_EX, dir, err);
}

int
cv_fs_walk_sorted(const char *root, cv_fs_visit_fn visit, void *payload,
		  struct cv_err *err)
{
	return walk_sorted(root, "", visit, payload, 0, err);
}

int
cv_fs_read_each(const char *path,
		int (*chunk)(const void *data, size_t len, void *payload,
			     struct cv_err *err),
		void *payload, struct cv_err *err)
{
	char *buf;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), r = 0;

	if (fd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot read '%s'", path);
	buf = xmalloc(1 << 16);
	for (;;) {
		ssize_t n = read(fd, buf, 1 << 16);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = cv_err_errno(err, CV_EIO, "cannot read '%s'", path);
			break;
		}
		if (n == 0 || (r = chunk(buf, (size_t)n, payload, err)) < 0)
			break;
	}
	free(buf);
	close(fd);
	return r;
}

int
cv_fs_readlink(const char *path, char *buf, size_t n, struct cv_err *err)
{
	ssize_t len = readlink(path, buf, n - 1);

	if (len < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot read the link '%s'", path);
	if ((size_t)len >= n - 1)
		return cv_err_set(err, CV_EDATA, "the link '%s' is too long",
				  path);
	buf[len] = '\0';
	return 0;
}

int
cv_fs_symlink(const char *target, const char *path, struct cv_err *err)
{
	if (symlink(target, path) != 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot make the link '%s'", path);
	return 0;
}

int
cv_fs_rename(const char *from, const char *to, struct cv_err *err)
{
	if (rename(from, to) != 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot move '%s' to '%s'", from, to);
	return 0;
}

/* Everything under a folder on disk (a staged version before the store
 * publishes it): each file and folder of it, not the whole filesystem
 * (syncfs would also wait for the download cache and whatever else the
 * machine has written). The
 * files' writeback was started as each was finished; a first pass starts
 * any that was not, so the disk gets them all at once, then the second
 * waits, files before the folders that name them. */
static struct cv_err *sync_err;

static int
sync_start_fn(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	int fd;

	(void)f;
	if (flag != FTW_F || !S_ISREG(sb->st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		close(fd);
	}
	return 0;
}

static int
sync_wait_fn(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	int fd;

	(void)sb;
	(void)f;
	if (flag != FTW_F && flag != FTW_DP)
		return 0; /* links live in their folder */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
				(flag == FTW_DP ? O_DIRECTORY : 0));
	if (fd < 0 || fsync(fd) != 0) {
		cv_err_errno(sync_err, CV_EIO, "cannot sync '%s'", path);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

int
cv_fs_sync_tree(const char *dir, struct cv_err *err)
{
	int r;

	sync_err = err;
	nftw(dir, sync_start_fn, 32, FTW_PHYS);
	r = nftw(dir, sync_wait_fn, 32, FTW_PHYS | FTW_DEPTH);
	sync_err = NULL;
	if (r < 0)
		return cv_err_errno(err, CV_EIO, "cannot walk '%s'", dir);
	return r > 0 ? err->code : 0;
}
