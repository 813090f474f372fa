/* hook.c: the prompt hook's state on disk: a stamp file per shell whose
 * time says when the hook last ran, so the shell function can skip the
 * hook until a watched file or folder is newer (`-nt`) than it. */
#include "activate/activate_int.h"
#include "base/base.h"
#include "store/store.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void
stamp_dir(char *out, size_t n)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	const char *cache = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct cv_stat sb;

	if (rt && *rt == '/' && cv_os_stat(rt, &sb) == 0 &&
	    sb.kind == CV_KIND_DIR)
		snprintf(out, n, "%s/cudnnvm-hook", rt);
	else if (cache && *cache == '/')
		snprintf(out, n, "%s/cudnnvm/hook", cache);
	else
		snprintf(out, n, "%s/.cache/cudnnvm/hook",
			 home ? home : "/tmp");
}

void
cv_hook_dir(char *out, size_t n)
{
	stamp_dir(out, n);
}

int
cv_hook_loaded(void)
{
	const char *pid = getenv("CUDNNVM_HOOK");
	char want[32];

	snprintf(want, sizeof want, "%ld", cv_os_ppid());
	return pid != NULL && strcmp(pid, want) == 0;
}

int
cv_hook_first_note(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	int fd;

	stamp_dir(dir, sizeof dir);
	if (cv_fs_mkdirs(dir, 0700, NULL) < 0)
		return 1;
	snprintf(path, sizeof path, "%s/nohook.%ld", dir, cv_os_ppid());
	fd = cv_os_open(path,
			CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL |
				CV_OPEN_NOFOLLOW,
			0600);
	if (fd < 0)
		return 0;
	cv_os_close(fd);
	return 1;
}

/* Remove stamps of shells gone for a week (only when a new one is made). */
static void
sweep_stamps(const char *dir)
{
	struct cv_dir *d = cv_dir_open(dir);
	const char *de;
	struct cv_stat sb;
	time_t now = time(NULL);
	char p[PATH_MAX + 256];

	if (d == NULL)
		return;
	while ((de = cv_dir_next(d, NULL)) != NULL) {
		if (strncmp(de, "stamp.", 6) != 0 &&
		    strncmp(de, "nohook.", 7) != 0)
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de);
		if (cv_os_lstat(p, &sb) == 0 && sb.kind == CV_KIND_FILE &&
		    now - sb.atime > 7 * 86400 && now - sb.mtime > 86400)
			cv_os_unlink(p);
	}
	cv_dir_close(d);
}

/* Set the stamp's time one second in the past, so that a change in the
 * same clock tick as this run still tests newer at the next prompt. */
static int
touch(struct cv_hook_stamp *s, const char *given)
{
	char *out = s->path;
	size_t n = sizeof s->path;
	char dir[PATH_MAX];
	struct timespec ts[2];
	struct cv_stat sb;
	size_t dl;
	int fd;

	stamp_dir(dir, sizeof dir);
	dl = strlen(dir);
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	s->start = ts[0];
	ts[0].tv_sec -= 1;
	ts[1] = ts[0];
	if (given != NULL && strncmp(given, dir, dl) == 0 && given[dl] == '/' &&
	    strchr(given + dl + 1, '/') == NULL &&
	    strstr(given, "/stamp.") != NULL && cv_os_lstat(given, &sb) == 0 &&
	    sb.kind == CV_KIND_FILE && sb.uid == cv_os_euid() &&
	    cv_os_set_times_at(CV_AT_CWD, given, &ts[0], 1) == 0) {
		snprintf(out, n, "%s", given);
		return 0;
	}
	if (cv_fs_mkdirs(dir, 0700, NULL) < 0)
		return -1;
	sweep_stamps(dir);
	snprintf(out, n, "%s/stamp.XXXXXX", dir);
	fd = cv_os_mkstemp(out);
	if (fd < 0)
		return -1;
	cv_os_fset_times(fd, &ts[0]);
	cv_os_close(fd);
	return 0;
}

static int
ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Move the stamp up to the newest watched change, but keep it 10 ms before
 * this run started: file times come from a coarse clock, so a change made
 * while this ran still tests newer, and a change made before it no longer
 * makes every following prompt run the hook for a second. */
void
cv_hook_stamp_settle(const struct cv_hook_stamp *s, char *const *watched,
		     size_t n)
{
	const char *stamp = s->path;
	struct timespec ts[2], cap, newest = { 0, 0 };
	struct cv_stat sb;

	if (cv_os_stat(stamp, &sb) < 0)
		return;
	ts[0].tv_sec = (time_t)sb.mtime;
	ts[0].tv_nsec = sb.mtime_ns;
	cap = s->start;
	cap.tv_nsec -= 10000000;
	if (cap.tv_nsec < 0) {
		cap.tv_nsec += 1000000000;
		cap.tv_sec--;
	}
	for (size_t i = 0; i < n; i++) {
		struct timespec m;
		if (cv_os_stat(watched[i], &sb) != 0)
			continue;
		m.tv_sec = (time_t)sb.mtime;
		m.tv_nsec = sb.mtime_ns;
		if (ts_before(&newest, &m))
			newest = m;
	}
	if (ts_before(&cap, &newest))
		newest = cap;
	if (!ts_before(&ts[0], &newest))
		return;
	ts[0] = ts[1] = newest;
	cv_os_set_times_at(CV_AT_CWD, stamp, &ts[0], 1);
}

void
cv_hook_stamp_touch(struct cv_hook_stamp *s, const char *given)
{
	if (touch(s, given) < 0)
		s->path[0] = '\0';
}

void
cv_hook_watch_store(const struct cv_store *st, struct cv_strv *w)
{
	struct cv_stat sb;
	char *slash, parent[PATH_MAX];

	cv_strv_push(w, cv_store_root(st));
	/* the admin's installs and default change what is active too */
	if (cv_store_system_root(st) != NULL)
		cv_strv_push(w, cv_store_system_root(st));
	/* no store yet: watch the folder it will be made in */
	snprintf(parent, sizeof parent, "%s", cv_store_root(st));
	slash = strrchr(parent, '/');
	if (cv_os_stat(parent, &sb) < 0 && slash != NULL) {
		slash[slash == parent ? 1 : 0] = '\0';
		cv_strv_push(w, parent);
	}
}
