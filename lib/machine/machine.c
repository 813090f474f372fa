/* machine.c: the one model of this machine's CUDA stack. Every command
 * that needs to know which CUDA toolkit, which driver or which GPU is here
 * asks this module, so that install, use, doctor, import and the hints
 * cannot disagree. Each fact is found once per process, lazily, and keeps
 * where it came from so that `doctor --json` and `current --json` can say
 * why a build was chosen.
 *
 * Nothing here starts a process on the hot path: the toolkit's version is
 * read from its files (version.json, version.txt, include/cuda.h, the name
 * of libcudart.so.N), and only when a toolkit found through nvcc says
 * nothing in its files is `nvcc --version` run. The driver's version comes
 * from the kernel module's /proc or /sys file, or in a container from the
 * name libcuda.so.1 points at, and is read only when no toolkit answers. */
#include "base/base.h"
#include "machine/machine_int.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct cv_machine machine;
static int toolkit_done, driver_done, gpu_done;

/* "12.8, V12.8.89" / "12" -> 12 and 8 (minor 0 when absent): the numbers
 * at s, whatever follows; *end (may be NULL) gets where they stop. */
static int
lead_major_minor(const char *s, int *major, int *minor, const char **end)
{
	char *e;
	long a, b = 0;

	if (!isdigit((unsigned char)*s))
		return 0;
	a = strtol(s, &e, 10);
	if (a <= 0 || a > 999)
		return 0;
	if (*e == '.' && isdigit((unsigned char)e[1])) {
		b = strtol(e + 1, &e, 10);
		if (b > 999)
			return 0;
	}
	*major = (int)a;
	*minor = (int)b;
	if (end != NULL)
		*end = e;
	return 1;
}

/* "12.4.1" / "12" -> 12 and 4, with leading blanks; 0 unless the number
 * (a third part is allowed and ignored) ends the text or a blank does. */
static int
parse_major_minor(const char *s, int *major, int *minor)
{
	const char *end;
	int a, b;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!lead_major_minor(s, &a, &b, &end))
		return 0;
	if (*end == '.' && isdigit((unsigned char)end[1]))
		end += 1 + strspn(end + 1, "0123456789");
	if (*end != '\0' && *end != '\n' && *end != ' ' && *end != '\t' &&
	    *end != '\r')
		return 0;
	*major = a;
	*minor = b;
	return 1;
}

static void
fact_set(struct cv_fact *f, int major, int minor, const char *source,
	 const char *detail)
{
	f->major = major;
	f->minor = minor;
	snprintf(f->source, sizeof f->source, "%s", source);
	snprintf(f->detail, sizeof f->detail, "%s", detail);
}

/* A toolkit file's first n-1 bytes (cv_fs_read_head: a FIFO planted
 * where a toolkit file belongs cannot hang the prompt); 0 on success. */
static int
read_small(const char *path, char *buf, size_t n)
{
	return cv_fs_read_head(CV_AT_CWD, path, 0, buf, n) < 0 ? -1 : 0;
}

/* The newest major of the libcudart.so.N files in dir, 0 when none. */
static int
newest_cudart(const char *dir)
{
	struct cv_dir *d = cv_dir_open(dir);
	const char *e;
	int best = 0, m, mi;

	while (d != NULL && (e = cv_dir_next(d, NULL)) != NULL)
		if (strncmp(e, "libcudart.so.", 13) == 0 &&
		    parse_major_minor(e + 13, &m, &mi) && m > best)
			best = m;
	cv_dir_close(d);
	return best;
}

/* A toolkit folder's own statement of its version, without running
 * anything: version.json (CUDA 11.1 on), version.txt (older), the
 * CUDA_VERSION define of include/cuda.h, libcudart.so.N's name. 1 and
 * *detail set when one of them says it. */
int
cv_machine_toolkit_files(const char *home, int *major, int *minor, char *detail,
			 size_t n)
{
	char *p, buf[8192];
	int found = 0;

	p = cv_path_join(home, "version.json");
	if (read_small(p, buf, sizeof buf) == 0) {
		struct cv_json *o = cv_json_loads(buf, 0, NULL);
		const char *v = cv_json_string_value(cv_json_object_get(
			cv_json_object_get(o, "cuda"), "version"));
		found = v != NULL && parse_major_minor(v, major, minor);
		cv_json_decref(o);
	}
	if (found)
		goto done;
	free(p);
	p = cv_path_join(home, "version.txt");
	if (read_small(p, buf, sizeof buf) == 0) {
		const char *v = strstr(buf, "CUDA Version ");
		found = v != NULL && parse_major_minor(v + 13, major, minor);
	}
	if (found)
		goto done;
	free(p);
	p = cv_path_join(home, "include/cuda.h");
	/* the define sits near the top (line 263 of CUDA 13's): one read of
	 * the first 64 KiB, no line-by-line parsing at a prompt */
	{
		char *head = xmalloc(64 * 1024);
		const char *d;
		char *end = NULL;
		long v = 0;

		if (read_small(p, head, 64 * 1024) == 0 &&
		    (d = strstr(head, "#define CUDA_VERSION ")) != NULL)
			v = strtol(d + 21, &end, 10);
		if (end != NULL && v >= 1000 && v < 1000000) {
			*major = (int)(v / 1000);
			*minor = (int)(v % 1000 / 10);
			found = 1;
		}
		free(head);
	}
	if (found)
		goto done;
	free(p);
	p = NULL;
	{
		static const char *const libs[] = { "lib64", "lib",
						    "targets/x86_64-linux/lib",
						    "targets/sbsa-linux/lib" };
		for (size_t i = 0; i < sizeof libs / sizeof *libs && !found;
		     i++) {
			char *dir = cv_path_join(home, libs[i]);
			int best = newest_cudart(dir);

			if (best > 0) {
				*major = best;
				*minor = 0;
				free(p);
				p = xasprintf("%s/libcudart.so.%d", dir, best);
				found = 1;
			}
			free(dir);
		}
	}
	if (!found)
		return 0;
done:
	snprintf(detail, n, "%s", p);
	free(p);
	return 1;
}

/* `nvcc --version`'s "release 12.8": only for an nvcc whose toolkit folder
 * says nothing in its files (odd packagings, a wrapper script). A wrapper
 * that hangs is killed after 5 s: this may run at a prompt. */
static int
nvcc_release(const char *nvcc, int *major, int *minor)
{
	const char *argv[] = { nvcc, "--version", NULL };
	struct cv_child c = CV_CHILD_INIT;
	struct cv_buf out = CV_BUF_INIT;
	const char *r;
	int found = 0;

	out.max = 64 * 1024;
	c.argv = argv;
	c.flags = CV_CHILD_STDIN_NULL | CV_CHILD_STDERR_NULL;
	c.timeout_s = 5;
	c.out = &out;
	if (cv_child_run(&c, NULL) == 0 && cv_buf_add(&out, "", 1) == 0)
		for (r = strstr(out.buf, "release "); r && !found;
		     r = strstr(r + 1, "release "))
			found = lead_major_minor(r + 8, major, minor, NULL);
	cv_buf_release(&out);
	return found;
}

/* The first nvcc on PATH, as a shell would find it; NULL when none. */
static char *
nvcc_on_path(void)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *found = NULL;

	if (path == NULL)
		return NULL;
	copy = xstrdup(path);
	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *f = cv_path_join(*dir ? dir : ".", "nvcc");
		struct cv_stat sb;
		if (cv_os_stat(f, &sb) == 0 && sb.kind == CV_KIND_FILE &&
		    cv_os_access(f, CV_ACCESS_EXEC) == 0)
			found = f;
		else
			free(f);
	}
	free(copy);
	return found;
}

/* Where the toolkit is, in the order PyTorch's cpp_extension looks for it
 * (CUDA_HOME, CUDA_PATH, the nvcc on PATH, /usr/local/cuda), then the
 * runtime library of the system's own packages. */
static void
find_toolkit(struct cv_fact *f)
{
	static const char *const envs[] = { "CUDA_HOME", "CUDA_PATH" };
	char detail[PATH_MAX];
	int major = 0, minor = 0;
	char *nvcc;

	for (size_t i = 0; i < sizeof envs / sizeof *envs; i++) {
		const char *home = getenv(envs[i]);
		if (home == NULL || *home == '\0')
			continue;
		if (cv_machine_toolkit_files(home, &major, &minor, detail,
					     sizeof detail)) {
			fact_set(f, major, minor, envs[i], detail);
			return;
		}
	}
	if ((nvcc = nvcc_on_path()) != NULL) {
		/* <home>/bin/nvcc: the toolkit's files first, nvcc last */
		char *home = xstrdup(nvcc), *slash;
		int ok = 0;

		for (int up = 0; up < 2; up++)
			if ((slash = strrchr(home, '/')) != NULL)
				*slash = '\0';
		if (*home != '\0' && strchr(nvcc, '/') != NULL)
			ok = cv_machine_toolkit_files(home, &major, &minor,
						      detail, sizeof detail);
		if (!ok && nvcc_release(nvcc, &major, &minor)) {
			snprintf(detail, sizeof detail, "%s --version", nvcc);
			ok = 1;
		}
		free(home);
		if (ok) {
			fact_set(f, major, minor, "nvcc", detail);
			free(nvcc);
			return;
		}
		free(nvcc);
	}
	/* Windows's toolkit is CUDA_PATH's (the installer sets it); a
	 * "/usr/local/cuda" there would be the drive's own folder */
	if (strcmp(cv_os_family(), "windows") == 0)
		return;
	if (cv_machine_toolkit_files("/usr/local/cuda", &major, &minor, detail,
				     sizeof detail)) {
		fact_set(f, major, minor, "/usr/local/cuda", detail);
		return;
	}
	{
		static const char *const sys[] = { "/usr/lib/x86_64-linux-gnu",
						   "/usr/lib/aarch64-linux-gnu",
						   "/usr/lib64" };
		for (size_t i = 0; i < sizeof sys / sizeof *sys; i++) {
			int best = newest_cudart(sys[i]);

			if (best > 0) {
				snprintf(detail, sizeof detail,
					 "%s/libcudart.so.%d", sys[i], best);
				fact_set(f, best, 0, "libcudart", detail);
				return;
			}
		}
	}
}

/* The newest CUDA version each driver branch runs natively (NVIDIA's CUDA
 * Toolkit release notes, "CUDA Toolkit and Corresponding Driver Versions",
 * Linux, GA releases). With minor-version compatibility any 13.x runtime
 * runs on >= 580.65.06, any 12.x on >= 525.60.13 and any 11.x on
 * >= 450.80.02, which is what the choice of a build's variant needs. */
static const struct {
	unsigned a, b, c;
	int major, minor;
} driver_cuda[] = {
	{ 580, 65, 6, 13, 0 },  { 575, 51, 3, 12, 9 }, { 570, 26, 0, 12, 8 },
	{ 560, 28, 3, 12, 6 },  { 555, 42, 2, 12, 5 }, { 550, 54, 14, 12, 4 },
	{ 545, 23, 6, 12, 3 },  { 535, 54, 3, 12, 2 }, { 530, 30, 2, 12, 1 },
	{ 525, 60, 13, 12, 0 }, { 520, 61, 5, 11, 8 }, { 515, 43, 4, 11, 7 },
	{ 510, 39, 1, 11, 6 },  { 495, 29, 5, 11, 5 }, { 470, 42, 1, 11, 4 },
	{ 465, 19, 1, 11, 3 },  { 460, 27, 3, 11, 2 }, { 455, 23, 5, 11, 1 },
	{ 450, 51, 5, 11, 0 },  { 440, 33, 1, 10, 2 }, { 418, 39, 0, 10, 1 },
	{ 410, 48, 0, 10, 0 },
};

int
cv_machine_driver_cuda(const char *version, int *major, int *minor)
{
	unsigned v[3] = { 0, 0, 0 };
	const char *s = version;
	char *end;

	for (int i = 0; i < 3; i++) {
		unsigned long x;
		if (!isdigit((unsigned char)*s))
			break;
		x = strtoul(s, &end, 10);
		if (x > 100000)
			return 0;
		v[i] = (unsigned)x;
		if (*end != '.')
			break;
		s = end + 1;
	}
	if (v[0] == 0)
		return 0;
	for (size_t i = 0; i < sizeof driver_cuda / sizeof *driver_cuda; i++) {
		unsigned a = driver_cuda[i].a, b = driver_cuda[i].b,
			 c = driver_cuda[i].c;
		if (v[0] > a ||
		    (v[0] == a && (v[1] > b || (v[1] == b && v[2] >= c)))) {
			*major = driver_cuda[i].major;
			*minor = driver_cuda[i].minor;
			return 1;
		}
	}
	return 0;
}

/* The oldest driver that runs every CUDA `cuda`.x runtime (minor-version
 * compatibility, the same release notes); NULL for a major not listed. */
const char *
cv_machine_min_driver(int cuda)
{
	static const struct {
		int cuda;
		const char *driver;
	} oldest[] = { { 11, "450.80.02" },
		       { 12, "525.60.13" },
		       { 13, "580.65.06" } };

	for (size_t i = 0; i < sizeof oldest / sizeof *oldest; i++)
		if (oldest[i].cuda == cuda)
			return oldest[i].driver;
	return NULL;
}

static const char *
driver_file(void)
{
	/* tests stand a file in for the kernel module's */
	const char *t = getenv("CUDNNVM_TEST_DRIVER_VERSION_FILE");
	return t != NULL ? t : "/proc/driver/nvidia/version";
}

/* A container (nvidia-container-toolkit) mounts the driver's user-space
 * libraries but not /proc/driver/nvidia/version: there the version is the
 * name libcuda.so.1 points at, libcuda.so.580.159.04. One readlink a
 * folder, no listing. Returns the link it came from (a static buffer), ver
 * "" when none. */
static const char *
driver_from_libcuda(char *ver, size_t n)
{
	static const char *const dirs[] = {
		"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
		"/usr/lib64", "/usr/local/nvidia/lib64", "/usr/lib"
	};
	static char from[PATH_MAX];
	const char *test = getenv("CUDNNVM_TEST_CUDA_LIBDIRS");
	char *copy = test != NULL ? xstrdup(test) : NULL, *save = NULL;
	const char *dir;
	size_t i = 0;

	ver[0] = '\0';
	while (ver[0] == '\0' &&
	       (dir = copy != NULL ? strtok_r(i++ ? NULL : copy, ":", &save)
		      : i < sizeof dirs / sizeof *dirs ? dirs[i++]
						       : NULL) != NULL) {
		char target[256];
		const char *base, *v;
		long len;
		int major, minor;

		snprintf(from, sizeof from, "%s/libcuda.so.1", dir);
		len = cv_os_readlink(from, target, sizeof target);
		if (len <= 0)
			continue;
		base = strrchr(target, '/');
		base = base != NULL ? base + 1 : target;
		v = base + 11;
		/* WSL's libcuda.so.1.1 names no driver: a branch has 3 digits
		 */
		if (strncmp(base, "libcuda.so.", 11) == 0 &&
		    strspn(v, "0123456789.") == strlen(v) &&
		    strspn(v, "0123456789") >= 3 &&
		    cv_machine_driver_cuda(v, &major, &minor))
			snprintf(ver, n, "%s", v);
	}
	free(copy);
	return from;
}

static void
find_driver(struct cv_machine *m)
{
	char buf[1024], ver[32] = "";
	const char *file = driver_file(), *p;
	int major, minor;

	if (read_small(file, buf, sizeof buf) == 0 &&
	    (p = strstr(buf, "Kernel Module")) != NULL) {
		p += 13;
		while (*p == ' ' || *p == '\t')
			p++;
		snprintf(ver, sizeof ver, "%.*s", (int)strspn(p, "0123456789."),
			 p);
	} else if (getenv("CUDNNVM_TEST_DRIVER_VERSION_FILE") == NULL &&
		   read_small("/sys/module/nvidia/version", buf, sizeof buf) ==
			   0) {
		file = "/sys/module/nvidia/version";
		snprintf(ver, sizeof ver, "%.*s",
			 (int)strspn(buf, "0123456789."), buf);
	}
	if (ver[0] == '\0' &&
	    getenv("CUDNNVM_TEST_DRIVER_VERSION_FILE") == NULL)
		file = driver_from_libcuda(ver, sizeof ver);
	if (ver[0] == '\0')
		return;
	snprintf(m->driver_version, sizeof m->driver_version, "%s", ver);
	if (cv_machine_driver_cuda(ver, &major, &minor)) {
		char detail[PATH_MAX];
		snprintf(detail, sizeof detail, "driver %s (%s)", ver, file);
		fact_set(&m->driver, major, minor, "driver", detail);
	}
}

/* An override replaces a fact whatever the machine says, the way conda's
 * CONDA_OVERRIDE_CUDA does: to resolve for another machine. A malformed
 * one is remembered and reported, never silently ignored. */
static void
apply_override(struct cv_machine *m, struct cv_fact *f, const char *var)
{
	const char *v = getenv(var);
	int major, minor;

	if (v == NULL)
		return;
	if (*v == '\0') {
		/* set but empty: "none", as conda's override means */
		fact_set(f, 0, 0, "override", var);
		return;
	}
	if (!parse_major_minor(v, &major, &minor)) {
		if (m->bad[0] == '\0')
			snprintf(m->bad, sizeof m->bad,
				 "%s='%.32s' is not a version such as 12.4",
				 var, v);
		return;
	}
	fact_set(f, major, minor, "override", var);
}

const struct cv_machine *
cv_machine_get(unsigned what)
{
	if ((what & CV_MACHINE_TOOLKIT) && !toolkit_done) {
		toolkit_done = 1;
		if (getenv("CUDNNVM_OVERRIDE_CUDA") != NULL)
			apply_override(&machine, &machine.toolkit,
				       "CUDNNVM_OVERRIDE_CUDA");
		if (machine.toolkit.source[0] == '\0')
			find_toolkit(&machine.toolkit);
	}
	if ((what & CV_MACHINE_DRIVER) && !driver_done) {
		driver_done = 1;
		find_driver(&machine);
		apply_override(&machine, &machine.driver,
			       "CUDNNVM_OVERRIDE_DRIVER_CUDA");
	}
	if ((what & CV_MACHINE_GPU) && !gpu_done) {
		gpu_done = 1;
		/* the compute capability needs the driver API, which only the
		 * probe child loads: without an override it stays unknown
		 * here, and validation checks it on the GPU itself */
		apply_override(&machine, &machine.gpu_arch,
			       "CUDNNVM_OVERRIDE_GPU_ARCH");
	}
	return &machine;
}

void
cv_machine_forget(void)
{
	memset(&machine, 0, sizeof machine);
	toolkit_done = driver_done = gpu_done = 0;
}

int
cv_machine_cuda(char *how, size_t n, struct cv_err *err)
{
	/* the driver is asked only when no toolkit answers: most machines
	 * that resolve specs have one, and a prompt should not pay for both */
	const struct cv_machine *m = cv_machine_get(CV_MACHINE_TOOLKIT);

	if (m->bad[0])
		return cv_err_set(err, CV_EUSAGE, "%s", m->bad);
	if (m->toolkit.major <= 0)
		m = cv_machine_get(CV_MACHINE_DRIVER);
	if (m->bad[0])
		return cv_err_set(err, CV_EUSAGE, "%s", m->bad);
	if (m->toolkit.major > 0) {
		if (how != NULL && n)
			snprintf(how, n, "%s (CUDA %d.%d, %s)",
				 m->toolkit.source, m->toolkit.major,
				 m->toolkit.minor, m->toolkit.detail);
		return m->toolkit.major;
	}
	if (m->driver.major > 0) {
		if (how != NULL && n)
			snprintf(how, n, "the driver (%s runs CUDA %d.%d)",
				 m->driver.source[0] == 'o' ? m->driver.detail
							    : m->driver_version,
				 m->driver.major, m->driver.minor);
		return m->driver.major;
	}
	if (how != NULL && n)
		how[0] = '\0';
	return 0;
}

static struct cv_json *
fact_json(const struct cv_fact *f)
{
	char v[16];

	if (f->major <= 0)
		return f->source[0] ? cv_json_pack("{s:n,s:s,s:s}", "version",
						   "source", f->source,
						   "detail", f->detail)
				    : cv_json_null();
	snprintf(v, sizeof v, "%d.%d", f->major, f->minor);
	return cv_json_pack("{s:s,s:s,s:s}", "version", v, "source", f->source,
			    "detail", f->detail);
}

struct cv_json *
cv_machine_json(void)
{
	const struct cv_machine *m = cv_machine_get(CV_MACHINE_ALL);
	char how[PATH_MAX + 64];
	int cuda = cv_machine_cuda(how, sizeof how, NULL);
	struct cv_json *o = cv_json_object();

	cv_json_object_set_new(o, "cuda_toolkit", fact_json(&m->toolkit));
	cv_json_object_set_new(o, "driver_cuda", fact_json(&m->driver));
	cv_json_object_set_new(o, "driver_version",
			       m->driver_version[0]
				       ? cv_json_string(m->driver_version)
				       : cv_json_null());
	cv_json_object_set_new(o, "gpu_arch", fact_json(&m->gpu_arch));
	cv_json_object_set_new(o, "preferred_cuda",
			       cuda > 0 ? cv_json_integer(cuda)
					: cv_json_null());
	cv_json_object_set_new(o, "preferred_cuda_from",
			       cuda > 0 ? cv_json_string(how) : cv_json_null());
	if (m->bad[0])
		cv_json_object_set_new(o, "error", cv_json_string(m->bad));
	return o;
}

int
cv_machine_want_cuda(int spec_cuda, int flag_cuda, char *how, size_t n,
		     struct cv_err *err)
{
	if (spec_cuda > 0) {
		snprintf(how, n, "the spec");
		return spec_cuda;
	}
	if (flag_cuda > 0) {
		snprintf(how, n, "--cuda or the config");
		return flag_cuda;
	}
	return cv_machine_cuda(how, n, err);
}

int
cv_machine_fits(const struct cv_version *v, int cuda, char *why, size_t n)
{
	const struct cv_machine *m =
		cv_machine_get(CV_MACHINE_TOOLKIT | CV_MACHINE_DRIVER);
	char how[PATH_MAX + 64], gpu[256] = "";
	int want = cv_machine_cuda(how, sizeof how, NULL);

	if (cv_machine_arch_fits(v, why, n) == 0)
		return 0;
	if (cv_machine_get(CV_MACHINE_GPU)->gpu_arch.major <= 0)
		/* said where it matters: nothing was ruled out for it */
		snprintf(gpu, sizeof gpu,
			 "; no GPU compute capability known "
			 "here: no release ruled out for it");
	if (m->driver.major > 0 && cuda > m->driver.major) {
		snprintf(why, n,
			 "needs a driver for CUDA %d; this one runs CUDA %d.%d",
			 cuda, m->driver.major, m->driver.minor);
		return 0;
	}
	if (want <= 0) {
		snprintf(why, n,
			 "no CUDA toolkit or driver seen here: "
			 "nothing ruled out%s",
			 gpu);
		return -1;
	}
	if (cuda == want) {
		snprintf(why, n, "CUDA %d, from %s%s", want, how, gpu);
		return 1;
	}
	snprintf(why, n, "this machine's CUDA is %d, from %s%s%s", want, how,
		 cuda < want ? "; an older variant its driver runs too" : "",
		 gpu);
	return 0;
}

/* The lowest compute capability (major * 10 + minor) NVIDIA's cuDNN
 * support matrices list for each line of releases, newest line first:
 * an entry holds from its release up to the next newer entry's. The
 * 9.10.2 matrix still lists 5.0, 6.0, 6.1 and 7.0 (with a footnote); the
 * 9.17.0 matrix starts at 7.5 for CUDA 12 and 13 alike, and 9.11.0 is the
 * first release without Maxwell, Pascal and Volta. 8.0 to 8.3 start at
 * 3.5 for CUDA 11 and 3.0 for CUDA 10.2: the line takes the lower, so
 * that no build that runs is ruled out. 0: the matrices were not read,
 * nothing is ruled out. doc/cudnn-facts.md keeps the sources. */
static const struct {
	unsigned long major, minor;
	int arch;
} cudnn_min_arch[] = {
	{ 9, 11, 75 }, /* Turing and newer */
	{ 8, 9, 50 },  /* Maxwell and newer */
	{ 8, 4, 0 },   /* not recorded */
	{ 7, 6, 30 },  /* Kepler and newer */
};

int
cv_machine_cudnn_min_arch(const struct cv_version *v)
{
	for (size_t i = 0; i < sizeof cudnn_min_arch / sizeof *cudnn_min_arch;
	     i++)
		if (v->part[0] > cudnn_min_arch[i].major ||
		    (v->part[0] == cudnn_min_arch[i].major &&
		     v->part[1] >= cudnn_min_arch[i].minor))
			return cudnn_min_arch[i].arch;
	return 0;
}

int
cv_machine_cudnn_last_for_arch(int arch, int *major, int *minor)
{
	for (size_t i = 0; i < sizeof cudnn_min_arch / sizeof *cudnn_min_arch;
	     i++) {
		if (cudnn_min_arch[i].arch <= 0 ||
		    cudnn_min_arch[i].arch > arch)
			continue;
		if (i == 0 || cudnn_min_arch[i - 1].minor == 0)
			return 0; /* the newest line runs it: no last one */
		/* the release line before the next newer entry's */
		*major = (int)cudnn_min_arch[i - 1].major;
		*minor = (int)cudnn_min_arch[i - 1].minor - 1;
		return 1;
	}
	return 0;
}

int
cv_machine_arch_fits(const struct cv_version *v, char *why, size_t n)
{
	const struct cv_machine *m = cv_machine_get(CV_MACHINE_GPU);
	int need = cv_machine_cudnn_min_arch(v), have, major, minor;
	char last[48] = "";

	if (m->gpu_arch.major <= 0) {
		snprintf(why, n,
			 "no GPU compute capability known here "
			 "(CUDNNVM_OVERRIDE_GPU_ARCH sets one): no release "
			 "ruled out for it");
		return -1;
	}
	have = m->gpu_arch.major * 10 + m->gpu_arch.minor;
	if (need == 0) {
		snprintf(why, n,
			 "the compute capabilities this release supports are "
			 "not recorded: not ruled out for this GPU's %d.%d",
			 m->gpu_arch.major, m->gpu_arch.minor);
		return -1;
	}
	if (have >= need) {
		snprintf(why, n,
			 "compute capability %d.%d (from %s) is %d.%d or newer",
			 m->gpu_arch.major, m->gpu_arch.minor,
			 m->gpu_arch.detail, need / 10, need % 10);
		return 1;
	}
	if (cv_machine_cudnn_last_for_arch(have, &major, &minor))
		snprintf(last, sizeof last,
			 ", and %d.%d is the last release for it", major,
			 minor);
	snprintf(why, n,
		 "needs compute capability %d.%d or newer; this GPU is %d.%d "
		 "(from %s)%s",
		 need / 10, need % 10, m->gpu_arch.major, m->gpu_arch.minor,
		 m->gpu_arch.detail, last);
	return 0;
}
