/* import.c: adopt a hand-installed cuDNN (files copied into a CUDA
 * toolkit, a wheel's site-packages/nvidia/cudnn, a conda env, an unpacked
 * archive) into the store. Only cuDNN's own files move: the cudnn*.h
 * headers and the libcudnn* libraries with their symlink chains. No NVIDIA
 * checksum vouches for them, so <id>/import.json records where they came
 * from and the sha256 of each file instead; cudnnvm.json's sha256 is the
 * hash of that file list. */
#include "base/base.h"
#include "install/install_int.h"
#include "machine/machine.h"
#include "store/store.h"
#include "validate/validate.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_FILES 256
/* Larger than any cuDNN file (the largest library is under 1 GiB, the
 * largest header under 1 MiB): the folder may belong to someone else, and
 * neither a sparse giant nor /dev/zero is copied into the store. */
#define LIB_MAX    (4ULL << 30)
#define HEADER_MAX (16ULL << 20)

struct found {
	char *src;               /* the imported folder's real path */
	char *libdir, *incdir;   /* absolute, xmalloc'd; incdir may be NULL */
	int srcfd, libfd, incfd; /* those folders, opened once (or -1) */
	char *libs[MAX_FILES];
	size_t nlibs;
	char *headers[MAX_FILES];
	size_t nheaders;
	int major;
	int ver[3]; /* from the header, or the library's file name */
};

static void
found_release(struct found *f)
{
	for (size_t i = 0; i < f->nlibs; i++)
		free(f->libs[i]);
	for (size_t i = 0; i < f->nheaders; i++)
		free(f->headers[i]);
	free(f->libdir);
	free(f->incdir);
	if (f->srcfd >= 0)
		cv_os_close(f->srcfd);
	if (f->libfd >= 0)
		cv_os_close(f->libfd);
	if (f->incfd >= 0)
		cv_os_close(f->incfd);
}

/* The real path of p (xmalloc'd), or NULL with errno. */
static char *
real_path(const char *p)
{
	char buf[PATH_MAX];

	return cv_os_realpath(p, buf, sizeof buf) != NULL ? xstrdup(buf) : NULL;
}

/* A second handle on the folder open at fd: its "." opened anew, which
 * is the same folder whatever its path now names. */
static int
reopen_dir(int fd)
{
	return cv_os_open_at(fd, ".", CV_OPEN_READ | CV_OPEN_DIR, 0);
}

/* The folder `real` (a real path) opened from the imported folder's
 * descriptor one name at a time without following a link, so that it
 * lies inside the imported folder even if someone who can write there
 * swaps a folder for a link meanwhile. Libraries and headers are then
 * opened only through it. */
static int
open_inside(const struct found *f, const char *real, const char *shown,
	    int *out, struct cv_err *err)
{
	size_t n = strlen(f->src);
	char *rel, *save = NULL;
	int fd;

	*out = -1;
	if (strncmp(real, f->src, n) != 0 ||
	    (real[n] != '\0' && real[n] != '/' && strcmp(f->src, "/") != 0))
		return cv_err_set(
			err, CV_EDATA,
			"'%s' leads out of the folder (to %s); import a folder whose cuDNN files are all inside it",
			shown, real);
	if ((fd = reopen_dir(f->srcfd)) < 0)
		return cv_err_errno(err, CV_EIO, "cannot open '%s'", shown);
	rel = xstrdup(real + n);
	for (char *c = strtok_r(rel, "/", &save); c != NULL && fd >= 0;
	     c = strtok_r(NULL, "/", &save)) {
		int next = cv_os_open_at(
			fd, c, CV_OPEN_READ | CV_OPEN_DIR | CV_OPEN_NOFOLLOW,
			0);
		cv_os_close(fd);
		fd = next;
	}
	free(rel);
	if (fd < 0)
		return cv_err_errno(err, CV_EDATA,
				    "'%s' changed while it was being imported",
				    shown);
	*out = fd;
	return 0;
}

/* One rule for every file import reads, library or header: the entry
 * `name` of the folder `dir` is a regular file, or a chain of links that
 * ends on one in the same folder, no larger than `cap`. *base (may be
 * NULL) gets the name of the file the chain ends on. Nothing is opened
 * here: a FIFO or a device is refused before anything could block on it. */
static int
check_entry(const char *dir, const char *name, uint64_t cap, char **base,
	    struct cv_err *err)
{
	char *p = cv_path_join(dir, name), *real = NULL, *slash;
	struct cv_stat sb;
	int r = 0;

	if (cv_os_lstat(p, &sb) != 0) {
		r = cv_err_errno(err, CV_EDATA, "cannot read '%s'", p);
		goto out;
	}
	if (sb.kind == CV_KIND_LINK) {
		if ((real = real_path(p)) == NULL ||
		    cv_os_lstat(real, &sb) != 0) {
			char target[PATH_MAX];
			if (cv_os_readlink(p, target, sizeof target) < 0)
				snprintf(target, sizeof target, "?");
			r = cv_err_set(
				err, CV_EDATA,
				"'%s' is a broken symlink chain (-> %s); repair or remove it, then import again",
				p, target);
			goto out;
		}
		slash = strrchr(real, '/');
		*slash = '\0';
		if (strcmp(real, dir) != 0) {
			*slash = '/';
			r = cv_err_set(
				err, CV_EDATA,
				"'%s' leads out of its folder (to %s); import a folder whose cuDNN files are all inside it",
				p, real);
			goto out;
		}
		name = slash + 1;
	}
	if (sb.kind != CV_KIND_FILE)
		r = cv_err_set(
			err, CV_EDATA,
			"'%s' is not a regular file (a FIFO, a device or a folder); import a folder whose cuDNN files are plain files",
			p);
	else if (sb.size > cap)
		r = cv_err_set(
			err, CV_EDATA,
			"'%s' is larger than %llu MiB, more than any cuDNN file; import a folder holding only cuDNN's own files",
			p, (unsigned long long)(cap >> 20));
	else if (base != NULL)
		*base = xstrdup(name);
out:
	free(real);
	free(p);
	return r;
}

/* Open `base` (checked by check_entry) in the folder `dirfd` for reading:
 * no link followed, no blocking open, a regular file within `cap`, so a
 * file swapped meanwhile is refused rather than read. */
static int
open_checked(int dirfd, const char *base, uint64_t cap, const char *shown,
	     struct cv_err *err)
{
	int fd = cv_os_open_at(dirfd, base,
			       CV_OPEN_READ | CV_OPEN_NOFOLLOW |
				       CV_OPEN_NONBLOCK | CV_OPEN_NOCTTY,
			       0);
	struct cv_stat sb;

	if (fd < 0)
		return cv_err_errno(err, CV_EDATA, "cannot read '%s'", shown);
	if (cv_os_fstat(fd, &sb) != 0 || sb.kind != CV_KIND_FILE ||
	    sb.size > cap) {
		cv_os_close(fd);
		return cv_err_set(
			err, CV_EDATA,
			"'%s' changed while it was being imported (no longer a regular file of at most %llu MiB)",
			shown, (unsigned long long)(cap >> 20));
	}
	return fd;
}

static int
is_dir(const char *p)
{
	struct cv_stat sb;
	return cv_os_stat(p, &sb) == 0 && sb.kind == CV_KIND_DIR;
}

/* The decimal number at s (at most 5 digits), -1 when there is none;
 * *end (may be NULL) gets where it stops. */
static int
small_num(const char *s, const char **end)
{
	char *e;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtol(s, &e, 10);
	if (end != NULL)
		*end = e;
	return v > 99999 ? -1 : (int)v;
}

/* "libcudnn_ops.so.9.1.0" -> 9; "libcudnn.so" -> 0 (no major). */
static int
lib_major(const char *name)
{
	const char *so = strstr(name, ".so.");
	int m = so != NULL ? small_num(so + 4, NULL) : 0;
	return m > 0 ? m : 0;
}

/* "libcudnn.so.9.13.0" -> 9, 13, 0; 0 on success, -1 otherwise. */
static int
lib_version(const char *base, int v[3])
{
	const char *p = base + strlen("libcudnn.so.");

	if (strncmp(base, "libcudnn.so.", 12) != 0)
		return -1;
	for (int i = 0; i < 3; i++) {
		if ((v[i] = small_num(p, &p)) < 0)
			return -1;
		if (i < 2 && *p++ != '.')
			return -1;
	}
	return *p == '\0' ? 0 : -1;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The libcudnn* entries of `dir`, their majors, and check_entry's rule
 * for each. */
static int
scan_libs(struct found *f, const char *dir, struct cv_err *err)
{
	struct cv_dir *d = cv_dir_open(dir);
	const char *name;
	int majors[2] = { 0, 0 }, r = 0;

	if (d == NULL)
		return 0;
	while ((name = cv_dir_next(d, NULL)) != NULL && r == 0) {
		int m;

		if (strncmp(name, "libcudnn", 8) != 0 ||
		    strstr(name, ".so") == NULL)
			continue;
		if (f->nlibs == MAX_FILES) {
			r = cv_err_set(
				err, CV_EDATA,
				"'%s' holds more than %d cuDNN libraries", dir,
				MAX_FILES);
			break;
		}
		if ((r = check_entry(dir, name, LIB_MAX, NULL, err)) < 0)
			break;
		if ((m = lib_major(name)) > 0) {
			if (majors[0] == 0 || majors[0] == m)
				majors[0] = m;
			else
				majors[1] = m;
		}
		f->libs[f->nlibs++] = xstrdup(name);
	}
	cv_dir_close(d);
	if (r == 0 && majors[1] != 0)
		r = cv_err_set(
			err, CV_EDATA,
			"'%s' holds two cuDNN majors (%d and %d); copy one of them to a folder of its own and import that",
			dir, majors[0] < majors[1] ? majors[0] : majors[1],
			majors[0] < majors[1] ? majors[1] : majors[0]);
	f->major = majors[0];
	qsort(f->libs, f->nlibs, sizeof f->libs[0], cmp_str);
	return r;
}

/* The number a `#define name N` line of `text` gives, or -1. */
static int
header_define(const char *text, const char *name)
{
	size_t nl = strlen(name);

	for (const char *line = text; line != NULL && *line;
	     line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *p = line + strspn(line, " \t");
		if (strncmp(p, "#define", 7) != 0)
			continue;
		p += 7;
		p += strspn(p, " \t");
		if (strncmp(p, name, nl) == 0 &&
		    (p[nl] == ' ' || p[nl] == '\t')) {
			p += nl;
			p += strspn(p, " \t");
			return small_num(p, NULL);
		}
	}
	return -1;
}

/* The cudnn*.h entries of the include folder, each under check_entry's
 * rule. */
static int
scan_headers(struct found *f, struct cv_err *err)
{
	struct cv_dir *d;
	const char *name;
	int r = 0;

	if (f->incdir == NULL || (d = cv_dir_open(f->incdir)) == NULL)
		return 0;
	while ((name = cv_dir_next(d, NULL)) != NULL &&
	       f->nheaders < MAX_FILES) {
		size_t n = strlen(name);
		if (strncmp(name, "cudnn", 5) != 0 || n < 3 ||
		    strcmp(name + n - 2, ".h") != 0)
			continue;
		if ((r = check_entry(f->incdir, name, HEADER_MAX, NULL, err)) <
		    0)
			break;
		f->headers[f->nheaders++] = xstrdup(name);
	}
	cv_dir_close(d);
	qsort(f->headers, f->nheaders, sizeof f->headers[0], cmp_str);
	return r;
}

/* The first 256 KiB of header `name` when it is one of those found (the
 * version defines sit near the top); NULL when it is not, or unreadable. */
static char *
header_head(const struct found *f, const char *name)
{
	size_t cap = 256 * 1024;
	char *buf = NULL, *base = NULL;
	int known = 0;

	for (size_t i = 0; i < f->nheaders && !known; i++)
		known = strcmp(f->headers[i], name) == 0;
	if (known &&
	    check_entry(f->incdir, name, HEADER_MAX, &base, NULL) == 0 &&
	    base != NULL) {
		buf = xmalloc(cap);
		if (cv_fs_read_head(f->incfd, base, 1, buf, cap) < 0) {
			free(buf);
			buf = NULL;
		}
	}
	free(base);
	return buf;
}

/* The version: cudnn_version.h (8 on) or cudnn.h (7), else the real file
 * name of libcudnn.so.N (libcudnn.so.9.13.0). */
static int
read_version(struct found *f, struct cv_err *err)
{
	static const char *const names[] = { "cudnn_version.h", "cudnn.h",
					     NULL };
	int lib[3] = { -1, -1, -1 };
	char *so = xasprintf("%s/libcudnn.so.%d", f->libdir, f->major);
	char *real = real_path(so);

	if (real != NULL) {
		const char *b = strrchr(real, '/') + 1;
		if (lib_version(b, lib) < 0)
			lib[0] = -1;
	}
	free(real);
	free(so);
	f->ver[0] = -1;
	for (int i = 0; names[i] && f->incdir && f->ver[0] < 0; i++) {
		char *h = header_head(f, names[i]);
		if (h == NULL)
			continue;
		f->ver[0] = header_define(h, "CUDNN_MAJOR");
		f->ver[1] = header_define(h, "CUDNN_MINOR");
		f->ver[2] = header_define(h, "CUDNN_PATCHLEVEL");
		if (f->ver[1] < 0 || f->ver[2] < 0)
			f->ver[0] = -1;
		free(h);
	}
	if (f->ver[0] >= 0 && lib[0] >= 0 &&
	    (f->ver[0] != lib[0] || f->ver[1] != lib[1] || f->ver[2] != lib[2]))
		return cv_err_set(
			err, CV_EDATA,
			"the headers say cuDNN %d.%d.%d but the library is %d.%d.%d; the folder mixes two installs",
			f->ver[0], f->ver[1], f->ver[2], lib[0], lib[1],
			lib[2]);
	if (f->ver[0] < 0)
		memcpy(f->ver, lib, sizeof lib);
	if (f->ver[0] < 0)
		return cv_err_set(
			err, CV_EDATA,
			"cannot tell the cuDNN version in '%s' (no cudnn_version.h, no versioned libcudnn.so.%d.x.y); pass --version",
			f->libdir, f->major);
	if (f->ver[0] != f->major)
		return cv_err_set(
			err, CV_EDATA,
			"the headers say cuDNN %d but the libraries are libcudnn*.so.%d; the folder mixes two installs",
			f->ver[0], f->major);
	return 0;
}

/* Where the libraries and headers are: <dir>/lib, lib64, lib/x64 or dir
 * itself; headers in <dir>/include or beside the libraries. */
static int
locate(struct found *f, const char *dir, struct cv_err *err)
{
	static const char *const libs[] = { "lib", "lib64", "", NULL };
	int r;

	for (int i = 0; libs[i]; i++) {
		char *l = *libs[i] ? cv_path_join(dir, libs[i]) : xstrdup(dir);
		char *real = is_dir(l) ? real_path(l) : NULL;
		free(l);
		if (real == NULL)
			continue;
		free(f->libdir);
		f->libdir = real;
		if ((r = scan_libs(f, real, err)) < 0)
			return r;
		if (f->nlibs > 0 && f->major > 0)
			break;
		for (size_t k = 0; k < f->nlibs; k++)
			free(f->libs[k]);
		f->nlibs = 0;
	}
	if (f->nlibs == 0 || f->major == 0)
		return cv_err_set(
			err, CV_ENOTFOUND,
			"no cuDNN in '%s' (no libcudnn.so.N in it, lib/ or lib64/); point at the folder that holds lib/libcudnn.so.N",
			dir);
	if ((r = open_inside(f, f->libdir, f->libdir, &f->libfd, err)) < 0)
		return r;
	{
		char *inc = cv_path_join(dir, "include");
		if (is_dir(inc)) {
			f->incdir = real_path(inc);
			r = f->incdir == NULL
				    ? cv_err_errno(err, CV_EDATA,
						   "cannot open '%s'", inc)
				    : open_inside(f, f->incdir, inc, &f->incfd,
						  err);
		} else {
			f->incdir = xstrdup(f->libdir);
			if ((f->incfd = reopen_dir(f->libfd)) < 0)
				r = cv_err_errno(err, CV_EIO,
						 "cannot open '%s'", f->libdir);
		}
		free(inc);
	}
	if (r < 0 || (r = scan_headers(f, err)) < 0)
		return r;
	return read_version(f, err);
}

/* CUDA major: what a toolkit folder states in its files (the folder or
 * the one above its lib/), the wheel's distribution name
 * (nvidia_cudnn_cu12-*.dist-info beside site-packages/nvidia), and, when
 * nothing says it, the library itself (cudnnGetCudartVersion, asked in the
 * probe child). *how names the source. */
static int
detect_cuda(const char *dir, const struct found *f, const char *probe_exe,
	    char *how, size_t n)
{
	char detail[PATH_MAX];
	int cuda = 0, minor;
	long cudnn = 0, cudart = 0;

	if (cv_machine_toolkit_files(dir, &cuda, &minor, detail,
				     sizeof detail)) {
		snprintf(how, n, "%s", detail);
		return cuda;
	}
	{
		char *sp = cv_path_join(dir, "../..");
		struct cv_dir *d = cv_dir_open(sp);
		const char *name;
		free(sp);
		while (d != NULL && (name = cv_dir_next(d, NULL)) != NULL &&
		       cuda == 0)
			if (strncmp(name, "nvidia_cudnn_cu", 15) == 0)
				if ((cuda = small_num(name + 15, NULL)) < 0)
					cuda = 0;
		if (d != NULL)
			cv_dir_close(d);
		if (cuda > 0) {
			snprintf(how, n, "the wheel's name");
			return cuda;
		}
	}
	if (cv_validate_identity(f->libdir, f->major, probe_exe, &cudnn,
				 &cudart, NULL) == 0 &&
	    cudart >= 1000) {
		snprintf(how, n, "cudnnGetCudartVersion() = %ld", cudart);
		return (int)(cudart / 1000);
	}
	return 0;
}

/* The build number a wheel's nvidia_cudnn_cuN-A.B.C.D.dist-info beside
 * site-packages/nvidia states for the release in f (A.B.C as found): the
 * same build installed from NVIDIA would otherwise be a second copy under
 * another id. 0 when none says it. */
static unsigned long
dist_info_build(const char *dir, const struct found *f)
{
	char *sp = cv_path_join(dir, "../..");
	struct cv_dir *d = cv_dir_open(sp);
	const char *name;
	unsigned long build = 0;

	free(sp);
	while (d != NULL && (name = cv_dir_next(d, NULL)) != NULL &&
	       build == 0) {
		const char *dash = strchr(name, '-');
		size_t len = strlen(name);
		char text[64];
		struct cv_version v;

		if (strncmp(name, "nvidia_cudnn_cu", 15) != 0 || dash == NULL ||
		    len < 10 || strcmp(name + len - 10, ".dist-info") != 0 ||
		    (size_t)(name + len - 10 - dash - 1) >= sizeof text)
			continue;
		snprintf(text, sizeof text, "%.*s",
			 (int)(name + len - 10 - dash - 1), dash + 1);
		if (cv_version_parse(&v, text, NULL) == 0 && v.nparts == 4 &&
		    v.part[0] == (unsigned long)f->ver[0] &&
		    v.part[1] == (unsigned long)f->ver[1] &&
		    v.part[2] == (unsigned long)f->ver[2])
			build = v.part[3];
	}
	if (d != NULL)
		cv_dir_close(d);
	return build;
}

/* Copy `base` of the folder `dirfd` (checked by check_entry; `shown`
 * names it) to dst, a new file of mode 0644 whatever the umask, hashing
 * the bytes on the way; at most `cap` bytes, however the file grows. */
static int
copy_hash(int dirfd, const char *base, const char *shown, uint64_t cap,
	  const char *dst, char hex[65], uint64_t *size, struct cv_err *err)
{
	int in = open_checked(dirfd, base, cap, shown, err);
	int out = -1, r = 0;
	uint64_t got = 0;
	struct cv_sha256 *h;
	char *buf;
	ssize_t n;

	if (in < 0)
		return in;
	out = cv_os_open(dst,
			 CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL |
				 CV_OPEN_NOFOLLOW,
			 0644);
	if (out < 0 || cv_os_fchmod(out, 0644) != 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot write '%s'", dst);
		cv_os_close(in);
		if (out >= 0)
			cv_os_close(out);
		return r;
	}
	h = cv_sha256_new();
	buf = xmalloc(1 << 20);
	while ((n = cv_os_read(in, buf, 1 << 20)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = cv_err_errno(err, CV_EIO, "cannot read '%s'",
					 shown);
			break;
		}
		if ((got += (uint64_t)n) > cap) {
			r = cv_err_set(
				err, CV_EDATA,
				"'%s' grew past %llu MiB while it was being imported",
				shown, (unsigned long long)(cap >> 20));
			break;
		}
		cv_sha256_update(h, buf, (size_t)n);
		*size += (uint64_t)n;
		for (ssize_t off = 0; off < n;) {
			long w = cv_os_write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				r = cv_err_errno(err, cv_code_from_errno(errno),
						 "cannot write '%s'", dst);
				break;
			}
			off += w;
		}
		if (r < 0)
			break;
	}
	cv_sha256_final(h, hex);
	cv_sha256_free(h);
	free(buf);
	cv_os_close(in);
	if (cv_os_close(out) != 0 && r == 0)
		r = cv_err_errno(err, CV_EIO, "cannot write '%s'", dst);
	return r;
}

/* mkdir `path` 0755 whatever the umask, like every folder of the store. */
static int
mkdir_store(const char *path, struct cv_err *err)
{
	if (cv_os_mkdir(path, 0755) != 0 ||
	    cv_os_chmod_at(CV_AT_CWD, path, 0755, 0) != 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot create '%s'", path);
	return 0;
}

/* Copy the found files into stage/{lib,include}, filling `files`
 * (path -> sha256) and the total size. */
static int
copy_files(const struct found *f, const char *stage, struct cv_json *files,
	   uint64_t *total, struct cv_err *err)
{
	char *lib = cv_path_join(stage, "lib");
	char *inc = cv_path_join(stage, "include");
	int r = 0;

	if ((r = mkdir_store(lib, err)) < 0 || (r = mkdir_store(inc, err)) < 0)
		goto out;
	for (size_t i = 0; i < f->nlibs && r == 0; i++) {
		char *src = cv_path_join(f->libdir, f->libs[i]);
		char *dst = cv_path_join(lib, f->libs[i]);
		char target[PATH_MAX], hex[65], *key;
		struct cv_stat sb;

		if (cv_os_lstat(src, &sb) == 0 && sb.kind == CV_KIND_LINK) {
			/* keep the chain, but only as links inside lib/ */
			if (cv_os_readlink(src, target, sizeof target) < 0) {
				r = cv_err_errno(err, CV_EIO,
						 "cannot read '%s'", src);
			} else {
				const char *base;
				base = strrchr(target, '/');
				base = base ? base + 1 : target;
				if (cv_os_symlink_at(base, CV_AT_CWD, dst) != 0)
					r = cv_err_errno(
						err, cv_code_from_errno(errno),
						"cannot create '%s'", dst);
			}
		} else {
			r = copy_hash(f->libfd, f->libs[i], src, LIB_MAX, dst,
				      hex, total, err);
			key = xasprintf("lib/%s", f->libs[i]);
			if (r == 0)
				cv_json_object_set_new(files, key,
						       cv_json_string(hex));
			free(key);
		}
		free(src);
		free(dst);
	}
	for (size_t i = 0; i < f->nheaders && r == 0; i++) {
		char *src = cv_path_join(f->incdir, f->headers[i]);
		char *dst = cv_path_join(inc, f->headers[i]);
		char hex[65], *key = xasprintf("include/%s", f->headers[i]);
		char *base = NULL;
		r = check_entry(f->incdir, f->headers[i], HEADER_MAX, &base,
				err);
		/* check_entry names the file whenever it passes one */
		if (r == 0 && base == NULL)
			r = cv_err_set(err, CV_ERROR, "cannot read '%s'", src);
		if (r == 0 && base != NULL)
			r = copy_hash(f->incfd, base, src, HEADER_MAX, dst, hex,
				      total, err);
		if (r == 0 && base != NULL)
			cv_json_object_set_new(files, key, cv_json_string(hex));
		free(base);
		free(key);
		free(src);
		free(dst);
	}
	if (r == 0) {
		char *lib64 = cv_path_join(stage, "lib64");
		if (cv_os_symlink_at("lib", CV_AT_CWD, lib64) != 0)
			r = cv_err_errno(err, cv_code_from_errno(errno),
					 "cannot create '%s'", lib64);
		free(lib64);
	}
out:
	free(lib);
	free(inc);
	return r;
}

static int
write_json(const char *path, struct cv_json *o, struct cv_err *err)
{
	char *text = cv_json_dumps(o, CV_JSON_INDENT(2) | CV_JSON_SORT_KEYS);
	int r;

	if (text == NULL)
		return cv_err_set(err, CV_ERROR, "cannot encode '%s'", path);
	r = cv_fs_write_atomic(path, text, strlen(text), 0644, err);
	free(text);
	return r;
}

int
cv_import(struct cv_store *st, const char *dir, const struct cv_import_opts *o,
	  char id[64], struct cv_err *err)
{
	struct found f;
	struct cv_installed inst;
	struct cv_version given = { 0 };
	struct cv_json *files = cv_json_object(), *rec = NULL;
	struct cv_store_txn *txn = NULL;
	const char *stagepath;
	char *src = NULL, *text = NULL, *path, how[PATH_MAX + 64] = "--cuda";
	int r;
	uint64_t total = 0;

	memset(&f, 0, sizeof f);
	f.srcfd = f.libfd = f.incfd = -1;
	memset(&inst, 0, sizeof inst);
	if (!cv_store_writable(st)) {
		r = cv_err_set(err, CV_ESTORE,
			       "the store is not open for writing");
		goto out;
	}
	if ((src = real_path(dir)) == NULL ||
	    (f.srcfd = cv_os_open(src, CV_OPEN_READ | CV_OPEN_DIR, 0)) < 0) {
		r = cv_err_errno(err, CV_ENOTFOUND,
				 "cannot open the folder '%s'", dir);
		goto out;
	}
	f.src = src;
	if ((r = locate(&f, src, err)) < 0)
		goto out;
	inst.version.nparts = 4;
	inst.version.part[0] = (unsigned long)f.ver[0];
	inst.version.part[1] = (unsigned long)f.ver[1];
	inst.version.part[2] = (unsigned long)f.ver[2];
	inst.version.part[3] = dist_info_build(src, &f);
	if (o->version != NULL) {
		if ((r = cv_version_parse(&given, o->version, err)) < 0)
			goto out;
		for (int i = 0; i < given.nparts && i < 3; i++)
			if (given.part[i] != inst.version.part[i]) {
				r = cv_err_set(
					err, CV_EUSAGE,
					"--version %s does not match the files in '%s' (cuDNN %d.%d.%d)",
					o->version, src, f.ver[0], f.ver[1],
					f.ver[2]);
				goto out;
			}
		if (given.nparts == 4)
			inst.version.part[3] = given.part[3];
	}
	inst.version.cuda = o->cuda > 0 ? o->cuda
					: detect_cuda(src, &f, o->probe_exe,
						      how, sizeof how);
	if (inst.version.cuda <= 0) {
		r = cv_err_set(
			err, CV_EUSAGE,
			"cannot tell which CUDA major the cuDNN in '%s' was built for: no toolkit file says it and the library does not load; pass --cuda N",
			src);
		goto out;
	}
	cv_version_format_id(&inst.version, inst.id, sizeof inst.id);
	memcpy(id, inst.id, sizeof inst.id);
	if (cv_platform_detect(inst.platform, NULL) < 0)
		snprintf(inst.platform, sizeof inst.platform, "linux-x86_64");
	snprintf(inst.source, sizeof inst.source, "import:%s", src);

	if ((r = cv_store_txn_begin(st, CV_STORE_TXN_VERSION, inst.id, 0, NULL,
				    &txn, err)) < 0)
		goto out;
	if (cv_store_has(st, inst.id)) {
		r = cv_err_set(
			err, CV_ERROR,
			"cuDNN %s is already installed; uninstall it first to import this copy",
			inst.id);
		goto out;
	}
	if ((r = cv_store_txn_stage(txn, 0, err)) < 0)
		goto out;
	stagepath = cv_store_txn_path(txn);
	if ((r = copy_files(&f, stagepath, files, &total, err)) < 0)
		goto out;
	/* the metadata's sha256 covers the file list and its hashes */
	text = cv_json_dumps(files, CV_JSON_SORT_KEYS | CV_JSON_COMPACT);
	{
		struct cv_sha256 *h = cv_sha256_new();
		cv_sha256_update(h, text, strlen(text));
		cv_sha256_final(h, inst.sha256);
		cv_sha256_free(h);
	}
	inst.size = total;
	{
		time_t t = time(NULL);
		struct tm tm;
#ifdef _WIN32
		gmtime_s(&tm, &t); /* the C runtime's gmtime_r */
#else
		gmtime_r(&t, &tm);
#endif
		strftime(inst.installed_at, sizeof inst.installed_at,
			 "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	rec = cv_json_pack(
		"{s:s, s:s, s:b, s:s, s:O}", "imported_from", src, "cuda_from",
		how, "nvidia_checksum", 0, "note",
		"adopted from a hand install: no NVIDIA checksum vouches for these files; files lists their sha256 at import time",
		"files", files);
	path = cv_path_join(stagepath, "import.json");
	r = write_json(path, rec, err);
	free(path);
	if (r == 0) {
		const struct cv_store_record one = { &inst, NULL };
		r = cv_store_txn_commit(txn, &one, err);
	}
out:
	cv_store_txn_abort(txn);
	if (r < 0 && err && src != NULL)
		cv_err_prefix(err, "import %s: ", src);
	cv_json_decref(files);
	cv_json_decref(rec);
	free(text);
	free(src);
	found_release(&f);
	return r;
}
