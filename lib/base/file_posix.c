/* file_posix.c: the files, folders and links of base's face (cv_os_*,
 * cv_dir_*) on POSIX: each a thin call of the system's own, translating
 * only the flags and the stat, so a caller's race-safety (a folder handle,
 * no following of links) is kept exactly. */
#include "base/base_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* after <glob.h>: it rebinds glob */
#include "base/glibc_compat.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

_Static_assert(CV_AT_CWD == AT_FDCWD, "CV_AT_CWD is AT_FDCWD on POSIX");

static void
from_stat(const struct stat *sb, struct cv_stat *st)
{
	if (S_ISREG(sb->st_mode))
		st->kind = CV_KIND_FILE;
	else if (S_ISDIR(sb->st_mode))
		st->kind = CV_KIND_DIR;
	else if (S_ISLNK(sb->st_mode))
		st->kind = CV_KIND_LINK;
	else
		st->kind = CV_KIND_OTHER;
	st->perm = (unsigned)(sb->st_mode & 07777);
	st->uid = (long)sb->st_uid;
	st->size = sb->st_size > 0 ? (uint64_t)sb->st_size : 0;
	st->mtime = (int64_t)sb->st_mtim.tv_sec;
	st->mtime_ns = (long)sb->st_mtim.tv_nsec;
	st->atime = (int64_t)sb->st_atim.tv_sec;
	st->dev = (uint64_t)sb->st_dev;
	st->ino = (uint64_t)sb->st_ino;
}

int
cv_os_stat_at(int dir, const char *name, int nofollow, struct cv_stat *st)
{
	struct stat sb;

	if (fstatat(dir, name, &sb, nofollow ? AT_SYMLINK_NOFOLLOW : 0) != 0)
		return -1;
	from_stat(&sb, st);
	return 0;
}

int
cv_os_stat(const char *path, struct cv_stat *st)
{
	return cv_os_stat_at(AT_FDCWD, path, 0, st);
}

int
cv_os_lstat(const char *path, struct cv_stat *st)
{
	return cv_os_stat_at(AT_FDCWD, path, 1, st);
}

int
cv_os_fstat(int fd, struct cv_stat *st)
{
	struct stat sb;

	if (fstat(fd, &sb) != 0)
		return -1;
	from_stat(&sb, st);
	return 0;
}

int
cv_os_same_file(const struct cv_stat *a, const struct cv_stat *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

static int
open_flags(unsigned flags)
{
	int f = O_CLOEXEC;

	if ((flags & CV_OPEN_READ) && (flags & CV_OPEN_WRITE))
		f |= O_RDWR;
	else if (flags & CV_OPEN_WRITE)
		f |= O_WRONLY;
	else
		f |= O_RDONLY;
	f |= (flags & CV_OPEN_CREATE) ? O_CREAT : 0;
	f |= (flags & CV_OPEN_EXCL) ? O_EXCL : 0;
	f |= (flags & CV_OPEN_TRUNC) ? O_TRUNC : 0;
	f |= (flags & CV_OPEN_APPEND) ? O_APPEND : 0;
	f |= (flags & CV_OPEN_NOFOLLOW) ? O_NOFOLLOW : 0;
	f |= (flags & CV_OPEN_DIR) ? O_DIRECTORY : 0;
	f |= (flags & CV_OPEN_NONBLOCK) ? O_NONBLOCK : 0;
	f |= (flags & CV_OPEN_NOCTTY) ? O_NOCTTY : 0;
	f |= (flags & CV_OPEN_PATH) ? O_PATH : 0;
	return f;
}

int
cv_os_open_at(int dir, const char *name, unsigned flags, unsigned mode)
{
	return openat(dir, name, open_flags(flags), (mode_t)mode);
}

int
cv_os_open(const char *path, unsigned flags, unsigned mode)
{
	return open(path, open_flags(flags), (mode_t)mode);
}

long
cv_os_read(int fd, void *buf, size_t n)
{
	return (long)read(fd, buf, n);
}

long
cv_os_pread(int fd, void *buf, size_t n, uint64_t off)
{
	return (long)pread(fd, buf, n, (off_t)off);
}

long
cv_os_pwrite(int fd, const void *buf, size_t n, uint64_t off)
{
	return (long)pwrite(fd, buf, n, (off_t)off);
}

long
cv_os_write(int fd, const void *buf, size_t n)
{
	return (long)write(fd, buf, n);
}

int
cv_os_close(int fd)
{
	return close(fd);
}

int
cv_os_sync(int fd)
{
	return fsync(fd);
}

void
cv_os_writeback(int fd, uint64_t off, uint64_t len)
{
#ifdef SYNC_FILE_RANGE_WRITE
	sync_file_range(fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
#else
	(void)fd, (void)off, (void)len;
#endif
}

int
cv_os_truncate(int fd, uint64_t len)
{
	if (len > (uint64_t)INT64_MAX) {
		errno = EFBIG;
		return -1;
	}
	return ftruncate(fd, (off_t)len);
}

int
cv_os_seek(int fd, uint64_t off)
{
	if (off > (uint64_t)INT64_MAX) {
		errno = EINVAL;
		return -1;
	}
	return lseek(fd, (off_t)off, SEEK_SET) < 0 ? -1 : 0;
}

int
cv_os_remove_at(int dir, const char *name, int is_dir)
{
	return unlinkat(dir, name, is_dir ? AT_REMOVEDIR : 0);
}

int
cv_os_unlink(const char *path)
{
	return unlink(path);
}

int
cv_os_rmdir(const char *path)
{
	return rmdir(path);
}

int
cv_os_mkdir_at(int dir, const char *name, unsigned mode)
{
	return mkdirat(dir, name, (mode_t)mode);
}

int
cv_os_mkdir(const char *path, unsigned mode)
{
	return mkdir(path, (mode_t)mode);
}

int
cv_os_rename_at(int fromdir, const char *from, int todir, const char *to)
{
	return renameat(fromdir, from, todir, to);
}

/* the system call, not glibc's renameat2 (2.28): the front binary of a
 * release keeps to glibc 2.17 (lib/base/glibc_compat.h) */
static int
rename2(int fromdir, const char *from, int todir, const char *to, unsigned how)
{
#ifdef SYS_renameat2
	return (int)syscall(SYS_renameat2, fromdir, from, todir, to, how);
#else
	(void)fromdir, (void)from, (void)todir, (void)to, (void)how;
	errno = ENOSYS;
	return -1;
#endif
}

int
cv_os_rename_noreplace(int fromdir, const char *from, int todir, const char *to)
{
	return rename2(fromdir, from, todir, to, RENAME_NOREPLACE);
}

int
cv_os_rename_exchange(int fromdir, const char *from, int todir, const char *to)
{
	return rename2(fromdir, from, todir, to, RENAME_EXCHANGE);
}

int
cv_os_symlink_at(const char *target, int dir, const char *name)
{
	return symlinkat(target, dir, name);
}

long
cv_os_readlink_at(int dir, const char *name, char *buf, size_t n)
{
	ssize_t len;

	if (n < 2) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* all n bytes asked for: a target that fills them has no room for
	 * the NUL, and may have been cut */
	len = readlinkat(dir, name, buf, n);
	if (len < 0)
		return -1;
	if ((size_t)len >= n) {
		buf[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	buf[len] = '\0';
	return (long)len;
}

long
cv_os_readlink(const char *path, char *buf, size_t n)
{
	return cv_os_readlink_at(AT_FDCWD, path, buf, n);
}

int
cv_os_chmod_at(int dir, const char *name, unsigned perm, int nofollow)
{
	return fchmodat(dir, name, (mode_t)perm,
			nofollow ? AT_SYMLINK_NOFOLLOW : 0);
}

int
cv_os_fchmod(int fd, unsigned perm)
{
	return fchmod(fd, (mode_t)perm);
}

int
cv_os_set_times_at(int dir, const char *name, const struct timespec *t,
		   int nofollow)
{
	struct timespec ts[2] = { *t, *t };

	return utimensat(dir, name, ts, nofollow ? AT_SYMLINK_NOFOLLOW : 0);
}

int
cv_os_fset_times(int fd, const struct timespec *t)
{
	struct timespec ts[2] = { *t, *t };

	return futimens(fd, ts);
}

int
cv_os_mkstemp(char *tmpl)
{
	return mkostemp(tmpl, O_CLOEXEC);
}

static int
access_mode(int what)
{
	int m = F_OK;

	m |= (what & CV_ACCESS_READ) ? R_OK : 0;
	m |= (what & CV_ACCESS_WRITE) ? W_OK : 0;
	m |= (what & CV_ACCESS_EXEC) ? X_OK : 0;
	return m;
}

int
cv_os_access(const char *path, int what)
{
	return cv_os_access_at(AT_FDCWD, path, what);
}

int
cv_os_access_at(int dir, const char *name, int what)
{
	int how = ((what & CV_ACCESS_EFFECTIVE) ? AT_EACCESS : 0) |
		  ((what & CV_ACCESS_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0);

	/* plain access(2) where no flag is asked: faccessat's flags are
	 * emulated in user space by some C libraries */
	if (how == 0 && dir == AT_FDCWD)
		return access(name, access_mode(what));
	return faccessat(dir, name, access_mode(what), how);
}

char *
cv_os_realpath(const char *path, char *buf, size_t n)
{
	char *r = realpath(path, NULL);
	size_t len;

	if (r == NULL)
		return NULL;
	len = strlen(r);
	if (len >= n) {
		free(r);
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(buf, r, len + 1);
	free(r);
	return buf;
}

char *
cv_os_getcwd(void)
{
	char *p = getcwd(NULL, 0);
	char *r;

	if (p == NULL)
		return NULL;
	/* xmalloc'd like every string lib/ hands out */
	r = xstrdup(p);
	free(p);
	return r;
}

int
cv_os_chdir(const char *path)
{
	return chdir(path);
}

int
cv_os_fchdir(int fd)
{
	return fchdir(fd);
}

unsigned
cv_os_umask(unsigned mask)
{
	return (unsigned)umask((mode_t)mask);
}

size_t
cv_os_glob(const char *pattern, struct cv_strv *out)
{
	glob_t g;
	size_t n = 0;

	if (glob(pattern, 0, NULL, &g) != 0)
		return 0;
	for (; n < g.gl_pathc; n++)
		cv_strv_push(out, g.gl_pathv[n]);
	globfree(&g);
	return n;
}

/* ---- folders ---------------------------------------------------------- */

struct cv_dir {
	DIR *d;
};

struct cv_dir *
cv_dir_adopt(int fd)
{
	DIR *d = fdopendir(fd);
	struct cv_dir *cd;

	if (d == NULL)
		return NULL;
	cd = xmalloc(sizeof *cd);
	cd->d = d;
	return cd;
}

const char *
cv_dir_next(struct cv_dir *d, int *kind)
{
	struct dirent *de;

	while ((de = readdir(d->d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (kind != NULL) {
			switch (de->d_type) {
			case DT_REG:
				*kind = CV_KIND_FILE;
				break;
			case DT_DIR:
				*kind = CV_KIND_DIR;
				break;
			case DT_LNK:
				*kind = CV_KIND_LINK;
				break;
			case DT_UNKNOWN:
				*kind = CV_KIND_NONE;
				break;
			default:
				*kind = CV_KIND_OTHER;
				break;
			}
		}
		return de->d_name;
	}
	return NULL;
}

int
cv_dir_fd(const struct cv_dir *d)
{
	return dirfd(d->d);
}

void
cv_dir_rewind(struct cv_dir *d)
{
	rewinddir(d->d);
}

void
cv_dir_close(struct cv_dir *d)
{
	if (d == NULL)
		return;
	closedir(d->d);
	free(d);
}

/* flock: a lock of the open file, so two opens contend even in one
 * process, and one fork's child shares with its parent */
int
cv_os_lock(int fd, unsigned how)
{
	return flock(fd, ((how & CV_LOCK_SH) ? LOCK_SH : LOCK_EX) |
				 ((how & CV_LOCK_NOWAIT) ? LOCK_NB : 0));
}

/* The process holding a flock on the file open at `fd`, from /proc/locks
 * ("1: FLOCK ADVISORY WRITE <pid> <maj>:<min>:<inode> 0 EOF"); 0 when it
 * cannot be told (no /proc, another pid namespace). The device is matched
 * when it agrees; an overlay or FUSE file reports another one than stat,
 * so a lone match on the inode is taken too. */
long
cv_os_lock_holder(int fd)
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
