/* ldcache.c: the loader's cache as `ldconfig -p` prints it, and the one
 * answer to "where would the loader find this soname": what --deps auto
 * records as found on the machine and what validation hands its child are
 * the same file, one the loader itself would load. */
#include "base/base.h"
#include "machine/machine_int.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* `<exe> [-C cache] -p` into out; 0 when it ran and exited 0. A wedged
 * ldconfig must not hang validate or doctor: 5 seconds at most. */
static int
run_ldconfig(const char *exe, unsigned flags, struct cv_buf *out)
{
	/* the test hook CUDNNVM_TEST_LDCACHE names another cache file */
	const char *cache = getenv("CUDNNVM_TEST_LDCACHE");
	const char *argv[5] = { exe, "-p", NULL, NULL, NULL };
	struct cv_child child = CV_CHILD_INIT;

	if (cache != NULL && *cache != '\0') {
		argv[1] = "-C";
		argv[2] = cache;
		argv[3] = "-p";
	}
	cv_buf_reset(out);
	child.argv = argv;
	child.flags = flags | CV_CHILD_STDIN_NULL | CV_CHILD_STDERR_NULL;
	child.timeout_s = 5;
	child.out = out;
	return cv_child_run(&child, NULL) == 0 ? 0 : -1;
}

void
cv_ldcache_each(cv_ldcache_fn fn, void *payload)
{
	struct cv_buf out = CV_BUF_INIT;
	char *line, *next;

	if (run_ldconfig("ldconfig", CV_CHILD_SEARCH_PATH, &out) < 0 &&
	    run_ldconfig("/sbin/ldconfig", 0, &out) < 0) {
		cv_buf_release(&out);
		return;
	}
	/* "\tlibcudnn.so.9 (libc6,x86-64) => /usr/lib/.../libcudnn.so.9" */
	for (line = out.buf; *line; line = next) {
		char *name, *arrow, *nl = strchr(line, '\n');

		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		name = line + strspn(line, " \t");
		arrow = strstr(name, "=> ");
		if (arrow == NULL)
			continue;
		arrow += 3;
		name[strcspn(name, " ")] = '\0';
		if (*name != '\0' && *arrow == '/')
			fn(payload, name, arrow);
	}
	cv_buf_release(&out);
}

/* ---- where the loader finds a library ---------------------------------- */

int
cv_machine_lib_loads(const char *path, const char *so)
{
	/* follows links as the loader does: a dangling one fails here; never
	 * blocks on a FIFO */
	int fd = cv_os_open(
		path, CV_OPEN_READ | CV_OPEN_NONBLOCK | CV_OPEN_NOCTTY, 0);
	char name[CV_ELF_NAME_MAX];
	struct cv_stat sb;
	int ok;

	if (fd < 0)
		return 0;
	/* the loader maps only a regular ELF object of this program's class,
	 * byte order and machine; and a file declaring another SONAME is not
	 * the library asked for (a libz filed as libcublasLt.so.12) */
	ok = cv_os_fstat(fd, &sb) == 0 && sb.kind == CV_KIND_FILE &&
	     cv_elf_native(fd) == 1 &&
	     cv_elf_soname(fd, name, sizeof name) == CV_ELF_SONAME &&
	     strcmp(name, so) == 0;
	cv_os_close(fd);
	return ok;
}

/* dir/so when the loader would load it from there. A relative folder is
 * the working folder's, different for every later process: nothing to
 * record or load from. */
static char *
try_dir(const char *dir, const char *so)
{
	char *p;

	if (dir == NULL || *dir != '/')
		return NULL;
	p = xasprintf("%s/%s", dir, so);
	if (cv_machine_lib_loads(p, so))
		return p;
	free(p);
	return NULL;
}

/* The first folder of a ':' list holding a loadable `so`: the loader
 * passes over a file it cannot load and tries the next folder. */
static char *
try_list(const char *list, const char *so)
{
	char *copy, *save = NULL, *p = NULL;

	if (list == NULL)
		return NULL;
	copy = xstrdup(list);
	for (char *d = strtok_r(copy, ":", &save); d && !p;
	     d = strtok_r(NULL, ":", &save))
		p = try_dir(d, so);
	free(copy);
	return p;
}

struct ldfind {
	const char *so;
	char *path; /* the first match the loader would load */
};

static void
ldfind_cb(void *payload, const char *soname, const char *path)
{
	struct ldfind *lf = payload;

	/* a stale cache names files that are gone (a removed or hidden
	 * toolkit), and it lists other classes' copies (libc6 beside
	 * libc6,x86-64): the loader passes over those, and so does this */
	if (lf->path == NULL && strcmp(soname, lf->so) == 0 &&
	    cv_machine_lib_loads(path, lf->so))
		lf->path = xstrdup(path);
}

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__powerpc64__) && __BYTE_ORDER == __LITTLE_ENDIAN
#define MULTIARCH "powerpc64le-linux-gnu"
#endif

char *
cv_machine_find_lib(const char *so)
{
	/* the loader's built-in folders (`ld.so --help`: "system search
	 * path"), Debian's multiarch ones and the lib64 ones of the others */
	static const char *const sys_dirs =
#ifdef MULTIARCH
		"/lib/" MULTIARCH ":/usr/lib/" MULTIARCH ":"
#endif
		"/lib64:/usr/lib64:/lib:/usr/lib";
	/* the test hook stands in for the machine's own places: its cache
	 * and its built-in folders */
	const char *test = getenv("CUDNNVM_TEST_CUDA_LIBDIRS");
	struct ldfind lf = { so, NULL };
	char *p;

	if ((p = try_list(getenv("LD_LIBRARY_PATH"), so)) != NULL)
		return p;
	if (test != NULL)
		return try_list(test, so);
	cv_ldcache_each(ldfind_cb, &lf);
	if (lf.path != NULL)
		return lf.path;
	return try_list(sys_dirs, so);
}
