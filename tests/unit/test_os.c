/* test_os.c: base's face of the OS (cv_os_*, cv_dir_*, cv_dl_*): what each
 * call gives on success and, as callers tell errors by errno, the errno of
 * each failure they rely on (ENOENT, EEXIST, ELOOP, ENAMETOOLONG). */
#include "base/base.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <process.h>
#include <windows.h>

#include <sddl.h>
/* what Windows has of a mode: the owner's read and write (the read-only
 * attribute) and run (a folder, a program), 022 only where the DACL lets
 * another write */
#define PERM_OWNER(p) ((p)&0700)
#define SEP           "\\"
#else
#include <sys/wait.h>
#include <unistd.h>
#define PERM_OWNER(p) (p)
#define SEP           "/"
#endif

static char dir[256];

/* Whether links can be made here: always on POSIX; on Windows only with
 * the privilege (or Developer Mode) on a file system that has them, and
 * never under wine 8, whose CreateSymbolicLinkW makes nothing: there
 * cv_os_symlink_at must say so (ENOSYS, EPERM), and "l" is made a plain
 * file so that the listings' and glob's cases still count two names. */
static int links;

static int
make_link(const char *target, int dirfd, const char *name)
{
	if (cv_os_symlink_at(target, dirfd, name) == 0)
		return 1;
#ifdef _WIN32
	return errno == ENOSYS || errno == EPERM ? 0 : -1;
#else
	return -1;
#endif
}

static char *
at(const char *name)
{
	static char buf[4][320];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof buf[i], "%s/%s", dir, name);
	return buf[i];
}

static int
count_loaded(const char *path, void *payload)
{
	(void)path;
	return ++*(int *)payload >= 2 ? 7 : 0;
}

static void
files(void)
{
	struct cv_stat a, b;
	char buf[64];
	int fd, dfd;

	fd = cv_os_open(at("f"), CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL,
			0640);
	CHECK(fd >= 0);
	CHECK(cv_os_write_all(fd, "hello", 5) == 0);
	CHECK(cv_os_fchmod(fd, 0600) == 0);
	CHECK(cv_os_sync(fd) == 0);
	CHECK(cv_os_fstat(fd, &a) == 0 && a.kind == CV_KIND_FILE &&
	      a.size == 5 && PERM_OWNER(a.perm) == 0600 &&
	      (a.perm & 022) == 0 && a.uid == cv_os_euid());
	CHECK(cv_os_close(fd) == 0);
	/* EXCL: a second create fails, EEXIST */
	errno = 0;
	CHECK(cv_os_open(at("f"), CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL,
			 0640) < 0 &&
	      errno == EEXIST);
	fd = cv_os_open(at("f"), CV_OPEN_READ, 0);
	CHECK(cv_os_read_full(fd, buf, sizeof buf) == 5 &&
	      strcmp(buf, "hello") == 0);
	CHECK(cv_os_pread(fd, buf, 3, 2) == 3 && memcmp(buf, "llo", 3) == 0);
	/* n bounds the read, the NUL included */
	CHECK(cv_os_pread(fd, buf, 0, 0) == 0);
	cv_os_close(fd);
	fd = cv_os_open(at("f"), CV_OPEN_READ, 0);
	CHECK(cv_os_read_full(fd, buf, 3) == 2 && strcmp(buf, "he") == 0);
	cv_os_close(fd);
	/* a closed handle: EBADF */
	errno = 0;
	CHECK(cv_os_read(fd, buf, 1) < 0 && errno == EBADF);
	CHECK(cv_os_write_all(fd, "x", 1) < 0 && errno == EBADF);
	/* stat, lstat and the identity of one file under two names */
	CHECK((links = make_link("f", CV_AT_CWD, at("l"))) >= 0);
	if (links) {
		CHECK(cv_os_stat(at("l"), &a) == 0 && a.kind == CV_KIND_FILE);
		CHECK(cv_os_lstat(at("l"), &b) == 0 && b.kind == CV_KIND_LINK);
	} else {
		CHECK(cv_os_stat(at("f"), &a) == 0);
		fd = cv_os_open(at("l"), CV_OPEN_WRITE | CV_OPEN_CREATE, 0644);
		CHECK(fd >= 0 && cv_os_close(fd) == 0);
		CHECK(cv_os_lstat(at("l"), &b) == 0 && b.kind == CV_KIND_FILE &&
		      !cv_os_same_file(&a, &b));
	}
	CHECK(cv_os_stat(at("f"), &b) == 0 && cv_os_same_file(&a, &b));
	CHECK(cv_os_stat(dir, &b) == 0 && b.kind == CV_KIND_DIR &&
	      !cv_os_same_file(&a, &b));
	errno = 0;
	CHECK(cv_os_stat(at("none"), &a) < 0 && errno == ENOENT);
	/* NOFOLLOW: a link at the last part is refused, ELOOP */
	errno = 0;
	CHECK(!links ||
	      (cv_os_open(at("l"), CV_OPEN_READ | CV_OPEN_NOFOLLOW, 0) < 0 &&
	       errno == ELOOP));
	/* a file is opened with NOFOLLOW as without */
	CHECK((fd = cv_os_open(at("f"), CV_OPEN_READ | CV_OPEN_NOFOLLOW, 0)) >=
		      0 &&
	      cv_os_close(fd) == 0);
	/* folder handles and the *_at calls under them */
	dfd = cv_os_open(dir, CV_OPEN_READ | CV_OPEN_DIR, 0);
	CHECK(dfd >= 0);
	errno = 0;
	CHECK(cv_os_open(at("f"), CV_OPEN_READ | CV_OPEN_DIR, 0) < 0 &&
	      errno == ENOTDIR);
	if (links) {
		CHECK(cv_os_stat_at(dfd, "l", 1, &a) == 0 &&
		      a.kind == CV_KIND_LINK);
		CHECK(cv_os_stat_at(dfd, "l", 0, &a) == 0 &&
		      a.kind == CV_KIND_FILE);
		CHECK(cv_os_readlink_at(dfd, "l", buf, sizeof buf) == 1 &&
		      strcmp(buf, "f") == 0);
		/* a target that does not fit: ENAMETOOLONG, never a cut one */
		CHECK(cv_os_symlink_at("a-long-target", dfd, "l2") == 0);
		errno = 0;
		CHECK(cv_os_readlink_at(dfd, "l2", buf, 8) < 0 &&
		      errno == ENAMETOOLONG);
		CHECK(cv_os_readlink(at("l2"), buf, 14) == 13);
	} else {
		/* no link made, none left behind */
		CHECK(make_link("a-long-target", dfd, "l2") == 0 &&
		      cv_os_lstat(at("l2"), &a) < 0 && errno == ENOENT);
	}
	errno = 0;
	CHECK(cv_os_readlink_at(dfd, "f", buf, sizeof buf) < 0 &&
	      errno == EINVAL);
	CHECK(cv_os_mkdir_at(dfd, "d", 0700) == 0);
	errno = 0;
	CHECK(cv_os_mkdir_at(dfd, "d", 0700) < 0 && errno == EEXIST);
	CHECK(cv_os_stat_at(dfd, "d", 1, &a) == 0 && a.kind == CV_KIND_DIR);
#ifdef _WIN32
	/* a folder's mode has no Windows meaning beyond the owner's: 0700 */
	CHECK(cv_os_chmod_at(dfd, "d", 0750, 0) == 0 &&
	      cv_os_stat(at("d"), &a) == 0 && PERM_OWNER(a.perm) == 0700);
	errno = 0;
	CHECK(cv_os_chmod_at(dfd, "d", 0500, 0) < 0 && errno == ENOTSUP);
#else
	CHECK(cv_os_chmod_at(dfd, "d", 0750, 0) == 0 &&
	      cv_os_stat(at("d"), &a) == 0 && a.perm == 0750);
#endif
	fd = cv_os_open_at(dfd, "d/g", CV_OPEN_WRITE | CV_OPEN_CREATE, 0644);
	CHECK(fd >= 0 && cv_os_write(fd, "g", 1) == 1);
	cv_os_close(fd);
	/* a folder that holds something stays */
	CHECK(cv_os_remove_at(dfd, "d", 1) < 0 && errno == ENOTEMPTY);
	CHECK(cv_os_rmdir(at("d")) < 0);
	CHECK(cv_os_remove_at(dfd, "d/g", 0) == 0);
	CHECK(cv_os_remove_at(dfd, "d", 1) == 0);
	errno = 0;
	CHECK(cv_os_remove_at(dfd, "d", 1) < 0 && errno == ENOENT);
	CHECK(cv_os_mkdir(at("d"), 0700) == 0 && cv_os_rmdir(at("d")) == 0);
	/* renames: over a file, never over one, swapped */
	fd = cv_os_open_at(dfd, "g", CV_OPEN_WRITE | CV_OPEN_CREATE, 0644);
	cv_os_write_all(fd, "gg", 2);
	cv_os_close(fd);
	errno = 0;
	CHECK(cv_os_rename_noreplace(dfd, "g", dfd, "f") < 0 &&
	      errno == EEXIST);
	CHECK(cv_os_stat(at("g"), &a) == 0 && a.size == 2);
#ifdef _WIN32
	/* no atomic swap on Windows: ENOSYS, the callers' cue to fall back */
	errno = 0;
	CHECK(cv_os_rename_exchange(dfd, "g", dfd, "f") < 0 && errno == ENOSYS);
	CHECK(cv_os_rename_at(dfd, "g", dfd, "x") == 0 &&
	      cv_os_rename_at(dfd, "f", dfd, "g") == 0 &&
	      cv_os_rename_noreplace(dfd, "x", dfd, "f") == 0);
#else
	CHECK(cv_os_rename_exchange(dfd, "g", dfd, "f") == 0);
#endif
	CHECK(cv_os_stat(at("f"), &a) == 0 && a.size == 2 &&
	      cv_os_stat(at("g"), &b) == 0 && b.size == 5);
	CHECK(cv_os_rename_noreplace(dfd, "g", dfd, "h") == 0);
	errno = 0;
	CHECK(cv_os_rename_exchange(dfd, "g", dfd, "h") < 0 && errno == ENOENT);
	CHECK(cv_os_rename_at(dfd, "h", dfd, "f") == 0 &&
	      cv_os_stat(at("f"), &a) == 0 && a.size == 5);
	errno = 0;
	CHECK(cv_os_access(at("h"), CV_ACCESS_EXISTS) < 0 && errno == ENOENT);
	CHECK(cv_os_access(at("f"), CV_ACCESS_READ | CV_ACCESS_WRITE) == 0);
	CHECK(cv_os_access(at("f"), CV_ACCESS_EXEC) < 0);
	CHECK(cv_os_access_at(dfd, "f",
			      CV_ACCESS_WRITE | CV_ACCESS_EFFECTIVE) == 0);
	CHECK(cv_os_access_at(dfd, "l", CV_ACCESS_NOFOLLOW) == 0);
	CHECK(!links || cv_os_unlink(at("l2")) == 0);
	errno = 0;
	CHECK(cv_os_unlink(at("l2")) < 0 && errno == ENOENT);
	cv_os_close(dfd);
	/* realpath: the link resolved; a buffer too small, ENAMETOOLONG */
	{
		char real[256], want[256], *cwd;
		CHECK(cv_os_realpath(dir, want, sizeof want) == want);
		snprintf(want + strlen(want), sizeof want - strlen(want),
			 SEP "f");
		CHECK(cv_os_realpath(at(links ? "l" : "f"), real,
				     sizeof real) == real &&
		      strcmp(real, want) == 0);
		errno = 0;
		CHECK(cv_os_realpath(at("l"), real, 4) == NULL &&
		      errno == ENAMETOOLONG);
		errno = 0;
		CHECK(cv_os_realpath(at("none"), real, sizeof real) == NULL &&
		      errno == ENOENT);
		cwd = cv_os_getcwd();
#ifdef _WIN32
		CHECK(cwd != NULL && cwd[0] != '\0' && cwd[1] == ':');
#else
		CHECK(cwd != NULL && cwd[0] == '/');
#endif
		free(cwd);
	}
}

static void
listings(void)
{
	struct cv_strv g = CV_STRV_INIT;
	struct cv_dir *d;
	const char *name;
	int kind, seen_f = 0, seen_l = 0, n = 0, dots = 0;

	/* "." and ".." left out, the kind told */
	d = cv_dir_open(dir);
	CHECK(d != NULL);
	while (d != NULL && (name = cv_dir_next(d, &kind)) != NULL) {
		n++;
		dots += name[0] == '.';
		if (strcmp(name, "f") == 0)
			seen_f = kind == CV_KIND_FILE || kind == CV_KIND_NONE;
		if (strcmp(name, "l") == 0)
			seen_l =
				kind == (links ? CV_KIND_LINK : CV_KIND_FILE) ||
				kind == CV_KIND_NONE;
	}
	CHECK(n == 2 && dots == 0 && seen_f && seen_l);
	cv_dir_rewind(d);
	CHECK(cv_dir_next(d, NULL) != NULL);
	{
		struct cv_stat st;
		CHECK(cv_os_stat_at(cv_dir_fd(d), "f", 1, &st) == 0 &&
		      st.kind == CV_KIND_FILE);
	}
	cv_dir_close(d);
	cv_dir_close(NULL);
	errno = 0;
	CHECK(cv_dir_open(at("none")) == NULL && errno == ENOENT);
	errno = 0;
	CHECK(cv_dir_open(at("f")) == NULL && errno == ENOTDIR);
	/* never through a link at the name with nofollow */
	CHECK(make_link(".", CV_AT_CWD, at("dl")) == links);
	if (links) {
		CHECK((d = cv_dir_open_at(CV_AT_CWD, at("dl"), 0)) != NULL);
		cv_dir_close(d);
		errno = 0;
		CHECK(cv_dir_open_at(CV_AT_CWD, at("dl"), 1) == NULL &&
		      (errno == ELOOP || errno == ENOTDIR));
	}
	/* a folder opened with nofollow, as without */
	CHECK((d = cv_dir_open_at(CV_AT_CWD, dir, 1)) != NULL);
	cv_dir_close(d);
	/* adopt: the handle is the listing's from then on */
	{
		int fd = cv_os_open(dir, CV_OPEN_READ | CV_OPEN_DIR, 0);
		d = cv_dir_adopt(fd);
		CHECK(d != NULL && cv_dir_fd(d) == fd);
		cv_dir_close(d);
		errno = 0;
		CHECK(cv_os_close(fd) < 0 && errno == EBADF);
		CHECK(cv_dir_adopt(-1) == NULL);
	}
	cv_os_unlink(at("dl"));
	/* glob: sorted, appended; none matching is 0 */
	cv_strv_push(&g, "kept");
	CHECK(cv_os_glob(at("[fl]"), &g) == 2 && g.n == 3 &&
	      strcmp(g.v[1], at("f")) == 0 && strcmp(g.v[2], at("l")) == 0);
	CHECK(cv_os_glob(at("nothing*"), &g) == 0 && g.n == 3);
	cv_strv_release(&g);
}

static void
loading(void)
{
	char file[512];
	void *lib, *f;
	int n = 0;

#ifdef _WIN32
	lib = cv_dl_open("msvcrt.dll", 0);
#else
	lib = cv_dl_open("libc.so.6", 0);
#endif
	CHECK(lib != NULL);
	f = lib ? cv_dl_sym(lib, "strlen") : NULL;
	CHECK(f != NULL);
	CHECK(f != NULL && cv_dl_file_of(f, file, sizeof file) == 0 &&
	      (strstr(file, "libc") != NULL || strstr(file, "msvcrt") != NULL));
	CHECK(lib && cv_dl_sym(lib, "cv_no_such_symbol") == NULL &&
	      cv_dl_error() != NULL);
	CHECK(cv_dl_error() == NULL);
	cv_dl_close(lib);
	cv_dl_close(NULL);
	CHECK(cv_dl_open("/nonexistent/libnone.so", 1) == NULL);
	{
		const char *e = cv_dl_error();
		CHECK(e != NULL && strstr(e, "libnone") != NULL);
	}
	CHECK(cv_dl_file_of((void *)1, file, sizeof file) < 0);
	/* every loaded object, until fn says stop: its value returned */
	CHECK(cv_dl_each_loaded(count_loaded, &n) == 7 && n == 2);
}

struct walk {
	int calls, missing, root_dir;
};

static int
walk_one(const char *d, const struct cv_stat *sb, void *payload)
{
	struct walk *w = payload;

	w->calls++;
	if (sb == NULL)
		w->missing += errno == ENOENT;
	else if (strcmp(d, "/") == 0)
		w->root_dir = sb->kind == CV_KIND_DIR;
	return 0;
}

/* fs.c's calls that take base's stat, and the lock probe doctor uses */
static void
fs_calls(void)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_stat sb = { 0 };
	struct walk w = { 0 };
	int fd = -1;

	/* who besides us and root could change it */
	sb.uid = cv_os_euid();
	sb.perm = 0755;
	CHECK(cv_fs_foreign_writer(&sb, 0) == 0);
	sb.perm = 0775;
	CHECK(cv_fs_foreign_writer(&sb, 0) == 'g');
	sb.perm = 0777;
	CHECK(cv_fs_foreign_writer(&sb, 0) == 'o');
	sb.perm = 01777;
	CHECK(cv_fs_foreign_writer(&sb, 1) == 0 &&
	      cv_fs_foreign_writer(&sb, 0) == 'o');
	sb.perm = 0755;
	sb.uid = 0;
	CHECK(cv_fs_foreign_writer(&sb, 0) == 0);
	sb.uid = cv_os_euid() + 1;
	CHECK(sb.uid == 0 || cv_fs_foreign_writer(&sb, 0) == 'u');
	/* the walk up: the missing folders said as such, / as a folder */
	CHECK(cv_fs_walk_up("/cv-none/a/b", 1, walk_one, &w) == 0);
	CHECK(w.calls == 3 && w.missing == 2 && w.root_dir == 1);
	/* a lock file: free, held by another open of it, gone */
	CHECK(cv_fs_lock_busy(at("lock")) == 0);
	CHECK(cv_os_access(at("lock"), CV_ACCESS_EXISTS) < 0);
	CHECK(cv_fs_lock_at(CV_AT_CWD, at("lock"), "lock", 1, NULL, NULL,
			    "testing", &fd, &err) == 0);
	CHECK(cv_fs_lock_busy(at("lock")) == 1);
	cv_fs_unlock(fd);
	CHECK(cv_fs_lock_busy(at("lock")) == 0);
	cv_os_unlink(at("lock"));
	/* every file and folder synced; a missing tree is an error */
	CHECK(cv_os_mkdir(at("t"), 0755) == 0 &&
	      cv_os_mkdir(at("t/u"), 0755) == 0);
	fd = cv_os_open(at("t/u/f"), CV_OPEN_WRITE | CV_OPEN_CREATE, 0644);
	CHECK(fd >= 0 && cv_os_write_all(fd, "x", 1) == 0);
	cv_os_close(fd);
	/* a link, where links can be made, is not followed */
	CHECK(make_link("u/f", CV_AT_CWD, at("t/l")) >= 0);
	CHECK(cv_fs_sync_tree(at("t"), &err) == 0);
	CHECK(cv_fs_sync_tree(at("none"), &err) == CV_EIO &&
	      strstr(err.msg, "cannot walk") != NULL);
	CHECK(cv_fs_rmtree(at("t"), &err) == 0);
}

/* times, unique names, path handles */
static void
more_files(void)
{
	struct timespec t = { 1000000000, 500 };
	struct cv_stat sb;
	char tmpl[128];
	int fd;

	snprintf(tmpl, sizeof tmpl, "%s/stamp.XXXXXX", dir);
	fd = cv_os_mkstemp(tmpl);
	CHECK(fd >= 0 && strstr(tmpl, "XXXXXX") == NULL);
	CHECK(cv_os_fstat(fd, &sb) == 0 && PERM_OWNER(sb.perm) == 0600 &&
	      sb.size == 0);
	CHECK(cv_os_fset_times(fd, &t) == 0 && cv_os_fstat(fd, &sb) == 0 &&
	      sb.mtime == 1000000000 && sb.mtime_ns == 500 &&
	      sb.atime == 1000000000);
	cv_os_close(fd);
	t.tv_sec = 1100000000;
	CHECK(cv_os_set_times_at(CV_AT_CWD, tmpl, &t, 1) == 0 &&
	      cv_os_stat(tmpl, &sb) == 0 && sb.mtime == 1100000000);
	errno = 0;
	CHECK(cv_os_set_times_at(CV_AT_CWD, at("none"), &t, 1) < 0 &&
	      errno == ENOENT);
	cv_os_unlink(tmpl);
	/* a template without its XXXXXX: EINVAL */
	snprintf(tmpl, sizeof tmpl, "%s/stamp", dir);
	errno = 0;
	CHECK(cv_os_mkstemp(tmpl) < 0 && errno == EINVAL);
	/* a path handle finds names, and .. of / is / */
	fd = cv_os_open("/", CV_OPEN_PATH | CV_OPEN_DIR, 0);
	CHECK(fd >= 0);
	{
		int up = cv_os_open_at(fd, "..", CV_OPEN_PATH | CV_OPEN_DIR, 0);
		struct cv_stat a, b;
		CHECK(up >= 0 && cv_os_fstat(fd, &a) == 0 &&
		      cv_os_fstat(up, &b) == 0 && cv_os_same_file(&a, &b));
		cv_os_close(up);
	}
	cv_os_close(fd);
	/* pwrite at an offset, the file's own offset left alone */
	fd = cv_os_open(at("pw"), CV_OPEN_READ | CV_OPEN_WRITE | CV_OPEN_CREATE,
			0644);
	CHECK(cv_os_pwrite(fd, "abc", 3, 4) == 3);
	{
		char b[16];
		CHECK(cv_os_read_full(fd, b, sizeof b) == 7 &&
		      memcmp(b, "\0\0\0\0abc", 7) == 0);
	}
	cv_os_close(fd);
	cv_os_unlink(at("pw"));
	/* a file cut short keeps its offset (a write past the end leaves
	 * zeros), and a seek to the start reads it all */
	fd = cv_os_open(at("tr"), CV_OPEN_READ | CV_OPEN_WRITE | CV_OPEN_CREATE,
			0644);
	CHECK(cv_os_write_all(fd, "abcdef", 6) == 0);
	CHECK(cv_os_truncate(fd, 2) == 0 && cv_os_write_all(fd, "x", 1) == 0);
	CHECK(cv_os_seek(fd, 0) == 0);
	{
		char b[16];
		struct cv_stat st;
		CHECK(cv_os_fstat(fd, &st) == 0 && st.size == 7);
		CHECK(cv_os_read_full(fd, b, sizeof b) == 7 &&
		      memcmp(b, "ab\0\0\0\0x", 7) == 0);
	}
	CHECK(cv_os_truncate(fd, 0) == 0 && cv_os_seek(fd, 0) == 0 &&
	      cv_os_write_all(fd, "y", 1) == 0);
	{
		struct cv_stat st;
		CHECK(cv_os_fstat(fd, &st) == 0 && st.size == 1);
	}
	cv_os_close(fd);
	cv_os_unlink(at("tr"));
	errno = 0;
	CHECK(cv_os_truncate(fd, 0) < 0 && errno == EBADF);
	errno = 0;
	CHECK(cv_os_seek(fd, 0) < 0 && errno == EBADF);
	/* the working folder and the mask, each given back */
	{
		char *was = cv_os_getcwd(), *now;
		int here = cv_os_open(".", CV_OPEN_PATH | CV_OPEN_DIR, 0);
		unsigned old = cv_os_umask(077);
		CHECK(cv_os_umask(old) == 077);
		CHECK(cv_os_chdir(dir) == 0);
		now = cv_os_getcwd();
		CHECK(now != NULL && strstr(now, "cv-test-os") != NULL);
		free(now);
		errno = 0;
		CHECK(cv_os_chdir(at("none")) < 0 && errno == ENOENT);
		CHECK(cv_os_fchdir(here) == 0);
		now = cv_os_getcwd();
		CHECK(now != NULL && was != NULL && strcmp(now, was) == 0);
		free(now);
		free(was);
		cv_os_close(here);
	}
	/* the environment a child would inherit */
	{
		const char *v = cv_os_setenv("CV_TEST_OS", "one") == 0
					? getenv("CV_TEST_OS")
					: NULL;
		CHECK(v != NULL && strcmp(v, "one") == 0);
	}
	CHECK(cv_os_setenv("CV_TEST_OS", NULL) == 0 &&
	      getenv("CV_TEST_OS") == NULL);
	errno = 0;
	CHECK(cv_os_setenv("CV=BAD", "x") < 0 && errno == EINVAL);
}

/* names past Windows' MAX_PATH (260: the \\?\ form reaches them) and
 * beyond ASCII (UTF-8 at the face, UTF-16 below it), and a folder that
 * is not opened to be written */
static void
names(void)
{
	static const char utf8[] = "caf\xc3\xa9-\xe6\x96\x87";
	char deep[1200];
	struct cv_stat st;
	struct cv_dir *d;
	const char *name;
	int fd, i, found = 0;

	snprintf(deep, sizeof deep, "%s", dir);
	for (i = 0; i < 6; i++) {
		size_t len = strlen(deep);
		snprintf(deep + len, sizeof deep - len, "/%d%s", i,
			 "-a-folder-name-of-fifty-characters-past-max-path");
		CHECK(cv_os_mkdir(deep, 0700) == 0);
	}
	CHECK(strlen(deep) > 300);
	{
		size_t len = strlen(deep);
		snprintf(deep + len, sizeof deep - len, "/f");
	}
	fd = cv_os_open(deep, CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL,
			0644);
	CHECK(fd >= 0 && cv_os_write_all(fd, "deep", 4) == 0 &&
	      cv_os_close(fd) == 0);
	CHECK(cv_os_stat(deep, &st) == 0 && st.kind == CV_KIND_FILE &&
	      st.size == 4);
	CHECK(cv_os_unlink(deep) == 0);
	for (i = 0; i < 6; i++) {
		*strrchr(deep, '/') = '\0';
		CHECK(cv_os_rmdir(deep) == 0);
	}
	fd = cv_os_open(at(utf8), CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL,
			0644);
	CHECK(fd >= 0 && cv_os_close(fd) == 0);
	CHECK((d = cv_dir_open(dir)) != NULL);
	while (d != NULL && (name = cv_dir_next(d, NULL)) != NULL)
		found += strcmp(name, utf8) == 0;
	cv_dir_close(d);
	CHECK(found == 1);
	CHECK(cv_os_unlink(at(utf8)) == 0);
	errno = 0;
	CHECK(cv_os_open(dir, CV_OPEN_WRITE, 0) < 0 && errno == EISDIR);
}

#ifdef _WIN32
/* what the trust checks call "writable by others" (022) on Windows: a
 * DACL that lets a SID other than the owner, SYSTEM or Administrators
 * write; the owner's own grant is not one */
static void
dacl(void)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	struct cv_stat st;
	int fd;

	fd = cv_os_open(at("w"), CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL,
			0644);
	CHECK(fd >= 0 && cv_os_close(fd) == 0);
	CHECK(ConvertStringSecurityDescriptorToSecurityDescriptorA(
		"D:P(A;;FA;;;OW)(A;;FA;;;SY)(A;;FA;;;BA)", SDDL_REVISION_1, &sd,
		NULL));
	CHECK(SetFileSecurityA(at("w"), DACL_SECURITY_INFORMATION, sd));
	LocalFree(sd);
	CHECK(cv_os_stat(at("w"), &st) == 0 && (st.perm & 022) == 0);
	CHECK(ConvertStringSecurityDescriptorToSecurityDescriptorA(
		"D:P(A;;FA;;;OW)(A;;FRFW;;;WD)", SDDL_REVISION_1, &sd, NULL));
	CHECK(SetFileSecurityA(at("w"), DACL_SECURITY_INFORMATION, sd));
	LocalFree(sd);
	CHECK(cv_os_stat(at("w"), &st) == 0 && (st.perm & 022) == 022 &&
	      PERM_OWNER(st.perm) == 0600);
	/* read alone for Everyone is not a write */
	CHECK(ConvertStringSecurityDescriptorToSecurityDescriptorA(
		"D:P(A;;FA;;;OW)(A;;FR;;;WD)", SDDL_REVISION_1, &sd, NULL));
	CHECK(SetFileSecurityA(at("w"), DACL_SECURITY_INFORMATION, sd));
	LocalFree(sd);
	CHECK(cv_os_stat(at("w"), &st) == 0 && (st.perm & 022) == 0);
	/* wine keeps a DACL as the file's mode, where OWNER RIGHTS is not
	 * the owner: the file may have become read-only */
	CHECK(cv_os_remove_at(CV_AT_CWD, at("w"), 0) == 0 ||
	      (SetFileAttributesA(at("w"), FILE_ATTRIBUTE_NORMAL) &&
	       cv_os_unlink(at("w")) == 0));
}

static void
process(void)
{
	wchar_t cmd[] = L"cmd.exe /c exit 0";
	STARTUPINFOW si;
	PROCESS_INFORMATION pi;
	DWORD child;

	memset(&si, 0, sizeof si);
	si.cb = sizeof si;
	CHECK(cv_os_pid() == (long)_getpid());
	/* a process started by another has it as its parent (this one may
	 * have none: a program wine starts from Linux has 0) */
	{
		wchar_t self[MAX_PATH], line[MAX_PATH + 64];
		DWORD code = 1;
		GetModuleFileNameW(NULL, self, MAX_PATH);
		swprintf(line, MAX_PATH + 64, L"\"%ls\" --ppid %ld", self,
			 cv_os_pid());
		CHECK(CreateProcessW(NULL, line, NULL, NULL, FALSE, 0, NULL,
				     NULL, &si, &pi) &&
		      WaitForSingleObject(pi.hProcess, 60000) ==
			      WAIT_OBJECT_0 &&
		      GetExitCodeProcess(pi.hProcess, &code) && code == 0);
		CloseHandle(pi.hThread);
		CloseHandle(pi.hProcess);
	}
	CHECK(cv_os_uid() >= 0 && cv_os_uid() == cv_os_euid());
	CHECK(cv_os_pid_alive(cv_os_pid()) == 1);
	CHECK(cv_os_pid_alive(0) == 0 && cv_os_pid_alive(-1) == 0);
	/* a child that has ended, and whose handle is closed, is gone */
	CHECK(CreateProcessW(NULL, cmd, NULL, NULL, FALSE, CREATE_NO_WINDOW,
			     NULL, NULL, &si, &pi));
	child = pi.dwProcessId;
	CHECK(cv_os_pid_alive((long)child) == 1 ||
	      WaitForSingleObject(pi.hProcess, 0) == WAIT_OBJECT_0);
	WaitForSingleObject(pi.hProcess, INFINITE);
	CloseHandle(pi.hThread);
	CloseHandle(pi.hProcess);
	CHECK(cv_os_pid_alive((long)child) == 0);
}
#else
static void
process(void)
{
	pid_t child;
	int st;

	CHECK(cv_os_pid() == (long)getpid());
	CHECK(cv_os_ppid() == (long)getppid());
	CHECK(cv_os_uid() == (long)getuid() && cv_os_euid() == (long)geteuid());
	CHECK(cv_os_pid_alive(cv_os_pid()) == 1);
	CHECK(cv_os_pid_alive(1) == 1);
	CHECK(cv_os_pid_alive(0) == 0 && cv_os_pid_alive(-1) == 0);
	/* a child that has been waited for is gone */
	child = fork();
	if (child == 0)
		_exit(0);
	CHECK(child > 0 && waitpid(child, &st, 0) == child);
	CHECK(cv_os_pid_alive((long)child) == 0);
}
#endif

int
main(int argc, char **argv)
{
	char cmd[400];

#ifdef _WIN32
	/* the child of process()'s parent case: 0 when its parent is argv[2] */
	if (argc == 3 && strcmp(argv[1], "--ppid") == 0)
		return cv_os_ppid() == atol(argv[2]) ? 0 : 1;
#else
	(void)argc, (void)argv;
#endif
#ifdef _WIN32
	{
		const char *tmp = getenv("TEMP");
		snprintf(dir, sizeof dir, "%s\\cv-test-os.%ld",
			 tmp != NULL ? tmp : ".", cv_os_pid());
		if (cv_os_mkdir(dir, 0700) != 0)
			return 1;
	}
#else
	snprintf(dir, sizeof dir, "/tmp/cv-test-os.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;
#endif
	files();
	listings();
	loading();
	fs_calls();
	more_files();
	names();
#ifdef _WIN32
	dacl();
#endif
	process();
#ifdef _WIN32
	snprintf(cmd, sizeof cmd, "rmdir /s /q \"%s\"", dir);
#else
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
#endif
	if (system(cmd) != 0)
		return 1;
	return TEST_DONE();
}
