/* platform.c: which NVIDIA platform this machine is, and the cores this
 * process may use. Its CUDA stack is machine.c's. */
#include "base/base_int.h"

#include <stdio.h>
#include <string.h>

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

/* NVIDIA's name for this machine: the OS family (linux, windows) and the
 * machine's own architecture, which on aarch64 Linux is a Jetson (its
 * L4T release file) or a server (sbsa). */
int
cv_platform_detect(char out[32], struct cv_err *err)
{
	const char *os = cv_os_family();
	int win = strcmp(os, "windows") == 0;
	char m[64];

	if (cv_os_machine(m, sizeof m) < 0)
		return cv_err_errno(err, CV_ERROR,
				    "cannot tell this machine's architecture");
	if (strcmp(m, "x86_64") == 0)
		snprintf(out, 32, "%s-x86_64", os);
	else if (strcmp(m, "aarch64") == 0 && win)
		snprintf(out, 32, "windows-arm64");
	else if (strcmp(m, "aarch64") == 0)
		snprintf(out, 32, "%s",
			 cv_os_access("/etc/nv_tegra_release",
				      CV_ACCESS_EXISTS) == 0
				 ? "linux-aarch64"
				 : "linux-sbsa");
	else if (strcmp(m, "ppc64le") == 0 && !win)
		snprintf(out, 32, "linux-ppc64le");
	else
		return cv_err_set(
			err, CV_ENOTFOUND,
			"NVIDIA publishes no cuDNN for machine '%.32s'; "
			"choose one with --platform",
			m);
	return 0;
}

unsigned
cv_usable_cores(void)
{
	return cv_os_cores();
}
