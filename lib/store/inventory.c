/* inventory.c: the one owner of "what may be deleted". A store, a cache or
 * a data folder may be a folder the user also keeps other things in ($HOME,
 * a team folder whose name says cudnn), so nothing is removed by its name
 * or its place: only entries cudnnvm can prove it wrote (a version folder
 * with its cudnnvm.json, a dependency folder with its cudnnvm-dep.json,
 * cache entries named by their hash, its locks and staging, `current`,
 * shims it marked, its temporaries), and a folder only once it is empty.
 * implode, cache clean|prune, uninstall and the dependency collection all
 * ask here; --dry-run prints the same plan the real run carries out. */
#include "store/store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* what a folder inside a root is; the root itself is CTX_ROOT */
enum ctx {
	CTX_ROOT,
	CTX_LOCKS,
	CTX_STAGING,
	CTX_DEPS,
	CTX_DOWNLOADS,
	CTX_MANIFESTS,
	CTX_VALIDATE,
	CTX_SHIMS,
	CTX_HOOK,
};

#define SHIM_MARK "# cudnnvm shim for "
#define KEEP      (-2) /* cudnnvm's, kept on purpose: not said */

static int
all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	return 1;
}

static int
all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return n > 0;
}

static int
has_regular(int dirfd, const char *dir, const char *file)
{
	char *p = xasprintf("%s/%s", dir, file);
	struct cv_stat sb;
	int r = cv_os_stat_at(dirfd, p, 1, &sb) == 0 && sb.kind == CV_KIND_FILE;

	free(p);
	return r;
}

static int
real_dir(int dirfd, const char *name)
{
	struct cv_stat sb;

	return cv_os_stat_at(dirfd, name, 1, &sb) == 0 &&
	       sb.kind == CV_KIND_DIR;
}

int
cv_inventory_is_version(int dirfd, const char *name)
{
	struct cv_version v;

	return name[0] != '.' && cv_install_id_parse(&v, name, NULL) == 0 &&
	       real_dir(dirfd, name) &&
	       has_regular(dirfd, name, "cudnnvm.json");
}

int
cv_inventory_is_dep(int depsfd, const char *name)
{
	return name[0] != '.' && real_dir(depsfd, name) &&
	       has_regular(depsfd, name, "cudnnvm-dep.json");
}

int
cv_inventory_is_download(const char *name)
{
	return strlen(name) == 64 + 8 && all_hex(name, 64) &&
	       (strcmp(name + 64, ".archive") == 0 ||
		strcmp(name + 64, ".partial") == 0);
}

/* cv_fs_write_atomic's temporary: .<base>.<pid>.<hex>.tmp */
static int
is_temporary(const char *name)
{
	size_t len = strlen(name);
	const char *end = name + len - 4, *hex, *pid;

	if (name[0] != '.' || len < 10 || strcmp(end, ".tmp") != 0)
		return 0;
	for (hex = end; hex > name && hex[-1] != '.'; hex--)
		;
	if (hex <= name + 1 || !all_hex(hex, (size_t)(end - hex)) || hex == end)
		return 0;
	for (pid = hex - 1; pid > name && pid[-1] != '.'; pid--)
		;
	return pid > name + 1 && all_digits(pid, (size_t)(hex - 1 - pid));
}

/* cv_store_staging_new's names: <tag>.<pid>.<8 hex>, and its lock */
static int
is_staging(const char *name)
{
	size_t len = strlen(name);
	const char *p;

	if (len > 5 && strcmp(name + len - 5, ".lock") == 0)
		len -= 5;
	if (len < 12 || name[len - 9] != '.' || !all_hex(name + len - 8, 8))
		return 0;
	for (p = name + len - 9; p > name && p[-1] != '.'; p--)
		;
	return p > name + 1 && all_digits(p, (size_t)(name + len - 9 - p));
}

/* <id>.json or <id>.frameworks.json, as validate_cache.c names them */
static int
is_validation(const char *name)
{
	size_t len = strlen(name);
	char id[128];
	struct cv_version v;

	if (len < 6 || len >= sizeof id || strcmp(name + len - 5, ".json") != 0)
		return 0;
	len -= 5;
	if (len > 11 && strncmp(name + len - 11, ".frameworks", 11) == 0)
		len -= 11;
	memcpy(id, name, len);
	id[len] = '\0';
	return cv_install_id_parse(&v, id, NULL) == 0;
}

static int
marked_shim(int dirfd, const char *name)
{
	char buf[512];
	ssize_t n = cv_fs_read_head(dirfd, name, 1, buf, sizeof buf - 1);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, SHIM_MARK) != NULL;
}

/* The decision for one entry of a folder of context `ctx` (the root's
 * kinds in `kinds`): CV_INV_TREE or CV_INV_FILE to remove it, CV_INV_DIR
 * with *sub set to walk into it, -1 to leave it (*why says so), KEEP. */
static int
judge(int ctx, int kinds, int dfd, const char *name, const struct cv_stat *sb,
      int *sub, const char **why)
{
	int dir = sb->kind == CV_KIND_DIR, reg = sb->kind == CV_KIND_FILE;

	*why = "not a name cudnnvm writes here";
	if (is_temporary(name) && reg)
		return CV_INV_FILE;
	switch (ctx) {
	case CTX_ROOT:
		if (kinds & CV_INV_STORE) {
			struct cv_version v;
			if (cv_inventory_is_version(dfd, name))
				return CV_INV_TREE;
			if (cv_install_id_parse(&v, name, NULL) == 0) {
				*why = "no cudnnvm.json: not installed by "
				       "cudnnvm";
				return -1;
			}
			if (strcmp(name, "current") == 0 &&
			    sb->kind == CV_KIND_LINK)
				return CV_INV_FILE;
			if (dir && strcmp(name, ".locks") == 0)
				return *sub = CTX_LOCKS, CV_INV_DIR;
			if (dir && strcmp(name, ".staging") == 0)
				return *sub = CTX_STAGING, CV_INV_DIR;
			if (dir && strcmp(name, "deps") == 0)
				return *sub = CTX_DEPS, CV_INV_DIR;
		}
		if (kinds & CV_INV_CACHE) {
			if (dir && strcmp(name, "downloads") == 0)
				return *sub = CTX_DOWNLOADS, CV_INV_DIR;
			if (dir && strcmp(name, "manifests") == 0)
				return *sub = CTX_MANIFESTS, CV_INV_DIR;
			if (dir && strcmp(name, "validate") == 0)
				return *sub = CTX_VALIDATE, CV_INV_DIR;
		}
		/* the stamps' folder inside the cache, when they go too;
		 * else kept without a word (running shells compare against
		 * them) */
		if ((kinds & CV_INV_CACHE) && dir && strcmp(name, "hook") == 0)
			return (kinds & CV_INV_HOOK)
				       ? (*sub = CTX_HOOK, CV_INV_DIR)
				       : KEEP;
		if ((kinds & CV_INV_DATA) && dir && strcmp(name, "shims") == 0)
			return *sub = CTX_SHIMS, CV_INV_DIR;
		if ((kinds & CV_INV_DATA) && reg && strcmp(name, "venvs") == 0)
			return CV_INV_FILE;
		if ((kinds & CV_INV_CONFIG) && reg &&
		    strcmp(name, "config.ini") == 0)
			return CV_INV_FILE;
		/* the root's own cache (root's default) */
		if ((kinds & CV_INV_STORE) && dir &&
		    strcmp(name, ".cache") == 0)
			return *sub = CTX_ROOT | 0x100, CV_INV_DIR;
		return -1;
	case CTX_LOCKS: {
		size_t len = strlen(name);
		if (reg && len > 5 && strcmp(name + len - 5, ".lock") == 0)
			return CV_INV_FILE;
		return -1;
	}
	case CTX_STAGING:
		if (is_staging(name))
			return dir ? CV_INV_TREE : CV_INV_FILE;
		return -1;
	case CTX_DEPS:
		if (cv_inventory_is_dep(dfd, name))
			return CV_INV_TREE;
		if (dir)
			*why = "no cudnnvm-dep.json: not installed by cudnnvm";
		return -1;
	case CTX_DOWNLOADS:
		return reg && cv_inventory_is_download(name) ? CV_INV_FILE : -1;
	case CTX_MANIFESTS:
		/* one folder per mirror, named by 16 hex of its hash */
		return dir && strlen(name) == 16 && all_hex(name, 16)
			       ? CV_INV_TREE
			       : -1;
	case CTX_VALIDATE:
		return reg && is_validation(name) ? CV_INV_FILE : -1;
	case CTX_SHIMS:
		return reg && marked_shim(dfd, name) ? CV_INV_FILE : -1;
	case CTX_HOOK:
		return reg && (strncmp(name, "stamp.", 6) == 0 ||
			       strncmp(name, "nohook.", 7) == 0)
			       ? CV_INV_FILE
			       : -1;
	}
	return -1;
}

static void
push_item(struct cv_inventory *inv, const char *path, int how, int shown)
{
	for (size_t i = 0; i < inv->n; i++)
		if (strcmp(inv->v[i].path, path) == 0)
			return;
	if (inv->n == inv->cap) {
		inv->cap = inv->cap ? inv->cap * 2 : 16;
		inv->v = xrealloc(inv->v, inv->cap * sizeof *inv->v);
	}
	inv->v[inv->n].path = xstrdup(path);
	inv->v[inv->n].how = how;
	inv->v[inv->n].shown = shown;
	inv->n++;
}

static void
push_left(struct cv_inventory *inv, const char *path, const char *why)
{
	inv->left = xrealloc(inv->left, (inv->nleft + 1) * sizeof *inv->left);
	inv->left[inv->nleft++] =
		xasprintf("%s: left in place (%s)", path, why);
}

/* Walk folder `path` (open as fd) of context ctx; 1 when everything in
 * it goes, so that the folder itself may. Items start at index `from`. */
static int
walk(struct cv_inventory *inv, int fd, const char *path, int ctx, int kinds,
     int depth)
{
	struct cv_dir *d = cv_dir_adopt(fd);
	const char *de;
	int whole = 1;

	if (d == NULL) {
		cv_os_close(fd);
		push_left(inv, path, "cannot be read");
		return 0;
	}
	while ((de = cv_dir_next(d, NULL)) != NULL) {
		struct cv_stat sb;
		const char *why = "";
		char *child;
		int sub = 0, how;
		child = cv_path_join(path, de);
		if (cv_os_stat_at(fd, de, 1, &sb) < 0) {
			free(child);
			continue;
		}
		how = judge(ctx, kinds, fd, de, &sb, &sub, &why);
		if (how == CV_INV_DIR && depth < 4) {
			int cfd = cv_os_open_at(fd, de,
						CV_OPEN_READ | CV_OPEN_DIR |
							CV_OPEN_NOFOLLOW,
						0);
			int skinds = (sub & 0x100) ? CV_INV_CACHE : kinds;
			size_t from = inv->n;
			int all = cfd >= 0 && walk(inv, cfd, child, sub & 0xff,
						   skinds, depth + 1);
			if (cfd < 0)
				push_left(inv, child, "cannot be opened");
			if (all) {
				/* said once, as the folder */
				for (size_t i = from; i < inv->n; i++)
					inv->v[i].shown = 0;
				push_item(inv, child, CV_INV_DIR, 1);
			} else
				whole = 0;
		} else if (how == CV_INV_TREE || how == CV_INV_FILE) {
			push_item(inv, child, how, 1);
		} else if (how == KEEP) {
			whole = 0;
		} else {
			push_left(inv, child, why);
			whole = 0;
		}
		free(child);
	}
	cv_dir_close(d);
	return whole;
}

void
cv_inventory_add(struct cv_inventory *inv, const char *root, int kinds)
{
	struct cv_stat sb;
	size_t from = inv->n;
	int fd, all;

	if (cv_os_lstat(root, &sb) < 0 || sb.uid != cv_os_euid())
		return;
	if (sb.kind != CV_KIND_DIR) {
		push_left(inv, root, "not a folder");
		return;
	}
	for (size_t i = 0; i < inv->n; i++)
		if (strcmp(inv->v[i].path, root) == 0)
			return;
	fd = cv_os_open(root, CV_OPEN_READ | CV_OPEN_DIR | CV_OPEN_NOFOLLOW, 0);
	if (fd < 0) {
		push_left(inv, root, "cannot be opened");
		return;
	}
	/* a folder of stamps alone ($XDG_RUNTIME_DIR/cudnnvm-hook) */
	all = walk(inv, fd, root,
		   (kinds & ~CV_INV_KEEP_ROOT) == CV_INV_HOOK ? CTX_HOOK
							      : CTX_ROOT,
		   kinds & ~CV_INV_KEEP_ROOT, 0);
	if (all && !(kinds & CV_INV_KEEP_ROOT)) {
		for (size_t i = from; i < inv->n; i++)
			inv->v[i].shown = 0;
		push_item(inv, root, CV_INV_DIR, 1);
	} else if (!all && !(kinds & CV_INV_KEEP_ROOT))
		push_left(inv, root,
			  "it still holds what is named above, which is not "
			  "cudnnvm's");
}

int
cv_inventory_apply(struct cv_inventory *inv, struct cv_strv *failed)
{
	struct cv_err err = CV_ERR_INIT;
	int r = 0;

	for (size_t i = 0; i < inv->n; i++) {
		const struct cv_inv_item *it = &inv->v[i];
		if (it->how == CV_INV_DIR) {
			if (cv_os_rmdir(it->path) == 0 || errno == ENOENT)
				continue;
			if (errno == ENOTEMPTY || errno == EEXIST)
				push_left(
					inv, it->path,
					"something was added to it meanwhile");
			else {
				char *s = xasprintf("cannot remove '%s': %s",
						    it->path, strerror(errno));
				cv_strv_push(failed, s);
				free(s);
				r = CV_ERROR;
			}
		} else if (cv_fs_rmtree(it->path, &err) < 0) {
			cv_strv_push(failed, err.msg);
			r = CV_ERROR;
		}
	}
	return r;
}

void
cv_inventory_release(struct cv_inventory *inv)
{
	for (size_t i = 0; i < inv->n; i++)
		free(inv->v[i].path);
	for (size_t i = 0; i < inv->nleft; i++)
		free(inv->left[i]);
	free(inv->v);
	free(inv->left);
	memset(inv, 0, sizeof *inv);
}
