/* cache.c: what the cache folder holds and how it shrinks. A verified
 * archive is kept as <cache>/downloads/<sha256>.archive (download.c) so
 * that a reinstall needs no network; once no installed version came from
 * it, it is only weight (0.5-1 GB each, often on a home quota). Prune
 * removes those archives, `uninstall` the one of the version it removed
 * (keep_archives = always keeps them), clean what cudnnvm wrote there
 * (the inventory's proof: a cache may be a folder with other things in
 * it, even $HOME). A partial download is left to prune: it is what the next
 * install of that version resumes from. */

#include "base/base.h"
#include "store/store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ARCHIVE_SUFFIX ".archive"

/* 1 when the archive named `name` (<sha256>.archive) is the source of an
 * installed version of the view, or of a dependency one of them loads. */
static int
installed_from(const struct cv_installed *all, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		if (all[i].sha256[0] != '\0' &&
		    strncasecmp(name, all[i].sha256, 64) == 0)
			return 1;
		for (int k = 0; k < all[i].ndeps; k++)
			if (all[i].deps[k].sha256[0] != '\0' &&
			    strncasecmp(name, all[i].deps[k].sha256, 64) == 0)
				return 1;
	}
	return 0;
}

static void tally(int dirfd, const char *name, struct cv_cache_usage *u,
		  int depth);

/* What of the cache cudnnvm wrote; the cache folder itself and the
 * hook's stamps stay (running shells compare against them). */
static void
plan(const struct cv_store *st, struct cv_inventory *inv)
{
	memset(inv, 0, sizeof *inv);
	cv_inventory_add(inv, cv_store_cache_dir(st),
			 CV_INV_CACHE | CV_INV_KEEP_ROOT);
}

static void
tally_plan(const struct cv_inventory *inv, struct cv_cache_usage *u)
{
	struct cv_stat sb;

	for (size_t i = 0; i < inv->n; i++) {
		if (inv->v[i].how == CV_INV_DIR ||
		    cv_os_lstat(inv->v[i].path, &sb) < 0)
			continue;
		if (sb.kind == CV_KIND_DIR)
			tally(CV_AT_CWD, inv->v[i].path, u, 0);
		else if (sb.kind == CV_KIND_FILE) {
			u->files++;
			u->bytes += sb.size;
		}
	}
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
	struct cv_dir *d = cv_dir_open_at(dirfd, name, 1);
	struct cv_stat sb;
	const char *e;
	int fd;

	if (d == NULL)
		return;
	fd = cv_dir_fd(d);
	while ((e = cv_dir_next(d, NULL)) != NULL) {
		if (cv_os_stat_at(fd, e, 1, &sb) < 0)
			continue;
		if (sb.kind == CV_KIND_DIR && depth < 8)
			tally(fd, e, u, depth + 1);
		else if (sb.kind == CV_KIND_FILE) {
			u->files++;
			u->bytes += sb.size;
		}
	}
	cv_dir_close(d);
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
	struct cv_stat sb;
	struct cv_dir *d;
	const char *e;
	int r = 0;

	if ((r = cv_store_list(st, &all, &n, err)) < 0) {
		free(dir);
		return r;
	}
	d = cv_dir_open(dir);
	while (d != NULL && (e = cv_dir_next(d, NULL)) != NULL) {
		int fd = cv_dir_fd(d);

		if (cv_os_stat_at(fd, e, 1, &sb) < 0 ||
		    sb.kind != CV_KIND_FILE || !cv_inventory_is_download(e))
			continue;
		u->files++;
		u->bytes += sb.size;
		if (!is_archive(e) || installed_from(all, n, e) ||
		    (sha256 != NULL && strncasecmp(e, sha256, 64) != 0))
			continue;
		if (remove && cv_os_remove_at(fd, e, 0) < 0 &&
		    errno != ENOENT) {
			r = cv_err_errno(err, cv_code_from_errno(errno),
					 "cannot remove %s/%s", dir, e);
			break;
		}
		u->stale++;
		u->stale_bytes += sb.size;
	}
	cv_dir_close(d);
	free(all);
	free(dir);
	return r;
}

int
cv_cache_usage(const struct cv_store *st, struct cv_cache_usage *u,
	       struct cv_err *err)
{
	struct cv_cache_usage dl = { 0, 0, 0, 0 };
	struct cv_inventory inv;
	int r;

	memset(u, 0, sizeof *u);
	plan(st, &inv);
	tally_plan(&inv, u);
	cv_inventory_release(&inv);
	if ((r = walk_downloads(st, NULL, 0, &dl, err)) < 0)
		return r;
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
	       struct cv_strv *left, struct cv_err *err)
{
	struct cv_inventory inv;
	struct cv_strv failed = CV_STRV_INIT;
	int r;

	memset(freed, 0, sizeof *freed);
	plan(st, &inv);
	tally_plan(&inv, freed);
	r = cv_inventory_apply(&inv, &failed);
	for (size_t i = 0; i < inv.nleft; i++)
		cv_strv_push(left, inv.left[i]);
	if (r < 0)
		r = cv_err_set(err, CV_EIO, "%s", failed.v[0]);
	cv_strv_release(&failed);
	cv_inventory_release(&inv);
	return r;
}
