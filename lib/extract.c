/* extract.c: safe extraction with libarchive (doc/reliability.md §2).
 *
 * Only tar and zip, only xz/gzip/bzip2 filters. Every entry passes our own
 * policy before archive_write_header: regular files, folders and relative
 * symlinks that stay inside the tree; no hard links, devices, FIFOs or
 * sockets; one top folder, stripped; old cuda/lib64 layouts mapped to lib/;
 * no duplicates; caps on entries, bytes written, path length and depth.
 * Extraction runs with the cwd in `dest` and relative names so the three
 * SECURE_* flags apply; a walk of the result re-checks links and fixes
 * modes (files 0644, folders 0755). */
#include "internal.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <lzma.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEF_MAX_ENTRIES 100000
#define DEF_MAX_TOTAL   (16ULL << 30)
#define DEF_MAX_PATH    1024
#define DEF_MAX_DEPTH   32

/* Start writing a file back to disk now, every WRITEBACK_STEP bytes of it
 * and once it is finished, so that the sync before publishing waits for
 * little more than the last few MiB. Advisory: an error here changes
 * nothing, the sync reports real ones. */
#define WRITEBACK_STEP (32 << 20)

static void
start_writeback(int dirfd, const char *rel)
{
	int fd = openat(dirfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		close(fd);
	}
}

struct nameset {
	char **slot;
	size_t cap, n;
};

/* A cv_source that libarchive reads; its own error is kept, so that it
 * is reported as it was rather than as libarchive's EIO. */
struct feed {
	struct cv_source *src;
	struct cv_err err;
	int failed;
};

/* The raw archive bytes, with the first block read ahead to tell the
 * format; `nread` counts every byte taken from the source (read on the
 * decompressing thread, checked on the writing one). */
struct peek {
	struct cv_source *inner;
	const void *buf;
	ssize_t len;
	int used;
	atomic_uint_fast64_t nread;
};

struct ectx {
	struct feed in;
	struct peek *raw;
	struct archive *ar, *aw;
	struct cv_extract_limits lim;
	char top[256];
	int have_top;
	int zip;
	int pipeline; /* a decompressing thread feeds x.in */
	uint64_t entries, total;
	struct nameset names;
	struct cv_err *err;
};

static uint64_t
hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Insert; 0 when new, 1 when already there. Takes ownership of s. */
static int
nameset_add(struct nameset *ns, char *s)
{
	size_t i;

	if ((ns->n + 1) * 2 > ns->cap) {
		struct nameset big = { NULL, ns->cap ? ns->cap * 2 : 256, 0 };
		big.slot = xcalloc(big.cap, sizeof *big.slot);
		for (i = 0; i < ns->cap; i++)
			if (ns->slot[i] != NULL)
				nameset_add(&big, ns->slot[i]);
		free(ns->slot);
		*ns = big;
	}
	for (i = hash_str(s) & (ns->cap - 1); ns->slot[i] != NULL;
	     i = (i + 1) & (ns->cap - 1))
		if (strcmp(ns->slot[i], s) == 0) {
			free(s);
			return 1;
		}
	ns->slot[i] = s;
	ns->n++;
	return 0;
}

static void
nameset_free(struct nameset *ns)
{
	for (size_t i = 0; i < ns->cap; i++)
		free(ns->slot[i]);
	free(ns->slot);
}

static la_ssize_t
read_cb(struct archive *a, void *ud, const void **buf)
{
	struct feed *f = ud;
	ssize_t n = f->src->read(f->src->ctx, buf, &f->err);

	if (n < 0) {
		f->failed = 1;
		archive_set_error(a, EIO, "%s", f->err.msg);
		return -1;
	}
	return n;
}

/* Strict UTF-8 (RFC 3629): shortest forms only, no UTF-16 surrogates
 * (U+D800-DFFF), nothing above U+10FFFF. */
static int
valid_utf8(const unsigned char *s)
{
	while (*s) {
		unsigned char lo = 0x80, hi = 0xbf;
		int n;

		if (*s < 0x80) {
			s++;
			continue;
		}
		if (*s >= 0xc2 && *s <= 0xdf)
			n = 1;
		else if (*s >= 0xe0 && *s <= 0xef)
			n = 2;
		else if (*s >= 0xf0 && *s <= 0xf4)
			n = 3;
		else
			return 0;
		/* the second byte's range rules out the overlong forms, the
		 * surrogates and code points past U+10FFFF */
		if (*s == 0xe0)
			lo = 0xa0;
		else if (*s == 0xed)
			hi = 0x9f;
		else if (*s == 0xf0)
			lo = 0x90;
		else if (*s == 0xf4)
			hi = 0x8f;
		s++;
		if (*s < lo || *s > hi)
			return 0;
		for (s++, n--; n > 0; n--, s++)
			if ((*s & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

static int
reserved_windows(const char *c)
{
	static const char *const r[] = { "CON", "PRN", "AUX", "NUL", NULL };
	size_t n = strcspn(c, ".");
	size_t len = strlen(c);

	if (len > 0 && (c[len - 1] == '.' || c[len - 1] == ' '))
		return 1;
	for (int i = 0; r[i]; i++)
		if (n == 3 && strncasecmp(c, r[i], 3) == 0)
			return 1;
	if (n == 4 &&
	    (strncasecmp(c, "COM", 3) == 0 || strncasecmp(c, "LPT", 3) == 0) &&
	    c[3] >= '1' && c[3] <= '9')
		return 1;
	return 0;
}

/* A printable copy of a hostile name for messages. */
static void
safe_name(const char *s, char *out, size_t n)
{
	size_t j = 0;

	if (s == NULL)
		s = "(no name)";
	for (; *s && j + 5 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f || c == '\\')
			j += (size_t)snprintf(out + j, n - j, "\\x%02x", c);
		else
			out[j++] = (char)c;
	}
	out[j] = '\0';
}

static int
reject(struct ectx *x, const char *name, const char *why)
{
	char safe[300];

	safe_name(name, safe, sizeof safe);
	return cv_err_set(
		x->err, CV_EDATA,
		"unsafe archive: entry '%s' %s; the archive was not installed",
		safe, why);
}

/* Split `path` into components (skipping "" and "."); NULL-terminated
 * array of pointers into the xstrdup'd *buf. */
static char **
split(const char *path, char **buf, int *n)
{
	char *s = *buf = xstrdup(path);
	char **v = xcalloc(strlen(path) / 2 + 2, sizeof *v);
	char *save = NULL, *tok;

	*n = 0;
	for (tok = strtok_r(s, "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save))
		if (strcmp(tok, ".") != 0)
			v[(*n)++] = tok;
	v[*n] = NULL;
	return v;
}

/* 1 when `target`, read from the folder at depth `depth` below the root,
 * stays inside the root. */
static int
link_stays_inside(const char *target, int depth)
{
	char *buf;
	int n, ok = 1;
	char **c = split(target, &buf, &n);

	for (int i = 0; i < n; i++) {
		if (strcmp(c[i], "..") == 0)
			depth--;
		else
			depth++;
		if (depth < 0) {
			ok = 0;
			break;
		}
	}
	free(c);
	free(buf);
	return ok;
}

static int
check_chars(struct ectx *x, const char *name)
{
	if (!valid_utf8((const unsigned char *)name))
		return reject(x, name, "is not valid UTF-8");
	for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
		if (*s < 0x20 || *s == 0x7f)
			return reject(x, name,
				      "has a control character in its name");
		if (*s == '\\')
			return reject(x, name, "has a backslash in its name");
		if (*s == ':')
			return reject(x, name, "has a ':' in its name");
	}
	return 0;
}

/* How many bytes the extracted tree may hold now: the fixed cap, and for
 * an archive of unknown size also max_ratio times what was read of it. */
static uint64_t
bytes_allowed(const struct ectx *x)
{
	uint64_t cap = x->lim.max_total_bytes, ratio;

	if (x->lim.max_ratio == 0)
		return cap;
	ratio = (uint64_t)atomic_load(&x->raw->nread) * x->lim.max_ratio;
	if (ratio < x->lim.ratio_floor)
		ratio = x->lim.ratio_floor;
	return ratio < cap ? ratio : cap;
}

/* A wheel's entry in the archive layout: nvidia/cudnn/lib/X -> lib/X,
 * nvidia/cudnn/include/X -> include/X, the dist-info's license ->
 * LICENSE, written as c[1..*n) (c[0] stands for the top folder an archive
 * has). The Python files around them are skipped (1); anything outside
 * nvidia/ and the dist-info, and any link, refuses the wheel. */
static int
wheel_map(struct ectx *x, const char *name, char **c, int *n, int type)
{
	size_t l0 = strlen(c[0]);

	if (type == AE_IFLNK)
		return reject(x, name, "is a symlink (a wheel holds none)");
	if (l0 > 10 && strcmp(c[0] + l0 - 10, ".dist-info") == 0) {
		if (*n == 2 && type == AE_IFREG &&
		    (strcasecmp(c[1], "License.txt") == 0 ||
		     strcasecmp(c[1], "LICENSE") == 0)) {
			c[1] = (char *)"LICENSE";
			return 0;
		}
		if (*n == 1 && type != AE_IFDIR)
			return reject(x, name, "replaces a folder");
		return 1; /* METADATA, RECORD, WHEEL: pip's, not cuDNN */
	}
	if (strcmp(c[0], "nvidia") != 0 ||
	    (*n >= 2 && strcmp(c[1], "cudnn") != 0 &&
	     !(*n == 2 && strcmp(c[1], "__init__.py") == 0)))
		return reject(x, name,
			      "is outside nvidia/cudnn/ (a cuDNN wheel holds "
			      "nothing else)");
	if (*n <= 2)
		return type == AE_IFDIR || *n == 2
			       ? 1
			       : reject(x, name, "replaces a folder");
	if (strcmp(c[2], "lib") != 0 && strcmp(c[2], "include") != 0)
		return 1; /* nvidia/cudnn/__init__.py and the like */
	if (*n == 3)
		return type == AE_IFDIR ? 1
					: reject(x, name, "replaces a folder");
	for (int i = 3; i < *n; i++)
		if (strcmp(c[i], "__pycache__") == 0)
			return 1;
	if (*n == 4 && strcmp(c[3], "__init__.py") == 0)
		return 1;
	for (int i = 1; i + 1 < *n; i++)
		c[i] = c[i + 1];
	(*n)--;
	return 0;
}

/* Apply the policy to one entry. Returns 0 to write it (pathname
 * rewritten), 1 to skip it, <0 to refuse the archive. */
static int
policy(struct ectx *x, struct archive_entry *e)
{
	const char *name = archive_entry_pathname(e);
	char *buf = NULL, *rel, *key;
	char **c;
	int n, r = 0, type;
	struct cv_buf out = CV_BUF_INIT;

	if (name == NULL || *name == '\0')
		return reject(x, name, "has no name");
	if (strlen(name) > x->lim.max_path)
		return reject(x, name, "has a name longer than the limit");
	if ((r = check_chars(x, name)) < 0)
		return r;
	if (name[0] == '/')
		return reject(x, name, "has an absolute path");
	if (++x->entries > x->lim.max_entries)
		return reject(x, name,
			      "is past the limit on the number of entries");
	/* Hard links first: libarchive reports their type as 0. */
	if (archive_entry_hardlink(e) != NULL)
		return reject(x, name, "is a hard link");
	type = archive_entry_filetype(e);
	if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
		return reject(
			x, name,
			"is a device, FIFO or socket (only files, folders and symlinks are allowed)");
	c = split(name, &buf, &n);
	for (int i = 0; i < n; i++)
		if (strcmp(c[i], "..") == 0) {
			r = reject(x, name, "has a '..' component");
			goto out;
		}
	if (n > x->lim.max_depth) {
		r = reject(x, name, "is nested deeper than the limit");
		goto out;
	}
	if (n == 0) {
		r = 1;
		goto out;
	}
	if (x->lim.wheel) {
		if ((r = wheel_map(x, name, c, &n, type)) != 0)
			goto out;
	} else {
		if (!x->have_top) {
			if (n == 1 && type != AE_IFDIR) {
				r = reject(x, name,
					   "is not inside a top folder");
				goto out;
			}
			snprintf(x->top, sizeof x->top, "%s", c[0]);
			x->have_top = 1;
			if (x->lim.check_top != NULL &&
			    (r = x->lim.check_top(x->lim.payload, x->top,
						  x->err)) < 0)
				goto out;
		} else if (strcmp(c[0], x->top) != 0) {
			r = reject(
				x, name,
				"is outside the archive's single top folder");
			goto out;
		}
		if (n == 1) {
			if (type != AE_IFDIR)
				r = reject(x, name, "replaces the top folder");
			else
				r = 1; /* the top folder itself */
			goto out;
		}
		/* Old layouts: cuda/lib64 -> lib; lib64 becomes our own link.
		 */
		if (strcmp(c[1], "lib64") == 0) {
			if (n == 2 && type == AE_IFLNK) {
				r = 1;
				goto out;
			}
			c[1] = (char *)"lib";
		}
	}
	for (int i = 1; i < n; i++) {
		if (x->zip && reserved_windows(c[i])) {
			r = reject(x, name, "uses a name Windows reserves");
			goto out;
		}
		cv_buf_addf(&out, "%s%s", i > 1 ? "/" : "", c[i]);
	}
	rel = cv_buf_detach(&out);
	key = xstrdup(rel);
	if (x->zip)
		for (char *s = key; *s; s++)
			if (*s >= 'A' && *s <= 'Z')
				*s = (char)(*s - 'A' + 'a');
	if (nameset_add(&x->names, key)) {
		free(rel);
		r = reject(x, name,
			   x->zip ? "is a duplicate (or differs only in case)"
				  : "is a duplicate");
		goto out;
	}
	if (type == AE_IFLNK) {
		const char *t = archive_entry_symlink(e);
		if (t == NULL || *t == '\0')
			r = reject(x, name, "is a symlink without a target");
		else if (t[0] == '/')
			r = reject(x, name, "is a symlink to an absolute path");
		else if (check_chars(x, t) < 0)
			r = x->err ? x->err->code : CV_EDATA;
		else if (!link_stays_inside(t, n - 2))
			r = reject(x, name,
				   "is a symlink that leaves the archive");
		if (r < 0) {
			free(rel);
			goto out;
		}
	}
	if (type == AE_IFREG && archive_entry_size_is_set(e) &&
	    archive_entry_size(e) >= 0 &&
	    x->total + (uint64_t)archive_entry_size(e) > bytes_allowed(x)) {
		free(rel);
		r = reject(x, name, "makes the archive larger than the limit");
		goto out;
	}
	archive_entry_set_pathname(e, rel);
	archive_entry_set_perm(e, type == AE_IFDIR ? 0755 : 0644);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_uname(e, NULL);
	archive_entry_set_gname(e, NULL);
	free(rel);
	r = 0;
out:
	free(c);
	free(buf);
	cv_buf_release(&out);
	return r;
}

static int
write_error(struct ectx *x, const char *name)
{
	char safe[300];
	int e = archive_errno(x->aw);

	safe_name(name, safe, sizeof safe);
	if (e == ENOSPC || e == EDQUOT || e == EIO || e == EFBIG)
		return cv_err_set(
			x->err, CV_EIO,
			"cannot write '%s' into the store: %s; free some space and retry",
			safe, strerror(e));
	return cv_err_set(x->err, CV_EDATA,
			  "unsafe or broken archive entry '%s': %s", safe,
			  archive_error_string(x->aw)
				  ? archive_error_string(x->aw)
				  : "write failed");
}

/* Why reading `a` failed: the source's own error, or the archive's. */
static int
feed_error(struct archive *a, const struct feed *f, struct cv_err *err)
{
	if (f->failed) {
		*err = f->err;
		return f->err.code;
	}
	return cv_err_set(err, CV_EDATA, "corrupt or unsupported archive: %s",
			  archive_error_string(a) ? archive_error_string(a)
						  : "read error");
}

static int
read_error(struct ectx *x)
{
	return feed_error(x->ar, &x->in, x->err);
}

static int
copy_data(struct ectx *x, const char *name)
{
	const void *buf;
	size_t size, unsynced = 0;
	la_int64_t off;
	int r;

	for (;;) {
		r = archive_read_data_block(x->ar, &buf, &size, &off);
		if (r == ARCHIVE_EOF)
			return 0;
		if (r < ARCHIVE_WARN)
			return read_error(x);
		if ((unsynced += size) >= WRITEBACK_STEP) {
			start_writeback(AT_FDCWD, name);
			unsynced = 0;
		}
		x->total += size;
		if (x->total > bytes_allowed(x))
			return reject(
				x, name,
				"makes the archive larger than the limit");
		if (archive_write_data_block(x->aw, buf, size, off) <
		    ARCHIVE_OK)
			return write_error(x, name);
	}
}

/* Where a link in the extracted tree leads, resolved the way the kernel
 * would, one component at a time against the tree itself: links met on the
 * way (inside the tree) are followed, ".." pops a resolved component, and
 * the root is the folder that will be published as <store>/<id>, whatever
 * depth the tree sits at now. Lexical counting is not enough: "r -> ." makes
 * "r/r/../.." climb above the folder while counting as inside it. */
enum link_verdict { LINK_INSIDE, LINK_LEAVES, LINK_NOWHERE };

#define MAX_LINK_HOPS 40

static enum link_verdict
resolve_in_tree(int rootfd, const char *linkpath, const char *target)
{
	struct cv_buf cur = CV_BUF_INIT;  /* resolved, link-free, from root */
	struct cv_buf todo = CV_BUF_INIT; /* components still to walk */
	enum link_verdict v = LINK_INSIDE;
	char next[PATH_MAX];
	int hops = 0;
	const char *slash = strrchr(linkpath, '/');

	if (slash != NULL)
		cv_buf_add(&cur, linkpath, (size_t)(slash - linkpath));
	cv_buf_adds(&todo, target);
	while (todo.len > 0) {
		size_t n = strcspn(todo.buf, "/");
		char comp[NAME_MAX + 1];
		struct stat sb;
		ssize_t len;
		size_t keep;

		if (n > NAME_MAX) {
			v = LINK_NOWHERE;
			break;
		}
		memcpy(comp, todo.buf, n);
		comp[n] = '\0';
		/* drop the component and its slashes from the front */
		while (todo.buf[n] == '/')
			n++;
		memmove(todo.buf, todo.buf + n, todo.len - n + 1);
		todo.len -= n;
		if (comp[0] == '\0' || strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			char *up;
			if (cur.len == 0) {
				v = LINK_LEAVES;
				break;
			}
			up = strrchr(cur.buf, '/');
			cur.len = up ? (size_t)(up - cur.buf) : 0;
			cur.buf[cur.len] = '\0';
			continue;
		}
		keep = cur.len;
		cv_buf_addf(&cur, "%s%s", keep ? "/" : "", comp);
		/* every earlier component of cur is a real folder, so this
		 * follows no link on the way */
		if (fstatat(rootfd, cur.buf, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
			v = LINK_NOWHERE;
			break;
		}
		if (S_ISLNK(sb.st_mode)) {
			if (++hops > MAX_LINK_HOPS) {
				v = LINK_NOWHERE;
				break;
			}
			len = readlinkat(rootfd, cur.buf, next,
					 sizeof next - 1);
			if (len <= 0) {
				v = LINK_NOWHERE;
				break;
			}
			next[len] = '\0';
			if (next[0] == '/') {
				v = LINK_LEAVES;
				break;
			}
			cur.len = keep;
			cur.buf[keep] = '\0';
			/* the link's target goes in front of what is left */
			if (todo.len > 0) {
				char *rest = cv_buf_detach(&todo);
				cv_buf_addf(&todo, "%s/%s", next, rest);
				free(rest);
			} else {
				cv_buf_adds(&todo, next);
			}
			continue;
		}
		if (todo.len > 0 && !S_ISDIR(sb.st_mode)) {
			v = LINK_NOWHERE; /* ENOTDIR */
			break;
		}
	}
	cv_buf_release(&cur);
	cv_buf_release(&todo);
	return v;
}

/* The post-extraction walk (nftw has no user pointer). */
static size_t walk_rootlen;
static int walk_rootfd = -1;
static struct cv_err *walk_err;

static int
walk_fn(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	const char *rel = path + walk_rootlen;
	char target[PATH_MAX], safe[300];
	ssize_t n;

	(void)f;
	while (*rel == '/')
		rel++;
	if (flag == FTW_SL || flag == FTW_SLN) {
		n = readlink(path, target, sizeof target - 1);
		if (n < 0)
			return cv_err_errno(walk_err, CV_EIO,
					    "cannot read '%s'", path),
			       1;
		target[n] = '\0';
		safe_name(rel, safe, sizeof safe);
		switch (target[0] == '/'
				? LINK_LEAVES
				: resolve_in_tree(walk_rootfd, rel, target)) {
		case LINK_LEAVES:
			cv_err_set(
				walk_err, CV_EDATA,
				"unsafe archive: symlink '%s' leaves the archive; the archive was not installed",
				safe);
			return 1;
		case LINK_NOWHERE:
			cv_err_set(
				walk_err, CV_EDATA,
				"unsafe archive: symlink '%s' does not resolve to anything in the archive (dangling, a loop or through a file); the archive was not installed",
				safe);
			return 1;
		default:
			return 0;
		}
	}
	if (flag == FTW_D || flag == FTW_DP) {
		if (chmod(path, 0755) != 0)
			return cv_err_errno(walk_err, CV_EIO,
					    "cannot set the mode of '%s'",
					    path),
			       1;
		return 0;
	}
	if (flag != FTW_F || !S_ISREG(sb->st_mode)) {
		cv_err_set(
			walk_err, CV_EDATA,
			"unsafe archive: '%s' is not a file, folder or symlink",
			rel);
		return 1;
	}
	if ((sb->st_mode & 07777) != 0644 && chmod(path, 0644) != 0)
		return cv_err_errno(walk_err, CV_EIO,
				    "cannot set the mode of '%s'", path),
		       1;
	return 0;
}

static int
post_walk(const char *dest, struct cv_err *err)
{
	struct stat sb;
	char *lib = cv_path_join(dest, "lib");
	char *lib64 = cv_path_join(dest, "lib64");
	char *bin = cv_path_join(dest, "bin");
	int r = 0;

	if (lstat(lib, &sb) == 0 && S_ISDIR(sb.st_mode) &&
	    lstat(lib64, &sb) != 0 && lstat(bin, &sb) != 0 &&
	    symlink("lib", lib64) != 0)
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot create '%s'", lib64);
	free(lib);
	free(lib64);
	free(bin);
	if (r < 0)
		return r;
	walk_rootfd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (walk_rootfd < 0)
		return cv_err_errno(err, CV_EIO, "cannot open '%s'", dest);
	walk_rootlen = strlen(dest);
	walk_err = err;
	r = nftw(dest, walk_fn, 32, FTW_PHYS);
	walk_err = NULL;
	close(walk_rootfd);
	walk_rootfd = -1;
	if (r != 0)
		return r > 0 ? (err ? err->code : CV_EDATA)
			     : cv_err_errno(err, CV_EIO, "cannot walk '%s'",
					    dest);
	return 0;
}

static int
extract_all(struct ectx *x)
{
	struct archive_entry *e;
	int r;

	for (;;) {
		r = archive_read_next_header(x->ar, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN)
			return read_error(x);
		if (x->entries == 0) {
			int fmt = archive_format(x->ar);
			x->zip = (fmt & ARCHIVE_FORMAT_BASE_MASK) ==
				 ARCHIVE_FORMAT_ZIP;
		}
		r = policy(x, e);
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		if (archive_write_header(x->aw, e) < ARCHIVE_WARN)
			return write_error(x, archive_entry_pathname(e));
		if (archive_entry_filetype(e) == AE_IFREG &&
		    (r = copy_data(x, archive_entry_pathname(e))) < 0)
			return r;
		if (archive_write_finish_entry(x->aw) < ARCHIVE_WARN)
			return write_error(x, archive_entry_pathname(e));
		if (archive_entry_filetype(e) == AE_IFREG)
			start_writeback(AT_FDCWD, archive_entry_pathname(e));
		if (x->entries == 3)
			cv_checkpoint("mid-extract");
	}
	if (x->names.n == 0)
		return cv_err_set(
			x->err, CV_EDATA,
			"the archive holds no files; is it a cuDNN archive?");
	return 0;
}

/* ---- the decompressing stage ---------------------------------------------
 * A compressed tarball is decompressed on its own thread (libarchive's raw
 * format plus the xz/gzip/bzip2 filter) into a pipe that the tar reader on
 * this thread consumes, as `tar -xJ` runs xz beside tar. */

static ssize_t
peek_read(void *ctx, const void **buf, struct cv_err *err)
{
	struct peek *p = ctx;
	ssize_t n;

	if (!p->used) {
		p->used = 1;
		*buf = p->buf;
		return p->len;
	}
	n = p->inner->read(p->inner->ctx, buf, err);
	if (n > 0)
		atomic_fetch_add(&p->nread, (uint_fast64_t)n);
	return n;
}

struct decoder {
	pthread_t th;
	struct feed in;
	struct cv_pipe *out;
	unsigned threads; /* xz decoding threads */
};

/* What the xz decoder may hold for its threads: a quarter of the
 * machine's memory, as `xz -T0 -d` allows itself. Past it liblzma runs
 * fewer threads, down to decoding in place on one, so the bound holds
 * whatever block size the archive was written with. */
static uint64_t
xz_thread_memlimit(void)
{
	uint64_t mem = lzma_physmem();

	return mem ? mem / 4 : (uint64_t)256 << 20;
}

static int
xz_error(lzma_ret ret, struct cv_err *err)
{
	switch (ret) {
	case LZMA_MEM_ERROR:
		return cv_err_set(
			err, CV_ERROR,
			"out of memory while decompressing the archive; lower [install] threads or --jobs");
	case LZMA_BUF_ERROR:
		return cv_err_set(
			err, CV_EDATA,
			"corrupt or unsupported archive: the xz data ends early; the file is truncated, fetch it again");
	case LZMA_FORMAT_ERROR:
	case LZMA_OPTIONS_ERROR:
		return cv_err_set(
			err, CV_EDATA,
			"corrupt or unsupported archive: not xz data this decoder supports");
	default:
		return cv_err_set(
			err, CV_EDATA,
			"corrupt or unsupported archive: the xz data is corrupt (liblzma error %d); the file is damaged, fetch it again",
			(int)ret);
	}
}

/* xz through liblzma's multi-threaded decoder: a stream written in
 * several blocks that record their sizes (xz -T2 and up, pxz) is decoded
 * on `threads` cores; a one-block stream, or one whose blocks do not say
 * their sizes (xz -T1), is decoded in place on one, as liblzma decides by
 * itself from the block headers, so nothing has to seek ahead in a
 * download to tell the two apart. Errors are reported as soon as a block
 * fails, not after the blocks before it drain. */
static void *
xz_main(void *arg)
{
	struct decoder *d = arg;
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_mt mt;
	lzma_action action = LZMA_RUN;
	lzma_ret ret;
	struct cv_err err = CV_ERR_INIT;
	size_t bs = cv_pipe_bufsize(d->out);
	char *b = NULL;
	int failed = 0, filled = 0;

	memset(&mt, 0, sizeof mt);
	mt.flags = LZMA_CONCATENATED | LZMA_FAIL_FAST;
	mt.threads = d->threads;
	mt.memlimit_threading = xz_thread_memlimit();
	mt.memlimit_stop = UINT64_MAX;
	ret = lzma_stream_decoder_mt(&s, &mt);
	if (ret != LZMA_OK) {
		xz_error(ret, &err);
		failed = 1;
		goto out;
	}
	for (;;) {
		if (s.avail_in == 0 && action == LZMA_RUN) {
			const void *in;
			ssize_t n = d->in.src->read(d->in.src->ctx, &in, &err);
			if (n < 0) {
				failed = 1;
				break;
			}
			if (n == 0)
				action = LZMA_FINISH;
			s.next_in = in;
			s.avail_in = (size_t)n;
		}
		if (b == NULL) {
			if ((b = cv_pipe_get(d->out)) == NULL) {
				lzma_end(&s);
				return NULL; /* the reader gave up */
			}
			s.next_out = (uint8_t *)b;
			s.avail_out = bs;
		}
		ret = lzma_code(&s, action);
		if (ret != LZMA_OK && ret != LZMA_STREAM_END) {
			xz_error(ret, &err);
			failed = 1;
			break;
		}
		if (s.avail_out == 0 || ret == LZMA_STREAM_END) {
			if (s.avail_out < bs)
				cv_pipe_put(d->out, b, bs - s.avail_out);
			else
				cv_pipe_unget(d->out, b);
			b = NULL;
			if (++filled == 2)
				cv_checkpoint("mid-xz");
		}
		if (ret == LZMA_STREAM_END)
			break;
	}
	if (b != NULL)
		cv_pipe_unget(d->out, b);
out:
	cv_pipe_close(d->out, failed ? &err : NULL);
	lzma_end(&s);
	return NULL;
}

static void *
dec_main(void *arg)
{
	struct decoder *d = arg;
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	struct cv_err err = CV_ERR_INIT;
	size_t bs = cv_pipe_bufsize(d->out);
	la_ssize_t n = -1;
	char *b;

	archive_read_support_filter_xz(a);
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_format_raw(a);
	if (archive_read_open(a, &d->in, NULL, read_cb, NULL) == ARCHIVE_OK &&
	    archive_read_next_header(a, &e) == ARCHIVE_OK) {
		for (;;) {
			if ((b = cv_pipe_get(d->out)) == NULL) {
				archive_read_free(a);
				return NULL; /* the reader gave up */
			}
			n = archive_read_data(a, b, bs);
			if (n <= 0) {
				cv_pipe_unget(d->out, b);
				break;
			}
			cv_pipe_put(d->out, b, (size_t)n);
		}
	}
	if (n < 0)
		feed_error(a, &d->in, &err);
	cv_pipe_close(d->out, n < 0 ? &err : NULL);
	archive_read_free(a);
	return NULL;
}

static int
is_xz(const unsigned char *b, ssize_t n)
{
	static const unsigned char xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

	return n >= 6 && memcmp(b, xz, 6) == 0;
}

static int
compressed(const unsigned char *b, ssize_t n)
{
	return is_xz(b, n) || (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) ||
	       (n >= 3 && memcmp(b, "BZh", 3) == 0);
}

int
cv_extract(struct cv_source *src, const char *dest,
	   const struct cv_extract_limits *limits, struct cv_err *err)
{
	struct ectx x;
	struct cv_err dummy = CV_ERR_INIT;
	struct peek pk = { NULL, NULL, 0, 0, 0 };
	struct cv_source psrc = { peek_read, &pk };
	struct cv_source tsrc = { cv_pipe_read, NULL };
	struct decoder dec;
	int oldcwd, r;
	mode_t oldmask;

	if (err == NULL)
		err = &dummy;
	memset(&x, 0, sizeof x);
	memset(&dec, 0, sizeof dec);
	x.err = err;
	x.lim.max_entries = DEF_MAX_ENTRIES;
	x.lim.max_total_bytes = DEF_MAX_TOTAL;
	x.lim.max_path = DEF_MAX_PATH;
	x.lim.max_depth = DEF_MAX_DEPTH;
	if (limits != NULL) {
		if (limits->max_entries)
			x.lim.max_entries = limits->max_entries;
		if (limits->max_total_bytes)
			x.lim.max_total_bytes = limits->max_total_bytes;
		if (limits->max_path)
			x.lim.max_path = limits->max_path;
		if (limits->max_depth)
			x.lim.max_depth = limits->max_depth;
		x.lim.max_ratio = limits->max_ratio;
		x.lim.ratio_floor = limits->ratio_floor;
		x.lim.check_top = limits->check_top;
		x.lim.payload = limits->payload;
		x.lim.threads = limits->threads;
		x.lim.wheel = limits->wheel;
	}
	x.raw = &pk;
	/* Look at the first bytes: a compressed tarball gets its own
	 * decompressing thread; a zip or a plain tar is read here. */
	pk.inner = src;
	pk.len = src->read(src->ctx, &pk.buf, err);
	if (pk.len < 0)
		return (int)pk.len;
	atomic_store(&pk.nread, (uint_fast64_t)pk.len);
	x.in.src = &psrc;
	if (compressed(pk.buf, pk.len)) {
		dec.in.src = &psrc;
		dec.out = cv_pipe_new(8, 1 << 20);
		dec.threads = x.lim.threads ? x.lim.threads : cv_usable_cores();
		if (pthread_create(&dec.th, NULL,
				   is_xz(pk.buf, pk.len) ? xz_main : dec_main,
				   &dec) != 0)
			abort();
		tsrc.ctx = dec.out;
		x.in.src = &tsrc;
		x.pipeline = 1;
	}
	oldcwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (oldcwd < 0) {
		r = cv_err_errno(err, CV_EIO, "cannot open the current folder");
		goto stop;
	}
	if (chdir(dest) != 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot enter '%s'", dest);
		close(oldcwd);
		goto stop;
	}
	oldmask = umask(022);
	x.ar = archive_read_new();
	x.aw = archive_write_disk_new();
	archive_read_support_format_tar(x.ar);
	if (!x.pipeline) {
		archive_read_support_format_zip(x.ar);
		archive_read_support_filter_xz(x.ar);
		archive_read_support_filter_gzip(x.ar);
		archive_read_support_filter_bzip2(x.ar);
	}
	archive_write_disk_set_options(
		x.aw, ARCHIVE_EXTRACT_SECURE_NODOTDOT |
			      ARCHIVE_EXTRACT_SECURE_SYMLINKS |
			      ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
	if (archive_read_open(x.ar, &x.in, NULL, read_cb, NULL) != ARCHIVE_OK)
		r = read_error(&x);
	else
		r = extract_all(&x);
	if (r == 0 && archive_write_close(x.aw) != ARCHIVE_OK)
		r = write_error(&x, "(folder fix-up)");
	archive_read_free(x.ar);
	archive_write_free(x.aw);
	umask(oldmask);
	if (fchdir(oldcwd) != 0 && r == 0)
		r = cv_err_errno(err, CV_EIO,
				 "cannot return to the current folder");
	close(oldcwd);
stop:
	nameset_free(&x.names);
	if (x.pipeline) {
		cv_pipe_abort(dec.out);
		pthread_join(dec.th, NULL);
		cv_pipe_free(dec.out);
	}
	if (r == 0)
		r = post_walk(dest, err);
	return r;
}

/* ---- a zip file on all cores ----------------------------------------------
 * A wheel's central directory lists every entry with its offset, so the
 * entries can be inflated independently: the policy runs over the whole
 * directory first (nothing is written unless every entry passes, and the
 * directory's file modes show links a streaming read cannot see), then
 * each thread opens the file with its own reader and writes its share,
 * the largest entries dealt out first to the least loaded thread. */

struct zip_job {
	char *rel; /* the name to write, NULL: skipped */
	int64_t size;
	int64_t data; /* where its bytes start in the file */
	int64_t hdr;  /* streamed: where its local header starts */
	char *name;   /* streamed: the name in that header */
	int dir;
	int thread;
};

struct zip_worker {
	pthread_t th;
	const char *path;
	struct zip_job *jobs;
	size_t njobs;
	int me;
	atomic_int *stop;
	struct cv_err err;
	int rc;
};

static int
zip_open(const char *path, struct archive **out, struct cv_err *err)
{
	struct archive *a = archive_read_new();

	archive_read_support_format_zip_seekable(a);
	if (archive_read_open_filename(a, path, 1 << 20) != ARCHIVE_OK) {
		int rc = cv_err_set(
			err, CV_EDATA, "corrupt or unsupported wheel: %s",
			archive_error_string(a) ? archive_error_string(a)
						: "cannot open");
		archive_read_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

static void *
zip_work(void *arg)
{
	struct zip_worker *w = arg;
	struct archive *a = NULL, *aw;
	struct archive_entry *e;
	size_t i = 0;
	int r;

	if ((w->rc = zip_open(w->path, &a, &w->err)) < 0) {
		atomic_store(w->stop, 1);
		return NULL;
	}
	aw = archive_write_disk_new();
	archive_write_disk_set_options(
		aw, ARCHIVE_EXTRACT_SECURE_NODOTDOT |
			    ARCHIVE_EXTRACT_SECURE_SYMLINKS |
			    ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
	for (; !atomic_load(w->stop); i++) {
		struct zip_job *j;
		const void *buf;
		size_t size;
		la_int64_t off;
		int64_t got = 0;

		r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN || i >= w->njobs) {
			w->rc = cv_err_set(&w->err, CV_EDATA,
					   "corrupt wheel: %s",
					   archive_error_string(a)
						   ? archive_error_string(a)
						   : "entries changed");
			break;
		}
		j = &w->jobs[i];
		if (j->rel == NULL || j->dir || j->thread != w->me)
			continue;
		archive_entry_set_pathname(e, j->rel);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_uid(e, 0);
		archive_entry_set_gid(e, 0);
		archive_entry_set_uname(e, NULL);
		archive_entry_set_gname(e, NULL);
		if (archive_write_header(aw, e) < ARCHIVE_WARN) {
			w->rc = cv_err_set(&w->err, CV_EIO,
					   "cannot write '%s': %s", j->rel,
					   archive_error_string(aw));
			break;
		}
		while ((r = archive_read_data_block(a, &buf, &size, &off)) ==
		       ARCHIVE_OK) {
			if ((got + (int64_t)size) / WRITEBACK_STEP !=
			    got / WRITEBACK_STEP)
				start_writeback(AT_FDCWD, j->rel);
			got += (int64_t)size;
			/* the directory's size is what the policy allowed */
			if (got > j->size) {
				w->rc = cv_err_set(
					&w->err, CV_EDATA,
					"unsafe archive: entry '%s' is larger than its directory entry says; the archive was not installed",
					j->rel);
				break;
			}
			if (archive_write_data_block(aw, buf, size, off) <
			    ARCHIVE_OK) {
				int en = archive_errno(aw);
				w->rc = cv_err_set(
					&w->err,
					en == ENOSPC || en == EDQUOT ? CV_EIO
								     : CV_EDATA,
					"cannot write '%s' into the store: %s",
					j->rel, archive_error_string(aw));
				break;
			}
		}
		if (w->rc == 0 && r != ARCHIVE_EOF)
			w->rc = cv_err_set(&w->err, CV_EDATA,
					   "corrupt wheel entry '%s': %s",
					   j->rel,
					   archive_error_string(a)
						   ? archive_error_string(a)
						   : "read error");
		if (w->rc == 0 && archive_write_finish_entry(aw) < ARCHIVE_WARN)
			w->rc = cv_err_set(&w->err, CV_EIO,
					   "cannot write '%s': %s", j->rel,
					   archive_error_string(aw));
		if (w->rc == 0)
			start_writeback(AT_FDCWD, j->rel);
		if (w->rc < 0)
			break;
	}
	if (w->rc < 0)
		atomic_store(w->stop, 1);
	else if (archive_write_close(aw) != ARCHIVE_OK)
		w->rc = cv_err_set(&w->err, CV_EIO, "cannot finish writing: %s",
				   archive_error_string(aw));
	archive_write_free(aw);
	archive_read_free(a);
	return NULL;
}

/* Read the directory, run the policy over every entry and deal the files
 * out to `threads` workers. */
static int
zip_plan(struct ectx *x, const char *path, struct zip_job **jobs_out,
	 size_t *njobs, int threads)
{
	struct archive_entry *e;
	struct zip_job *jobs = NULL;
	size_t n = 0, alloc = 0, *order;
	uint64_t *load;
	int r = 0;

	if ((r = zip_open(path, &x->ar, x->err)) < 0)
		return r;
	x->zip = 1;
	for (;;) {
		struct zip_job *j;
		r = archive_read_next_header(x->ar, &e);
		if (r == ARCHIVE_EOF) {
			r = 0;
			break;
		}
		if (r < ARCHIVE_WARN) {
			r = read_error(x);
			break;
		}
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			jobs = xrealloc(jobs, alloc * sizeof *jobs);
		}
		j = &jobs[n++];
		memset(j, 0, sizeof *j);
		j->data = archive_filter_bytes(x->ar, 0);
		if ((r = policy(x, e)) < 0)
			break;
		if (r > 0) {
			r = 0;
			continue;
		}
		j->rel = xstrdup(archive_entry_pathname(e));
		j->dir = archive_entry_filetype(e) == AE_IFDIR;
		j->size = archive_entry_size(e);
		x->total += (uint64_t)(j->size > 0 ? j->size : 0);
		if (x->total > bytes_allowed(x)) {
			r = reject(x, j->rel,
				   "makes the archive larger than the limit");
			break;
		}
		/* the folders exist before any worker writes into them */
		{
			char *dir = xstrdup(j->rel), *slash;
			if (!j->dir && (slash = strrchr(dir, '/')) != NULL)
				*slash = '\0';
			if ((j->dir || slash != NULL) &&
			    cv_fs_mkdirs(dir, 0755, x->err) < 0)
				r = x->err->code;
			free(dir);
			if (r < 0)
				break;
		}
	}
	archive_read_free(x->ar);
	x->ar = NULL;
	if (r == 0 && x->names.n == 0)
		r = cv_err_set(x->err, CV_EDATA,
			       "the wheel holds no cuDNN files; is it a cuDNN "
			       "wheel?");
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			free(jobs[i].rel);
		free(jobs);
		return r;
	}
	/* largest first, each to the thread with the least so far */
	order = xcalloc(n ? n : 1, sizeof *order);
	load = xcalloc((size_t)threads, sizeof *load);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t k = i;
		     k > 0 && jobs[order[k]].size > jobs[order[k - 1]].size;
		     k--) {
			size_t t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		int best = 0;
		for (int t = 1; t < threads; t++)
			if (load[t] < load[best])
				best = t;
		jobs[order[i]].thread = best;
		load[best] +=
			(uint64_t)(jobs[order[i]].size > 0 ? jobs[order[i]].size
							   : 0) +
			4096;
	}
	free(order);
	free(load);
	*jobs_out = jobs;
	*njobs = n;
	return 0;
}

/* 1 when the directory lists the very entries the stream delivered. */
static int
plan_matches(const struct zip_job *plan, size_t nplan,
	     const struct zip_job *got, size_t ngot)
{
	if (nplan != ngot)
		return 0;
	for (size_t i = 0; i < nplan; i++) {
		const struct zip_job *a = &plan[i], *b = &got[i];
		if ((a->rel == NULL) != (b->rel == NULL) ||
		    (a->rel != NULL && strcmp(a->rel, b->rel) != 0) ||
		    a->data != b->data || a->dir != b->dir ||
		    (a->rel != NULL && !a->dir && a->size != b->size))
			return 0;
	}
	return 1;
}

static void
jobs_free(struct zip_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].rel);
		free(jobs[i].name);
	}
	free(jobs);
}

static void
ectx_init(struct ectx *x, struct peek *pk,
	  const struct cv_extract_limits *limits, struct cv_err *err)
{
	memset(x, 0, sizeof *x);
	x->err = err;
	x->raw = pk;
	x->zip = 1;
	x->lim.max_entries = DEF_MAX_ENTRIES;
	x->lim.max_total_bytes = DEF_MAX_TOTAL;
	x->lim.max_path = DEF_MAX_PATH;
	x->lim.max_depth = DEF_MAX_DEPTH;
	if (limits != NULL) {
		if (limits->max_entries)
			x->lim.max_entries = limits->max_entries;
		if (limits->max_total_bytes)
			x->lim.max_total_bytes = limits->max_total_bytes;
		x->lim.check_top = limits->check_top;
		x->lim.payload = limits->payload;
		x->lim.wheel = limits->wheel;
	}
}

/* Empty the current folder (the destination) except for the file `keep`
 * (the wheel, when it is spooled there). */
static int
clear_but(const char *keep, struct cv_err *err)
{
	struct stat ks, sb;
	struct dirent *e;
	DIR *d = opendir(".");
	int r = 0, have = stat(keep, &ks) == 0;

	if (d == NULL)
		return cv_err_errno(err, CV_EIO,
				    "cannot list the staging folder");
	while (r == 0 && (e = readdir(d)) != NULL) {
		struct cv_err ignored = CV_ERR_INIT;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (have && lstat(e->d_name, &sb) == 0 &&
		    sb.st_dev == ks.st_dev && sb.st_ino == ks.st_ino)
			continue;
		if (cv_fs_rmtree_at(AT_FDCWD, e->d_name, &ignored) < 0 &&
		    errno != ENOENT)
			r = cv_err_errno(err, CV_EIO, "cannot clear '%s'",
					 e->d_name);
	}
	closedir(d);
	return r;
}

/* Unpack the zip file `path` into `dest` from its central directory. When
 * `streamed` lists what was already unpacked from the local headers while
 * the file arrived, every one of them written in `whole`, and the
 * directory agrees with it entry for entry, that tree is kept; otherwise
 * it is removed and the directory's is written. */
static int
zip_file_extract(const char *path, const char *dest,
		 const struct cv_extract_limits *limits, int threads,
		 const struct zip_job *streamed, size_t nstreamed, int whole,
		 struct cv_err *err)
{
	struct ectx x;
	struct peek pk = { NULL, NULL, 0, 0, 0 };
	struct cv_err dummy = CV_ERR_INIT;
	struct zip_job *jobs = NULL;
	struct zip_worker *w = NULL;
	atomic_int stop = 0;
	size_t njobs = 0;
	int oldcwd, r;
	mode_t oldmask;

	if (err == NULL)
		err = &dummy;
	if (threads < 1)
		threads = 1;
	ectx_init(&x, &pk, limits, err);
	oldcwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (oldcwd < 0)
		return cv_err_errno(err, CV_EIO,
				    "cannot open the current folder");
	if (chdir(dest) != 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot enter '%s'", dest);
		close(oldcwd);
		return r;
	}
	oldmask = umask(022);
	r = zip_plan(&x, path, &jobs, &njobs, threads);
	if (r == 0 && streamed != NULL && whole &&
	    plan_matches(jobs, njobs, streamed, nstreamed)) {
		threads = 0; /* all of it is on disk already */
	} else if (streamed != NULL) {
		/* the stream and the directory disagree (or the directory
		 * refuses the wheel): nothing streamed may stay, not even a
		 * folder made for an entry the stream gave up on */
		if (clear_but(path, err) < 0 && r == 0)
			r = err->code;
		if (r == 0) {
			/* again, onto the cleared folder */
			jobs_free(jobs, njobs);
			jobs = NULL;
			njobs = 0;
			nameset_free(&x.names);
			ectx_init(&x, &pk, limits, err);
			r = zip_plan(&x, path, &jobs, &njobs, threads);
		}
	}
	if (r == 0 && threads > 0) {
		w = xcalloc((size_t)threads, sizeof *w);
		for (int t = 0; t < threads; t++) {
			w[t].path = path;
			w[t].jobs = jobs;
			w[t].njobs = njobs;
			w[t].me = t;
			w[t].stop = &stop;
			if (pthread_create(&w[t].th, NULL, zip_work, &w[t]) !=
			    0)
				abort();
		}
		for (int t = 0; t < threads; t++) {
			pthread_join(w[t].th, NULL);
			if (w[t].rc < 0 && r == 0) {
				*err = w[t].err;
				r = w[t].rc;
			}
		}
		free(w);
		cv_checkpoint("mid-extract");
	}
	umask(oldmask);
	if (fchdir(oldcwd) != 0 && r == 0)
		r = cv_err_errno(err, CV_EIO,
				 "cannot return to the current folder");
	close(oldcwd);
	jobs_free(jobs, njobs);
	nameset_free(&x.names);
	if (r == 0)
		r = post_walk(dest, err);
	return r;
}

int
cv_extract_zip_file(const char *path, const char *dest,
		    const struct cv_extract_limits *limits, int threads,
		    struct cv_err *err)
{
	return zip_file_extract(path, dest, limits, threads, NULL, 0, 0, err);
}

/* ---- a wheel while it arrives -----------------------------------------
 * Unpacking only once the whole wheel is in costs the download on top of
 * the inflating. But a wheel's local headers carry each entry's sizes
 * (pip's and NVIDIA's tools write no data descriptors), so while the file
 * is still being written a scout walks the local headers as they land and
 * deals each file to a worker, which inflates it from the file as its
 * bytes arrive, a few MiB behind the download.
 *
 * Local headers are not what installers trust; the central directory is.
 * So once the file is whole and its sha256 matches, the directory is read
 * (libarchive's seekable reader checks each local header's sizes against
 * it, and the policy runs over it as for any wheel) and must list the very
 * same entries: names, sizes, types and where their bytes start. Any
 * difference, an entry whose size the stream cannot know, or any trouble
 * on the way, and the streamed tree is removed and the wheel unpacked from
 * its directory as it would have been without the stream. Nothing is
 * published either way until the caller's hash check has passed. */

#define STREAM_CHUNK       (1 << 20)
#define STREAM_RATIO_FLOOR (256ULL << 20)

struct cv_zip_stream {
	pthread_mutex_t mu;
	pthread_cond_t changed; /* more bytes, a new entry, or the end */
	uint64_t avail;         /* bytes in the file so far */
	int whole;              /* the writer is done */
	int stop;               /* give up: the caller's or a failure */
	int failed;             /* the streamed tree cannot be kept */
	int scouted;            /* the scout has seen every local header */
	struct zip_job *jobs;   /* what the scout found, in file order */
	size_t njobs, alloc, next;
	int fd, dfd;
	char *path, *dest;
	struct cv_extract_limits lim;
	int threads;
	uint64_t cap, written; /* bytes the tree may hold, and holds */
	pthread_t scout, *workers;
	struct ectx x;
	struct peek pk;
	struct cv_err xerr;
};

struct stream_reader {
	struct cv_zip_stream *z;
	int64_t off;
	char *buf;
};

/* libarchive's read callback: the bytes at `off`, waiting for the writer
 * when they have not landed yet; the end of the data once it is whole. */
static la_ssize_t
stream_read(struct archive *a, void *ud, const void **buf)
{
	struct stream_reader *rd = ud;
	struct cv_zip_stream *z = rd->z;
	uint64_t avail;
	int stop;
	ssize_t n;
	size_t want;

	pthread_mutex_lock(&z->mu);
	while (!z->stop && !z->whole && z->avail <= (uint64_t)rd->off)
		pthread_cond_wait(&z->changed, &z->mu);
	avail = z->avail;
	stop = z->stop;
	pthread_mutex_unlock(&z->mu);
	if (stop) {
		archive_set_error(a, ECANCELED, "stopped");
		return ARCHIVE_FATAL;
	}
	if (avail <= (uint64_t)rd->off)
		return 0;
	want = avail - (uint64_t)rd->off < STREAM_CHUNK
		       ? (size_t)(avail - (uint64_t)rd->off)
		       : STREAM_CHUNK;
	do
		n = pread(z->fd, rd->buf, want, rd->off);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		archive_set_error(a, errno, "cannot read the wheel");
		return ARCHIVE_FATAL;
	}
	rd->off += n;
	*buf = rd->buf;
	return n;
}

/* Skipping needs no bytes: the next read waits for them. */
static la_int64_t
stream_skip(struct archive *a, void *ud, la_int64_t request)
{
	struct stream_reader *rd = ud;

	(void)a;
	rd->off += request;
	return request;
}

static struct archive *
stream_open(struct stream_reader *rd)
{
	struct archive *a = archive_read_new();

	archive_read_support_format_zip_streamable(a);
	archive_read_set_read_callback(a, stream_read);
	archive_read_set_skip_callback(a, stream_skip);
	archive_read_set_callback_data(a, rd);
	if (archive_read_open1(a) != ARCHIVE_OK) {
		archive_read_free(a);
		return NULL;
	}
	return a;
}

static void
stream_fail(struct cv_zip_stream *z)
{
	pthread_mutex_lock(&z->mu);
	z->failed = 1;
	z->stop = 1;
	pthread_cond_broadcast(&z->changed);
	pthread_mutex_unlock(&z->mu);
}

/* The folders above `rel`, made inside the destination. */
static int
stream_mkparents(int dfd, const char *rel)
{
	char *p = xstrdup(rel), *s;
	int r = 0;

	for (s = strchr(p, '/'); s != NULL && r == 0; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdirat(dfd, p, 0755) != 0 && errno != EEXIST)
			r = -1;
		*s = '/';
	}
	free(p);
	return r;
}

static void *
stream_scout(void *arg)
{
	struct cv_zip_stream *z = arg;
	struct stream_reader rd = { z, 0, xmalloc(STREAM_CHUNK) };
	struct archive *a = stream_open(&rd);
	struct archive_entry *e;
	int ok = a != NULL;

	while (ok) {
		struct zip_job j;
		int r = archive_read_next_header(a, &e), type, p;

		if (r == ARCHIVE_EOF)
			break;
		/* an entry whose size only its end tells cannot be dealt
		 * out ahead of its bytes */
		if (r != ARCHIVE_OK || !archive_entry_size_is_set(e)) {
			ok = 0;
			break;
		}
		memset(&j, 0, sizeof j);
		j.hdr = archive_read_header_position(a);
		j.data = archive_filter_bytes(a, 0);
		j.name = xstrdup(archive_entry_pathname(e));
		j.size = archive_entry_size(e);
		type = archive_entry_filetype(e);
		if ((p = policy(&z->x, e)) < 0) {
			free(j.name);
			ok = 0;
			break;
		}
		if (p == 0) {
			j.rel = xstrdup(archive_entry_pathname(e));
			j.dir = type == AE_IFDIR;
			z->x.total += (uint64_t)(j.size > 0 ? j.size : 0);
			if (z->x.total > z->cap ||
			    stream_mkparents(z->dfd, j.rel) != 0 ||
			    (j.dir && mkdirat(z->dfd, j.rel, 0755) != 0 &&
			     errno != EEXIST)) {
				free(j.rel);
				free(j.name);
				ok = 0;
				break;
			}
		}
		pthread_mutex_lock(&z->mu);
		if (z->njobs == z->alloc) {
			z->alloc = z->alloc ? z->alloc * 2 : 64;
			z->jobs = xrealloc(z->jobs, z->alloc * sizeof *z->jobs);
		}
		z->jobs[z->njobs++] = j;
		pthread_cond_broadcast(&z->changed);
		pthread_mutex_unlock(&z->mu);
	}
	if (a != NULL)
		archive_read_free(a);
	free(rd.buf);
	pthread_mutex_lock(&z->mu);
	z->scouted = 1;
	if (!ok) {
		z->failed = 1;
		z->stop = 1;
	}
	pthread_cond_broadcast(&z->changed);
	pthread_mutex_unlock(&z->mu);
	return NULL;
}

/* Inflate one entry, from its local header on, into j->rel. The header
 * must still say what the scout saw (the entry's name as stored: the
 * policy rewrote the scout's copy). */
static int
stream_entry(struct cv_zip_stream *z, const struct zip_job *j,
	     struct stream_reader *rd)
{
	const int64_t hdr = j->hdr;
	const char *name = j->name;
	struct archive *a;
	struct archive_entry *e;
	const void *buf;
	size_t size;
	la_int64_t off;
	int64_t got = 0;
	uint64_t arrived;
	int fd = -1, r;

	rd->off = hdr;
	if ((a = stream_open(rd)) == NULL)
		return -1;
	r = archive_read_next_header(a, &e) == ARCHIVE_OK &&
			    strcmp(archive_entry_pathname(e), name) == 0 &&
			    archive_entry_size_is_set(e) &&
			    archive_entry_size(e) == j->size &&
			    hdr + archive_filter_bytes(a, 0) == j->data
		    ? 0
		    : -1;
	if (r == 0)
		fd = openat(z->dfd, j->rel,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0644);
	if (fd < 0)
		r = -1;
	while (r == 0 && (r = archive_read_data_block(a, &buf, &size, &off)) ==
				 ARCHIVE_OK) {
		const char *p = buf;
		uint64_t total;

		if ((got + (int64_t)size) / WRITEBACK_STEP !=
		    got / WRITEBACK_STEP)
			sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		got += (int64_t)size;
		pthread_mutex_lock(&z->mu);
		total = z->written += size;
		arrived = z->avail;
		pthread_mutex_unlock(&z->mu);
		/* The cap comes from the size the index gave, which is only
		 * checked once the download ends: a bomb must not fill the
		 * disk before that, so what is written also stays within 4x
		 * the bytes that have arrived (at least 256 MiB), as for an
		 * archive of unknown size. Past it the stream gives up and
		 * the verified wheel is unpacked from its directory. */
		if (got > j->size || off + (int64_t)size > j->size ||
		    total > z->cap ||
		    total > (arrived * 4 > STREAM_RATIO_FLOOR
				     ? arrived * 4
				     : STREAM_RATIO_FLOOR)) {
			r = -1;
			break;
		}
		while (size > 0) {
			ssize_t n = pwrite(fd, p, size, off);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				r = -1;
				break;
			}
			p += n;
			off += n;
			size -= (size_t)n;
		}
	}
	if (r == ARCHIVE_EOF && got == j->size)
		r = 0;
	else if (r == 0 || r == ARCHIVE_EOF)
		r = -1;
	if (r == 0)
		sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	if (fd >= 0 && (fchmod(fd, 0644) != 0 || close(fd) != 0))
		r = -1;
	archive_read_free(a);
	return r < 0 ? -1 : 0;
}

static void *
stream_worker(void *arg)
{
	struct cv_zip_stream *z = arg;
	struct stream_reader rd = { z, 0, NULL };
	int done_one = 0, r;

	for (;;) {
		struct zip_job j;

		pthread_mutex_lock(&z->mu);
		while (!z->stop && z->next >= z->njobs && !z->scouted)
			pthread_cond_wait(&z->changed, &z->mu);
		if (z->stop || z->next >= z->njobs) {
			pthread_mutex_unlock(&z->mu);
			break;
		}
		/* the scout may grow (move) the array: work on a copy */
		j = z->jobs[z->next++];
		if (j.rel == NULL || j.dir) {
			pthread_mutex_unlock(&z->mu);
			continue;
		}
		j.rel = xstrdup(j.rel);
		j.name = xstrdup(j.name);
		pthread_mutex_unlock(&z->mu);
		if (rd.buf == NULL)
			rd.buf = xmalloc(STREAM_CHUNK);
		r = stream_entry(z, &j, &rd);
		free(j.rel);
		free(j.name);
		if (r < 0) {
			stream_fail(z);
			break;
		}
		if (!done_one++)
			cv_checkpoint("mid-extract");
	}
	free(rd.buf);
	return NULL;
}

struct cv_zip_stream *
cv_zip_stream_start(const char *path, const char *dest,
		    const struct cv_extract_limits *limits, int threads)
{
	struct cv_zip_stream *z;
	int fd, dfd;

	/* without a cap known up front, a bomb could fill the disk before
	 * the hash is checked: such a wheel waits for its download */
	if (limits == NULL || limits->max_total_bytes == 0)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	dfd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		close(fd);
		return NULL;
	}
	z = xcalloc(1, sizeof *z);
	pthread_mutex_init(&z->mu, NULL);
	pthread_cond_init(&z->changed, NULL);
	z->fd = fd;
	z->dfd = dfd;
	z->path = xstrdup(path);
	z->dest = xstrdup(dest);
	z->lim = *limits;
	z->cap = limits->max_total_bytes;
	z->threads = threads < 1 ? 1 : threads;
	z->xerr = (struct cv_err)CV_ERR_INIT;
	ectx_init(&z->x, &z->pk, limits, &z->xerr);
	z->workers = xcalloc((size_t)z->threads, sizeof *z->workers);
	if (pthread_create(&z->scout, NULL, stream_scout, z) != 0)
		abort();
	for (int t = 0; t < z->threads; t++)
		if (pthread_create(&z->workers[t], NULL, stream_worker, z) != 0)
			abort();
	return z;
}

void
cv_zip_stream_grew(struct cv_zip_stream *z, uint64_t bytes)
{
	if (z == NULL)
		return;
	pthread_mutex_lock(&z->mu);
	z->avail = bytes;
	pthread_cond_broadcast(&z->changed);
	pthread_mutex_unlock(&z->mu);
}

int
cv_zip_stream_finish(struct cv_zip_stream *z, int whole, struct cv_err *err)
{
	int r = 0, failed;

	pthread_mutex_lock(&z->mu);
	z->whole = 1;
	if (!whole)
		z->stop = 1;
	pthread_cond_broadcast(&z->changed);
	pthread_mutex_unlock(&z->mu);
	pthread_join(z->scout, NULL);
	for (int t = 0; t < z->threads; t++)
		pthread_join(z->workers[t], NULL);
	failed = z->failed;
	if (whole)
		/* a failed stream leaves files to clear but proves nothing:
		 * the directory decides, as without the stream */
		r = zip_file_extract(z->path, z->dest, &z->lim, z->threads,
				     z->jobs, z->njobs, !failed, err);
	close(z->fd);
	close(z->dfd);
	jobs_free(z->jobs, z->njobs);
	nameset_free(&z->x.names);
	pthread_mutex_destroy(&z->mu);
	pthread_cond_destroy(&z->changed);
	free(z->workers);
	free(z->path);
	free(z->dest);
	free(z);
	return r;
}
