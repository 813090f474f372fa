/* doctor.c: findings about the store and the environment that make cuDNN
 * load the wrong files or none: store health, other cuDNN copies that
 * shadow the active one, CUDA toolkit and driver versions, cuBLASLt, and
 * Python environments that bundle their own cuDNN. Each finding says what,
 * why, and the one command that fixes it. Also the catalogue of the
 * classic error messages and their causes. */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct findings {
	struct cv_finding *f;
	size_t n, alloc;
	/* folders already reported as holding another cuDNN */
	char **seen;
	size_t nseen;
};

static void add(struct findings *fs, int level, const char *fix,
		const char *why, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void
add(struct findings *fs, int level, const char *fix, const char *why,
    const char *fmt, ...)
{
	struct cv_finding *f;
	va_list ap;

	if (fs->n == fs->alloc) {
		fs->alloc = fs->alloc ? fs->alloc * 2 : 8;
		fs->f = xrealloc(fs->f, fs->alloc * sizeof *fs->f);
	}
	f = &fs->f[fs->n++];
	f->level = level;
	va_start(ap, fmt);
	f->what = xvasprintf(fmt, ap);
	va_end(ap);
	f->why = xstrdup(why ? why : "");
	f->fix = xstrdup(fix ? fix : "");
}

/* Single-quote for a POSIX shell. */
static char *
shq(const char *s)
{
	struct cv_buf b = CV_BUF_INIT;

	cv_buf_adds(&b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			cv_buf_adds(&b, "'\\''");
		else
			cv_buf_add(&b, s, 1);
	}
	cv_buf_adds(&b, "'");
	return cv_buf_detach(&b);
}

/* ---- store health ----------------------------------------------------- */

static void
check_staging(struct findings *fs, const char *root)
{
	char *dir = cv_path_join(root, ".staging");
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d != NULL && (e = readdir(d)) != NULL) {
		char *path, *lock, *q, *fix;
		size_t len = strlen(e->d_name);
		int fd, busy = 0;

		if (e->d_name[0] == '.' ||
		    (len > 5 && strcmp(e->d_name + len - 5, ".lock") == 0))
			continue;
		path = cv_path_join(dir, e->d_name);
		lock = xasprintf("%s.lock", path);
		/* An install in progress holds the lock: leave it alone. */
		fd = open(lock, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (flock(fd, LOCK_EX | LOCK_NB) < 0 &&
			    errno == EWOULDBLOCK)
				busy = 1;
			close(fd);
		}
		if (!busy) {
			q = shq(path);
			fix = xasprintf("rm -rf %s", q);
			add(fs, CV_LEVEL_WARN, fix,
			    "an install was interrupted; the next install also "
			    "sweeps it",
			    "abandoned staging folder %s", path);
			free(fix);
			free(q);
		}
		free(lock);
		free(path);
	}
	if (d != NULL)
		closedir(d);
	free(dir);
}

static void
check_current(struct findings *fs, const char *root)
{
	char *cur = cv_path_join(root, "current"), target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (lstat(cur, &st) < 0) {
		free(cur);
		return;
	}
	if (!S_ISLNK(st.st_mode)) {
		char *q = shq(cur), *fix = xasprintf("rm -rf %s", q);
		add(fs, CV_LEVEL_ERROR, fix,
		    "current must be a symbolic link to an install id; "
		    "then run 'cudnnvm global <version>'",
		    "%s is not a symbolic link", cur);
		free(fix);
		free(q);
		free(cur);
		return;
	}
	n = readlink(cur, target, sizeof target - 1);
	target[n > 0 ? n : 0] = '\0';
	if (strchr(target, '/') != NULL || target[0] == '.' || n <= 0) {
		add(fs, CV_LEVEL_ERROR, "cudnnvm global --unset",
		    "cudnnvm only makes links to a folder of the store; "
		    "someone else changed it",
		    "foreign current link: %s -> %s", cur, target);
	} else if (stat(cur, &st) < 0 || !S_ISDIR(st.st_mode)) {
		add(fs, CV_LEVEL_ERROR, "cudnnvm global --unset",
		    "the version it names is not installed (removed by "
		    "hand?); then pick one with 'cudnnvm global <version>'",
		    "dangling current link: %s -> %s", cur, target);
	}
	free(cur);
}

/* The first file under `dir` (recursively) that this user cannot read,
 * or that is not world-readable. */
static int
find_unreadable(const char *dir, char *out, size_t n, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (d == NULL) {
		if (errno == EACCES) {
			snprintf(out, n, "%s", dir);
			return 1;
		}
		return 0;
	}
	while (!found && (e = readdir(d)) != NULL) {
		struct stat st;
		char *p;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		p = cv_path_join(dir, e->d_name);
		if (lstat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode) && depth < 8)
				found = find_unreadable(p, out, n, depth + 1);
			else if (S_ISREG(st.st_mode) &&
				 ((st.st_mode & 0444) != 0444 ||
				  access(p, R_OK) != 0)) {
				snprintf(out, n, "%s", p);
				found = 1;
			}
		}
		free(p);
	}
	closedir(d);
	return found;
}

static void
check_installs(struct findings *fs, const char *root)
{
	DIR *d = opendir(root);
	struct dirent *e;

	/* a user who only uses the system store's versions has no store
	 * of their own yet: nothing there to check */
	if (d == NULL && errno == ENOENT)
		return;
	if (d == NULL) {
		add(fs, CV_LEVEL_ERROR, NULL,
		    "the store folder cannot be listed",
		    "cannot read the store %s: %s", root, strerror(errno));
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char *dir, *meta, bad[PATH_MAX];
		struct stat st;

		/* modulefiles: the store's module folder, not an install */
		if (e->d_name[0] == '.' || strcmp(e->d_name, "current") == 0 ||
		    strcmp(e->d_name, "modulefiles") == 0)
			continue;
		dir = cv_path_join(root, e->d_name);
		if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
			free(dir);
			continue;
		}
		meta = cv_path_join(dir, "cudnnvm.json");
		if (access(meta, F_OK) != 0) {
			char *fix = xasprintf("cudnnvm install %s --force",
					      e->d_name);
			add(fs, CV_LEVEL_WARN, fix,
			    "every install has a cudnnvm.json; this folder "
			    "was made or changed by hand",
			    "%s has no cudnnvm.json", dir);
			free(fix);
		}
		if (find_unreadable(dir, bad, sizeof bad, 0)) {
			char *q = shq(dir), *fix;
			fix = xasprintf("sudo chmod -R a+rX %s", q);
			add(fs, CV_LEVEL_ERROR, fix,
			    "users other than its owner cannot load it (the "
			    "classic missing chmod a+r after copying cuDNN "
			    "by hand)",
			    "unreadable file in %s: %s", e->d_name, bad);
			free(fix);
			free(q);
		}
		free(meta);
		free(dir);
	}
	closedir(d);
}

/* ---- other cuDNN copies ----------------------------------------------- */

static int
seen_before(struct findings *fs, const char *dir)
{
	char real[PATH_MAX];

	if (realpath(dir, real) == NULL)
		snprintf(real, sizeof real, "%s", dir);
	for (size_t i = 0; i < fs->nseen; i++)
		if (strcmp(fs->seen[i], real) == 0)
			return 1;
	fs->seen = xrealloc(fs->seen, (fs->nseen + 1) * sizeof *fs->seen);
	fs->seen[fs->nseen++] = xstrdup(real);
	return 0;
}

/* The libcudnn.so.N that `dir` holds ("libcudnn.so.9"), or NULL. */
static char *
cudnn_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;

	while (d != NULL && found == NULL && (e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "libcudnn.so.", 12) == 0 &&
		    e->d_name[12] >= '0' && e->d_name[12] <= '9')
			found = xstrndup(e->d_name, 12 + strspn(e->d_name + 12,
								"0123456789"));
	if (d != NULL)
		closedir(d);
	return found;
}

static int
same_dir(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (a == NULL || b == NULL)
		return 0;
	if (realpath(a, ra) == NULL || realpath(b, rb) == NULL)
		return strcmp(a, b) == 0;
	return strcmp(ra, rb) == 0;
}

static void
check_ld_path(struct findings *fs, const struct cv_doctor_ctx *ctx,
	      const char *active_lib)
{
	const char *ld = getenv("LD_LIBRARY_PATH");
	char *copy, *save = NULL;
	int active_seen = 0;

	if (ld == NULL || *ld == '\0')
		return;
	copy = xstrdup(ld);
	for (char *d = strtok_r(copy, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		char *so, *rest, *q, *fix;

		if (same_dir(d, active_lib)) {
			active_seen = 1;
			continue;
		}
		so = cudnn_in(d);
		if (so == NULL || seen_before(fs, d)) {
			free(so);
			continue;
		}
		rest = cv_env_path_remove(ld, d);
		q = shq(rest);
		fix = *rest ? xasprintf("export LD_LIBRARY_PATH=%s", q)
			    : xstrdup("unset LD_LIBRARY_PATH");
		if (ctx->active_id != NULL && !active_seen)
			add(fs, CV_LEVEL_ERROR, fix,
			    "it comes before the active version on "
			    "LD_LIBRARY_PATH, so programs load it instead "
			    "(cuDNN 9 even takes its sub-libraries from it: "
			    "a mixed load)",
			    "LD_LIBRARY_PATH entry %s holds another cuDNN "
			    "(%s)",
			    d, so);
		else
			add(fs, CV_LEVEL_WARN, fix,
			    ctx->active_id
				    ? "a sub-library missing from the active "
				      "version would be taken from it"
				    : "no version is active, so programs load "
				      "this one",
			    "LD_LIBRARY_PATH entry %s holds another cuDNN "
			    "(%s)",
			    d, so);
		free(fix);
		free(q);
		free(rest);
		free(so);
	}
	free(copy);
}

struct ldcheck {
	struct findings *fs;
	const char *root;
};

static void
ldcheck_cb(void *payload, const char *soname, const char *path)
{
	struct ldcheck *lc = payload;
	char dir[PATH_MAX];
	char *slash;

	if (strncmp(soname, "libcudnn.so.", 12) != 0)
		return;
	snprintf(dir, sizeof dir, "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		return;
	*slash = '\0';
	if (strncmp(dir, lc->root, strlen(lc->root)) == 0 ||
	    seen_before(lc->fs, dir))
		return;
	add(lc->fs, CV_LEVEL_WARN, "eval \"$(cudnnvm env)\"",
	    "it is in the system loader cache (ldconfig), so every "
	    "program without the active version on LD_LIBRARY_PATH "
	    "loads it",
	    "system cuDNN in %s (%s)", dir, soname);
}

static void
check_ldconfig(struct findings *fs, const char *root)
{
	struct ldcheck lc = { fs, root };

	cv_ldcache_each(ldcheck_cb, &lc);
}

/* System mode: say it is on, and which cache entries the loader takes
 * before the store's copy (ld.so.cache answers a soname with its first
 * entry). */
struct sysfirst {
	char sonames[8][32];
	size_t n;
	struct findings *fs;
	const char *libdir;
};

static void
sysfirst_cb(void *payload, const char *soname, const char *path)
{
	struct sysfirst *sf = payload;
	char dir[PATH_MAX];
	char *slash;

	if (strncmp(soname, "libcudnn.so.", 12) != 0)
		return;
	for (size_t i = 0; i < sf->n; i++)
		if (strcmp(sf->sonames[i], soname) == 0)
			return; /* only the first entry counts */
	if (sf->n < 8)
		snprintf(sf->sonames[sf->n++], sizeof sf->sonames[0], "%s",
			 soname);
	snprintf(dir, sizeof dir, "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	if (strcmp(dir, sf->libdir) != 0)
		add(sf->fs, CV_LEVEL_WARN, "",
		    "system mode is on, but the loader cache answers this "
		    "soname with another copy first; remove that copy (or "
		    "its /etc/ld.so.conf.d entry) and run ldconfig",
		    "the loader picks %s for %s before the store's %s", path,
		    soname, sf->libdir);
}

static void
check_sysmode(struct findings *fs, const char *root)
{
	char named[PATH_MAX], *want;
	struct sysfirst sf;
	int r = cv_sysmode_read(named, sizeof named, NULL);

	if (r == 0) {
		add(fs, CV_LEVEL_WARN, "",
		    "cudnnvm did not write it and will not change it",
		    "%s exists but was not written by cudnnvm",
		    cv_sysmode_conf_path());
		return;
	}
	if (r != 1)
		return;
	want = root != NULL ? xasprintf("%s/current/lib", root) : NULL;
	if (want != NULL && strcmp(want, named) != 0)
		add(fs, CV_LEVEL_WARN, "sudo cudnnvm global --system <spec>",
		    "the machine's loader follows another store than this one",
		    "system mode names %s, not this store's %s", named, want);
	else
		add(fs, CV_LEVEL_OK, "",
		    "programs find the global version by soname, with no "
		    "LD_LIBRARY_PATH",
		    "system mode is on: %s names %s", cv_sysmode_conf_path(),
		    named);
	memset(&sf, 0, sizeof sf);
	sf.fs = fs;
	sf.libdir = named;
	cv_ldcache_each(sysfirst_cb, &sf);
	free(want);
}

static void
check_toolkit_dirs(struct findings *fs)
{
	const char *dirs[4] = { getenv("CUDA_HOME"), getenv("CUDA_PATH"),
				"/usr/local/cuda", NULL };

	for (int i = 0; i < 3; i++) {
		char *lib, *so;
		int fresh;

		if (dirs[i] == NULL || *dirs[i] == '\0')
			continue;
		lib = cv_path_join(dirs[i], "lib64");
		so = cudnn_in(lib);
		fresh = so != NULL && !seen_before(fs, lib);

		if (fresh)
			add(fs, CV_LEVEL_WARN, "eval \"$(cudnnvm env)\"",
			    "build systems that look in the CUDA toolkit "
			    "(CUDA_HOME, CMake's FindCUDNN) find this copy "
			    "instead of the active one",
			    "the CUDA toolkit folder %s holds its own cuDNN "
			    "(%s)",
			    lib, so);
		if (fresh) {
			char *q = shq(dirs[i]);
			char *fix = xasprintf("cudnnvm import %s", q);
			add(fs, CV_LEVEL_OK, fix,
			    "import copies it into the store, where it can be "
			    "validated, switched and removed like any install",
			    "a hand install of cuDNN in %s can be taken under "
			    "management",
			    dirs[i]);
			free(fix);
			free(q);
		}
		free(so);
		free(lib);
	}
}

/* ---- CUDA toolkit, driver, cuBLASLt ----------------------------------- */

static const char *
driver_version_file(void)
{
	const char *t = getenv("CUDNNVM_TEST_DRIVER_VERSION_FILE");
	return t != NULL ? t : "/proc/driver/nvidia/version";
}

/* CUDA toolkit major from $CUDA_HOME or /usr/local/cuda version.json. */
static int
toolkit_major(char *where, size_t n)
{
	const char *homes[3] = { getenv("CUDA_HOME"), "/usr/local/cuda", NULL };

	for (int i = 0; homes[i]; i++) {
		char *p = cv_path_join(homes[i], "version.json");
		json_t *o = json_load_file(p, 0, NULL);
		const char *v = json_string_value(
			json_object_get(json_object_get(o, "cuda"), "version"));
		int major = v ? (int)strtol(v, NULL, 10) : 0;

		json_decref(o);
		if (major > 0) {
			snprintf(where, n, "%s", p);
			free(p);
			return major;
		}
		free(p);
	}
	return 0;
}

/* "580.65.06" (leading blanks allowed) into its three numbers; missing
 * parts stay 0. */
static void
parse_driver_version(const char *s, unsigned *a, unsigned *b, unsigned *c)
{
	unsigned *part[3] = { a, b, c };
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	for (int i = 0; i < 3; i++) {
		unsigned long v = strtoul(s, &end, 10);
		if (end == s)
			return;
		*part[i] = (unsigned)v;
		if (*end != '.')
			return;
		s = end + 1;
	}
}

static void
check_cuda(struct findings *fs, const struct cv_doctor_ctx *ctx)
{
	char where[PATH_MAX], line[512], *fix, so[64], *lt;
	int tk = toolkit_major(where, sizeof where);
	FILE *f;

	if (ctx->active_id == NULL || ctx->active_cuda <= 0)
		return;
	if (tk > 0 && tk != ctx->active_cuda) {
		fix = xasprintf("cudnnvm install %d --cuda %d",
				ctx->active_major, tk);
		add(fs, CV_LEVEL_WARN, fix,
		    "a cuDNN build works with the CUDA major it was built for; "
		    "programs built with this toolkit need the matching "
		    "variant",
		    "the CUDA toolkit is %d (%s) but the active cuDNN %s is "
		    "the cuda%d variant",
		    tk, where, ctx->active_id, ctx->active_cuda);
		free(fix);
	}
	/* The kernel module's version: cheap and needs no GPU library.
	 * (CUDNNVM_TEST_DRIVER_VERSION_FILE stands in for it in tests.) */
	f = fopen(driver_version_file(), "r");
	if (f != NULL && fgets(line, sizeof line, f) != NULL) {
		const char *min = ctx->active_cuda <= 11   ? "450.80.02"
				  : ctx->active_cuda == 12 ? "525.60.13"
							   : "580.65.06";
		char *p = strstr(line, "Kernel Module");
		unsigned a = 0, b = 0, c = 0, ma = 0, mb = 0, mc = 0;
		char ver[32] = "";

		if (p != NULL) {
			parse_driver_version(p + 13, &a, &b, &c);
			snprintf(ver, sizeof ver, "%u.%02u.%02u", a, b, c);
		}
		parse_driver_version(min, &ma, &mb, &mc);
		if (a > 0 &&
		    (a < ma || (a == ma && (b < mb || (b == mb && c < mc))))) {
			char *why = xasprintf(
				"CUDA %d needs driver %s or newer; with an older "
				"one cuDNN fails with CUDNN_STATUS_NOT_"
				"INITIALIZED or 'driver version is insufficient'",
				ctx->active_cuda, min);
			add(fs, CV_LEVEL_ERROR,
			    "update the NVIDIA driver (your distribution's "
			    "nvidia-driver package)",
			    why, "the NVIDIA driver %s is too old for %s", ver,
			    ctx->active_id);
			free(why);
		}
	}
	if (f != NULL)
		fclose(f);
	if (ctx->active_major >= 8) {
		snprintf(so, sizeof so, "libcublasLt.so.%d", ctx->active_cuda);
		lt = cv_validate_find_lib(so);
		if (lt == NULL) {
			char *why = xasprintf(
				"cuDNN %d loads %s at run time; without it the "
				"first convolution aborts (\"Cannot load symbol "
				"cublasLtCreate\")",
				ctx->active_major, so);
			fix = xasprintf("install the CUDA %d cuBLAS libraries "
					"(e.g. pip install nvidia-cublas-cu%d) "
					"and set CUDA_HOME",
					ctx->active_cuda, ctx->active_cuda);
			add(fs, CV_LEVEL_ERROR, fix, why, "%s is not found",
			    so);
			free(fix);
			free(why);
		}
		free(lt);
	}
}

/* ---- Python environments ---------------------------------------------- */

static void
check_python(struct findings *fs)
{
	FILE *f = popen("command -v python3 >/dev/null 2>&1 && timeout 5 "
			"python3 -I -c 'import site,sys; "
			"print(sys.executable); "
			"[print(p) for p in site.getsitepackages()+"
			"[site.getusersitepackages()]]' 2>/dev/null",
			"r");
	char line[PATH_MAX], exe[PATH_MAX] = "";

	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		static const char *const sub[] = { "nvidia/cudnn/lib",
						   "torch/lib", NULL };
		line[strcspn(line, "\n")] = '\0';
		if (exe[0] == '\0') {
			snprintf(exe, sizeof exe, "%s", line);
			continue;
		}
		for (int i = 0; sub[i]; i++) {
			char *dir = cv_path_join(line, sub[i]);
			char *so = cudnn_in(dir);
			if (so != NULL && !seen_before(fs, dir)) {
				/* never advise removing the framework's copy:
				 * it needs it whenever nothing is preloaded */
				char *fix =
					i == 0 ? xasprintf("cudnnvm exec -- %s "
							   "your_script.py",
							   exe)
					       : xstrdup("install a torch build "
							 "without a bundled "
							 "cuDNN (the pip "
							 "wheels)");
				add(fs, CV_LEVEL_WARN, fix,
				    "torch and TensorFlow load the cuDNN of "
				    "their own environment through RPATH, "
				    "not the active version; with only "
				    "LD_LIBRARY_PATH set, cuDNN 9 mixes the "
				    "two. cudnnvm exec and a venv pinned "
				    "with cudnnvm venv preload the active "
				    "version so the framework binds to it "
				    "alone; keep the framework's own copy",
				    "%s has its own cuDNN in %s (%s)", exe, dir,
				    so);
				free(fix);
			}
			free(so);
			free(dir);
		}
	}
	if (f != NULL)
		pclose(f);
}

/* The frameworks of the Python environment in play (files only): an
 * active version one of them cannot load, and the mixed load that a
 * bundled copy plus LD_LIBRARY_PATH naming another cuDNN folder gives. */
static void
check_frameworks(struct findings *fs, const struct cv_doctor_ctx *ctx)
{
	struct cv_fw_env fe;
	struct cv_version v;
	const char *ldp = getenv("LD_LIBRARY_PATH");
	int have = ctx->active_id != NULL &&
		   cv_install_id_parse(&v, ctx->active_id, NULL) == 0;

	if (cv_frameworks_find(&fe, NULL, NULL) < 0)
		return;
	for (size_t i = 0; have && i < fe.n; i++) {
		const struct cv_framework *f = &fe.fw[i];
		char need[512], hint[64];
		char *fix, *why;

		if (cv_framework_fits(f, &v))
			continue;
		cv_framework_need_text(f, need, sizeof need);
		cv_framework_install_hint(f, hint, sizeof hint);
		fix = xasprintf("cudnnvm install %s && cudnnvm shell %.*s",
				hint, (int)strcspn(hint, " "), hint);
		why = xasprintf(
			"%s says '%s'; the framework refuses or misuses an "
			"older minor, another major or another CUDA build%s%s%s",
			f->need.source, f->need.text,
			fe.bundled_dir[0] ? "; or leave its own copy (" : "",
			fe.bundled_dir,
			fe.bundled_dir[0] ? ") by deactivating" : "");
		add(fs, CV_LEVEL_ERROR, fix, why,
		    "%s %s (%s) cannot load the active cuDNN %s: it needs %s",
		    f->name, f->version, fe.prefix, ctx->active_id, need);
		free(fix);
		free(why);
	}
	for (const char *p = ldp; fe.bundled_dir[0] && p && *p;) {
		size_t len = strcspn(p, ":");
		char *dir = xstrndup(p, len);
		char *so = len ? cudnn_in(dir) : NULL;

		if (so != NULL && !same_dir(dir, fe.bundled_dir)) {
			char *fix =
				ctx->active_id
					? xasprintf("cudnnvm exec %s -- "
						    "python3 your_script.py",
						    ctx->active_id)
					: xstrdup("unset LD_LIBRARY_PATH");
			add(fs, CV_LEVEL_WARN, fix,
			    "the framework's RPATH loads its bundled front "
			    "library while cuDNN's loader takes every "
			    "sub-library from LD_LIBRARY_PATH: two builds in "
			    "one process. cudnnvm exec (or a venv pinned with "
			    "cudnnvm venv) preloads one version; without "
			    "LD_LIBRARY_PATH the framework uses its own copy",
			    "mixed cuDNN load in %s: its own copy in %s, and "
			    "LD_LIBRARY_PATH names %s (%s)",
			    fe.prefix, fe.bundled_dir, dir, so);
			free(fix);
			free(so);
			free(dir);
			break;
		}
		free(so);
		free(dir);
		p += len;
		if (*p == ':')
			p++;
	}
	cv_fw_env_release(&fe);
}

void
cv_doctor_run(const struct cv_doctor_ctx *ctx, struct cv_finding **out,
	      size_t *n)
{
	struct findings fs = { NULL, 0, 0, NULL, 0 };
	char *active_lib = NULL;

	if (ctx->store_root != NULL) {
		check_staging(&fs, ctx->store_root);
		check_current(&fs, ctx->store_root);
		check_installs(&fs, ctx->store_root);
	}
	if (ctx->active_dir != NULL)
		active_lib = cv_path_join(ctx->active_dir, "lib");
	if (active_lib != NULL)
		seen_before(&fs, active_lib);
	check_ld_path(&fs, ctx, active_lib);
	check_toolkit_dirs(&fs);
	check_sysmode(&fs, ctx->store_root);
	check_ldconfig(&fs, ctx->store_root ? ctx->store_root : "/nonexistent");
	check_cuda(&fs, ctx);
	check_python(&fs);
	check_frameworks(&fs, ctx);
	if (ctx->active_id == NULL)
		add(&fs, CV_LEVEL_OK, "cudnnvm global <version>",
		    "without one, programs find cuDNN only through the system",
		    "no cuDNN version is active");
	if (access(driver_version_file(), F_OK) != 0)
		add(&fs, CV_LEVEL_OK, NULL,
		    "validation skips its GPU steps on this machine",
		    "no NVIDIA driver is loaded");
	for (size_t i = 0; i < fs.nseen; i++)
		free(fs.seen[i]);
	free(fs.seen);
	free(active_lib);
	*out = fs.f;
	*n = fs.n;
}

void
cv_findings_free(struct cv_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].what);
		free(f[i].why);
		free(f[i].fix);
	}
	free(f);
}

/* ---- the classic messages --------------------------------------------- */

static const struct cv_explain catalogue[] = {
	{ "Could not load library libcudnn_",
	  "cuDNN 8 loads its sub-libraries (libcudnn_cnn_infer.so.8, ...) by "
	  "name at run time: their folder is not on the loader path, or one "
	  "of their own dependencies (libcublas, libcublasLt, libz, the "
	  "unversioned libcuda.so) is missing; the process then aborts",
	  "eval \"$(cudnnvm env)\" && cudnnvm validate" },
	{ "Attempt to open cnn_infer failed",
	  "PyTorch on cuDNN 8 could not load libcudnn_cnn_infer.so.8: the "
	  "active cuDNN's lib folder is not on LD_LIBRARY_PATH",
	  "eval \"$(cudnnvm env)\" && cudnnvm validate" },
	{ "libcuda.so: cannot open shared object file",
	  "cuDNN 8's cnn_infer loads the unversioned libcuda.so; only "
	  "libcuda.so.1 exists (WSL, containers)",
	  "sudo ln -s libcuda.so.1 \"$(dirname \"$(ldconfig -p | awk "
	  "'/libcuda.so.1 /{print $NF; exit}')\")/libcuda.so\"" },
	{ "libcudnn.so",
	  "the loader cannot find cuDNN: no version is active in this shell "
	  "(LD_LIBRARY_PATH lacks its lib folder) or none is installed",
	  "cudnnvm install 9 && eval \"$(cudnnvm env)\"" },
	{ "Could not load dynamic library 'libcudnn",
	  "TensorFlow's loader found no libcudnn.so.N on the loader path",
	  "eval \"$(cudnnvm env)\" && cudnnvm validate" },
	{ "CUDNN_STATUS_NOT_INITIALIZED",
	  "cuDNN could not start on the GPU: a driver too old for the build's "
	  "CUDA major, a cuDNN/CUDA variant mismatch, a GPU this release no "
	  "longer supports, or no free GPU memory",
	  "cudnnvm validate && cudnnvm doctor" },
	{ "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
	  "cuDNN 9's dispatcher loaded sub-libraries of another version: "
	  "another cuDNN 9 folder is on LD_LIBRARY_PATH (a mixed load)",
	  "cudnnvm doctor" },
	{ "cudnnFinalize failed",
	  "often a mixed cuDNN 9 load: sub-libraries from another folder (or "
	  "a missing engine library) reject the graph",
	  "cudnnvm doctor && cudnnvm validate" },
	{ "cuDNN version incompatibility",
	  "PyTorch found a runtime cuDNN older (or of another major) than it "
	  "was compiled against: the active version (or the sub-libraries "
	  "LD_LIBRARY_PATH gives its bundled front library: a mixed load) "
	  "is one torch cannot load; 'cudnnvm frameworks' names the versions "
	  "that fit, and activation refuses the others unless --force",
	  "cudnnvm frameworks   (then: cudnnvm install <the version it "
	  "names> && cudnnvm exec <it> -- python3 ...)" },
	{ "Loaded runtime CuDNN library",
	  "TensorFlow needs the same cuDNN major and at least the minor it was "
	  "compiled with; the active version is older (activation refuses it "
	  "unless --force; 'cudnnvm frameworks' shows what fits)",
	  "cudnnvm frameworks   (then: cudnnvm install <the compiled "
	  "version> && cudnnvm shell <it>)" },
	{ "DNN library initialization failed",
	  "JAX/XLA could not start cuDNN: the loaded cuDNN is older than the "
	  "one jaxlib was built against, of another major or built for "
	  "another CUDA major (XLA logs 'Loaded runtime CuDNN library: X but "
	  "source was compiled with: Y')",
	  "cudnnvm frameworks   (then: cudnnvm install <the version it "
	  "names> && cudnnvm shell <it>)" },
	{ "Cannot load symbol cublasLt",
	  "cuDNN loads libcublasLt.so.<CUDA major> at run time and it is not "
	  "on the loader path; the process aborts",
	  "install the CUDA libraries of the variant (cuBLAS) and run "
	  "cudnnvm doctor" },
	{ "not defined in file libcudnn",
	  "two cuDNN 8 installs are mixed: symbols of one sub-library are "
	  "resolved against another version's file",
	  "cudnnvm doctor" },
	{ "cudnn_status_arch_mismatch",
	  "this cuDNN has no kernels for the GPU's compute capability (9.11 "
	  "and newer need 7.5; 9.10 still runs on 5.0)",
	  "cudnnvm install 9.10 && cudnnvm global 9.10" },
	{ NULL, NULL, NULL },
};

const struct cv_explain *
cv_doctor_catalogue(size_t *n)
{
	*n = sizeof catalogue / sizeof catalogue[0] - 1;
	return catalogue;
}

const struct cv_explain *
cv_doctor_explain(const char *msg)
{
	/* First match wins: the specific ones come before "libcudnn.so". */
	for (const struct cv_explain *e = catalogue; e->pattern; e++)
		if (msg != NULL && strcasestr(msg, e->pattern) != NULL)
			return e;
	return NULL;
}
