/* inuse.c: which running processes map files of an installed version.
 *
 * cuDNN 9 loads its engine libraries (libcudnn_cnn.so.9, ...) on first
 * use, hours into a run; removing or replacing the version under a process
 * that already loaded libcudnn.so.9 makes that later load fail, or mix two
 * builds. Before either, /proc/<pid>/maps of every process the caller may
 * read is searched for the version's folder, the way fuser and lsof find
 * users of a file. Only libc: the front-only commands call this. */
#include "base/base.h"
#include "store/store_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAPS_CHUNK (64 * 1024)
#define MAX_NAMED  5

/* 1 when /proc/<pid>/maps mentions `needle` (a path prefix ending in
 * '/'); read in chunks that overlap by the needle's length. */
static int
maps_mention(int procfd, const char *pid, const char *needle, char *buf)
{
	char path[64];
	size_t nlen = strlen(needle), have = 0;
	long n;
	int fd, found = 0;

	snprintf(path, sizeof path, "%s/maps", pid);
	fd = cv_os_open_at(procfd, path, CV_OPEN_READ, 0);
	if (fd < 0)
		return 0; /* gone, or another user's: as far as we may read */
	for (;;) {
		do
			n = cv_os_read(fd, buf + have, MAPS_CHUNK - have);
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			break;
		have += (size_t)n;
		if (cv_memmem(buf, have, needle, nlen) != NULL) {
			found = 1;
			break;
		}
		if (have >= nlen) {
			memmove(buf, buf + have - (nlen - 1), nlen - 1);
			have = nlen - 1;
		}
	}
	cv_os_close(fd);
	return found;
}

static void
comm_of(int procfd, const char *pid, char *out, size_t n)
{
	char path[64];
	long len;
	int fd;

	snprintf(out, n, "?");
	snprintf(path, sizeof path, "%s/comm", pid);
	fd = cv_os_open_at(procfd, path, CV_OPEN_READ, 0);
	if (fd < 0)
		return;
	len = cv_os_read(fd, out, n - 1);
	cv_os_close(fd);
	if (len <= 0) {
		snprintf(out, n, "?");
		return;
	}
	out[len] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

int
cv_store_check_unused(const struct cv_store *st, const char *id, int replacing,
		      struct cv_err *err)
{
	char real[PATH_MAX], *needle, *buf, self[32];
	struct cv_buf who = CV_BUF_INIT;
	const char *de;
	size_t users = 0;
	int procfd, r = 0;
	struct cv_dir *d;

	if (cv_os_realpath(cv_store_root(st), real, sizeof real) == NULL)
		return 0; /* no store, nothing installed in it */
	d = cv_dir_open("/proc");
	if (d == NULL)
		return 0; /* no /proc: nothing to learn */
	procfd = cv_dir_fd(d);
	needle = xasprintf("%s/%s/", real, id);
	buf = xmalloc(MAPS_CHUNK);
	snprintf(self, sizeof self, "%ld", cv_os_pid());
	while ((de = cv_dir_next(d, NULL)) != NULL) {
		char comm[64];
		if (!isdigit((unsigned char)de[0]) || strcmp(de, self) == 0 ||
		    !maps_mention(procfd, de, needle, buf))
			continue;
		if (users++ < MAX_NAMED) {
			comm_of(procfd, de, comm, sizeof comm);
			cv_buf_addf(&who, "%spid %s (%s)",
				    users > 1 ? ", " : "", de, comm);
		}
	}
	cv_dir_close(d);
	if (users > MAX_NAMED)
		cv_buf_addf(&who, " and %zu more", users - MAX_NAMED);
	if (users > 0)
		r = cv_err_set(
			err, CV_ERROR,
			"cuDNN %s is in use by %s; %s; stop them first, or pass --even-if-in-use",
			id, who.buf,
			replacing
				? "replacing it would make their next load of a cuDNN library (cuDNN loads its engine libraries on first use) take the new build's file beside the old build they already mapped"
				: "removing it would make their next load of a cuDNN library (cuDNN loads its engine libraries such as libcudnn_cnn on first use) fail with 'No such file or directory'");
	cv_buf_release(&who);
	free(buf);
	free(needle);
	return r;
}
