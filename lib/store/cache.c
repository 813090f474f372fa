/* cache.c: what the cache folder holds and how it shrinks. A verified
 * archive is kept as <cache>/downloads/<sha256>.archive (download.c) so
 * that a reinstall needs no network; once no installed version came from
 * it, it is only weight (0.5-1 GB each, often on a home quota). Prune
 * removes those archives, `uninstall` the one of the version it removed
 * (keep_archives = always keeps them), clean the folders cudnnvm writes
 * there. A partial download is left to prune: it is what the next install
 * of that version resumes from. */
#include "base/base.h"
#include "store/store_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define ARCHIVE_SUFFIX ".archive"

/* the folders of the cache that cudnnvm writes and clean empties; the
 * hook's stamps stay, as running shells compare against them */
static const char *const owned[] = { "downloads", "manifests", "validate" };

/* 1 when the archive named `name` (<sha256>.archive) is the source of an
 * installed version of the view. */
static int
installed_from(const struct cv_installed *all, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (all[i].sha256[0] != '\0' &&
		    strncasecmp(name, all[i].sha256, 64) == 0)
			return 1;
	return 0;
}

static int
is_archive(const char *name)
{
	size_t len = strlen(name);

	return len == 64 + strlen(ARCHIVE_SUFFIX) &&
	       strcmp(name + 64, ARCHIVE_SUFFIX) == 0;
}

/* Bytes and files under dir (links not followed). */
static void
tally(int dirfd, const char *name, struct cv_cache_usage *u, int depth)
{
	int fd = openat(dirfd, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	struct stat sb;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 ||
		    fstatat(fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(sb.st_mode) && depth < 8)
			tally(fd, e->d_name, u, depth + 1);
		else if (S_ISREG(sb.st_mode)) {
			u->files++;
			u->bytes += (uint64_t)sb.st_size;
		}
	}
	closedir(d);
}

/* Walk <cache>/downloads: count every file, and the archives no installed
 * version came from (only the one of `sha256` when given); remove those
 * with `remove`. */
static int
walk_downloads(const struct cv_store *st, const char *sha256, int remove,
	       struct cv_cache_usage *u, struct cv_err *err)
{
	char *dir = cv_path_join(cv_store_cache_dir(st), "downloads");
	struct cv_installed *all = NULL;
	size_t n = 0;
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int r = 0;

	if ((r = cv_store_list(st, &all, &n, err)) < 0) {
		free(dir);
		return r;
	}
	d = opendir(dir);
	while (d != NULL && (e = readdir(d)) != NULL) {
		int fd = dirfd(d);

		if (fstatat(fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(sb.st_mode))
			continue;
		u->files++;
		u->bytes += (uint64_t)sb.st_size;
		if (!is_archive(e->d_name) ||
		    installed_from(all, n, e->d_name) ||
		    (sha256 != NULL && strncasecmp(e->d_name, sha256, 64) != 0))
			continue;
		if (remove && unlinkat(fd, e->d_name, 0) < 0 &&
		    errno != ENOENT) {
			r = cv_err_errno(err, cv_code_from_errno(errno),
					 "cannot remove %s/%s", dir, e->d_name);
			break;
		}
		u->stale++;
		u->stale_bytes += (uint64_t)sb.st_size;
	}
	if (d != NULL)
		closedir(d);
	free(all);
	free(dir);
	return r;
}

int
cv_cache_usage(const struct cv_store *st, struct cv_cache_usage *u,
	       struct cv_err *err)
{
	struct cv_cache_usage dl = { 0, 0, 0, 0 };
	int r;

	memset(u, 0, sizeof *u);
	for (size_t i = 1; i < sizeof owned / sizeof owned[0]; i++) {
		char *dir = cv_path_join(cv_store_cache_dir(st), owned[i]);
		tally(AT_FDCWD, dir, u, 0);
		free(dir);
	}
	if ((r = walk_downloads(st, NULL, 0, &dl, err)) < 0)
		return r;
	u->files += dl.files;
	u->bytes += dl.bytes;
	u->stale = dl.stale;
	u->stale_bytes = dl.stale_bytes;
	return 0;
}

int
cv_cache_prune(const struct cv_store *st, const char *sha256,
	       struct cv_cache_usage *freed, struct cv_err *err)
{
	struct cv_cache_usage u = { 0, 0, 0, 0 };
	int r = walk_downloads(st, sha256, 1, &u, err);

	memset(freed, 0, sizeof *freed);
	freed->files = u.stale;
	freed->bytes = u.stale_bytes;
	return r;
}

int
cv_cache_clean(const struct cv_store *st, struct cv_cache_usage *freed,
	       struct cv_err *err)
{
	const char *cache = cv_store_cache_dir(st);
	int r = 0;

	memset(freed, 0, sizeof *freed);
	for (size_t i = 0; r == 0 && i < sizeof owned / sizeof owned[0]; i++) {
		char *dir = cv_path_join(cache, owned[i]);
		tally(AT_FDCWD, dir, freed, 0);
		r = cv_fs_rmtree(dir, err);
		free(dir);
	}
	return r;
}
