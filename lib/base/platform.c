/* platform.c: which NVIDIA platform this machine is, and the cores this
 * process may use. Its CUDA stack is machine.c's. */
#include "base/base_int.h"

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
cv_os_machine(char *out, size_t n)
{
	struct utsname u;

	if (uname(&u) < 0)
		return -1;
	snprintf(out, n, "%s", u.machine);
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
