/* modulefile.c: Lmod / Environment Modules files for installed versions.
 * Each file sets exactly what cv_env_build sets for a version (list
 * variables prepended, scalars pushed so that `module unload` gives back
 * the previous value) plus CUDNNVM_VERSION, so that `cudnnvm current`,
 * `exec` and the prompt hook agree with a loaded module.
 *
 * A module folder holds a marker file naming the format; a folder or a
 * file without our marker was written by someone else and is never
 * overwritten or removed. */
#include "activate/activate_int.h"
#include "base/base.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK        "cudnnvm-generated modulefile; 'cudnnvm modulefiles' rewrites it"
#define MARKER_FILE ".cudnnvm"
#define MODULE_NAME "cudnn"
int
cv_modulefile_format_parse(const char *s, int *fmt, struct cv_err *err)
{
	if (strcmp(s, "lua") == 0)
		*fmt = CV_MODFMT_LUA;
	else if (strcmp(s, "tcl") == 0)
		*fmt = CV_MODFMT_TCL;
	else
		return cv_err_set(
			err, CV_EUSAGE,
			"unknown module file format '%.20s'; use lua or tcl",
			s);
	return 0;
}

static const char *
nothing(void *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return NULL;
}

/* Whether `s` can go into a Lua double-quoted string and a Tcl braced
 * word (or a Tcl double-quoted one) as it is: nothing either language
 * reads specially. */
static int
plain(const char *s, const char *what, struct cv_err *err)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '\\' || *p == '"' ||
		    *p == '{' || *p == '}' || *p == '[' || *p == ']' ||
		    *p == '$')
			return cv_err_set(
				err, CV_EDATA,
				"the %s '%.200s' holds a character a module file cannot carry; move the store to a plain path",
				what, s);
	return 0;
}

/* Lua: a double-quoted string; Tcl: a braced word. */
static int
add_quoted(struct cv_buf *b, int fmt, const char *s, struct cv_err *err)
{
	int r = plain(s, "path", err);

	if (r < 0)
		return r;
	return cv_buf_addf(b, fmt == CV_MODFMT_LUA ? "\"%s\"" : "{%s}", s);
}

static int
is_list(const char *name)
{
	return strcmp(name, "LD_LIBRARY_PATH") == 0 ||
	       strcmp(name, "CPATH") == 0 ||
	       strcmp(name, "LIBRARY_PATH") == 0 || strcmp(name, "PATH") == 0;
}

static int
add_line(struct cv_buf *b, int fmt, const char *verb, const char *name,
	 const char *value, struct cv_err *err)
{
	int r;

	if (fmt == CV_MODFMT_LUA) {
		cv_buf_addf(b, "%s(\"%s\", ", verb, name);
		if ((r = add_quoted(b, fmt, value, err)) < 0)
			return r;
		return cv_buf_adds(b, ")\n");
	}
	if (strcmp(verb, "pushenv") == 0)
		cv_buf_addf(b, "$cudnnvm_scalar %s ", name);
	else
		cv_buf_addf(b, "prepend-path %s ", name);
	if ((r = add_quoted(b, fmt, value, err)) < 0)
		return r;
	return cv_buf_adds(b, "\n");
}

int
cv_modulefile_render(struct cv_buf *out, int fmt, const char *id, int cuda,
		     const char *platform, const struct cv_env *env,
		     struct cv_err *err)
{
	int r;

	/* the id and platform go into the whatis text unquoted */
	if ((r = plain(id, "install id", err)) < 0 ||
	    (r = plain(platform, "platform", err)) < 0)
		return r;
	if (fmt == CV_MODFMT_LUA)
		cv_buf_addf(
			out,
			"-- " MARK "\n"
			"whatis(\"cuDNN %s (CUDA %d, %s) from the cudnnvm store\")\n"
			"help([[\n" CV_MODULE_HELP "]])\n"
			"family(\"" MODULE_NAME "\")\n"
			"conflict(\"" MODULE_NAME "\")\n",
			id, cuda, platform, id);
	else
		cv_buf_addf(
			out,
			"#%%Module1.0\n"
			"# " MARK "\n"
			"module-whatis {cuDNN %s (CUDA %d, %s) from the cudnnvm store}\n"
			"proc ModulesHelp {} {\n"
			"    puts stderr {" CV_MODULE_HELP "}\n"
			"}\n"
			"conflict " MODULE_NAME "\n"
			"# Lmod's Tcl reader records the value pushenv sets as the one\n"
			"# to restore, so there scalars use setenv (unload unsets them);\n"
			"# Lmod sites wanting old values back use --format lua.\n"
			"if {[info exists ModuleTool] && $ModuleTool eq {Lmod}} {\n"
			"    set cudnnvm_scalar setenv\n"
			"} else {\n"
			"    set cudnnvm_scalar pushenv\n"
			"}\n",
			id, cuda, platform, id);
	for (size_t i = 0; i < env->n && r == 0; i++) {
		const char *name = env->v[i].name, *value = env->v[i].value;
		if (value == NULL || strncmp(name, "CUDNNVM_SAVED_", 14) == 0)
			continue;
		/* names are written bare: only a variable's characters */
		if (name[0] == '\0' ||
		    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "abcdefghijklmnopqrstuvwxyz"
				 "0123456789_") != strlen(name))
			return cv_err_set(err, CV_EDATA,
					  "'%.100s' is not a variable name",
					  name);
		r = add_line(out, fmt,
			     is_list(name) ? "prepend_path" : "pushenv", name,
			     value, err);
	}
	if (r == 0)
		r = add_line(out, fmt, "pushenv", "CUDNNVM_VERSION", id, err);
	if (r == 0) {
		/* `cudnnvm current` names the module that set the version */
		char *mod = xasprintf(MODULE_NAME "/%s", id);
		r = add_line(out, fmt, "pushenv", "CUDNNVM_MODULE", mod, err);
		free(mod);
	}
	return r;
}

int
cv_modulefile_text(struct cv_buf *out, const struct cv_store *st,
		   const struct cv_installed *inst, int fmt, struct cv_err *err)
{
	struct cv_env env = CV_ENV_INIT;
	int r;

	if ((r = cv_env_build(&env, st, inst->id, nothing, NULL, err)) < 0)
		return r;
	r = cv_modulefile_render(out, fmt, inst->id, inst->version.cuda,
				 inst->platform, &env, err);
	cv_env_release(&env);
	return r;
}

/* 1 when `path` is a regular file whose first two lines carry MARK (or
 * `what` for the marker file), 0 when it is someone else's, -1 when it
 * does not exist. */
static int
ours(int dfd, const char *name, const char *what)
{
	char head[512];

	if (cv_fs_read_head(dfd, name, 1, head, sizeof head) <= 0)
		return errno == ENOENT ? -1 : 0;
	return strstr(head, what) != NULL;
}

/* Write dir/name atomically: a temporary file, then rename over. */
static int
write_file(int dfd, const char *dir, const char *name, const char *text,
	   struct cv_err *err)
{
	char *tmp = xasprintf(".%s.tmp.%ld", name, cv_os_pid());
	int fd, r = 0;

	cv_os_remove_at(dfd, tmp, 0);
	fd = cv_os_open_at(dfd, tmp,
			   CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL |
				   CV_OPEN_NOFOLLOW,
			   0644);
	if (fd < 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot write '%s/%s'", dir, name);
		free(tmp);
		return r;
	}
	if (cv_os_write_all(fd, text, strlen(text)) != 0)
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot write '%s/%s'", dir, name);
	if (r == 0 && cv_os_sync(fd) != 0)
		r = cv_err_errno(err, CV_EIO, "cannot write '%s/%s'", dir,
				 name);
	cv_os_close(fd);
	if (r == 0 && cv_os_rename_at(dfd, tmp, dfd, name) != 0)
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot write '%s/%s'", dir, name);
	if (r < 0)
		cv_os_remove_at(dfd, tmp, 0);
	free(tmp);
	return r;
}

static int
empty_dir(int dfd)
{
	struct cv_dir *d = cv_dir_open_at(dfd, ".", 0);
	int empty = 1;

	if (d == NULL)
		return 0;
	while (cv_dir_next(d, NULL) != NULL)
		empty = 0;
	cv_dir_close(d);
	return empty;
}

static int
refuse(const char *dir, const char *name, struct cv_err *err)
{
	return cv_err_set(
		err, CV_ESTORE,
		"'%s/%s' was not written by cudnnvm; refusing to overwrite it (move it away, or pick another folder with --out)",
		dir, name);
}

static char *
file_name(const char *id, int fmt)
{
	return fmt == CV_MODFMT_LUA ? xasprintf("%s.lua", id) : xstrdup(id);
}

/* Whether `name` is a module file of some id (ours or not). */
static int
names_version(const char *name)
{
	struct cv_version v;
	char id[64];
	size_t n = strlen(name);

	if (n > 4 && strcmp(name + n - 4, ".lua") == 0)
		n -= 4;
	if (n == 0 || n >= sizeof id)
		return 0;
	memcpy(id, name, n);
	id[n] = '\0';
	return cv_install_id_parse(&v, id, NULL) == 0;
}

static int
foreign(const char *path, const struct cv_stat *sb, int sticky_ok,
	struct cv_err *err)
{
	int who = cv_fs_foreign_writer(sb, sticky_ok);

	if (who == 'u')
		return cv_err_set(
			err, CV_ESTORE,
			"'%s' belongs to another user (uid %ld), who could change the module files written there; refusing to write them (pick a folder of your own with --out DIR)",
			path, sb->uid);
	if (who != 0)
		return cv_err_set(
			err, CV_ESTORE,
			"'%s' is writable by %s, who could change the module files written there; refusing to write them (chmod go-w '%s', or pick another folder with --out DIR)",
			path, who == 'o' ? "every user" : "its group", path);
	return 0;
}

/* Everyone who loads a module runs what it sets, so whoever could change
 * the folder could make them load their libraries: every folder above the
 * module folder that exists (checked before anything is made there) must
 * be this user's or root's and writable by nobody else, as the store is;
 * the module folder itself is checked on its descriptor once open. */
static int
above_one(const char *dir, const struct cv_stat *sb, void *err)
{
	return sb == NULL ? 0 : foreign(dir, sb, 1, err);
}

static int
check_above(const char *dir, struct cv_err *err)
{
	return cv_fs_walk_up(dir, 0, above_one, err);
}

int
cv_modulefiles_write(const char *outdir, const struct cv_store *st,
		     const struct cv_installed *list, size_t n,
		     const char *default_id, int fmt, struct cv_err *err)
{
	char *dir = cv_path_join(outdir, MODULE_NAME);
	struct cv_buf text = CV_BUF_INIT;
	const char *fmtname = fmt == CV_MODFMT_LUA ? "lua" : "tcl";
	char *marker = xasprintf("format=%s\n", fmtname);
	struct cv_stat sb;
	struct cv_dir *d = NULL;
	const char *de;
	int dfd = -1, r = 0, m;

	if ((r = check_above(dir, err)) < 0)
		goto out;
	if (cv_os_lstat(dir, &sb) == 0) {
		if (sb.kind != CV_KIND_DIR) {
			r = cv_err_set(
				err, CV_ESTORE,
				"'%s' is not a folder; refusing to use it",
				dir);
			goto out;
		}
		dfd = cv_os_open(
			dir, CV_OPEN_READ | CV_OPEN_DIR | CV_OPEN_NOFOLLOW, 0);
		if (dfd >= 0 && ours(dfd, MARKER_FILE, "format=") != 1 &&
		    !empty_dir(dfd)) {
			r = cv_err_set(
				err, CV_ESTORE,
				"module folder '%s' was not written by cudnnvm; refusing to overwrite it (pick another folder with --out)",
				dir);
			goto out;
		}
	} else {
		if ((r = cv_fs_mkdirs(dir, 0755, err)) < 0)
			goto out;
		dfd = cv_os_open(
			dir, CV_OPEN_READ | CV_OPEN_DIR | CV_OPEN_NOFOLLOW, 0);
	}
	if (dfd < 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot open '%s'", dir);
		goto out;
	}
	if (cv_os_fstat(dfd, &sb) != 0) {
		r = cv_err_errno(err, CV_EIO, "cannot inspect '%s'", dir);
		goto out;
	}
	if ((r = foreign(dir, &sb, 0, err)) < 0 ||
	    (r = write_file(dfd, dir, MARKER_FILE, marker, err)) < 0)
		goto out;

	/* every file we are about to write must be ours or absent */
	for (size_t i = 0; i < n && r == 0; i++) {
		char *name = file_name(list[i].id, fmt);
		if (ours(dfd, name, MARK) == 0)
			r = refuse(dir, name, err);
		free(name);
	}
	if (r == 0 && default_id != NULL && ours(dfd, ".version", MARK) == 0)
		r = refuse(dir, ".version", err);
	if (r < 0)
		goto out;

	/* drop our files of versions no longer installed, or of the other
	 * format; leave everything else alone */
	if ((d = cv_dir_open_at(dfd, ".", 0)) != NULL) {
		while ((de = cv_dir_next(d, NULL)) != NULL) {
			int keep = 0;
			if (!names_version(de) || ours(dfd, de, MARK) != 1)
				continue;
			for (size_t i = 0; i < n && !keep; i++) {
				char *name = file_name(list[i].id, fmt);
				keep = strcmp(name, de) == 0;
				free(name);
			}
			if (!keep && cv_os_remove_at(dfd, de, 0) != 0 &&
			    errno != ENOENT) {
				r = cv_err_errno(err, cv_code_from_errno(errno),
						 "cannot remove '%s/%s'", dir,
						 de);
				break;
			}
		}
		cv_dir_close(d);
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		char *name = file_name(list[i].id, fmt);
		cv_buf_reset(&text);
		if ((r = cv_modulefile_text(&text, st, &list[i], fmt, err)) ==
		    0)
			r = write_file(dfd, dir, name, text.buf, err);
		free(name);
	}
	if (r < 0)
		goto out;
	m = ours(dfd, ".version", MARK);
	if (default_id != NULL) {
		if ((r = plain(default_id, "install id", err)) < 0)
			goto out;
		cv_buf_reset(&text);
		cv_buf_addf(&text,
			    "#%%Module1.0\n# " MARK
			    "\nset ModulesVersion \"%s\"\n",
			    default_id);
		r = write_file(dfd, dir, ".version", text.buf, err);
	} else if (m == 1 && cv_os_remove_at(dfd, ".version", 0) != 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot remove '%s/.version'", dir);
	}
out:
	if (dfd >= 0)
		cv_os_close(dfd);
	cv_buf_release(&text);
	free(marker);
	free(dir);
	return r;
}

int
cv_modulefiles_format_of(const char *outdir, int *fmt)
{
	char *dir = cv_path_join(outdir, MODULE_NAME);
	int dfd = cv_os_open(dir, CV_OPEN_READ | CV_OPEN_DIR | CV_OPEN_NOFOLLOW,
			     0);
	char buf[64];
	long n;
	int fd, found = 0;

	free(dir);
	if (dfd < 0)
		return 0;
	fd = cv_os_open_at(dfd, MARKER_FILE, CV_OPEN_READ | CV_OPEN_NOFOLLOW,
			   0);
	cv_os_close(dfd);
	if (fd < 0)
		return 0;
	n = cv_os_read(fd, buf, sizeof buf - 1);
	cv_os_close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (strncmp(buf, "format=lua", 10) == 0) {
		*fmt = CV_MODFMT_LUA;
		found = 1;
	} else if (strncmp(buf, "format=tcl", 10) == 0) {
		*fmt = CV_MODFMT_TCL;
		found = 1;
	}
	return found;
}

int
cv_modulefiles_write_store(const struct cv_store *st, const char *outdir,
			   int fmt, size_t *n, struct cv_err *err)
{
	struct cv_installed *all = NULL;
	char global[64], *own = NULL;
	size_t kept = 0;
	int r;

	if ((r = cv_store_list(st, &all, n, err)) < 0)
		return r;
	/* a user's tree holds their own store only: the system store's
	 * versions are the admin's tree's, and copies here would be listed
	 * twice and outlive the admin's uninstall */
	for (size_t i = 0; i < *n; i++)
		if (cv_store_system_root(st) == NULL ||
		    all[i].store != CV_STORE_SYSTEM)
			all[kept++] = all[i];
	*n = kept;
	if (cv_store_global_get(st, global, NULL) < 0 ||
	    strcmp(global, CV_SYSTEM) == 0 || cv_store_in_system(st, global))
		global[0] = '\0';
	if (outdir == NULL)
		outdir = own = cv_path_join(cv_store_root(st), "modulefiles");
	r = cv_modulefiles_write(outdir, st, all, *n, global[0] ? global : NULL,
				 fmt, err);
	free(all);
	free(own);
	return r;
}

int
cv_modulefiles_refresh(const struct cv_store *st, struct cv_err *err)
{
	char *outdir = cv_path_join(cv_store_root(st), "modulefiles");
	size_t n;
	int fmt, r = 0;

	if (cv_modulefiles_format_of(outdir, &fmt))
		r = cv_modulefiles_write_store(st, outdir, fmt, &n, err);
	free(outdir);
	return r;
}
