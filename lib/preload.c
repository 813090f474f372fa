/* preload.c: make a framework bind to the activated cuDNN, not to the copy
 * its own RPATH or loader points at.
 *
 * torch's libtorch_cuda.so carries a DT_RPATH to its bundled
 * nvidia/cudnn/lib (which beats LD_LIBRARY_PATH) and torch/__init__.py
 * loads that folder's libcudnn.so.9 by absolute path; with only
 * LD_LIBRARY_PATH set, the front library comes from the bundle and every
 * sub-library cuDNN's loader dlopens by name from the store: a mix of two
 * builds. Libraries already loaded with RTLD_GLOBAL win: the dynamic
 * linker matches NEEDED entries and dlopen()ed names by soname against
 * what is loaded, and a symbol is taken from the first object in the
 * global scope that defines it. So:
 *
 *  - `cudnnvm venv` writes <site-packages>/cudnnvm.pth and
 *    _cudnnvm_preload.py: at interpreter start, before anything can
 *    import a framework, it loads the version's libcudnn.so.N and every
 *    libcudnn_*.so.N with RTLD_GLOBAL. It works for interpreters started
 *    without `activate` (IDEs, systemd units, Jupyter kernels); an
 *    activation in force (CUDNNVM_ACTIVE and CUDNN_LIB_DIR, from exec, env
 *    or the hooks) or CUDNNVM_VERSION wins over the pin; a version that is
 *    gone gives one warning line, never a failed start.
 *  - `cudnnvm exec` in an environment holding a framework puts the
 *    version's libcudnn.so.N first in LD_PRELOAD, so the front library is
 *    the store's and the sub-libraries it dlopens come through
 *    LD_LIBRARY_PATH from the same folder. */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PTH_FILE    "cudnnvm.pth"
#define MODULE_FILE "_cudnnvm_preload.py"

/* The module; @STORE@ and @ID@ become Python string literals. */
static const char module_py[] =
	"# Written by 'cudnnvm venv'; 'cudnnvm venv --remove' takes it out.\n"
	"# Loads the pinned cuDNN with RTLD_GLOBAL before any framework is\n"
	"# imported, so the framework binds to it and not to its own copy.\n"
	"STORE = @STORE@\n"
	"PINNED = @ID@\n"
	"\n"
	"\n"
	"# The grammar of lib/version.c, to the letter (the table of\n"
	"# tests/fixtures/spec-vectors.tsv holds both to it): ASCII digits only,\n"
	"# no sign, blank, '_' or leading zero, though int() takes them.\n"
	"def _num(s, most):\n"
	"    if not s or len(s) > most or s.strip('0123456789') \\\n"
	"            or (len(s) > 1 and s[0] == '0'):\n"
	"        raise ValueError('%r is not a version' % s)\n"
	"    return int(s)\n"
	"\n"
	"\n"
	"def _parts(s):\n"
	"    if len(s) > 40:\n"
	"        raise ValueError('%r is not a version' % s)\n"
	"    v, sep, cuda = s.partition('-cuda')\n"
	"    parts = v.split('.')\n"
	"    if len(parts) > 4:\n"
	"        raise ValueError('%r is not a version' % s)\n"
	"    have = tuple(_num(p, 5 if i else 3) for i, p in enumerate(parts))\n"
	"    c = _num(cuda, 3) if sep else 0\n"
	"    if sep and not c:\n"
	"        raise ValueError('%r is not a version' % s)\n"
	"    return have, c\n"
	"\n"
	"\n"
	"# A spec in CUDNNVM_VERSION: the newest installed build it matches, of\n"
	"# the CUDA major of the venv's pin (resolved by cudnnvm for this\n"
	"# machine) when one is installed.\n"
	"def _resolve(os, spec):\n"
	"    want, cuda = _parts(spec)\n"
	"    prefer = _parts(PINNED)[1]\n"
	"    best = None\n"
	"    for name in os.listdir(STORE):\n"
	"        try:\n"
	"            have, c = _parts(name)\n"
	"        except ValueError:\n"
	"            continue\n"
	"        if len(have) != 4 or not c or have[:len(want)] != want:\n"
	"            continue\n"
	"        if cuda and c != cuda:\n"
	"            continue\n"
	"        key = (c == prefer, have, c)\n"
	"        if best is None or key > best[0]:\n"
	"            best = (key, name)\n"
	"    if best is None:\n"
	"        raise OSError('cuDNN %s is not installed' % spec)\n"
	"    return best[1]\n"
	"\n"
	"\n"
	"# Whoever may change a folder or file it loads from could run code in\n"
	"# this interpreter, so, as cudnnvm's own commands require of the store\n"
	"# (lib/store.c), each must belong to this user or root and be writable\n"
	"# by nobody else; above the store a sticky folder (/tmp) will do.\n"
	"def _owned(os, path, strict):\n"
	"    st = os.stat(path)\n"
	"    if st.st_uid not in (0, os.geteuid()):\n"
	"        raise OSError('%s belongs to another user (uid %d), who could '\n"
	"                      'plant a library there' % (path, st.st_uid))\n"
	"    if st.st_mode & 0o022 and (strict or not st.st_mode & 0o1000):\n"
	"        raise OSError('%s is writable by other users, who could plant '\n"
	"                      'a library there' % path)\n"
	"    return st\n"
	"\n"
	"\n"
	"def _chain(os, d, strict, seen):\n"
	"    while d not in seen:\n"
	"        seen.add(d)\n"
	"        _owned(os, d, d in strict)\n"
	"        d = os.path.dirname(d)\n"
	"\n"
	"\n"
	"# The real paths of libdir's files `names`, once every folder from / down\n"
	"# to each (libdir, its version folder and the store strictly) and each\n"
	"# file passed _owned; nothing is loaded before all did.\n"
	"def _trusted(os, libdir, names):\n"
	"    real = os.path.realpath(libdir)\n"
	"    version = os.path.dirname(real)\n"
	"    strict = (real, version, os.path.dirname(version))\n"
	"    seen = set()\n"
	"    _chain(os, real, strict, seen)\n"
	"    paths = []\n"
	"    for name in names:\n"
	"        path = os.path.realpath(os.path.join(real, name))\n"
	"        _chain(os, os.path.dirname(path), strict, seen)\n"
	"        if _owned(os, path, True).st_mode & 0o170000 != 0o100000:\n"
	"            raise OSError('%s is not a regular file' % path)\n"
	"        paths.append(path)\n"
	"    return paths\n"
	"\n"
	"\n"
	"# Load them all, or none: after a failure the ones loaded are unloaded,\n"
	"# and those that stay mapped (a library can refuse to unload) named.\n"
	"def _load(os, paths):\n"
	"    # _ctypes.dlopen is what ctypes.CDLL calls; importing ctypes itself\n"
	"    # would add ~3 ms to every start\n"
	"    import _ctypes\n"
	"    done = []\n"
	"    try:\n"
	"        for path in paths:\n"
	"            done.append(_ctypes.dlopen(path, os.RTLD_GLOBAL | os.RTLD_NOW))\n"
	"    except OSError as e:\n"
	"        for handle in reversed(done):\n"
	"            _ctypes.dlclose(handle)\n"
	"        with open('/proc/self/maps') as f:\n"
	"            maps = set(l.split(None, 5)[-1].strip() for l in f)\n"
	"        left = [p for p in paths if p in maps]\n"
	"        if left:\n"
	"            return '%s (%s); only %s stay loaded' % (\n"
	"                'cuDNN partly preloaded', e, ', '.join(left))\n"
	"        raise\n"
	"    return None\n"
	"\n"
	"\n"
	"def _preload():\n"
	"    import os\n"
	"    env = os.environ\n"
	"    ident = env.get('CUDNNVM_ACTIVE') or ''\n"
	"    libdir = env.get('CUDNN_LIB_DIR') or ''\n"
	"    if not (ident and libdir):\n"
	"        if not os.path.isdir(STORE):\n"
	"            return None  # cudnnvm was removed: nothing to load\n"
	"        spec = env.get('CUDNNVM_VERSION') or ''\n"
	"        ident = _resolve(os, spec) if spec else PINNED\n"
	"        libdir = os.path.join(STORE, ident, 'lib')\n"
	"    major = ident.split('.')[0]\n"
	"    front = 'libcudnn.so.' + major\n"
	"    names = os.listdir(libdir)\n"
	"    if front not in names:\n"
	"        raise OSError('%s has no %s' % (libdir, front))\n"
	"    subs = sorted(n for n in names if n.startswith('libcudnn_')\n"
	"                  and n.endswith('.so.' + major))\n"
	"    subs.sort(key=lambda n: n != 'libcudnn_graph.so.' + major)\n"
	"    return _load(os, _trusted(os, libdir, [front] + subs))\n"
	"\n"
	"\n"
	"try:\n"
	"    _partly = _preload()\n"
	"    if _partly:\n"
	"        import sys\n"
	"        sys.stderr.write('cudnnvm: warning: %s; a framework may mix '\n"
	"                         'them with its own copy\\n' % _partly)\n"
	"except Exception as e:  # never fail the interpreter's start\n"
	"    import sys\n"
	"    # the fix names this environment, so it works outside it too\n"
	"    _env = sys.prefix\n"
	"    if _env.strip('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'\n"
	"                  '0123456789/._-+'):\n"
	"        _env = \"'%s'\" % _env.replace(\"'\", \"'\\\\''\")\n"
	"    sys.stderr.write('cudnnvm: warning: cuDNN not preloaded (%s); '\n"
	"                     'frameworks load their own copy; pin an installed '\n"
	"                     \"version: cudnnvm venv <version> --path %s\\n\"\n"
	"                     % (e, _env))\n";

static const char pth_line[] = "import _cudnnvm_preload\n";

/* Append s as a single-quoted Python literal. */
static void
py_quote(struct cv_buf *out, const char *s)
{
	char esc[8];

	cv_text_add(out, "'", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\' || *p == '\'') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			cv_text_add(out, esc, 2);
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(esc, sizeof esc, "\\x%02x", *p);
			cv_text_add(out, esc, 4);
		} else {
			cv_text_add(out, (const char *)p, 1);
		}
	}
	cv_text_add(out, "'", 1);
}

/* Call fn on every <prefix>/lib/python3.X/site-packages, resolved. One
 * that resolves outside the environment (a link to the system's
 * dist-packages, say) would hook another interpreter: writing fails on it,
 * removing passes it by (nothing of ours can be there). */
static int
each_site_packages(const char *prefix, int writing,
		   int (*fn)(const char *sp, void *arg, struct cv_err *err),
		   void *arg, struct cv_err *err)
{
	char lib[PATH_MAX], sp[PATH_MAX * 2], real[PATH_MAX], top[PATH_MAX];
	struct dirent *de;
	struct stat sb;
	size_t n;
	DIR *d;
	int r = 0;

	snprintf(lib, sizeof lib, "%s/lib", prefix);
	if (realpath(prefix, top) == NULL || (d = opendir(lib)) == NULL)
		return 0;
	n = strlen(top);
	while (r == 0 && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "python3", 7) != 0)
			continue;
		snprintf(sp, sizeof sp, "%s/%s/site-packages", lib, de->d_name);
		if (stat(sp, &sb) < 0 || !S_ISDIR(sb.st_mode) ||
		    realpath(sp, real) == NULL)
			continue;
		if (strncmp(real, top, n) == 0 && (n == 1 || real[n] == '/'))
			r = fn != NULL ? fn(real, arg, err) : 0;
		else if (writing)
			r = cv_err_set(
				err, CV_EDATA,
				"'%s' leads to '%s', outside the environment '%s', so a hook written there would load cuDNN into another interpreter; make it a folder of the environment, or recreate the environment",
				sp, real, prefix);
	}
	closedir(d);
	return r;
}

struct pth_args {
	const char *module;
};

static int
install_one(const char *sp, void *arg, struct cv_err *err)
{
	const struct pth_args *a = arg;
	char path[PATH_MAX * 2 + 32];
	int r;

	snprintf(path, sizeof path, "%s/" MODULE_FILE, sp);
	r = cv_fs_write_atomic(path, a->module, strlen(a->module), 0644, err);
	snprintf(path, sizeof path, "%s/" PTH_FILE, sp);
	if (r == 0)
		r = cv_fs_write_atomic(path, pth_line, strlen(pth_line), 0644,
				       err);
	return r;
}

static int
remove_one(const char *sp, void *arg, struct cv_err *err)
{
	static const char *const names[] = { PTH_FILE, MODULE_FILE, NULL };
	char path[PATH_MAX * 2 + 32];

	(void)arg;
	for (int i = 0; names[i]; i++) {
		snprintf(path, sizeof path, "%s/%s", sp, names[i]);
		if (unlink(path) < 0 && errno != ENOENT)
			return cv_err_errno(err, CV_EIO, "cannot remove '%s'",
					    path);
	}
	return 0;
}

int
cv_preload_hook(const char *prefix, const char *store, const char *id,
		int remove, struct cv_err *err)
{
	struct cv_buf *mod;
	struct pth_args a;
	int r;

	if (remove)
		return each_site_packages(prefix, 0, remove_one, NULL, err);
	mod = cv_text_new();
	for (const char *p = module_py; *p;) {
		if (strncmp(p, "@STORE@", 7) == 0) {
			py_quote(mod, store);
			p += 7;
		} else if (strncmp(p, "@ID@", 4) == 0) {
			py_quote(mod, id);
			p += 4;
		} else {
			cv_text_add(mod, p, 1);
			p++;
		}
	}
	a.module = cv_text_str(mod);
	r = each_site_packages(prefix, 1, install_one, &a, err);
	cv_text_free(mod);
	/* an environment without Python (a bare conda prefix) has no
	 * interpreter to hook: the activate scripts are all it needs */
	return r;
}

int
cv_preload_hook_check(const char *prefix, struct cv_err *err)
{
	return each_site_packages(prefix, 1, NULL, NULL, err);
}

int
cv_preload_exec(const char *vdir, const char *id, struct cv_err *err)
{
	char lib[PATH_MAX * 2];
	const char *old = getenv("LD_PRELOAD");
	struct stat sb;
	long major = strtol(id, NULL, 10);

	snprintf(lib, sizeof lib, "%s/lib/libcudnn.so.%ld", vdir, major);
	if (stat(lib, &sb) < 0 || !S_ISREG(sb.st_mode))
		return 0;
	/* the loader cuts LD_PRELOAD at every space and ':' and opens each
	 * piece, a relative one from the working folder: such a path would
	 * load a file of whatever folder the command starts in */
	if (strpbrk(lib, " :") != NULL)
		return cv_err_set(
			err, CV_ESTORE,
			"cannot preload '%s' for the framework here: the dynamic loader splits LD_PRELOAD at spaces and ':', so it would load pieces of that path from the working folder; use a store whose path has neither (--store DIR, or CUDNNVM_STORE), or leave the framework's environment to run without the preload",
			lib);
	if (old != NULL && *old) {
		char *both = xasprintf("%s:%s", lib, old);
		setenv("LD_PRELOAD", both, 1);
		free(both);
	} else {
		setenv("LD_PRELOAD", lib, 1);
	}
	return 1;
}
