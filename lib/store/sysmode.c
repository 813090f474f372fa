/* sysmode.c: system mode, the method of NVIDIA's install guides made
 * reversible: /etc/ld.so.conf.d/cudnnvm.conf names <store>/current/lib and
 * ldconfig rebuilds the loader cache, so every program on the machine
 * finds the global version by soname with no LD_LIBRARY_PATH.
 *
 * The file is root's: every process on the machine trusts what it names,
 * so the store it names must be root's too (no folder on the way that
 * another user could write), and a file cudnnvm did not write is never
 * replaced or removed.
 *
 * ldconfig files every library of the folder under the SONAME it declares,
 * so a version whose lib/ holds one declaring libz.so.1 would answer for
 * the machine's zlib: a version may become the machine's only when every
 * ELF file there is a libcudnn by its SONAME (or, without one, by its
 * name). ldconfig runs with -X, so it never makes links in the store; and
 * it runs again whenever <store>/current changes while system mode is on
 * (link.c asks cv_sysmode_names and cv_sysmode_reload), so the cache never
 * answers for the version that was the default before. */
#include "base/base.h"
#include "machine/machine.h"
#include "store/store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	long len;
	int fd = cv_os_open(cv_sysmode_conf_path(),
			    CV_OPEN_READ | CV_OPEN_NOFOLLOW, 0);
	struct cv_stat sb;
	char *line;

	if (fd < 0) {
		if (errno == ENOENT)
			return 2;
		if (errno == ELOOP)
			return 0;
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot read '%s'", cv_sysmode_conf_path());
	}
	if (cv_os_fstat(fd, &sb) != 0 || sb.kind != CV_KIND_FILE) {
		cv_os_close(fd);
		return 0;
	}
	len = cv_os_read(fd, buf, sizeof buf - 1);
	cv_os_close(fd);
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
struct root_walk {
	const char *store;
	struct cv_err *err;
};

static int
root_one(const char *dir, const struct cv_stat *sb, void *payload)
{
	struct root_walk *w = payload;

	if (sb == NULL)
		return cv_err_errno(w->err, CV_ESTORE, "cannot inspect '%s'",
				    dir);
	if (sb->uid != 0 || (sb->perm & 022) != 0)
		return cv_err_set(
			w->err, CV_ESTORE,
			"'%s' can be changed by a user other than root, so the loader cannot trust the store '%s'; use a root-owned store (e.g. /opt/cudnn)",
			dir, w->store);
	return 0;
}

int
cv_sysmode_root_only(const char *path, struct cv_err *err)
{
	struct root_walk w = { path, err };
	struct cv_stat sb;
	int r = root_one(path, cv_os_lstat(path, &sb) == 0 ? &sb : NULL, &w);

	return r < 0 ? r : cv_fs_walk_up(path, 1, root_one, &w);
}

int
cv_sysmode_names(const char *store_root)
{
	char named[PATH_MAX];
	char *want;
	int r;

	if (cv_sysmode_read(named, sizeof named, NULL) != 1)
		return 0;
	want = xasprintf("%s/current/lib", store_root);
	r = strcmp(named, want) == 0;
	free(want);
	return r;
}

/* The name the loader cache would file `name` (in the folder dfd) under:
 * 1 when it is a libcudnn or not a library at all, 0 with *soname set
 * when it is another library's, <0 when it cannot be read. Links are
 * followed, as ldconfig follows them. */
static int
cudnn_named(int dfd, const char *name, char *soname, size_t n)
{
	int fd = cv_os_open_at(
		dfd, name, CV_OPEN_READ | CV_OPEN_NONBLOCK | CV_OPEN_NOCTTY, 0);
	struct cv_stat sb;
	int r;

	if (fd < 0)
		return errno == ENOENT ? 1 : -1; /* a dangling link */
	if (cv_os_fstat(fd, &sb) != 0 || sb.kind != CV_KIND_FILE) {
		cv_os_close(fd);
		return 1;
	}
	r = cv_elf_soname(fd, soname, n);
	cv_os_close(fd);
	if (r == CV_ELF_NOT_ELF)
		return 1;
	if (r == CV_ELF_BAD)
		return -1;
	if (r == CV_ELF_NO_SONAME)
		snprintf(soname, n, "%s", name);
	return strncmp(soname, "libcudnn", 8) == 0;
}

int
cv_sysmode_check_libdir(const char *libdir, struct cv_err *err)
{
	struct cv_dir *d = cv_dir_open(libdir);
	const char *de;
	char soname[256], *shown = NULL;
	int r = 0;

	if (d == NULL)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot read '%s'", libdir);
	while (r == 0 && (de = cv_dir_next(d, NULL)) != NULL) {
		int ok;
		free(shown);
		shown = cv_path_join(libdir, de);
		/* ldconfig also reads this subfolder's libraries */
		if (strcmp(de, "glibc-hwcaps") == 0) {
			r = cv_err_set(
				err, CV_ESTORE,
				"'%s' would give the machine's loader libraries by subfolder; system mode refuses a version holding it (remove it, or reinstall the version)",
				shown);
			break;
		}
		ok = cudnn_named(cv_dir_fd(d), de, soname, sizeof soname);
		if (ok < 0)
			r = cv_err_set(
				err, CV_ESTORE,
				"cannot read the SONAME of '%s', so system mode cannot tell which library the loader would take it for (remove it, or reinstall the version)",
				shown);
		else if (ok == 0)
			r = cv_err_set(
				err, CV_ESTORE,
				"'%s' is the library '%.100s', not cuDNN: through system mode every program would load it in place of the machine's own; remove it, or reinstall the version",
				shown, soname);
	}
	free(shown);
	cv_dir_close(d);
	return r;
}

int
cv_sysmode_reload(struct cv_err *err)
{
	static const char *const paths[] = { "/sbin/ldconfig",
					     "/usr/sbin/ldconfig", NULL };
	struct cv_child child = CV_CHILD_INIT;
	/* -X: no links made in the folders (the store's are its own) */
	const char *argv[3] = { NULL, "-X", NULL };
	int status;

	for (int i = 0; paths[i] && argv[0] == NULL; i++)
		if (cv_os_access(paths[i], CV_ACCESS_EXEC) == 0)
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

int
cv_sysmode_refuse_foreign(struct cv_err *err)
{
	return cv_err_set(
		err, CV_ESTORE,
		"'%s' was not written by cudnnvm; refusing to replace or remove it (move it away first)",
		cv_sysmode_conf_path());
}

/* The conf file for `id` as current: <store>/current/lib, which follows
 * each switch, then the folders of what that version loads beside itself
 * (its cuBLASLt, nvrtc in <store>/deps/), which differ per version. */
static char *
conf_text(const struct cv_store *st, const char *id, struct cv_err *err)
{
	char *deps = NULL, *text;

	if (cv_store_dep_path(st, id, &deps, err) < 0)
		return NULL;
	if (deps != NULL)
		for (char *p = deps; *p; p++)
			if (*p == ':')
				*p = '\n';
	text = xasprintf(MARK "\n%s/current/lib\n%s%s", cv_store_root(st),
			 deps ? deps : "", deps ? "\n" : "");
	free(deps);
	return text;
}

int
cv_sysmode_write_conf(const struct cv_store *st, const char *id,
		      struct cv_err *err)
{
	char *text = conf_text(st, id, err), old[8192];
	ssize_t n;
	int r;

	if (text == NULL)
		return err ? err->code : CV_ESTORE;
	n = cv_fs_read_head(CV_AT_CWD, cv_sysmode_conf_path(), 1, old,
			    sizeof old);
	if (n >= 0 && strcmp(old, text) == 0) {
		free(text);
		return 0;
	}
	if ((r = cv_fs_mkdirs("/etc/ld.so.conf.d", 0755, err)) == 0)
		r = cv_fs_write_atomic(cv_sysmode_conf_path(), text,
				       strlen(text), 0644, err);
	free(text);
	return r;
}

int
cv_sysmode_disable(struct cv_err *err)
{
	int r;

	if (cv_os_euid() != 0) {
		cv_err_set(err, CV_EPERM,
			   "system mode changes the loader of every program; "
			   "it needs root");
		return cv_err_hint(err, "sudo cudnnvm global --system --unset");
	}
	r = cv_sysmode_read(NULL, 0, err);
	if (r == 0)
		return cv_sysmode_refuse_foreign(err);
	if (r < 0)
		return r;
	if (r == 1 && cv_os_unlink(cv_sysmode_conf_path()) != 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot remove '%s'",
				    cv_sysmode_conf_path());
	return r == 1 ? cv_sysmode_reload(err) : 0;
}
