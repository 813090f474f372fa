/* handoff.c: run a command of the helper executable in this process's
 * place, the way git runs git-remote-https.
 *
 * The helper links libcurl, libarchive and libcrypto; this binary links
 * none of them, so that every command that does not download, hash or
 * unpack starts like a tiny C program. exec keeps the process: the same
 * pid, terminal, signals and exit status, so the user sees no difference.
 *
 * Windows has one executable, cudnnvm.exe, with every command in it
 * (built from table.c without CUDNNVM_FRONT): its transport and hashing
 * are the system's own WinHTTP and BCrypt DLLs, which cost no start-up
 * for the commands that do not use them, and the pair's exec would be a
 * second process start there (CreateProcessW, the slow part on Windows),
 * not a saving. So on Windows nothing is handed off; the commands that
 * only Linux has answer in one line (cmd_linux_only). */
#include "base/base.h"
#include "cmd.h"
#include "ui.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32

int
cmd_handoff(char **argv)
{
	/* never reached: every entry of the Windows table has its code */
	ui_error("'%s' has no code in this build; reinstall cudnnvm",
		 argv[1] != NULL ? argv[1] : "");
	return 1;
}

int
cmd_linux_only(int argc, char **argv, struct cmd_ctx *ctx)
{
	(void)argc;
	(void)ctx;
	if (strcmp(argv[0], "bench") == 0)
		ui_error("'bench' is not in cudnnvm.exe yet: the GPU "
			 "convolutions it times are not ported to the Windows "
			 "validation child");
	else
		ui_error("'%s' is Linux-only (%s); it is not in cudnnvm.exe",
			 argv[0],
			 strcmp(argv[0], "cdi") == 0 ? "container device specs"
			 : strcmp(argv[0], "export") == 0
				 ? "OCI image layers of the Linux build"
				 : "Lmod and Environment Modules");
	return 64;
}
#else
#include <gnu/libc-version.h>
#include <unistd.h>

#ifndef CV_LIBEXECDIR
#define CV_LIBEXECDIR "/usr/local/libexec"
#endif
#define HELPER "cudnnvm-helper"

/* A release build (make dist) names the glibc its helper and bundled
 * libraries need (CV_GLIBC_FLOOR, "2.28"): this binary needs less, so on
 * an older system it can say so in one line where the loader would print
 * a trace of missing symbol versions. */
#ifdef CV_GLIBC_FLOOR
static int
glibc_older(const char *have, const char *floor)
{
	char *end;
	long hm = strtol(have, &end, 10),
	     hn = *end == '.' ? strtol(end + 1, NULL, 10) : 0;
	long fm = strtol(floor, &end, 10),
	     fn = *end == '.' ? strtol(end + 1, NULL, 10) : 0;

	return hm < fm || (hm == fm && hn < fn);
}
#endif

int
cmd_handoff(char **argv)
{
	struct cv_err err = CV_ERR_INIT;
	char self[PATH_MAX], dir[PATH_MAX], path[3][PATH_MAX + 64];

	if (cv_child_self(self, &err) < 0)
		return cmd_fail(&err);
	memcpy(dir, self, strlen(self) + 1);
	*strrchr(dir, '/') = '\0';
	/* beside this binary in the build tree; installed, relative to it
	 * (a moved or DESTDIR prefix), then where the build said */
	snprintf(path[0], sizeof path[0], "%s/" HELPER, dir);
	snprintf(path[1], sizeof path[1], "%s/../libexec/cudnnvm/" HELPER, dir);
	snprintf(path[2], sizeof path[2], CV_LIBEXECDIR "/cudnnvm/" HELPER);
	/* argv[0] names this binary: ps shows cudnnvm, and the helper runs
	 * validation's probe child with it */
	argv[0] = self;
#ifdef CV_GLIBC_FLOOR
	if (glibc_older(gnu_get_libc_version(), CV_GLIBC_FLOOR)) {
		cv_err_set(&err, CV_ERROR,
			   "'%s' needs glibc " CV_GLIBC_FLOOR
			   " or newer; this system has %s",
			   argv[1] ? argv[1] : "", gnu_get_libc_version());
		cv_err_hint(&err, "install cudnnvm from your distribution's "
				  "packages or build it from source (README, "
				  "\"Install\")");
		return cmd_fail(&err);
	}
#endif
	for (int i = 0; i < 3; i++) {
		if (access(path[i], F_OK) != 0)
			continue;
		if (access(path[i], X_OK) != 0) {
			cv_err_set(&err, CV_ERROR,
				   "the helper '%s' is not executable; "
				   "reinstall cudnnvm",
				   path[i]);
			return cmd_fail(&err);
		}
		execv(path[i], argv);
		cv_err_errno(&err, cv_code_from_errno(errno),
			     "cannot run the helper '%s'; reinstall cudnnvm",
			     path[i]);
		return cmd_fail(&err);
	}
	cv_err_set(&err, CV_ERROR,
		   "cannot find " HELPER ", which runs '%s' (looked in %s, "
		   "%s/../libexec/cudnnvm and " CV_LIBEXECDIR
		   "/cudnnvm); reinstall cudnnvm",
		   argv[1] ? argv[1] : "", dir, dir);
	return cmd_fail(&err);
}
#endif
