/* shim.c: the shims of `shim add|remove|list`: small executables in the shims
 * folder
 * ($XDG_DATA_HOME/cudnnvm/shims) that run a program under the version
 * pinned for their working folder, for programs that never run a shell
 * hook (IDEs, Jupyter kernels, services). The template is shims/shim.sh. */
#include "activate/activate_int.h"
#include "base/base.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK "# cudnnvm shim for "

static const char shim_tpl[] =
	"#!/bin/sh\n" MARK
	"@PROG@: runs it under the cuDNN version pinned for the\n"
	"# working folder (cudnnvm exec). Remove with: cudnnvm shim remove @PROG@\n"
	"CUDNNVM_SHIM_DIR=@DIR@; export CUDNNVM_SHIM_DIR\n"
	"exec @EXE@ exec -- @PROG@ \"$@\"\n";

void
cv_shim_dir(char *out, size_t n)
{
	const char *d = getenv("XDG_DATA_HOME");
	const char *h = getenv("HOME");

	if (d != NULL && *d == '/')
		snprintf(out, n, "%s/cudnnvm/shims", d);
	else
		snprintf(out, n, "%s/.local/share/cudnnvm/shims", h ? h : "/");
}

int
cv_shim_name_valid(const char *p)
{
	if (*p == '\0' || *p == '.' || *p == '-' || strlen(p) > 128)
		return 0;
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._+-", *p)))
			return 0;
	return 1;
}

/* 1 when path is a shim that cudnnvm wrote. */
static int
is_ours(const char *path)
{
	char buf[256];

	return cv_fs_read_head(CV_AT_CWD, path, 1, buf, sizeof buf) > 0 &&
	       strstr(buf, "\n" MARK) != NULL;
}

int
cv_shim_add(const char *dir, const char *prog, const char *exe,
	    struct cv_err *err)
{
	char path[PATH_MAX + 160];
	const char *const vars[] = { "@PROG@", prog, "@DIR@", dir,
				     "@EXE@",  exe,  NULL };
	struct cv_buf *out = cv_text_new();
	int r;

	if (cv_fs_mkdirs(dir, 0755, err) < 0) {
		cv_text_free(out);
		return err->code;
	}
	r = cv_shell_expand(out, shim_tpl, CV_SHELL_SH, vars, err);
	snprintf(path, sizeof path, "%s/%s", dir, prog);
	if (r == 0 && cv_os_access(path, CV_ACCESS_EXISTS) == 0 &&
	    !is_ours(path))
		r = cv_err_set(
			err, CV_ERROR,
			"'%s' exists and is not a cudnnvm shim; move it away first",
			path);
	if (r < 0) {
		cv_text_free(out);
		return r;
	}
	r = cv_fs_write_atomic(path, cv_text_str(out), strlen(cv_text_str(out)),
			       0755, err);
	cv_text_free(out);
	return r;
}

/* 1 when an executable `prog` is in a folder of PATH other than the
 * shims folder `dir` (the program the shim will run). */
int
cv_shim_target_on_path(const char *prog, const char *dir)
{
	const char *p = getenv("PATH");
	char path[PATH_MAX + 160];

	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > 0 && len < PATH_MAX &&
		    !(strlen(dir) == len && strncmp(p, dir, len) == 0)) {
			snprintf(path, sizeof path, "%.*s/%s", (int)len, p,
				 prog);
			if (cv_os_access(path, CV_ACCESS_EXEC) == 0)
				return 1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

int
cv_shim_remove(const char *dir, const char *prog, struct cv_err *err)
{
	char path[PATH_MAX + 160];

	snprintf(path, sizeof path, "%s/%s", dir, prog);
	if (cv_os_access(path, CV_ACCESS_EXISTS) < 0)
		return cv_err_set(
			err, CV_ENOTFOUND,
			"there is no shim for '%s'; see 'cudnnvm shim list'",
			prog);
	if (!is_ours(path))
		return cv_err_set(err, CV_ERROR,
				  "'%s' is not a cudnnvm shim; not removing it",
				  path);
	if (cv_os_unlink(path) < 0)
		return cv_err_errno(err, CV_EIO, "cannot remove '%s'", path);
	return 0;
}

void
cv_shim_list(const char *dir, struct cv_strv *names)
{
	char path[PATH_MAX + 300];
	struct cv_dir *d = cv_dir_open(dir);
	const char *de;

	if (d == NULL)
		return;
	while ((de = cv_dir_next(d, NULL)) != NULL) {
		snprintf(path, sizeof path, "%s/%s", dir, de);
		if (de[0] != '.' && is_ours(path))
			cv_strv_push(names, de);
	}
	cv_dir_close(d);
}
