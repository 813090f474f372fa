/* sysmode.c: system mode, the method of NVIDIA's install guides made
 * reversible: /etc/ld.so.conf.d/cudnnvm.conf names <store>/current/lib and
 * ldconfig rebuilds the loader cache, so every program on the machine
 * finds the global version by soname with no LD_LIBRARY_PATH.
 *
 * The file is root's: every process on the machine trusts what it names,
 * so the store it names must be root's too (no folder on the way that
 * another user could write), and a file cudnnvm did not write is never
 * replaced or removed. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MARK \
	"# written by 'cudnnvm global --system'; 'cudnnvm global --system --unset' removes it"

const char *
cv_sysmode_conf_path(void)
{
	return "/etc/ld.so.conf.d/cudnnvm.conf";
}

/* 1 when the file is ours, 0 when someone else's, 2 when absent, <0 on
 * error; the folder it names goes to libdir (may be NULL). */
int
cv_sysmode_read(char *libdir, size_t n, struct cv_err *err)
{
	char buf[8192];
	ssize_t len;
	int fd =
		open(cv_sysmode_conf_path(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;
	char *line;

	if (fd < 0) {
		if (errno == ENOENT)
			return 2;
		if (errno == ELOOP)
			return 0;
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot read '%s'", cv_sysmode_conf_path());
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return 0;
	}
	len = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (len < 0)
		return cv_err_errno(err, CV_EIO, "cannot read '%s'",
				    cv_sysmode_conf_path());
	buf[len] = '\0';
	if (strncmp(buf, MARK "\n", sizeof MARK) != 0)
		return 0;
	line = buf + sizeof MARK;
	line[strcspn(line, "\n")] = '\0';
	if (libdir != NULL)
		snprintf(libdir, n, "%s", line);
	return 1;
}

/* Every folder from `path` up to / must be root's and writable by root
 * only (sticky folders such as /tmp are refused too: a user could have
 * made the next part). */
static int
root_only(const char *path, struct cv_err *err)
{
	char *p = xstrdup(path);
	struct stat sb;
	int r = 0;

	for (;;) {
		if (lstat(p, &sb) != 0) {
			r = cv_err_errno(err, CV_ESTORE, "cannot inspect '%s'",
					 p);
			break;
		}
		if (sb.st_uid != 0 || (sb.st_mode & 022) != 0) {
			r = cv_err_set(
				err, CV_ESTORE,
				"'%s' can be changed by a user other than root, so the loader cannot trust the store '%s'; use a root-owned store (e.g. /opt/cudnn)",
				p, path);
			break;
		}
		char *slash = strrchr(p, '/');
		if (slash == NULL || slash == p)
			break;
		*slash = '\0';
	}
	free(p);
	if (r == 0 && lstat("/", &sb) == 0 &&
	    (sb.st_uid != 0 || (sb.st_mode & 022) != 0))
		r = cv_err_set(err, CV_ESTORE,
			       "'/' can be changed by a user other than root");
	return r;
}

static int
run_ldconfig(struct cv_err *err)
{
	static const char *const paths[] = { "/sbin/ldconfig",
					     "/usr/sbin/ldconfig", NULL };
	struct cv_child child = CV_CHILD_INIT;
	const char *argv[2] = { NULL, NULL };
	int status;

	for (int i = 0; paths[i] && argv[0] == NULL; i++)
		if (access(paths[i], X_OK) == 0)
			argv[0] = paths[i];
	if (argv[0] == NULL)
		return cv_err_set(err, CV_ERROR,
				  "ldconfig is not installed (/sbin/ldconfig)");
	child.argv = argv;
	status = cv_child_run(&child, err);
	if (status < 0)
		return status;
	if (status != 0)
		return cv_err_set(
			err, CV_ERROR,
			"%s failed (status %d); run it by hand to see why",
			argv[0], status > 128 ? -1 : status);
	return 0;
}

static int
refuse_foreign(struct cv_err *err)
{
	return cv_err_set(
		err, CV_ESTORE,
		"'%s' was not written by cudnnvm; refusing to replace or remove it (move it away first)",
		cv_sysmode_conf_path());
}

int
cv_sysmode_enable(const char *store_root, struct cv_err *err)
{
	const char *conf = cv_sysmode_conf_path();
	char *text;
	int r;

	if (geteuid() != 0)
		return cv_err_set(
			err, CV_EPERM,
			"system mode changes the loader of every program; run it as root: sudo cudnnvm global --system <spec>");
	if ((r = root_only(store_root, err)) < 0)
		return r;
	if (strchr(store_root, '\n') != NULL ||
	    strchr(store_root, ' ') != NULL || strchr(store_root, '#') != NULL)
		return cv_err_set(
			err, CV_ESTORE,
			"the store path '%.200s' cannot be written into ld.so.conf; use a plain path",
			store_root);
	if ((r = cv_sysmode_read(NULL, 0, err)) == 0)
		r = refuse_foreign(err);
	if (r < 0)
		return r;
	if (cv_fs_mkdirs("/etc/ld.so.conf.d", 0755, err) < 0)
		return err ? err->code : CV_EIO;
	text = xasprintf(MARK "\n%s/current/lib\n", store_root);
	r = cv_fs_write_atomic(conf, text, strlen(text), 0644, err);
	free(text);
	return r < 0 ? r : run_ldconfig(err);
}

int
cv_sysmode_disable(struct cv_err *err)
{
	int r;

	if (geteuid() != 0)
		return cv_err_set(
			err, CV_EPERM,
			"system mode changes the loader of every program; run it as root: sudo cudnnvm global --system --unset");
	r = cv_sysmode_read(NULL, 0, err);
	if (r == 0)
		return refuse_foreign(err);
	if (r < 0)
		return r;
	if (r == 1 && unlink(cv_sysmode_conf_path()) != 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot remove '%s'",
				    cv_sysmode_conf_path());
	return r == 1 ? run_ldconfig(err) : 0;
}
