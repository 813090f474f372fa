/* activate.c: which version is active and why. First match wins:
 * CUDNNVM_VERSION, the nearest .cudnn-version or .tool-versions `cudnn` line
 * from the working folder up to /, then the global link. Pin files are
 * opened without following links or blocking, must be small regular files,
 * and must name a version (never a path or URL). No network, ever. */
#include "activate/activate_int.h"
#include "base/base.h"
#include "release/release.h"
#include "store/store.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* a path's separator: '/', and on Windows '\\' too */
#ifdef _WIN32
#define IS_SEP(c) ((c) == '/' || (c) == '\\')
#else
#define IS_SEP(c) ((c) == '/')
#endif

/* Read at most CV_PIN_MAX bytes of the regular file `name` of the folder
 * `dirfd` into buf (NUL-ended); `path` names it in messages. */
static int
read_small(int dirfd, const char *name, const char *path, char *buf, size_t cap,
	   struct cv_err *err)
{
	struct cv_stat sb;
	long n;
	size_t got = 0;
	int fd = cv_os_open_at(
		dirfd, name, CV_OPEN_READ | CV_OPEN_NOFOLLOW | CV_OPEN_NONBLOCK,
		0);

	buf[0] = '\0';
	if (fd < 0) {
		if (errno == ELOOP)
			return cv_err_set(
				err, CV_EDATA,
				"pin file '%s' is a symlink; replace it with a file holding a version such as 9.13",
				path);
		return cv_err_errno(err, errno == EACCES ? CV_EPERM : CV_EDATA,
				    "cannot read pin file '%s'", path);
	}
	if (cv_os_fstat(fd, &sb) < 0 || sb.kind != CV_KIND_FILE) {
		cv_os_close(fd);
		return cv_err_set(
			err, CV_EDATA,
			"pin file '%s' is not a regular file; replace it with a file holding a version such as 9.13",
			path);
	}
	if (sb.size > (uint64_t)(cap - 1)) {
		cv_os_close(fd);
		return cv_err_set(
			err, CV_EDATA,
			"pin file '%s' is larger than %zu bytes; it should hold one version such as 9.13",
			path, cap - 1);
	}
	while (got < cap - 1) {
		n = cv_os_read(fd, buf + got, cap - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			cv_os_close(fd);
			errno = e;
			return cv_err_errno(err, CV_EIO,
					    "cannot read pin file '%s'", path);
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got == cap - 1) {
		char c;
		if (cv_os_read(fd, &c, 1) > 0) {
			cv_os_close(fd);
			return cv_err_set(
				err, CV_EDATA,
				"pin file '%s' is larger than %zu bytes; it should hold one version such as 9.13",
				path, cap - 1);
		}
	}
	cv_os_close(fd);
	buf[got] = '\0';
	if (memchr(buf, '\0', got) != NULL)
		return cv_err_set(
			err, CV_EDATA,
			"pin file '%s' holds binary data, not a version", path);
	return 0;
}

/* Check one token as a spec, with a clear reason when it is not; *v gets
 * the parsed value so that nothing parses it again. */
static int
check_spec(const char *path, const char *tok, char spec[64],
	   struct cv_version *v, struct cv_err *err)
{

	if (strchr(tok, '/') != NULL || strchr(tok, '\\') != NULL ||
	    strstr(tok, "://") != NULL || tok[0] == '~' || tok[0] == '.')
		return cv_err_set(
			err, CV_EDATA,
			"pin file '%s' names a path or URL ('%.80s'), not a version; write a version such as 9.13 into it",
			path, tok);
	if (strcmp(tok, CV_SYSTEM) == 0) {
		/* no cudnnvm version here: the framework's own or the
		 * system's cuDNN */
		memset(v, 0, sizeof *v);
		strcpy(spec, tok);
		return 0;
	}
	if (strlen(tok) >= 64 || cv_version_parse(v, tok, NULL) < 0)
		return cv_err_set(
			err, CV_EDATA,
			"pin file '%s' holds '%.40s', which is not a version spec such as 9.13 or 9.13.0.50-cuda12",
			path, tok);
	strcpy(spec, tok);
	return 0;
}

static int
has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\r')
			return 1;
		else if ((unsigned char)*s >= 0x7f)
			return 1;
	return 0;
}

static int
pin_read(int dirfd, const char *name, const char *path, int tool_versions,
	 char spec[64], struct cv_version *v, struct cv_err *err)
{
	char buf[CV_PIN_MAX + 1];
	char *line, *save = NULL;
	int found = 0, r;

	if ((r = read_small(dirfd, name, path, buf, sizeof buf, err)) < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char *hash = strchr(line, '#'), *tok, *s2 = NULL, *extra;

		if (hash != NULL)
			*hash = '\0';
		if (has_ctl(line))
			return cv_err_set(
				err, CV_EDATA,
				"pin file '%s' holds control or non-ASCII characters; it should hold one version such as 9.13",
				path);
		tok = strtok_r(line, " \t\r", &s2);
		if (tok == NULL)
			continue;
		if (tool_versions) {
			if (strcmp(tok, "cudnn") != 0)
				continue;
			tok = strtok_r(NULL, " \t\r", &s2);
			if (tok == NULL)
				return cv_err_set(
					err, CV_EDATA,
					"pin file '%s' has a 'cudnn' line without a version",
					path);
			/* asdf allows fallbacks after the first; use the
			 * first */
			return check_spec(path, tok, spec, v, err) < 0
				       ? err->code
				       : 1;
		}
		extra = strtok_r(NULL, " \t\r", &s2);
		if (found || extra != NULL)
			return cv_err_set(
				err, CV_EDATA,
				"pin file '%s' holds more than one version; keep exactly one",
				path);
		if ((r = check_spec(path, tok, spec, v, err)) < 0)
			return r;
		found = 1;
	}
	if (tool_versions)
		return 0;
	if (!found)
		return cv_err_set(
			err, CV_EDATA,
			"pin file '%s' holds no version; write one such as 9.13 into it or delete it",
			path);
	return 1;
}

int
cv_pin_read(const char *path, int tool_versions, char spec[64],
	    struct cv_err *err)
{
	struct cv_version v;

	return pin_read(CV_AT_CWD, path, path, tool_versions, spec, &v, err);
}

static const char *const pin_names[] = { CV_PIN_FILE, CV_TOOL_VERSIONS };

/* The pins of one folder: `dirfd` and `name` reach it (CV_AT_CWD and its
 * path, or its descriptor and "."); `shown` names it. */
static int
pins_in(int dirfd, const char *name, const char *shown, char file[4096],
	char spec[64], struct cv_version *v, cv_seen_fn seen, void *payload,
	struct cv_err *err)
{
	char look[4096];
	struct cv_stat sb;

	if (seen != NULL)
		seen(payload, shown);
	for (int i = 0; i < 2; i++) {
		/* shown and name are shorter than 4096 - 32 (checked by the
		 * callers), so the names always fit; joined with the
		 * platform's separator (base's) */
		char *j = cv_path_join(shown, pin_names[i]);
		snprintf(file, 4096, "%s", j);
		free(j);
		j = cv_path_join(name, pin_names[i]);
		snprintf(look, sizeof look, "%s", j);
		free(j);
		if (cv_os_stat_at(dirfd,
				  dirfd == CV_AT_CWD ? look : pin_names[i], 1,
				  &sb) < 0)
			continue;
		if (seen != NULL)
			seen(payload, file);
		if (cv_fs_project_foreign(dirfd,
					  dirfd == CV_AT_CWD ? name : ".",
					  pin_names[i], file))
			continue;
		int r = pin_read(dirfd,
				 dirfd == CV_AT_CWD ? look : pin_names[i], file,
				 i == 1, spec, v, err);
		if (r != 0)
			return r;
	}
	return 0;
}

/* The walk from a working folder whose path does not fit in PATH_MAX
 * (getcwd fails): from "." up by descriptors, so depth does not matter,
 * each folder named relative to the working one (./, ../, ../../...).
 * Stops at / (its own parent) or where ".." cannot be opened. */
static int
pin_find_here(char file[4096], char spec[64], struct cv_version *v,
	      cv_seen_fn seen, void *payload, struct cv_err *err)
{
	char shown[4096] = ".";
	int fd = cv_os_open(".", CV_OPEN_PATH | CV_OPEN_DIR, 0), r = 0;

	file[0] = '\0';
	while (fd >= 0 && r == 0) {
		struct cv_stat here, up;
		int next;

		if ((r = pins_in(fd, ".", shown, file, spec, v, seen, payload,
				 err)) != 0)
			break;
		next = cv_os_open_at(fd, "..", CV_OPEN_PATH | CV_OPEN_DIR, 0);
		if (next < 0 || cv_os_fstat(fd, &here) != 0 ||
		    cv_os_fstat(next, &up) != 0 ||
		    cv_os_same_file(&here, &up) ||
		    strlen(shown) + 4 >= sizeof shown - 32) {
			if (next >= 0)
				cv_os_close(next);
			break;
		}
		cv_os_close(fd);
		fd = next;
		if (strcmp(shown, ".") == 0)
			strcpy(shown, "..");
		else
			strcat(shown, "/..");
	}
	if (fd >= 0)
		cv_os_close(fd);
	if (r == 0)
		file[0] = '\0';
	return r;
}

static int
pin_find(const char *dir, char file[4096], char spec[64], struct cv_version *v,
	 cv_seen_fn seen, void *payload, struct cv_err *err)
{
	char cur[4096], *wd = NULL;
	size_t len, root;

	/* the working folder: by its path when it has one that fits, else
	 * by descriptors; every command gets the same answer either way */
	if (dir == NULL &&
	    ((wd = cv_os_getcwd()) == NULL || strlen(wd) >= sizeof cur - 32)) {
		free(wd);
		return pin_find_here(file, spec, v, seen, payload, err);
	}
	if (wd != NULL) {
		snprintf(cur, sizeof cur, "%s", wd);
		free(wd);
		dir = cur;
	}
	len = strlen(dir);
	/* the root the walk stops at: "/", or on Windows a drive's "C:\" */
#ifdef _WIN32
	root = ((dir[0] | 0x20) >= 'a' && (dir[0] | 0x20) <= 'z' &&
		dir[1] == ':' && IS_SEP(dir[2]))
		       ? 3
		       : 0;
#else
	root = dir[0] == '/' ? 1 : 0;
#endif
	if (root == 0 || len >= sizeof cur - 32)
		return cv_err_set(err, CV_EUSAGE,
				  "cannot search pins from '%.200s'", dir);
	memmove(cur, dir, len + 1);
	while (len > root && IS_SEP(cur[len - 1]))
		cur[--len] = '\0';
	/* Walk the string upwards: no link is followed, so no cycle. */
	for (;;) {
		int r = pins_in(CV_AT_CWD, cur, cur, file, spec, v, seen,
				payload, err);
		if (r != 0)
			return r;
		if (len == root)
			break;
		while (len > root && !IS_SEP(cur[len - 1]))
			len--;
		if (len > root)
			len--;
		cur[len] = '\0';
	}
	file[0] = '\0';
	return 0;
}

int
cv_pin_find(const char *dir, char file[4096], char spec[64], cv_seen_fn seen,
	    void *payload, struct cv_err *err)
{
	struct cv_version v;

	return pin_find(dir, file, spec, &v, seen, payload, err);
}

static int
pin_write_text(const char *dir, const char *text, struct cv_err *err)
{
	char *path = cv_path_join(dir, CV_PIN_FILE);
	char *line = xasprintf("%s\n", text);
	int r = cv_fs_write_atomic(path, line, strlen(line), 0644, err);

	free(line);
	free(path);
	return r;
}

int
cv_pin_write(const char *dir, const struct cv_version *spec, struct cv_err *err)
{
	char text[80];

	cv_version_format_id(spec, text, sizeof text);
	return pin_write_text(dir, text, err);
}

/* The buffer of a .tool-versions with its first `cudnn` line's version
 * replaced by `spec` (a trailing comment kept). NULL when it has none. */
static char *
tool_versions_replace(const char *text, const char *spec)
{
	const char *line = text;

	while (*line != '\0') {
		const char *end = strchr(line, '\n');
		const char *p = line + strspn(line, " \t");
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (strncmp(p, "cudnn", 5) == 0 &&
		    (p[5] == ' ' || p[5] == '\t') && p < line + len) {
			const char *hash = memchr(line, '#', len);
			const char *rest = hash ? hash : line + len;
			size_t head = (size_t)(p - text);
			size_t n = strlen(text) + strlen(spec) + 16;
			char *out = xmalloc(n);
			snprintf(out, n, "%.*scudnn %s%s%s", (int)head, text,
				 spec, hash ? " " : "", rest);
			return out;
		}
		if (end == NULL)
			break;
		line = end + 1;
	}
	return NULL;
}

/* Pin `text` (a spec, or "system") where the pin search reads it. */
static int
pin_set_text(const char *dir, const char *text, char file[4096],
	     struct cv_err *err)
{
	char buf[CV_PIN_MAX + 1], *tv, *pin, *out;
	struct cv_stat sb;
	int r;

	pin = cv_path_join(dir, CV_PIN_FILE);
	tv = cv_path_join(dir, CV_TOOL_VERSIONS);
	snprintf(file, 4096, "%s", pin);
	/* a .cudnn-version here is read first; update a .tool-versions line
	 * only when it is the pin that counts */
	if (cv_os_lstat(pin, &sb) < 0 && cv_os_lstat(tv, &sb) == 0) {
		if ((r = read_small(CV_AT_CWD, tv, tv, buf, sizeof buf, err)) <
		    0)
			goto out;
		out = tool_versions_replace(buf, text);
		if (out != NULL) {
			snprintf(file, 4096, "%s", tv);
			r = cv_fs_write_atomic(tv, out, strlen(out),
					       sb.perm & 0777, err);
			free(out);
			goto out;
		}
	}
	r = pin_write_text(dir, text, err);
out:
	free(pin);
	free(tv);
	return r;
}

int
cv_pin_set(const char *dir, const struct cv_version *spec, char file[4096],
	   struct cv_err *err)
{
	char text[80];

	if (spec == NULL)
		return pin_set_text(dir, CV_SYSTEM, file, err);
	cv_version_format_id(spec, text, sizeof text);
	return pin_set_text(dir, text, file, err);
}

/* The buffer of a .tool-versions without its `cudnn` lines; NULL when it
 * has none. */
static char *
tool_versions_drop(const char *text)
{
	size_t n = strlen(text);
	char *out = xmalloc(n + 1), *o = out;
	const char *line = text;
	int dropped = 0;

	while (*line != '\0') {
		const char *end = strchr(line, '\n');
		const char *p = line + strspn(line, " \t");
		size_t len = end ? (size_t)(end - line) + 1 : strlen(line);

		if (strncmp(p, "cudnn", 5) == 0 &&
		    (p[5] == ' ' || p[5] == '\t'))
			dropped = 1;
		else {
			memcpy(o, line, len);
			o += len;
		}
		line += len;
	}
	*o = '\0';
	if (!dropped) {
		free(out);
		return NULL;
	}
	return out;
}

int
cv_pin_unset(const char *dir, char file[4096], struct cv_err *err)
{
	char buf[CV_PIN_MAX + 1], *tv, *pin, *out = NULL;
	struct cv_stat sb;
	int r = 0;

	pin = cv_path_join(dir, CV_PIN_FILE);
	tv = cv_path_join(dir, CV_TOOL_VERSIONS);
	snprintf(file, 4096, "%s", pin);
	if (cv_os_lstat(pin, &sb) == 0) {
		if (cv_os_unlink(pin) < 0)
			r = cv_err_errno(err, cv_code_from_errno(errno),
					 "cannot remove '%s'", pin);
	} else if (cv_os_lstat(tv, &sb) == 0 &&
		   (r = read_small(CV_AT_CWD, tv, tv, buf, sizeof buf, err)) ==
			   0 &&
		   (out = tool_versions_drop(buf)) != NULL) {
		snprintf(file, 4096, "%s", tv);
		r = cv_fs_write_atomic(tv, out, strlen(out), sb.perm & 0777,
				       err);
	} else if (r == 0) {
		r = cv_err_set(err, CV_ENOTFOUND,
			       "no pin in this folder (%s, or a cudnn line in "
			       "%s)",
			       CV_PIN_FILE, CV_TOOL_VERSIONS);
	}
	free(out);
	free(pin);
	free(tv);
	return r;
}

int
cv_active_find(const struct cv_store *st, const struct cv_version *spec,
	       char id[64], struct cv_err *err)
{
	char text[64], hint[96];
	int r = cv_store_find(st, spec, id, err);

	if (r == CV_ENOTFOUND) {
		cv_version_format_id(spec, text, sizeof text);
		cv_install_hint(st, spec, hint, sizeof hint);
		cv_err_set(err, CV_ENOTFOUND, "cuDNN %s is not installed",
			   text);
		return cv_err_hint(err, "cudnnvm install %s", hint);
	}
	return r;
}

/* A pin with a cudnnvm.lock beside it that locks it means the locked
 * build: 1 with out->id set (origin LOCK), 0 when there is no lock or it
 * locks another pin (stale: the pin wins until `cudnnvm lock`), <0 for a
 * lock that cannot be read or whose build is not installed. */
static int
locked(const struct cv_store *st, struct cv_active *out, cv_seen_fn seen,
       void *payload, struct cv_err *err)
{
	struct cv_lock lk;
	int r;

	cv_lock_path(out->file, out->lock);
	{
		char dir[4096], *slash;
		snprintf(dir, sizeof dir, "%s", out->lock);
		slash = (char *)cv_path_base(dir);
		if (slash != dir) {
			slash[-1] = '\0';
			if (cv_fs_project_foreign(CV_AT_CWD, *dir ? dir : "/",
						  CV_LOCK_FILE, out->lock)) {
				out->lock[0] = '\0';
				return 0;
			}
		}
	}
	r = cv_lock_read(out->lock, &lk, err);
	if (r == CV_ENOTFOUND) {
		out->lock[0] = '\0';
		if (err != NULL)
			*err = (struct cv_err)CV_ERR_INIT;
		return 0;
	}
	if (seen != NULL)
		seen(payload, out->lock);
	if (r < 0)
		return cv_err_hint(err, "cudnnvm lock");
	if (!cv_lock_matches(&lk, &out->version)) {
		out->lock[0] = '\0';
		return 0;
	}
	out->origin = CV_ORIGIN_LOCK;
	snprintf(out->id, sizeof out->id, "%s", lk.id);
	if (!cv_store_has(st, out->id)) {
		cv_err_set(err, CV_ENOTFOUND,
			   "%s: cuDNN %s, which it locks, is not installed",
			   out->lock, out->id);
		return cv_err_hint(err, "cudnnvm install");
	}
	return 1;
}

int
cv_active_walk(const struct cv_store *st, const char *cwd,
	       struct cv_active *out, cv_seen_fn seen, void *payload,
	       struct cv_err *err)
{
	const char *env = getenv("CUDNNVM_VERSION");
	int r, from_system;

	memset(out, 0, sizeof *out);
	if (env != NULL && *env != '\0') {
		if (strlen(env) >= sizeof out->spec ||
		    cv_version_parse(&out->version, env, NULL) < 0) {
			cv_err_set(
				err, CV_EUSAGE,
				"CUDNNVM_VERSION='%.40s' is not a version spec",
				env);
			return cv_err_hint(err, "unset CUDNNVM_VERSION");
		}
		out->origin = CV_ORIGIN_ENV;
		strcpy(out->spec, env);
		r = cv_active_find(st, &out->version, out->id, err);
		if (r < 0)
			cv_err_prefix(err, "CUDNNVM_VERSION: ");
		return r;
	}
	{
		r = pin_find(cwd, out->file, out->spec, &out->version, seen,
			     payload, err);
		if (r < 0)
			return r;
		if (r == 1 && strcmp(out->spec, CV_SYSTEM) == 0) {
			out->origin = CV_ORIGIN_FILE;
			out->system = 1;
			return cv_err_set(err, CV_ENOTFOUND,
					  "%s says 'system': no cudnnvm "
					  "version here (the framework's own "
					  "cuDNN or the system's is used)",
					  out->file);
		}
		if (r == 1) {
			out->origin = CV_ORIGIN_FILE;
			if ((r = locked(st, out, seen, payload, err)) != 0)
				return r < 0 ? r : 0;
			r = cv_active_find(st, &out->version, out->id, err);
			if (r < 0)
				cv_err_prefix(err, "%s: ", out->file);
			return r;
		}
		out->file[0] = '\0';
	}
	r = cv_store_default_get(st, out->id, &from_system, err);
	if (r < 0) {
		if (r == CV_ENOTFOUND) {
			cv_err_set(
				err, CV_ENOTFOUND,
				"no cuDNN version is active (no CUDNNVM_VERSION, no pin file, no global default)");
			/* the prompt hook (the caller that watches files) never
			 * shows this error, so it does not pay for reading
			 * every version the hint looks at */
			if (err != NULL && seen == NULL) {
				char *pick = cv_hint_pick_global(st);
				cv_err_hint(err, "%s", pick);
				free(pick);
			}
		}
		return r;
	}
	out->origin = from_system ? CV_ORIGIN_SYSTEM : CV_ORIGIN_GLOBAL;
	strcpy(out->spec, out->id);
	if (strcmp(out->id, CV_SYSTEM) == 0) {
		out->system = 1;
		out->id[0] = '\0';
		return cv_err_set(err, CV_ENOTFOUND,
				  "the global default is 'system': no cudnnvm "
				  "version (the framework's own cuDNN or the "
				  "system's is used)");
	}
	cv_install_id_parse(&out->version, out->id, NULL);
	if (!cv_store_has(st, out->id)) {
		if (!from_system && cv_store_global_in_system(st)) {
			char *pick;

			/* not the user's doing: another global, or the
			 * admin's default again */
			cv_err_set(err, CV_ENOTFOUND,
				   "the global version %s is no longer in the "
				   "system store %s (its administrator removed "
				   "it)",
				   out->id, cv_store_system_root(st));
			pick = cv_hint_pick_global(st);
			cv_err_hint(err, "%s", pick);
			free(pick);
			return cv_err_hint(err, "cudnnvm global --unset");
		}
		cv_err_set(err, CV_ENOTFOUND,
			   "the global version %s is no longer installed",
			   out->id);
		return cv_err_hint(err, "cudnnvm install %s", out->id);
	}
	return 0;
}
