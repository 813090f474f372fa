/* extract_policy.c: the entry policy every extraction engine applies
 * (doc/reliability.md §2), its errors, and the walk of the finished tree.
 *
 * Every entry passes the policy before a byte of it is written: regular
 * files, folders and relative symlinks that stay inside the tree; no hard
 * links, devices, FIFOs or sockets; one top folder, stripped; old
 * cuda/lib64 layouts mapped to lib/; a wheel's nvidia/cudnn/ mapped to the
 * archive layout; only cuDNN's own names kept in lib/; no duplicates; caps on
 * entries, bytes written, path length and depth. A walk of the result re-checks
 * links against the tree itself and fixes modes (files 0644, folders 0755).
 * Also what the engines share: the threads a zip is inflated on, the
 * write-back of a file written. */
#include "base/base.h"
#include "install/install_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef NAME_MAX
#define NAME_MAX 255 /* a component, where limits.h gives none (mingw) */
#endif

unsigned
cv_inflate_threads(unsigned asked)
{
	return asked ? asked : cv_usable_cores();
}

/* Advisory: an error here changes nothing, the sync reports real ones. */
void
extract_writeback(int dirfd, const char *rel)
{
	int fd = cv_os_open_at(dirfd, rel, CV_OPEN_READ | CV_OPEN_NOFOLLOW, 0);

	if (fd >= 0) {
		cv_os_writeback(fd, 0, 0);
		cv_os_close(fd);
	}
}

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

static int
valid_utf8(const unsigned char *s)
{
	size_t n;

	for (; *s; s += n)
		if ((n = cv_utf8_seq(s)) == 0)
			return 0;
	return 1;
}

/* A component Windows would not create as named, or would open as
 * something else: a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9, and the
 * superscript COM\u00b9-\u00b3, LPT\u00b9-\u00b3, CONIN$, CONOUT$, in any
 * case, with any extension, and with spaces before it, which Win32 drops),
 * a name ending in a dot or a space (dropped too: "lib." is "lib"), or a
 * character Win32 refuses in a name. */
static int
reserved_windows(const char *c)
{
	static const char *const dev[] = { "CON",    "PRN",     "AUX", "NUL",
					   "CONIN$", "CONOUT$", NULL };
	size_t n = strcspn(c, ".");
	size_t len = strlen(c);

	if (len > 0 && (c[len - 1] == '.' || c[len - 1] == ' '))
		return 1;
	if (strpbrk(c, "<>\"|?*") != NULL)
		return 1;
	while (n > 0 && c[n - 1] == ' ')
		n--;
	for (int i = 0; dev[i]; i++)
		if (n == strlen(dev[i]) && strncasecmp(c, dev[i], n) == 0)
			return 1;
	if (n >= 4 &&
	    (strncasecmp(c, "COM", 3) == 0 || strncasecmp(c, "LPT", 3) == 0)) {
		const unsigned char *d = (const unsigned char *)c + 3;
		if (n == 4 && d[0] >= '1' && d[0] <= '9')
			return 1;
		/* U+00B9, U+00B2, U+00B3 in UTF-8 */
		if (n == 5 && d[0] == 0xc2 &&
		    (d[1] == 0xb9 || d[1] == 0xb2 || d[1] == 0xb3))
			return 1;
	}
	return 0;
}

/* A printable copy of a hostile name for messages. */
void
extract_safe_name(const char *s, char *out, size_t n)
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

int
extract_reject(struct ectx *x, const char *name, const char *why)
{
	char safe[300];

	extract_safe_name(name, safe, sizeof safe);
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
		return extract_reject(x, name, "is not valid UTF-8");
	for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
		if (*s < 0x20 || *s == 0x7f)
			return extract_reject(
				x, name, "has a control character in its name");
		if (*s == '\\')
			return extract_reject(x, name,
					      "has a backslash in its name");
		if (*s == ':')
			return extract_reject(x, name, "has a ':' in its name");
	}
	return 0;
}

/* How many bytes the extracted tree may hold now: the fixed cap, and for
 * an archive of unknown size also max_ratio times what was read of it. */
uint64_t
extract_bytes_allowed(const struct ectx *x)
{
	uint64_t cap = x->lim.max_total_bytes, ratio;

	if (x->lim.max_ratio == 0 || x->raw == NULL)
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

	if (type == XE_LINK)
		return extract_reject(x, name,
				      "is a symlink (a wheel holds none)");
	if (l0 > 10 && strcmp(c[0] + l0 - 10, ".dist-info") == 0) {
		if (*n == 2 && type == XE_FILE &&
		    (strcasecmp(c[1], "License.txt") == 0 ||
		     strcasecmp(c[1], "LICENSE") == 0)) {
			c[1] = (char *)"LICENSE";
			return 0;
		}
		if (*n == 1 && type != XE_DIR)
			return extract_reject(x, name, "replaces a folder");
		return 1; /* METADATA, RECORD, WHEEL: pip's, not cuDNN */
	}
	if (x->lim.dep_lib_prefix != NULL) {
		/* a CUDA library's wheel: nvidia/<name>/lib/X (nvidia/cublas/,
		 * nvidia/cuda_nvrtc/, or CUDA 13's shared nvidia/cu13/) ->
		 * lib/X; kept_dep then keeps only the library's own files */
		if (strcmp(c[0], "nvidia") != 0)
			return extract_reject(x, name,
					      "is outside nvidia/ (a CUDA "
					      "library's wheel holds nothing "
					      "else)");
		if (*n != 4 || strcmp(c[2], "lib") != 0)
			return 1;
		c[1] = (char *)"lib";
		c[2] = c[3];
		*n = 3;
		return 0;
	}
	if (strcmp(c[0], "nvidia") != 0 ||
	    (*n >= 2 && strcmp(c[1], "cudnn") != 0 &&
	     !(*n == 2 && strcmp(c[1], "__init__.py") == 0)))
		return extract_reject(
			x, name,
			"is outside nvidia/cudnn/ (a cuDNN wheel holds "
			"nothing else)");
	if (*n <= 2)
		return type == XE_DIR || *n == 2
			       ? 1
			       : extract_reject(x, name, "replaces a folder");
	if (strcmp(c[2], "lib") != 0 && strcmp(c[2], "include") != 0)
		return 1; /* nvidia/cudnn/__init__.py and the like */
	if (*n == 3)
		return type == XE_DIR
			       ? 1
			       : extract_reject(x, name, "replaces a folder");
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

/* A dependency's archive: its shared libraries in lib/ (the names the
 * loader looks for, and their links) and the license beside them. The
 * static libraries are most of an archive's bytes (cuBLAS: some 80 %),
 * so they are never written at all. */
static int
kept_dep(char **c, int n, const char *prefix)
{
	if (n == 2)
		return strcmp(c[1], "lib") == 0 || strcmp(c[1], "LICENSE") == 0;
	return n == 3 && strcmp(c[1], "lib") == 0 &&
	       strncmp(c[2], prefix, strlen(prefix)) == 0 &&
	       strstr(c[2], ".so") != NULL;
}

/* Whether lib/<c[2]>... is cuDNN's own: NVIDIA's archives and wheels hold
 * only libcudnn*.so* and libcudnn*_static*.a there (Windows zips: x64/
 * with cudnn*.lib). Anything else is left out, because lib/ is what the
 * loader searches (LD_LIBRARY_PATH, and ldconfig in system mode): a
 * libz.so.1 there would answer for the machine's own. `c` holds the
 * rewritten path's components from c[1]; n counts them. */
static int
kept_in_lib(char **c, int n)
{
	if (n < 2 || strcmp(c[1], "lib") != 0 || n == 2)
		return 1;
	if (strncmp(c[2], "libcudnn", 8) == 0)
		return n == 3;
	if (strcmp(c[2], "x64") == 0)
		return n == 3 || (n == 4 && strncasecmp(c[3], "cudnn", 5) == 0);
	return 0;
}

/* An archive's entry under its one top folder (c[0..n) its components):
 * 0 to go on, 1 to pass over it (the top folder, the old layouts' lib64
 * link), <0 refused. Old layouts' cuda/lib64 becomes lib. */
static int
top_map(struct ectx *x, const char *name, char **c, int n, int type)
{
	int r;

	if (!x->have_top) {
		if (n == 1 && type != XE_DIR)
			return extract_reject(x, name,
					      "is not inside a top folder");
		snprintf(x->top, sizeof x->top, "%s", c[0]);
		x->have_top = 1;
		if (x->lim.check_top != NULL &&
		    (r = x->lim.check_top(x->lim.payload, x->top, x->err)) < 0)
			return r;
	} else if (strcmp(c[0], x->top) != 0) {
		return extract_reject(
			x, name, "is outside the archive's single top folder");
	}
	if (n == 1)
		return type != XE_DIR
			       ? extract_reject(x, name,
						"replaces the top folder")
			       : 1; /* the top folder itself */
	/* lib64 becomes our own link */
	if (strcmp(c[1], "lib64") == 0) {
		if (n == 2 && type == XE_LINK)
			return 1;
		c[1] = (char *)"lib";
	}
	return 0;
}

/* A symlink entry n components deep: a relative target that stays inside
 * the archive; 0 or <0 refused. */
static int
link_ok(struct ectx *x, const char *name, const struct xentry *e, int n)
{
	const char *t = e->symlink;

	if (t == NULL || *t == '\0')
		return extract_reject(x, name, "is a symlink without a target");
	if (t[0] == '/')
		return extract_reject(x, name,
				      "is a symlink to an absolute path");
	if (check_chars(x, t) < 0)
		return x->err ? x->err->code : CV_EDATA;
	if (!link_stays_inside(t, n - 2))
		return extract_reject(x, name,
				      "is a symlink that leaves the archive");
	return 0;
}

/* Apply the policy to one entry. Returns 0 to write it (as *relp, which
 * the caller frees), 1 to skip it, <0 to refuse the archive. */
int
extract_policy_entry(struct ectx *x, const struct xentry *e, char **relp)
{
	const char *name = e->name;
	char *buf = NULL, *rel, *key;
	char **c;
	int n, r = 0, type;
	struct cv_buf out = CV_BUF_INIT;

	if (name == NULL || *name == '\0')
		return extract_reject(x, name, "has no name");
	if (strlen(name) > x->lim.max_path)
		return extract_reject(x, name,
				      "has a name longer than the limit");
	if ((r = check_chars(x, name)) < 0)
		return r;
	if (name[0] == '/')
		return extract_reject(x, name, "has an absolute path");
	if (++x->entries > x->lim.max_entries)
		return extract_reject(
			x, name, "is past the limit on the number of entries");
	/* Hard links first: libarchive reports their type as 0. */
	if (e->hardlink != NULL)
		return extract_reject(x, name, "is a hard link");
	type = e->type;
	/* a zip is a Windows archive (NVIDIA's, or a wheel): a link in one
	 * would be a reparse point there, which nothing in cuDNN is */
	if (x->zip && type == XE_LINK && !x->lim.wheel)
		return extract_reject(x, name,
				      "is a link (a Windows archive holds "
				      "none)");
	if (type != XE_FILE && type != XE_DIR && type != XE_LINK)
		return extract_reject(
			x, name,
			"is a device, FIFO or socket (only files, folders and symlinks are allowed)");
	c = split(name, &buf, &n);
	for (int i = 0; i < n; i++)
		if (strcmp(c[i], "..") == 0) {
			r = extract_reject(x, name, "has a '..' component");
			goto out;
		}
	if (n > x->lim.max_depth) {
		r = extract_reject(x, name, "is nested deeper than the limit");
		goto out;
	}
	if (n == 0) {
		r = 1;
		goto out;
	}
	/* every component, the top folder's too, before any is mapped */
	for (int i = 0; x->zip && i < n; i++)
		if (reserved_windows(c[i])) {
			r = extract_reject(x, name,
					   "uses a name Windows reserves");
			goto out;
		}
	if (x->lim.wheel) {
		if ((r = wheel_map(x, name, c, &n, type)) != 0)
			goto out;
	} else if ((r = top_map(x, name, c, n, type)) != 0)
		goto out;
	for (int i = 1; i < n; i++)
		cv_buf_addf(&out, "%s%s", i > 1 ? "/" : "", c[i]);
	rel = cv_buf_detach(&out);
	key = xstrdup(rel);
	if (x->zip)
		for (char *s = key; *s; s++)
			if (*s >= 'A' && *s <= 'Z')
				*s = (char)(*s - 'A' + 'a');
	if (nameset_add(&x->names, key)) {
		free(rel);
		r = extract_reject(
			x, name,
			x->zip ? "is a duplicate (or differs only in case)"
			       : "is a duplicate");
		goto out;
	}
	if (type == XE_LINK && (r = link_ok(x, name, e, n)) < 0) {
		free(rel);
		goto out;
	}
	if (type == XE_FILE && e->size >= 0 &&
	    x->total + (uint64_t)e->size > extract_bytes_allowed(x)) {
		free(rel);
		r = extract_reject(x, name,
				   "makes the archive larger than the limit");
		goto out;
	}
	/* last, so that a hostile entry is refused for what it is even
	 * where its name alone would leave it out */
	if (x->lim.dep_lib_prefix != NULL
		    ? !kept_dep(c, n, x->lim.dep_lib_prefix)
		    : !kept_in_lib(c, n)) {
		free(rel);
		r = 1;
		goto out;
	}
	*relp = rel;
	r = 0;
out:
	free(c);
	free(buf);
	cv_buf_release(&out);
	return r;
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
		struct cv_stat sb;
		long len;
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
		if (cv_os_stat_at(rootfd, cur.buf, 1, &sb) != 0) {
			v = LINK_NOWHERE;
			break;
		}
		if (sb.kind == CV_KIND_LINK) {
			if (++hops > MAX_LINK_HOPS) {
				v = LINK_NOWHERE;
				break;
			}
			len = cv_os_readlink_at(rootfd, cur.buf, next,
						sizeof next);
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
		if (todo.len > 0 && sb.kind != CV_KIND_DIR) {
			v = LINK_NOWHERE; /* ENOTDIR */
			break;
		}
	}
	cv_buf_release(&cur);
	cv_buf_release(&todo);
	return v;
}

/* The walk of the finished tree: one folder at a time through openat and
 * fdopendir, so no path is resolved twice and nothing lives at file scope.
 * `rel` is the folder's path from the root ("" for the root itself). */
struct tree_walk {
	int rootfd;
	struct cv_buf rel;
	struct cv_err *err;
};

static int walk_folder(struct tree_walk *w, int dirfd);

static int
walk_link(struct tree_walk *w, int dirfd, const char *name)
{
	char target[PATH_MAX], safe[300];
	long n = cv_os_readlink_at(dirfd, name, target, sizeof target);

	if (n < 0)
		return cv_err_errno(w->err, CV_EIO, "cannot read '%s'",
				    w->rel.buf);
	extract_safe_name(w->rel.buf, safe, sizeof safe);
	switch (target[0] == '/'
			? LINK_LEAVES
			: resolve_in_tree(w->rootfd, w->rel.buf, target)) {
	case LINK_LEAVES:
		return cv_err_set(
			w->err, CV_EDATA,
			"unsafe archive: symlink '%s' leaves the archive; the archive was not installed",
			safe);
	case LINK_NOWHERE:
		return cv_err_set(
			w->err, CV_EDATA,
			"unsafe archive: symlink '%s' does not resolve to anything in the archive (dangling, a loop or through a file); the archive was not installed",
			safe);
	default:
		return 0;
	}
}

/* One entry of the folder at `dirfd`; w->rel names it. */
static int
walk_entry(struct tree_walk *w, int dirfd, const char *name)
{
	struct cv_stat sb;
	int fd, r;

	if (cv_os_stat_at(dirfd, name, 1, &sb) != 0)
		return cv_err_errno(w->err, CV_EIO, "cannot inspect '%s'",
				    w->rel.buf);
	if (sb.kind == CV_KIND_LINK)
		return walk_link(w, dirfd, name);
	if (sb.kind == CV_KIND_DIR) {
		fd = cv_os_open_at(
			dirfd, name,
			CV_OPEN_READ | CV_OPEN_DIR | CV_OPEN_NOFOLLOW, 0);
		if (fd < 0)
			return cv_err_errno(w->err, CV_EIO, "cannot open '%s'",
					    w->rel.buf);
		r = walk_folder(w, fd);
		cv_os_close(fd);
		return r;
	}
	if (sb.kind != CV_KIND_FILE)
		return cv_err_set(
			w->err, CV_EDATA,
			"unsafe archive: '%s' is not a file, folder or symlink",
			w->rel.buf);
	/* a regular file, as fstatat just saw: nothing here follows links */
	if (sb.perm != 0644 && cv_os_chmod_at(dirfd, name, 0644, 0) != 0)
		return cv_err_errno(w->err, CV_EIO,
				    "cannot set the mode of '%s'", w->rel.buf);
	return 0;
}

/* The folder open at `dirfd` (listed through a handle of its own), then
 * everything in it, depth first. */
static int
walk_folder(struct tree_walk *w, int dirfd)
{
	struct cv_dir *d;
	const char *e;
	size_t keep = w->rel.len;
	int r = 0;

	if (cv_os_fchmod(dirfd, 0755) != 0)
		return cv_err_errno(w->err, CV_EIO,
				    "cannot set the mode of '%s'",
				    keep ? w->rel.buf : ".");
	if ((d = cv_dir_open_at(dirfd, ".", 0)) == NULL)
		return cv_err_errno(w->err, CV_EIO, "cannot list '%s'",
				    keep ? w->rel.buf : ".");
	while (r == 0 && (errno = 0, e = cv_dir_next(d, NULL)) != NULL) {
		cv_buf_addf(&w->rel, "%s%s", keep ? "/" : "", e);
		r = walk_entry(w, dirfd, e);
		w->rel.len = keep;
		w->rel.buf[keep] = '\0';
	}
	if (r == 0 && e == NULL && errno != 0)
		r = cv_err_errno(w->err, CV_EIO, "cannot list '%s'",
				 keep ? w->rel.buf : ".");
	cv_dir_close(d);
	return r;
}

int
extract_check_tree(const char *dest, struct cv_err *err)
{
	struct tree_walk w = { -1, CV_BUF_INIT, err };
	struct cv_stat sb;
	char *lib = cv_path_join(dest, "lib");
	char *lib64 = cv_path_join(dest, "lib64");
	char *bin = cv_path_join(dest, "bin");
	int r = 0;

	if (cv_os_lstat(lib, &sb) == 0 && sb.kind == CV_KIND_DIR &&
	    cv_os_lstat(lib64, &sb) != 0 && cv_os_lstat(bin, &sb) != 0 &&
	    cv_os_symlink_at("lib", CV_AT_CWD, lib64) != 0)
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot create '%s'", lib64);
	free(lib);
	free(lib64);
	free(bin);
	if (r < 0)
		return r;
	w.rootfd = cv_os_open(dest, CV_OPEN_READ | CV_OPEN_DIR, 0);
	if (w.rootfd < 0)
		return cv_err_errno(err, CV_EIO, "cannot open '%s'", dest);
	r = walk_folder(&w, w.rootfd);
	cv_os_close(w.rootfd);
	cv_buf_release(&w.rel);
	return r;
}

int
extract_enter(const char *dest, struct extract_place *back, struct cv_err *err)
{
	int r;

	back->oldcwd = cv_os_open(".", CV_OPEN_PATH | CV_OPEN_DIR, 0);
	if (back->oldcwd < 0)
		return cv_err_errno(err, CV_EIO,
				    "cannot open the current folder");
	if (cv_os_chdir(dest) != 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot enter '%s'", dest);
		cv_os_close(back->oldcwd);
		return r;
	}
	back->oldmask = cv_os_umask(022);
	return 0;
}

int
extract_leave(struct extract_place *back, int r, struct cv_err *err)
{
	cv_os_umask(back->oldmask);
	if (cv_os_fchdir(back->oldcwd) != 0 && r == 0)
		r = cv_err_errno(err, CV_EIO,
				 "cannot return to the current folder");
	cv_os_close(back->oldcwd);
	return r;
}

void
extract_ctx_init(struct ectx *x, struct peek *raw,
		 const struct cv_extract_limits *limits, struct cv_err *err)
{
	memset(x, 0, sizeof *x);
	x->err = err;
	x->raw = raw;
	x->lim.max_entries = EXTRACT_MAX_ENTRIES;
	x->lim.max_total_bytes = EXTRACT_MAX_TOTAL;
	x->lim.max_path = EXTRACT_MAX_PATH;
	x->lim.max_depth = EXTRACT_MAX_DEPTH;
	if (limits == NULL)
		return;
	if (limits->max_entries)
		x->lim.max_entries = limits->max_entries;
	if (limits->max_total_bytes)
		x->lim.max_total_bytes = limits->max_total_bytes;
	if (limits->max_path)
		x->lim.max_path = limits->max_path;
	if (limits->max_depth)
		x->lim.max_depth = limits->max_depth;
	x->lim.max_ratio = limits->max_ratio;
	x->lim.ratio_floor = limits->ratio_floor;
	x->lim.check_top = limits->check_top;
	x->lim.payload = limits->payload;
	x->lim.threads = limits->threads;
	x->lim.wheel = limits->wheel;
	x->lim.check_dist_info = limits->check_dist_info;
	x->lim.dep_lib_prefix = limits->dep_lib_prefix;
}

void
extract_ctx_release(struct ectx *x)
{
	nameset_free(&x->names);
	memset(&x->names, 0, sizeof x->names);
}

int
extract_thread_error(int rc, struct cv_err *err)
{
	return cv_err_set(err, CV_ERROR,
			  "cannot start a thread: %s; lower [install] threads "
			  "or --jobs",
			  strerror(rc));
}
