/* fs.c: mkdir -p, rm -rf that never follows links, locks (flock on POSIX,
 * LockFileEx on Windows: both die with their process, so there is no stale
 * lock) and the one write-to-a-temporary-then-rename that every small file
 * cudnnvm replaces goes through (pins, shims, venv scripts, caches). Every
 * OS call is base's face (cv_os_*, cv_dir_*), so this file is the same on
 * each platform. The rename is atomic where the platform makes it so:
 * rename(2) on POSIX; on Windows MoveFileExW with MOVEFILE_REPLACE_EXISTING,
 * which NTFS does as one rename of the name (a reader sees the old file or
 * the new one, never a mix), though Windows does not promise it in
 * writing and refuses it while another process holds the old file open
 * without FILE_SHARE_DELETE. */
#include "base/base_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* flock's and LockFileEx's "held by another" */
#ifndef EWOULDBLOCK
#define EWOULDBLOCK EAGAIN
#endif
#define STICKY 01000

/* The last separator of path (either kind on Windows), or NULL. */
static const char *
last_sep(const char *path)
{
	const char *last = NULL;

	for (const char *c = path; *c; c++)
		if (cv_os_is_sep((unsigned char)*c))
			last = c;
	return last;
}

int
cv_fs_mkdirs(const char *path, mode_t mode, struct cv_err *err)
{
	char *p = xstrdup(path);
	struct cv_stat sb;
	int rc = 0;

	for (char *s = p + 1;; s++) {
		char c = *s;
		if (!cv_os_is_sep((unsigned char)c) && c != '\0')
			continue;
		*s = '\0';
		if (cv_os_mkdir(p, mode) == 0) {
			/* the mode asked for, not what the umask leaves */
			cv_os_chmod_at(CV_AT_CWD, p, mode, 0);
		} else if (errno != EEXIST &&
			   !(s == p + 2 && p[1] == ':')) { /* a drive, C: */
			rc = cv_err_errno(err, cv_code_from_errno(errno),
					  "cannot create folder '%s'", p);
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	if (rc == 0 && (cv_os_stat(path, &sb) != 0 || sb.kind != CV_KIND_DIR)) {
		errno = ENOTDIR;
		rc = cv_err_errno(err, CV_ESTORE, "'%s' is not a folder", path);
	}
	free(p);
	return rc;
}

static int
rm_dirfd(int dfd, const char *what, struct cv_err *err)
{
	struct cv_dir *d = cv_dir_adopt(dfd);
	const char *name;
	int rc = 0;

	if (d == NULL) {
		cv_os_close(dfd);
		return cv_err_errno(err, CV_EIO, "cannot read '%s'", what);
	}
	while ((name = cv_dir_next(d, NULL)) != NULL)
		if ((rc = cv_fs_rmtree_at(cv_dir_fd(d), name, err)) < 0)
			break;
	cv_dir_close(d);
	return rc;
}

int
cv_fs_rmtree_at(int dirfd, const char *name, struct cv_err *err)
{
	struct cv_stat sb;
	int fd, r;

	if (cv_os_stat_at(dirfd, name, 1, &sb) != 0)
		return errno == ENOENT
			       ? 0
			       : cv_err_errno(err, CV_EIO, "cannot remove '%s'",
					      name);
	if (sb.kind != CV_KIND_DIR) {
		if (cv_os_remove_at(dirfd, name, 0) != 0 && errno != ENOENT)
			return cv_err_errno(err, cv_code_from_errno(errno),
					    "cannot remove '%s'", name);
		return 0;
	}
	fd = cv_os_open_at(dirfd, name,
			   CV_OPEN_READ | CV_OPEN_DIR | CV_OPEN_NOFOLLOW, 0);
	if (fd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot open '%s'", name);
	/* A folder we cannot list (mode 0) can still be emptied by us. */
	if ((r = rm_dirfd(fd, name, err)) < 0)
		return r;
	if (cv_os_remove_at(dirfd, name, 1) != 0 && errno != ENOENT)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot remove '%s'", name);
	return 0;
}

int
cv_fs_rmtree(const char *path, struct cv_err *err)
{
	return cv_fs_rmtree_at(CV_AT_CWD, path, err);
}

/* Lock files are opened from a folder descriptor, never through a link,
 * and are 0644 whatever the umask (a reader may take a shared look). */
static int
open_lock(int dirfd, const char *name, const char *shown, int *fd,
	  struct cv_err *err)
{
	struct cv_stat sb;

	*fd = cv_os_open_at(dirfd, name,
			    CV_OPEN_READ | CV_OPEN_WRITE | CV_OPEN_CREATE |
				    CV_OPEN_NOFOLLOW,
			    0644);
	if (*fd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot open lock '%s'", shown);
	if (cv_os_fstat(*fd, &sb) == 0 && sb.perm != 0644 &&
	    sb.uid == cv_os_euid())
		cv_os_fchmod(*fd, 0644);
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
	if (cv_os_lock(*fd, CV_LOCK_EX | CV_LOCK_NOWAIT) == 0)
		return 1;
	r = errno == EWOULDBLOCK ? 0 : lock_error(shown, err);
	cv_os_close(*fd);
	*fd = -1;
	return r;
}

int
cv_fs_trylock(const char *path, int *fd, struct cv_err *err)
{
	return cv_fs_trylock_at(CV_AT_CWD, path, path, fd, err);
}

long
cv_fs_lock_holder(int fd)
{
	return cv_os_lock_holder(fd);
}

/* Block for the lock `how` on the open *fd; on failure it is closed. */
static int
wait_lock(int *fd, unsigned how, const char *shown, struct cv_err *err)
{
	int r;

	while (cv_os_lock(*fd, how) != 0) {
		if (errno == EINTR)
			continue;
		r = lock_error(shown, err);
		cv_os_close(*fd);
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
	return wait_lock(fd, CV_LOCK_EX, shown, err);
}

int
cv_fs_lock_shared_at(int dirfd, const char *name, const char *shown, int *fd,
		     struct cv_err *err)
{
	int r;

	if ((r = open_lock(dirfd, name, shown, fd, err)) < 0)
		return r;
	return wait_lock(fd, CV_LOCK_SH, shown, err);
}

int
cv_fs_lock(const char *path, int nowait,
	   void (*waiting)(void *payload, const char *what), void *payload,
	   const char *what, int *fd, struct cv_err *err)
{
	return cv_fs_lock_at(CV_AT_CWD, path, path, nowait, waiting, payload,
			     what, fd, err);
}

void
cv_fs_unlock(int fd)
{
	if (fd >= 0)
		cv_os_close(fd);
}

int
cv_fs_lock_busy(const char *path)
{
	int fd = cv_os_open(path, CV_OPEN_READ, 0), busy = 0;

	if (fd >= 0) {
		/* taken for an instant at most, and given back by the close */
		busy = cv_os_lock(fd, CV_LOCK_EX | CV_LOCK_NOWAIT) < 0 &&
		       errno == EWOULDBLOCK;
		cv_os_close(fd);
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
	struct cv_dir *d = cv_dir_open(*dir ? dir : ".");
	const char *n;
	size_t bl = strlen(base);

	while (d != NULL && (n = cv_dir_next(d, NULL)) != NULL) {
		const char *p;
		size_t len = strlen(n);
		struct cv_stat sb;
		char *end;
		long pid;
		if (n[0] != '.' || len < bl + 8 ||
		    strncmp(n + 1, base, bl) != 0 || n[bl + 1] != '.' ||
		    strcmp(n + len - 4, ".tmp") != 0)
			continue;
		p = n + bl + 2;
		pid = strtol(p, &end, 10);
		if (end == p || *end != '.' || pid <= 0 || pid == cv_os_pid() ||
		    cv_os_pid_alive(pid))
			continue;
		if (cv_os_stat_at(cv_dir_fd(d), n, 1, &sb) == 0 &&
		    sb.kind == CV_KIND_FILE && sb.uid == cv_os_euid())
			cv_os_remove_at(cv_dir_fd(d), n, 0);
	}
	if (d != NULL)
		cv_dir_close(d);
}

/* A hidden name beside `path` (same file system, so the rename is
 * atomic), never an existing file or a link planted there: its descriptor,
 * or -1 with errno (*tmp NULL). */
static int
open_temp_beside(const char *path, mode_t mode, char **tmp)
{
	static unsigned long made;
	const char *slash = last_sep(path);
	size_t dirlen = slash != NULL ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dirlen;
	int fd = -1, e;

	*tmp = NULL;
	for (int tries = 0; fd < 0 && tries < 8; tries++) {
		/* the pid and a count make it unique among the living;
		 * the time, among the dead that left one behind */
		unsigned long salt =
			(unsigned long)time(NULL) ^ (++made * 2654435761u);
		free(*tmp);
		*tmp = xasprintf("%.*s.%s.%ld.%lx.tmp", (int)dirlen, path, base,
				 cv_os_pid(), salt);
		fd = cv_os_open(*tmp,
				CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL |
					CV_OPEN_NOFOLLOW,
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
	int fd = -1, e;

	fd = open_temp_beside(path, mode, &tmp);
	if (fd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot write '%s'", path);
	if (cv_os_write_all(fd, data, len) != 0 ||
	    cv_os_fchmod(fd, mode) != 0 || cv_os_sync(fd) != 0) {
		e = errno;
		cv_os_close(fd);
		goto fail;
	}
	if (cv_os_close(fd) != 0) {
		e = errno;
		goto fail;
	}
	if (cv_os_rename_at(CV_AT_CWD, tmp, CV_AT_CWD, path) != 0) {
		e = errno;
		cv_os_unlink(tmp);
		free(tmp);
		errno = e;
		return cv_err_errno(err, cv_code_from_errno(e),
				    "cannot replace '%s'", path);
	}
	free(tmp);
	{
		const char *slash = last_sep(path);
		size_t dirlen = slash != NULL ? (size_t)(slash - path) + 1 : 0;
		char *dir = xstrndup(path, dirlen);
		sweep_temporaries(dir, path + dirlen);
		free(dir);
	}
	return 0;
fail:
	cv_os_unlink(tmp);
	free(tmp);
	errno = e;
	return cv_err_errno(err, e == EACCES ? CV_EPERM : CV_EIO,
			    "cannot write '%s'", path);
}

ssize_t
cv_fs_read_head(int dirfd, const char *name, int nofollow, char *buf, size_t n)
{
	int fd =
		cv_os_open_at(dirfd, name,
			      CV_OPEN_READ | CV_OPEN_NONBLOCK | CV_OPEN_NOCTTY |
				      (nofollow ? CV_OPEN_NOFOLLOW : 0),
			      0);
	struct cv_stat sb;
	size_t got = 0;
	long r = 0;

	if (fd < 0)
		return -1;
	if (cv_os_fstat(fd, &sb) != 0 || sb.kind != CV_KIND_FILE) {
		cv_os_close(fd);
		errno = EINVAL;
		return -1;
	}
	/* a large head (a conda record) may come in several reads */
	while (got < n - 1 &&
	       ((r = cv_os_read(fd, buf + got, n - 1 - got)) > 0 ||
		(r < 0 && errno == EINTR)))
		got += r > 0 ? (size_t)r : 0;
	cv_os_close(fd);
	if (r < 0)
		return -1;
	buf[got] = '\0';
	return (ssize_t)got;
}

/* The length of path's root: 1 for "/", 3 for Windows's "C:\\", 0 when
 * it is relative. */
static size_t
root_len(const char *p)
{
	if (cv_os_is_sep((unsigned char)p[0]))
		return 1;
	if (p[0] != '\0' && p[1] == ':' && cv_os_is_sep((unsigned char)p[2]) &&
	    cv_os_is_absolute(p))
		return 3;
	return 0;
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

	/* up to the root, "/" (or on Windows "C:\\") */
	while (r == 0 && strlen(p) > root_len(p)) {
		char *slash = (char *)last_sep(p);
		if (slash == NULL)
			break;
		if ((size_t)(slash - p) < root_len(p))
			p[root_len(p)] = '\0';
		else
			*slash = '\0';
		if (cv_os_stat_at(CV_AT_CWD, p, nofollow, &sb) == 0)
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
	if (sb->uid != cv_os_euid() && sb->uid != 0)
		return 'u';
	if ((sb->perm & 022) == 0 || (sticky_ok && (sb->perm & STICKY) != 0))
		return 0;
	return (sb->perm & 002) != 0 ? 'o' : 'g';
}

int
cv_fs_foreign_at(int dirfd, const char *path, long *uid)
{
	struct cv_stat sb;

	if (cv_os_stat_at(dirfd, path, 1, &sb) != 0 || sb.uid == cv_os_euid() ||
	    sb.uid == 0)
		return 0;
	if (uid != NULL)
		*uid = sb.uid;
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
		long n =
			cv_os_write(s->fd, (const char *)data + off, len - off);
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
		cv_os_close(s->fd);
	cv_os_unlink(s->tmp);
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
	if (cv_os_sync(fd) != 0 || cv_os_close(fd) != 0) {
		int e = errno;
		cv_fs_stream_abort(s);
		errno = e;
		return cv_err_errno(err, CV_EIO, "cannot write '%s'", path);
	}
	if (cv_os_rename_at(CV_AT_CWD, s->tmp, CV_AT_CWD, path) != 0) {
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
	struct cv_dir *d = cv_dir_open(dir);
	const char *name;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (d == NULL)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot read '%s'", dir);
	while ((name = cv_dir_next(d, NULL)) != NULL) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		(*out)[(*n)++] = xstrdup(name);
	}
	cv_dir_close(d);
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
	*fd = cv_os_open(dir, CV_OPEN_READ | CV_OPEN_DIR, 0);
	if (*fd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot open '%s' to lock it", dir);
	return wait_lock(fd, CV_LOCK_EX, dir, err);
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
	int fd = cv_os_open(path, CV_OPEN_READ | CV_OPEN_NOFOLLOW, 0), r = 0;

	if (fd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot read '%s'", path);
	buf = xmalloc(1 << 16);
	for (;;) {
		long n = cv_os_read(fd, buf, 1 << 16);
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
	cv_os_close(fd);
	return r;
}

int
cv_fs_readlink(const char *path, char *buf, size_t n, struct cv_err *err)
{
	if (cv_os_readlink(path, buf, n) < 0) {
		if (errno == ENAMETOOLONG)
			return cv_err_set(err, CV_EDATA,
					  "the link '%s' is too long", path);
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot read the link '%s'", path);
	}
	return 0;
}

int
cv_fs_symlink(const char *target, const char *path, struct cv_err *err)
{
	if (cv_os_symlink_at(target, CV_AT_CWD, path) != 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot make the link '%s'", path);
	return 0;
}

int
cv_fs_rename(const char *from, const char *to, struct cv_err *err)
{
	if (cv_os_rename_at(CV_AT_CWD, from, CV_AT_CWD, to) != 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot move '%s' to '%s'", from, to);
	return 0;
}

/* Everything under a folder on disk (a staged version before the store
 * publishes it): each file and folder of it, not the whole filesystem
 * (syncfs would also wait for the download cache and whatever else the
 * machine has written). The files' writeback was started as each was
 * finished; a first pass starts any that was not, so the disk gets them
 * all at once, then the second waits, files before the folders that name
 * them. Links are not followed (they live in their folder). */
static int
sync_one(const char *path, unsigned flags, int wait, struct cv_err *err)
{
	int fd = cv_os_open(path, CV_OPEN_READ | CV_OPEN_NOFOLLOW | flags, 0);

	if (!wait) {
		if (fd >= 0) {
			cv_os_writeback(fd, 0, 0);
			cv_os_close(fd);
		}
		return 0;
	}
	if (fd < 0 || cv_os_sync(fd) != 0) {
		int e = errno;
		if (fd >= 0)
			cv_os_close(fd);
		errno = e;
		return cv_err_errno(err, CV_EIO, "cannot sync '%s'", path);
	}
	cv_os_close(fd);
	return 0;
}

static int
sync_walk(const char *dir, int wait, int depth, struct cv_err *err)
{
	struct cv_dir *d = cv_dir_open(dir);
	const char *name;
	int r = 0;

	if (d == NULL)
		return depth == 0 ? cv_err_errno(err, CV_EIO,
						 "cannot walk '%s'", dir)
				  : 0; /* one it cannot read: as nftw */
	while (r == 0 && depth < 256 && (name = cv_dir_next(d, NULL)) != NULL) {
		char *f = cv_path_join(dir, name);
		struct cv_stat sb;
		if (cv_os_stat_at(cv_dir_fd(d), name, 1, &sb) == 0) {
			if (sb.kind == CV_KIND_DIR)
				r = sync_walk(f, wait, depth + 1, err);
			else if (sb.kind == CV_KIND_FILE)
				r = sync_one(f, 0, wait, err);
		}
		free(f);
	}
	cv_dir_close(d);
	if (r == 0 && wait)
		r = sync_one(dir, CV_OPEN_DIR, 1, err);
	return r;
}

int
cv_fs_sync_tree(const char *dir, struct cv_err *err)
{
	int r = sync_walk(dir, 0, 0, err);

	return r < 0 ? r : sync_walk(dir, 1, 0, err);
}
