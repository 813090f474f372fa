/* platform.c: which NVIDIA platform this machine is, and which CUDA major
 * its toolkit has. */
#include "internal.h"

#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static const char *const platforms[] = {
	"linux-x86_64",
	"linux-sbsa",
	"linux-aarch64",
	"linux-ppc64le",
	"windows-x86_64",
	"windows-arm64",
	NULL,
};

int
cv_platform_valid(const char *p)
{
	for (int i = 0; platforms[i]; i++)
		if (strcmp(p, platforms[i]) == 0)
			return 1;
	return 0;
}

int
cv_platform_detect(char out[32], struct cv_err *err)
{
	struct utsname u;

	if (uname(&u) < 0)
		return cv_err_errno(err, CV_ERROR, "uname");
	if (strcmp(u.machine, "x86_64") == 0)
		snprintf(out, 32, "linux-x86_64");
	else if (strcmp(u.machine, "aarch64") == 0)
		snprintf(out, 32, "%s",
			 access("/etc/nv_tegra_release", F_OK) == 0
				 ? "linux-aarch64"
				 : "linux-sbsa");
	else if (strcmp(u.machine, "ppc64le") == 0)
		snprintf(out, 32, "linux-ppc64le");
	else
		return cv_err_set(
			err, CV_ENOTFOUND,
			"NVIDIA publishes no cuDNN for machine '%.32s'; "
			"choose one with --platform",
			u.machine);
	return 0;
}

unsigned
cv_usable_cores(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (unsigned)n : 1;
}

/* "12.4.1" -> 12 */
static int
major_of(const char *s)
{
	long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return 0;
	v = strtol(s, &end, 10);
	if (v <= 0 || v > 999 || (*end != '.' && *end != '\0'))
		return 0;
	return (int)v;
}

static int
from_nvcc(void)
{
	FILE *p;
	char line[256];
	int major = 0;
	const char *path = getenv("PATH");

	/* only when an nvcc is on PATH: popen of a missing one is noisy */
	if (path == NULL)
		return 0;
	{
		char *copy = xstrdup(path), *save = NULL, *dir;
		int found = 0;
		for (dir = strtok_r(copy, ":", &save); dir && !found;
		     dir = strtok_r(NULL, ":", &save)) {
			char *f = cv_path_join(*dir ? dir : ".", "nvcc");
			found = access(f, X_OK) == 0;
			free(f);
		}
		free(copy);
		if (!found)
			return 0;
	}
	p = popen("nvcc --version 2>/dev/null", "r");
	if (p == NULL)
		return 0;
	while (fgets(line, sizeof line, p) != NULL) {
		char *r = strstr(line, "release ");
		if (r != NULL && major == 0)
			major = major_of(r + 8);
	}
	pclose(p);
	return major;
}

static int
from_version_json(const char *dir)
{
	char *f = cv_path_join(dir, "version.json");
	json_t *root = json_load_file(f, 0, NULL), *v;
	int major = 0;

	free(f);
	if (root == NULL)
		return 0;
	v = json_object_get(json_object_get(root, "cuda"), "version");
	if (json_is_string(v))
		major = major_of(json_string_value(v));
	json_decref(root);
	return major;
}

static int
from_cudart(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int major = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		int m;
		if (strncmp(e->d_name, "libcudart.so.", 13) != 0)
			continue;
		m = major_of(e->d_name + 13);
		if (m > major)
			major = m;
	}
	closedir(d);
	return major;
}

int
cv_cuda_detect(char *how, size_t n)
{
	const char *home = getenv("CUDA_HOME");
	int m;

	if ((m = from_nvcc()) > 0) {
		snprintf(how, n, "nvcc --version");
		return m;
	}
	if (home != NULL && *home && (m = from_version_json(home)) > 0) {
		snprintf(how, n, "$CUDA_HOME/version.json");
		return m;
	}
	if ((m = from_version_json("/usr/local/cuda")) > 0) {
		snprintf(how, n, "/usr/local/cuda/version.json");
		return m;
	}
	if (home != NULL && *home) {
		char *lib = cv_path_join(home, "lib64");
		m = from_cudart(lib);
		free(lib);
		if (m > 0) {
			snprintf(how, n, "libcudart in $CUDA_HOME");
			return m;
		}
	}
	if ((m = from_cudart("/usr/local/cuda/lib64")) > 0 ||
	    (m = from_cudart("/usr/lib/x86_64-linux-gnu")) > 0 ||
	    (m = from_cudart("/usr/lib/aarch64-linux-gnu")) > 0) {
		snprintf(how, n, "libcudart");
		return m;
	}
	if (n)
		how[0] = '\0';
	return 0;
}
