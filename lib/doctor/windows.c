/* windows.c: doctor's findings about the seed's hand install on Windows:
 * cuDNN's bin/, include/ and lib/ copied into the CUDA toolkit's folder
 * (%CUDA_PATH%), whose bin is on the system PATH and so shadows any copy
 * the store activates; PATH entries that hold an older cudnn64_<major>.dll
 * ahead of the store's; zlibwapi.dll missing for 8.3-9.1. And the answer
 * of `where cudnn64_8.dll`: each PATH folder holding the name, in order.
 * Only base's face is used and the PATH separator is Windows's ';' on
 * every system, so the same findings are unit-tested on Linux and checked
 * under wine. Fixes are cmd commands that work as printed. */
#include "base/base.h"
#include "doctor/doctor_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define SEP "\\"
#else
#define SEP "/"
#endif

static char *
join(const char *a, const char *b)
{
	size_t n = strlen(a);

	while (n > 1 && (a[n - 1] == '\\' || a[n - 1] == '/'))
		n--;
	return xasprintf("%.*s" SEP "%s", (int)n, a, b);
}

/* a path's byte as Windows compares it: ASCII case folded, '/' as '\' */
static int
fold(char c)
{
	if (c == '/')
		return '\\';
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : (unsigned char)c;
}

static int
ci_eq(const char *a, const char *b, size_t n)
{
	for (; n > 0; a++, b++, n--) {
		if (fold(*a) != fold(*b))
			return 0;
		if (*a == '\0')
			return 1;
	}
	return 1;
}

/* the same folder, a trailing separator ignored */
static int
same_dir(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);

	while (na > 1 && (a[na - 1] == '\\' || a[na - 1] == '/'))
		na--;
	while (nb > 1 && (b[nb - 1] == '\\' || b[nb - 1] == '/'))
		nb--;
	return na == nb && ci_eq(a, b, na);
}

int
cv_doctor_where(const char *path_list, const char *name, struct cv_strv *out)
{
	const char *p = path_list != NULL ? path_list : "", *end;
	size_t before = out->n;

	for (; *p; p = *end ? end + 1 : end) {
		char *dir, *file;
		size_t n;

		end = strchr(p, ';');
		if (end == NULL)
			end = p + strlen(p);
		n = (size_t)(end - p);
		/* cmd takes "C:\a;b" quoted entries whole */
		if (n >= 2 && p[0] == '"' && p[n - 1] == '"')
			dir = xasprintf("%.*s", (int)n - 2, p + 1);
		else
			dir = xasprintf("%.*s", (int)n, p);
		file = *dir ? join(dir, name) : NULL;
		if (file != NULL && cv_os_access(file, CV_ACCESS_EXISTS) == 0)
			cv_strv_push(out, file);
		free(file);
		free(dir);
	}
	return (int)(out->n - before);
}

/* "8.9.6" from <bin>/../include/cudnn_version.h (the seed copies it
 * beside bin), or "" */
static void
version_beside(const char *bin, char *out, size_t n)
{
	char *up = join(bin, ".."), *inc = join(up, "include"),
	     *h = join(inc, "cudnn_version.h"), buf[8192], *l;
	int fd = cv_os_open(h, CV_OPEN_READ, 0), v[3] = { -1, -1, -1 };
	long got = fd >= 0 ? cv_os_read_full(fd, buf, sizeof buf - 1) : -1;
	static const char *const keys[] = { "CUDNN_MAJOR", "CUDNN_MINOR",
					    "CUDNN_PATCHLEVEL" };
	size_t k;

	if (fd >= 0)
		cv_os_close(fd);
	free(up);
	free(inc);
	free(h);
	out[0] = '\0';
	if (got <= 0)
		return;
	buf[got] = '\0';
	for (k = 0; k < 3; k++) {
		l = strstr(buf, keys[k]);
		if (l != NULL)
			v[k] = (int)strtol(l + strlen(keys[k]), NULL, 10);
	}
	if (v[0] >= 0 && v[1] >= 0 && v[2] >= 0)
		snprintf(out, n, "%d.%d.%d", v[0], v[1], v[2]);
}

/* cudnn*64_<digit>.dll */
static int
is_cudnn_dll(const char *e, int *major)
{
	size_t n = strlen(e);

	if (n < 13 || !ci_eq(e, "cudnn", 5) || !ci_eq(e + n - 4, ".dll", 4) ||
	    !ci_eq(e + n - 8, "64_", 3) || e[n - 5] < '0' || e[n - 5] > '9')
		return 0;
	*major = e[n - 5] - '0';
	return 1;
}

/* takes the three strings */
static void
add(struct cv_finding **f, size_t *n, int level, char *what, char *why,
    char *fix)
{
	*f = xrealloc(*f, (*n + 1) * sizeof **f);
	(*f)[*n].level = level;
	(*f)[*n].what = what;
	(*f)[*n].why = why;
	(*f)[*n].fix = fix;
	(*n)++;
}

/* The copies in %CUDA_PATH%: one finding per major, with a del of every
 * cuDNN file the seed's copy step put there. */
static void
check_cuda_path(const struct cv_doctor_win *w, struct cv_finding **f, size_t *n)
{
	char *bin = join(w->cuda_path, "bin");
	struct cv_dir *d = cv_dir_open(bin);
	int counts[10] = { 0 }, m, major;
	const char *e;
	char first[10][64];

	while (d != NULL && (e = cv_dir_next(d, NULL)) != NULL)
		if (is_cudnn_dll(e, &major) && counts[major]++ == 0)
			snprintf(first[major], sizeof first[major], "%s", e);
	cv_dir_close(d);
	for (m = 0; m < 10; m++) {
		char ver[32], *inc, *lib, *fix, *incs, *libs;
		struct cv_strv hdr = CV_STRV_INIT;

		if (counts[m] == 0)
			continue;
		version_beside(bin, ver, sizeof ver);
		inc = join(w->cuda_path, "include");
		lib = join(w->cuda_path, "lib" SEP "x64");
		incs = join(inc, "cudnn*.h");
		libs = join(lib, "cudnn*.lib");
		/* only the kinds that are there: del says "Could Not Find"
		 * of the others */
		cv_doctor_where(inc, "cudnn.h", &hdr);
		fix = xasprintf("del \"%s" SEP "cudnn*64_%d.dll\"%s%s%s", bin,
				m, hdr.n ? " \"" : "", hdr.n ? incs : "",
				hdr.n ? "\"" : "");
		cv_strv_release(&hdr);
		cv_doctor_where(lib, "cudnn.lib", &hdr);
		if (hdr.n) {
			char *more = xasprintf("%s \"%s\"", fix, libs);
			free(fix);
			fix = more;
		}
		cv_strv_release(&hdr);
		add(f, n, CV_LEVEL_ERROR,
		    xasprintf("cuDNN %s%scopied into %s: %s%s", ver,
			      *ver ? " " : "", bin, first[m],
			      counts[m] > 1 ? " and more" : ""),
		    xasprintf("the CUDA toolkit's bin is on the system PATH, "
			      "so a program loading cudnn64_%d.dll by name "
			      "gets this copy, not the version cudnnvm "
			      "activates",
			      m),
		    fix);
		free(inc);
		free(lib);
		free(incs);
		free(libs);
	}
	free(bin);
}

/* The first PATH folder holding cudnn64_<major>.dll, when it is not the
 * store's */
static void
check_path_order(const struct cv_doctor_win *w, struct cv_finding **f,
		 size_t *n)
{
	struct cv_strv hits = CV_STRV_INIT;
	char name[32], ver[32], *dir, *slash;

	snprintf(name, sizeof name, "cudnn64_%d.dll", w->major);
	if (cv_doctor_where(w->path, name, &hits) == 0) {
		cv_strv_release(&hits);
		return;
	}
	dir = xstrdup(hits.v[0]);
	slash = strrchr(dir, SEP[0]);
	if (slash != NULL)
		*slash = '\0';
	if (!same_dir(dir, w->store_bin)) {
		version_beside(dir, ver, sizeof ver);
		add(f, n, CV_LEVEL_ERROR,
		    xasprintf("PATH finds %s first in %s%s%s%s, not in %s",
			      name, dir, *ver ? " (cuDNN " : "", ver,
			      *ver ? ")" : "", w->store_bin),
		    xasprintf("where %s answers %s; programs load that copy",
			      name, hits.v[0]),
		    xasprintf("set \"PATH=%s;%%PATH%%\"", w->store_bin));
	}
	free(dir);
	cv_strv_release(&hits);
}

static void
check_zlibwapi(const struct cv_doctor_win *w, struct cv_finding **f, size_t *n)
{
	char *z = join(w->store_bin, "zlibwapi.dll");
	struct cv_strv hits = CV_STRV_INIT;

	if (cv_os_access(z, CV_ACCESS_EXISTS) != 0) {
		int elsewhere = cv_doctor_where(w->path, "zlibwapi.dll", &hits);

		add(f, n, CV_LEVEL_ERROR,
		    xasprintf("zlibwapi.dll is missing from %s", w->store_bin),
		    xstrdup("cuDNN 8.3 to 9.1 load zlibwapi.dll (zlib built "
			    "with the WinAPI calling convention, x64), which "
			    "NVIDIA's archive does not hold"),
		    elsewhere ? xasprintf("copy \"%s\" \"%s\"", hits.v[0],
					  w->store_bin)
			      : xstrdup(""));
	}
	cv_strv_release(&hits);
	free(z);
}

size_t
cv_doctor_win_check(const struct cv_doctor_win *w, struct cv_finding **out)
{
	size_t n = 0;

	*out = NULL;
	if (w->cuda_path != NULL && *w->cuda_path)
		check_cuda_path(w, out, &n);
	if (w->store_bin != NULL && w->major > 0) {
		check_path_order(w, out, &n);
		if (w->needs_zlibwapi)
			check_zlibwapi(w, out, &n);
	}
	return n;
}
