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
 *    _cudnnvm_preload.py. The .pth line only puts a finder at the head of
 *    sys.meta_path: an interpreter that never imports a framework reads no
 *    store file and loads nothing. The first import of a framework's
 *    top-level package (framework_modules) imports the module, which loads
 *    the pinned libcudnn.so.N and every libcudnn_*.so.N with RTLD_GLOBAL;
 *    then the finder takes itself out of sys.meta_path and the framework's
 *    import goes on. The import system runs the module once, and a thread
 *    importing a framework meanwhile waits for it to finish. It works for
 *    interpreters started without `activate` (IDEs, systemd units, Jupyter
 *    kernels); an activation in force (CUDNNVM_ACTIVE and CUDNN_LIB_DIR,
 *    from exec, env or the hooks) or CUDNNVM_VERSION wins over the pin of
 *    its major when the environment's frameworks can load it (the bounds
 *    `cudnnvm venv` checked the pin against, written into the module as
 *    NEEDS), else the checked pin does, as lib/python/gate.c has it for env and
 *    the hooks; a version that is gone gives one warning line, never a
 *    failed import.
 *  - A venv may pin one version per cuDNN major (`cudnnvm venv 9.19 8.9`):
 *    torch needs 9 where CTranslate2 4.4 needs 8. The sonames differ and
 *    cuDNN's symbols carry the version node of their soname
 *    (cudnnCreate@@libcudnn.so.8), so both load side by side and each
 *    framework's references bind to the major it was linked against.
 *  - `cudnnvm exec` in an environment holding a framework puts the
 *    version's libcudnn.so.N first in LD_PRELOAD, so the front library is
 *    the store's and the sub-libraries it dlopens come through
 *    LD_LIBRARY_PATH from the same folder. */
#include "base/base.h"
#include "python/python_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODULE_FILE "_cudnnvm_preload.py"
#define FINDER_FILE "_cudnnvm_finder.py"

/* The module; @PINS@ becomes a tuple of (store, id) string pairs, the
 * primary pin first, @IDS@ the ids alone for cv_preload_pins. */
static const char module_py[] =
	"# Written by 'cudnnvm venv'; 'cudnnvm venv --remove' takes it out.\n"
	"# Imported by the finder of cudnnvm.pth when a framework is first\n"
	"# imported: loads the pinned cuDNN (one build per major) with\n"
	"# RTLD_GLOBAL before the framework loads, so the framework binds to it\n"
	"# and not to its own copy.\n"
	"# Pinned: @IDS@\n"
	"PINS = @PINS@\n"
	"STORE, PINNED = PINS[0]\n"
	"# What the environment's frameworks load, per cuDNN major, as 'cudnnvm\n"
	"# venv' checked the pins against: (floor, bound, bound inclusive).\n"
	"NEEDS = @NEEDS@\n"
	"\n"
	"\n"
	"# The grammar of lib/base/version.c, to the letter (the table of\n"
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
	"# (lib/store/store.c), each must belong to this user or root and be writable\n"
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
	"# The front library and the sub-libraries of libdir, of one major.\n"
	"def _names(os, libdir, major):\n"
	"    front = 'libcudnn.so.' + major\n"
	"    names = os.listdir(libdir)\n"
	"    if front not in names:\n"
	"        raise OSError('%s has no %s' % (libdir, front))\n"
	"    subs = sorted(n for n in names if n.startswith('libcudnn_')\n"
	"                  and n.endswith('.so.' + major))\n"
	"    subs.sort(key=lambda n: n != 'libcudnn_graph.so.' + major)\n"
	"    return [front] + subs\n"
	"\n"
	"\n"
	"# Whether the frameworks of this environment can load build ident (of\n"
	"# the primary pin's major; any other is the activation's to choose).\n"
	"def _fits(ident):\n"
	"    try:\n"
	"        have = _parts(ident)[0]\n"
	"    except ValueError:\n"
	"        return True\n"
	"    need = NEEDS.get(have[0])\n"
	"    if need is None or have[0] != _parts(PINNED)[0][0]:\n"
	"        return True\n"
	"    low, high, incl = need\n"
	"    if have < low:\n"
	"        return False\n"
	"    return not high or (have[:len(high)] <= high if incl\n"
	"                        else have < high)\n"
	"\n"
	"\n"
	"# (id, lib folder) of each major to load, the primary pin's first: an\n"
	"# activation in force, else CUDNNVM_VERSION, else the pin, and the pin\n"
	"# of every other major.\n"
	"def _chosen(os):\n"
	"    env = os.environ\n"
	"    ident = env.get('CUDNNVM_ACTIVE') or ''\n"
	"    libdir = env.get('CUDNN_LIB_DIR') or ''\n"
	"    # the shell's version, which this environment's frameworks cannot\n"
	"    # load: the checked pin wins (not over exec's preload, loaded\n"
	"    # already)\n"
	"    if ident and not _fits(ident) and 'libcudnn' not in \\\n"
	"            env.get('LD_PRELOAD', ''):\n"
	"        ident = libdir = ''\n"
	"    if not (ident and libdir):\n"
	"        if not os.path.isdir(STORE):\n"
	"            return []  # cudnnvm was removed: nothing to load\n"
	"        spec = env.get('CUDNNVM_VERSION') or ''\n"
	"        ident = _resolve(os, spec) if spec else PINNED\n"
	"        if not _fits(ident):\n"
	"            ident = PINNED\n"
	"        libdir = os.path.join(STORE, ident, 'lib')\n"
	"    chosen = [(ident, libdir)]\n"
	"    for store, pin in PINS:\n"
	"        if all(pin.split('.')[0] != i.split('.')[0] for i, _ in chosen):\n"
	"            chosen.append((pin, os.path.join(store, pin, 'lib')))\n"
	"    return chosen\n"
	"\n"
	"\n"
	"# A loader name (libcublasLt.so.12, libnvrtc.so.11.2), not a file's\n"
	"# full version (libcublasLt.so.12.8.4.1).\n"
	"def _soname(n):\n"
	"    head, sep, num = n.partition('.so.')\n"
	"    parts = num.split('.')\n"
	"    return (head.startswith('lib') and sep and len(parts) <= 2\n"
	"            and all(p.isdigit() for p in parts))\n"
	"\n"
	"\n"
	"# What the version loads beside itself (cuBLASLt, nvrtc) when its\n"
	"# cudnnvm.json names copies in the store's deps/: loaded first, so that\n"
	"# cuDNN's own dlopen of libcublasLt.so.N finds it already there.\n"
	"def _deps(os, libdir):\n"
	"    version = os.path.dirname(os.path.realpath(libdir))\n"
	"    root = os.path.dirname(version)\n"
	"    try:\n"
	"        import json\n"
	"        with open(os.path.join(version, 'cudnnvm.json')) as f:\n"
	"            deps = json.load(f).get('deps') or []\n"
	"    except (OSError, ValueError, AttributeError):\n"
	"        return []\n"
	"    paths = []\n"
	"    for d in deps if isinstance(deps, list) else []:\n"
	"        sub = d.get('dir') if isinstance(d, dict) else None\n"
	"        if (not isinstance(sub, str) or not sub.startswith('deps/')\n"
	"                or '/' in sub[5:] or sub[5:] in ('', '.', '..')):\n"
	"            continue\n"
	"        lib = os.path.join(root, sub, 'lib')\n"
	"        names = sorted(n for n in os.listdir(lib) if _soname(n))\n"
	"        paths += _trusted(os, lib, names)\n"
	"    return paths\n"
	"\n"
	"\n"
	"def _preload(os, ident, libdir):\n"
	"    major = ident.split('.')[0]\n"
	"    paths = _trusted(os, libdir, _names(os, libdir, major))\n"
	"    return _load(os, _deps(os, libdir) + paths)\n"
	"\n"
	"\n"
	"def _warn(text):\n"
	"    import sys\n"
	"    sys.stderr.write('cudnnvm: warning: %s\\n' % text)\n"
	"\n"
	"\n"
	"# the fix names this environment, so it works outside it too\n"
	"def _not(e):\n"
	"    import sys\n"
	"    env = sys.prefix\n"
	"    if env.strip('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'\n"
	"                 '0123456789/._-+'):\n"
	"        env = \"'%s'\" % env.replace(\"'\", \"'\\\\''\")\n"
	"    return ('cuDNN not preloaded (%s); frameworks load their own copy; '\n"
	"            'pin an installed version: cudnnvm venv <version> --path %s'\n"
	"            % (e, env))\n"
	"\n"
	"\n"
	"# Never fail the framework's import: each major loads, or says why not.\n"
	"def _run():\n"
	"    import os\n"
	"    try:\n"
	"        chosen = _chosen(os)\n"
	"    except Exception as e:\n"
	"        _warn(_not(e))\n"
	"        return\n"
	"    for ident, libdir in chosen:\n"
	"        try:\n"
	"            partly = _preload(os, ident, libdir)\n"
	"        except Exception as e:\n"
	"            _warn(_not(e))\n"
	"            continue\n"
	"        if partly:\n"
	"            _warn('%s; a framework may mix them with its own copy' % partly)\n"
	"\n"
	"\n"
	"_run()\n";

/* The top-level packages whose first import loads the pinned cuDNN: the
 * frameworks lib/python/frameworks.c reads the needs of, by the name they are
 * imported as, and NVIDIA's own users of cuDNN. A package that imports
 * one of these (torchvision, keras, flax, faster_whisper) fires through
 * it. */
static const char *const framework_modules[] = {
	"torch",    "tensorflow", "jax",           "jaxlib",      "onnxruntime",
	"paddle",   "cupy",       "cupy_backends", "ctranslate2", "cudnn",
	"tensorrt", "mxnet",      "mindspore",     "caffe2",      NULL,
};

/* The finder the .pth line puts first in sys.meta_path, run by exec with
 * sys as its only global; @NAMES@ becomes a tuple of the names above. It
 * finds nothing itself: on a framework's first import it imports the
 * module, which loads cuDNN (once; other threads wait for it), then takes
 * itself out. sys.meta_path is replaced, not changed in place: the import
 * system is iterating the old list right then. The module is found by the
 * finder itself, beside it, never through sys.path: a file of that name in
 * the working or the script's folder would come first there. */
static const char finder_py[] =
	"class CudnnvmFinder:\n"
	"    names = frozenset(@NAMES@)\n"
	"    here = __file__.rpartition('/')[0]\n"
	"    def find_spec(self, name, path=None, target=None):\n"
	"        if name == '_cudnnvm_preload':\n"
	"            import importlib.util\n"
	"            return importlib.util.spec_from_file_location(name, self.here + '/_cudnnvm_preload.py')\n"
	"        if name in self.names:\n"
	"            try:\n"
	"                import _cudnnvm_preload\n"
	"            except ImportError as e:\n"
	"                sys.stderr.write('cudnnvm: warning: cuDNN not preloaded (%s)\\n' % e)\n"
	"            sys.meta_path = [f for f in sys.meta_path if f is not self]\n"
	"        return None\n"
	"sys.meta_path.insert(0, CudnnvmFinder())\n";

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
	const char *de;
	struct cv_stat sb;
	size_t n;
	struct cv_dir *d;
	int r = 0;

	snprintf(lib, sizeof lib, "%s/lib", prefix);
	if (cv_os_realpath(prefix, top, sizeof top) == NULL ||
	    (d = cv_dir_open(lib)) == NULL)
		return 0;
	n = strlen(top);
	while (r == 0 && (de = cv_dir_next(d, NULL)) != NULL) {
		if (strncmp(de, "python3", 7) != 0)
			continue;
		snprintf(sp, sizeof sp, "%s/%s/site-packages", lib, de);
		if (cv_os_stat(sp, &sb) < 0 || sb.kind != CV_KIND_DIR ||
		    cv_os_realpath(sp, real, sizeof real) == NULL)
			continue;
		if (strncmp(real, top, n) == 0 && (n == 1 || real[n] == '/'))
			r = fn != NULL ? fn(real, arg, err) : 0;
		else if (writing)
			r = cv_err_set(
				err, CV_EDATA,
				"'%s' leads to '%s', outside the environment '%s', so a hook written there would load cuDNN into another interpreter; make it a folder of the environment, or recreate the environment",
				sp, real, prefix);
	}
	cv_dir_close(d);
	return r;
}

struct pins_args {
	char (*ids)[64];
	size_t max, n;
	int sites; /* site-packages folders seen */
};

struct pth_args {
	const char *module, *finder, *pth;
};

/* What the interpreter compiled of our modules: it checks a cached form
 * against the source's mtime in seconds and its size only, so a module
 * rewritten within the same second to the same length (a re-pin to an id
 * as long) would go on running the old pin. */
static void
drop_compiled(const char *sp)
{
	char path[PATH_MAX * 2 + 32];
	struct cv_strv g = CV_STRV_INIT;

	snprintf(path, sizeof path, "%s/__pycache__/_cudnnvm_*.pyc", sp);
	if (cv_os_glob(path, &g) > 0) {
		for (size_t i = 0; i < g.n; i++)
			cv_os_unlink(g.v[i]);
		cv_strv_release(&g);
	}
}

/* The interpreter a site-packages folder belongs to:
 * <prefix>/lib/pythonX.Y/site-packages -> <prefix>/bin/pythonX.Y (else
 * <prefix>/bin/python3); 0 when the layout is another. */
static int
interpreter_of(const char *sp, char *out, size_t n)
{
	const char *lib = NULL, *end;

	for (const char *p = strstr(sp, "/lib/python"); p != NULL;
	     p = strstr(p + 1, "/lib/python"))
		lib = p;
	if (lib == NULL || (end = strchr(lib + 5, '/')) == NULL)
		return 0;
	snprintf(out, n, "%.*s/bin/%.*s", (int)(lib - sp), sp,
		 (int)(end - lib - 5), lib + 5);
	if (cv_os_access(out, CV_ACCESS_EXEC) == 0)
		return 1;
	snprintf(out, n, "%.*s/bin/python3", (int)(lib - sp), sp);
	return cv_os_access(out, CV_ACCESS_EXEC) == 0;
}

/* Compile the two modules with the environment's own interpreter, into
 * the __pycache__ it reads. Every start of that interpreter imports the
 * finder: from source that is a first compile() in the process, some
 * 4-5 ms (the parser's code paged in, measured on the H200 and here),
 * and an interpreter run with PYTHONDONTWRITEBYTECODE, or by a user who
 * cannot write site-packages, would pay it at every start. Hash-checked
 * (PEP 552): the interpreter compares the source's hash, not its time, so
 * a re-pin within the same second is never served the old compiled form.
 * Best effort: without it the hook is only slower. */
static void
compile_modules(const char *sp)
{
	static const char compile_py[] =
		"import py_compile, sys\n"
		"m = getattr(py_compile, 'PycInvalidationMode', None)\n"
		"for f in sys.argv[1:]:\n"
		"    if m:\n"
		"        py_compile.compile(f, doraise=True, "
		"invalidation_mode=m.CHECKED_HASH)\n"
		"    else:\n"
		"        py_compile.compile(f, doraise=True)\n";
	char python[PATH_MAX], module[PATH_MAX * 2 + 32],
		finder[PATH_MAX * 2 + 32];
	struct cv_child child = CV_CHILD_INIT;
	struct cv_err ignored = CV_ERR_INIT;
	const char *argv[] = { python, "-I",   "-c", compile_py,
			       module, finder, NULL };

	if (!interpreter_of(sp, python, sizeof python))
		return;
	snprintf(module, sizeof module, "%s/" MODULE_FILE, sp);
	snprintf(finder, sizeof finder, "%s/" FINDER_FILE, sp);
	child.argv = argv;
	child.flags = CV_CHILD_STDIN_NULL | CV_CHILD_STDERR_NULL;
	child.timeout_s = 60;
	(void)cv_child_run(&child, &ignored);
}

static int
install_one(const char *sp, void *arg, struct cv_err *err)
{
	const struct pth_args *a = arg;
	char path[PATH_MAX * 2 + 32];
	int r;

	snprintf(path, sizeof path, "%s/" MODULE_FILE, sp);
	r = cv_fs_write_atomic(path, a->module, strlen(a->module), 0644, err);
	if (r == 0)
		drop_compiled(sp);
	cv_checkpoint("venv-module-written");
	snprintf(path, sizeof path, "%s/" FINDER_FILE, sp);
	if (r == 0)
		r = cv_fs_write_atomic(path, a->finder, strlen(a->finder), 0644,
				       err);
	cv_checkpoint("venv-finder-written");
	if (r == 0)
		compile_modules(sp);
	/* the line that imports them last: never one without the other */
	snprintf(path, sizeof path, "%s/" CV_PRELOAD_PTH, sp);
	if (r == 0)
		r = cv_fs_write_atomic(path, a->pth, strlen(a->pth), 0644, err);
	return r;
}

static int
remove_one(const char *sp, void *arg, struct cv_err *err)
{
	static const char *const names[] = { CV_PRELOAD_PTH, FINDER_FILE,
					     MODULE_FILE, NULL };
	char path[PATH_MAX * 2 + 32];

	(void)arg;
	for (int i = 0; names[i]; i++) {
		snprintf(path, sizeof path, "%s/%s", sp, names[i]);
		if (cv_os_unlink(path) < 0 && errno != ENOENT)
			return cv_err_errno(err, CV_EIO, "cannot remove '%s'",
					    path);
	}
	/* and what the interpreter cached of them */
	drop_compiled(sp);
	return 0;
}

/* A version as a Python tuple of its parts: "(9, 19)". */
static void
py_tuple(struct cv_buf *out, const struct cv_version *v)
{
	cv_text_add(out, "(", 1);
	for (int i = 0; i < v->nparts; i++) {
		char num[32];
		int len = snprintf(num, sizeof num, "%lu, ", v->part[i]);
		cv_text_add(out, num, (size_t)len);
	}
	cv_text_add(out, ")", 1);
}

/* NEEDS of the module: for each cuDNN major a framework of `prefix`
 * states, the highest floor and the lowest bound of them all, the ones
 * the gate held the pins to (lib/python/gate.c) when `cudnnvm venv` ran. A
 * Python dict literal; "{}" when none states one. */
static char *
needs_text(const char *prefix)
{
	struct cv_buf *out = cv_text_new();
	struct cv_fw_env fe;
	char *s;

	cv_text_add(out, "{", 1);
	if (cv_frameworks_find(&fe, prefix, NULL) == 0) {
		for (unsigned long major = 1; major < 100; major++) {
			const struct cv_version *low = NULL, *high = NULL;
			int incl = 0;
			for (size_t i = 0; i < fe.n; i++) {
				const struct cv_fw_need *nd = &fe.fw[i].need;
				if (!nd->have || nd->min.nparts == 0 ||
				    nd->min.part[0] != major)
					continue;
				if (low == NULL ||
				    cv_version_cmp(&nd->min, low) > 0)
					low = &nd->min;
				if (nd->max.nparts > 0 &&
				    (high == NULL ||
				     cv_version_cmp(&nd->max, high) < 0)) {
					high = &nd->max;
					incl = nd->max_incl;
				}
			}
			if (low == NULL)
				continue;
			s = xasprintf("%lu: (", major);
			cv_text_add(out, s, strlen(s));
			free(s);
			py_tuple(out, low);
			cv_text_add(out, ", ", 2);
			if (high != NULL)
				py_tuple(out, high);
			else
				cv_text_add(out, "None", 4);
			cv_text_add(out, incl ? ", True), " : ", False), ",
				    incl ? 9 : 10);
		}
		cv_fw_env_release(&fe);
	}
	cv_text_add(out, "}", 1);
	s = xstrdup(cv_text_str(out));
	cv_text_free(out);
	return s;
}

/* The module's text: module_py with the pins in. */
static char *
module_text(const struct cv_preload_pin *pins, size_t n, const char *needs)
{
	struct cv_buf *mod = cv_text_new();
	char *s;

	for (const char *p = module_py; *p;) {
		if (strncmp(p, "@IDS@", 5) == 0) {
			for (size_t i = 0; i < n; i++) {
				if (i)
					cv_text_add(mod, " ", 1);
				cv_text_add(mod, pins[i].id,
					    strlen(pins[i].id));
			}
			p += 5;
		} else if (strncmp(p, "@NEEDS@", 7) == 0) {
			cv_text_add(mod, needs, strlen(needs));
			p += 7;
		} else if (strncmp(p, "@PINS@", 6) == 0) {
			cv_text_add(mod, "(", 1);
			for (size_t i = 0; i < n; i++) {
				cv_text_add(mod, "(", 1);
				py_quote(mod, pins[i].store);
				cv_text_add(mod, ", ", 2);
				py_quote(mod, pins[i].id);
				cv_text_add(mod, "), ", 3);
			}
			cv_text_add(mod, ")", 1);
			p += 6;
		} else {
			cv_text_add(mod, p, 1);
			p++;
		}
	}
	s = xstrdup(cv_text_str(mod));
	cv_text_free(mod);
	return s;
}

/* The finder's module. site.py executes a .pth line that starts with
 * "import"; importing a module lets the interpreter keep its compiled
 * form in __pycache__, where a class compiled from a string in the line
 * would cost every start some 1.3 ms (measured on the H200). */
static char *
finder_text(void)
{
	struct cv_buf *src = cv_text_new();
	char *s;

	cv_text_add(src, "import sys\n", 11);
	for (const char *p = finder_py; *p;) {
		if (strncmp(p, "@NAMES@", 7) == 0) {
			cv_text_add(src, "(", 1);
			for (size_t i = 0; framework_modules[i]; i++) {
				py_quote(src, framework_modules[i]);
				cv_text_add(src, ", ", 2);
			}
			cv_text_add(src, ")", 1);
			p += 7;
		} else {
			cv_text_add(src, p, 1);
			p++;
		}
	}
	s = xstrdup(cv_text_str(src));
	cv_text_free(src);
	return s;
}

int
cv_preload_hook(const char *prefix, const struct cv_preload_pin *pins, size_t n,
		int remove, struct cv_err *err)
{
	struct pth_args a;
	char *needs;
	int r;

	if (remove || n == 0)
		return each_site_packages(prefix, 0, remove_one, NULL, err);
	needs = needs_text(prefix);
	a.module = module_text(pins, n, needs);
	free(needs);
	a.finder = finder_text();
	a.pth = "import _cudnnvm_finder\n";
	r = each_site_packages(prefix, 1, install_one, &a, err);
	free((char *)a.module);
	free((char *)a.finder);
	/* an environment without Python (a bare conda prefix) has no
	 * interpreter to hook: the activate scripts are all it needs */
	return r;
}

/* The ids of the "# Pinned:" line of a module we wrote (ids hold no
 * blank: the grammar of lib/base/version.c). */
static int
pins_one(const char *sp, void *arg, struct cv_err *err)
{
	static const char tag[] = "\n# Pinned: ";
	struct pins_args *a = arg;
	char path[PATH_MAX * 2 + 32], head[2048], *line, *tok, *save;

	(void)err;
	a->sites++;
	if (a->n > 0)
		return 0;
	/* without its .pth line the interpreter never imports the module:
	 * a pin killed before that last write is no pin, as Python sees it */
	snprintf(path, sizeof path, "%s/" CV_PRELOAD_PTH, sp);
	if (cv_fs_read_head(CV_AT_CWD, path, 1, head, sizeof head) < 0)
		return 0;
	snprintf(path, sizeof path, "%s/" MODULE_FILE, sp);
	if (cv_fs_read_head(CV_AT_CWD, path, 1, head, sizeof head) < 0 ||
	    (line = strstr(head, tag)) == NULL)
		return 0;
	line += strlen(tag);
	line[strcspn(line, "\n")] = '\0';
	for (tok = strtok_r(line, " ", &save); tok != NULL && a->n < a->max;
	     tok = strtok_r(NULL, " ", &save))
		if (strlen(tok) < 64)
			snprintf(a->ids[a->n++], 64, "%s", tok);
	return 0;
}

int
cv_preload_pins(const char *prefix, char (*ids)[64], size_t max)
{
	struct pins_args a = { ids, max, 0, 0 };
	struct cv_err err = CV_ERR_INIT;

	each_site_packages(prefix, 0, pins_one, &a, &err);
	return (int)a.n;
}

int
cv_preload_pin_of(const char *prefix, char id[64])
{
	char ids[CV_VENV_MAXPINS][64];
	struct pins_args a = { ids, CV_VENV_MAXPINS, 0, 0 };
	struct cv_err err = CV_ERR_INIT;

	each_site_packages(prefix, 0, pins_one, &a, &err);
	if (a.sites == 0)
		return -1;
	if (a.n == 0)
		return 0;
	snprintf(id, 64, "%s", ids[0]);
	return 1;
}

struct site_args {
	char *module, *pth;
	size_t n;
	int found;
};

static int
site_one(const char *sp, void *arg, struct cv_err *err)
{
	struct site_args *a = arg;

	(void)err;
	if (!a->found) {
		snprintf(a->module, a->n, "%s/" MODULE_FILE, sp);
		snprintf(a->pth, a->n, "%s/" CV_PRELOAD_PTH, sp);
		a->found = 1;
	}
	return 0;
}

int
cv_preload_site_files(const char *prefix, char *module, char *pth, size_t n)
{
	struct site_args a = { module, pth, n, 0 };
	struct cv_err err = CV_ERR_INIT;

	each_site_packages(prefix, 0, site_one, &a, &err);
	return a.found;
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
	struct cv_stat sb;
	long major = strtol(id, NULL, 10);

	snprintf(lib, sizeof lib, "%s/lib/libcudnn.so.%ld", vdir, major);
	if (cv_os_stat(lib, &sb) < 0 || sb.kind != CV_KIND_FILE)
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
		cv_os_setenv("LD_PRELOAD", both);
		free(both);
	} else {
		cv_os_setenv("LD_PRELOAD", lib);
	}
	return 1;
}
