/* hook_env.c: called by the shell integration when something that could
 * change the active version changed. Prints the environment of the active
 * version (or what leaves it) and the hook's state: the folder and
 * CUDNNVM_VERSION it saw, a stamp file, and the files and folders whose
 * change (`-nt` the stamp) means it must run again. */
#include "cmd.h"
#include "ui.h"

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct timespec run_start;

static void
seen(void *payload, const char *path)
{
	cv_strv_push(payload, path);
}

static void
stamp_dir(char *out, size_t n)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	const char *cache = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct stat sb;

	if (rt && *rt == '/' && stat(rt, &sb) == 0 && S_ISDIR(sb.st_mode))
		snprintf(out, n, "%s/cudnnvm-hook", rt);
	else if (cache && *cache == '/')
		snprintf(out, n, "%s/cudnnvm/hook", cache);
	else
		snprintf(out, n, "%s/.cache/cudnnvm/hook",
			 home ? home : "/tmp");
}

/* Remove stamps of shells gone for a week (only when a new one is made). */
static void
sweep_stamps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat sb;
	time_t now = time(NULL);
	char p[PATH_MAX + 256];

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "stamp.", 6) != 0)
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    now - sb.st_atime > 7 * 86400 && now - sb.st_mtime > 86400)
			unlink(p);
	}
	closedir(d);
}

/* Set the stamp's time one second in the past, so that a change in the
 * same clock tick as this run still tests newer at the next prompt. */
static int
touch_stamp(const char *given, char *out, size_t n)
{
	char dir[PATH_MAX];
	struct timespec ts[2];
	struct stat sb;
	size_t dl;
	int fd;

	stamp_dir(dir, sizeof dir);
	dl = strlen(dir);
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	run_start = ts[0];
	ts[0].tv_sec -= 1;
	ts[1] = ts[0];
	if (given != NULL && strncmp(given, dir, dl) == 0 && given[dl] == '/' &&
	    strchr(given + dl + 1, '/') == NULL &&
	    strstr(given, "/stamp.") != NULL && lstat(given, &sb) == 0 &&
	    S_ISREG(sb.st_mode) && sb.st_uid == geteuid() &&
	    utimensat(AT_FDCWD, given, ts, AT_SYMLINK_NOFOLLOW) == 0) {
		snprintf(out, n, "%s", given);
		return 0;
	}
	if (cv_fs_mkdirs(dir, 0700, NULL) < 0)
		return -1;
	sweep_stamps(dir);
	snprintf(out, n, "%s/stamp.XXXXXX", dir);
	fd = mkstemp(out);
	if (fd < 0)
		return -1;
	futimens(fd, ts);
	close(fd);
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
static void
settle_stamp(const char *stamp, const struct cv_strv *w)
{
	struct timespec ts[2], cap, newest = { 0, 0 };
	struct stat sb;

	if (stat(stamp, &sb) < 0)
		return;
	ts[0] = sb.st_mtim;
	cap = run_start;
	cap.tv_nsec -= 10000000;
	if (cap.tv_nsec < 0) {
		cap.tv_nsec += 1000000000;
		cap.tv_sec--;
	}
	for (size_t i = 0; i < w->n; i++)
		if (stat(w->v[i], &sb) == 0 && ts_before(&newest, &sb.st_mtim))
			newest = sb.st_mtim;
	if (ts_before(&cap, &newest))
		newest = cap;
	if (!ts_before(&ts[0], &newest))
		return;
	ts[0] = ts[1] = newest;
	utimensat(AT_FDCWD, stamp, ts, AT_SYMLINK_NOFOLLOW);
}

int
cmd_hook_env(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "shell", required_argument, NULL, 's' },
		{ "stamp", required_argument, NULL, 't' },
		{ "leave", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	struct cv_err err = CV_ERR_INIT, err2 = CV_ERR_INIT;
	struct cv_store *st = NULL;
	struct cv_env env = CV_ENV_INIT;
	struct cv_buf *out = NULL;
	struct cv_strv w = CV_STRV_INIT;
	struct cv_active a;
	const char *given = NULL, *pwd, *ver;
	int c, sh = -1, leave = 0, r, status = 0, state;
	char cwd[PATH_MAX], stamp[PATH_MAX + 64] = "";

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's') {
			if (cv_shell_parse(optarg, &sh, &err) < 0)
				return cmd_fail(&err);
		} else if (c == 't')
			given = optarg;
		else if (c == 'l')
			leave = 1;
		else
			return cmd_usage_error("hook-env",
					       "unknown option '%s'",
					       argv[optind - 1]);
	}
	if (sh < 0 || argc != optind)
		return cmd_usage_error("hook-env", "expected --shell <shell>");
	state = !leave && (sh == CV_SHELL_BASH || sh == CV_SHELL_ZSH ||
			   sh == CV_SHELL_FISH);
	if (state && touch_stamp(given, stamp, sizeof stamp) < 0)
		stamp[0] = '\0';
	if ((r = cmd_open(NULL, &st, 0)) != 0)
		return r;
	out = cv_text_new();
	memset(&a, 0, sizeof a);
	if (!leave) {
		if (getcwd(cwd, sizeof cwd) == NULL)
			r = cv_err_errno(&err, CV_EIO,
					 "cannot find the current folder");
		else
			r = cv_active_resolve(st, cwd, &a, seen, &w, &err);
		if (r < 0) {
			/* nothing active (no origin, not found) is normal;
			 * anything else is said once (the state below stops
			 * repeats) */
			if (a.origin != CV_ORIGIN_NONE || r != CV_ENOTFOUND)
				status = cmd_fail(&err);
			a.id[0] = '\0';
		}
	}
	seen(&w, cv_store_root(st));
	/* the admin's installs and default change what is active too */
	if (cv_store_system_root(st) != NULL)
		seen(&w, cv_store_system_root(st));
	{
		/* no store yet: watch the folder it will be made in */
		struct stat sb;
		char *slash, parent[PATH_MAX];
		snprintf(parent, sizeof parent, "%s", cv_store_root(st));
		slash = strrchr(parent, '/');
		if (stat(parent, &sb) < 0 && slash != NULL) {
			slash[slash == parent ? 1 : 0] = '\0';
			seen(&w, parent);
		}
	}
	if (a.id[0] && !leave) {
		/* a prompt is never blocked: a version a framework here
		 * cannot load is activated with one warning, on the switch */
		const char *prev = getenv("CUDNNVM_ACTIVE");
		char msg[2048];
		if ((prev == NULL || strcmp(prev, a.id) != 0) &&
		    cv_gate_frameworks(st, a.id, NULL, NULL, msg, sizeof msg))
			ui_warn("%s is active but %s", a.id, msg);
	}
	r = cv_env_build(&env, st, a.id[0] ? a.id : NULL, NULL, NULL, &err2);
	if (r == 0)
		r = cv_shell_emit(out, sh, &env, &err2);
	if (r == 0 && state) {
		pwd = getenv("PWD");
		ver = getenv("CUDNNVM_VERSION");
		r = cv_shell_set(out, sh, "_CUDNNVM_PWD", pwd ? pwd : cwd, 0,
				 &err2);
		if (r == 0)
			r = cv_shell_set(out, sh, "_CUDNNVM_VER",
					 ver ? ver : "", 0, &err2);
		if (r == 0 && stamp[0])
			r = cv_shell_set(out, sh, "_CUDNNVM_STAMP", stamp, 0,
					 &err2);
		if (r == 0)
			r = cv_shell_set_list(out, sh, "_CUDNNVM_WATCH", w.v,
					      w.n, &err2);
	}
	if (r == 0 && stamp[0])
		settle_stamp(stamp, &w);
	if (r < 0)
		status = cmd_fail(&err2);
	else
		fputs(cv_text_str(out), stdout);
	cv_strv_release(&w);
	cv_text_free(out);
	cv_env_release(&env);
	cv_store_free(st);
	return status;
}
