/* fw_probe.c: `validate --frameworks`: prove on the framework
 * itself that it binds to the version. A child runs, under the version's
 * activation (`cudnnvm exec --force <id> -- <env python> -c PROBE`, the
 * same path users take, preload included), each framework's smallest
 * convolution on the GPU, then reports the cuDNN version the framework
 * sees and the libcudnn files /proc/self/maps holds. Pass only when the
 * convolution ran, the version the framework reports (torch, JAX: never
 * none) is this one and passes the framework's own rule against the
 * version it was built with, and every sub-library mapped comes from
 * this version's folder. Opt-in: importing torch takes
 * seconds. */
#include "base/base.h"
#include "python/python_int.h"
#include "store/store.h"
#include "validate/validate.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_TIMEOUT_S 300

/* One JSON line per framework: {"fw", "ran", "version", "build",
 * "error", "maps"}: the cuDNN the framework itself reads at run time and
 * the one it was built against, where it says. torch: cudnn.version() and
 * torch._C._cudnn.getCompileVersion(); JAX: its CUDA plugin's
 * cuda_versions.cudnn_get_version() and cudnn_build_version(), the two
 * numbers JAX's own start-up check compares; TensorFlow publishes no
 * runtime number, so for it only the maps decide. */
static const char probe_py[] =
	"import json, os, sys\n"
	"def maps():\n"
	"    return sorted(set(l.split()[-1] for l in open('/proc/self/maps')\n"
	"                      if 'libcudnn' in l and l.split()[-1].startswith('/')))\n"
	"def number(t):\n"
	"    return t[0] * (10000 if t[0] >= 9 else 1000) + t[1] * 100 + t[2]\n"
	"def torch_conv():\n"
	"    import torch\n"
	"    torch.backends.cudnn.enabled = True\n"
	"    x = torch.randn(1, 3, 16, 16, device='cuda')\n"
	"    w = torch.randn(4, 3, 3, 3, device='cuda')\n"
	"    torch.nn.functional.conv2d(x, w)\n"
	"    torch.cuda.synchronize()\n"
	"    try:\n"
	"        build = number(torch._C._cudnn.getCompileVersion())\n"
	"    except Exception:\n"
	"        build = 0\n"
	"    return torch.backends.cudnn.version() or 0, build\n"
	"def tf_conv():\n"
	"    import tensorflow as tf\n"
	"    with tf.device('/GPU:0'):\n"
	"        y = tf.nn.conv2d(tf.random.normal([1, 16, 16, 3]),\n"
	"                         tf.random.normal([3, 3, 3, 4]), 1, 'SAME')\n"
	"    y.numpy()\n"
	"    return 0, 0\n"
	"def jax_versions():\n"
	"    import importlib\n"
	"    cv = None\n"
	"    try:\n"
	"        from jax._src.lib import cuda_versions as cv\n"
	"    except Exception:\n"
	"        pass\n"
	"    for m in ('jax_plugins.xla_cuda13', 'jax_plugins.xla_cuda12',\n"
	"              'jax_cuda13_plugin', 'jax_cuda12_plugin'):\n"
	"        if cv is not None:\n"
	"            break\n"
	"        try:\n"
	"            cv = importlib.import_module(m + '.cuda_versions')\n"
	"        except Exception:\n"
	"            pass\n"
	"    if cv is None:\n"
	"        return 0, 0\n"
	"    return int(cv.cudnn_get_version() or 0), int(cv.cudnn_build_version() or 0)\n"
	"def jax_conv():\n"
	"    import jax, jax.numpy as jnp\n"
	"    x = jnp.ones((1, 3, 16, 16)); w = jnp.ones((4, 3, 3, 3))\n"
	"    jax.lax.conv(x, w, (1, 1), 'SAME').block_until_ready()\n"
	"    return jax_versions()\n"
	"probes = {'torch': torch_conv, 'tensorflow': tf_conv, 'jax': jax_conv}\n"
	"for fw in sys.argv[1:]:\n"
	"    out = {'fw': fw, 'ran': False, 'version': 0, 'build': 0, 'error': ''}\n"
	"    try:\n"
	"        out['version'], out['build'] = probes[fw]()\n"
	"        out['ran'] = True\n"
	"    except BaseException as e:\n"
	"        out['error'] = ('%s: %s' % (type(e).__name__, e)).splitlines()[0][:400]\n"
	"    out['maps'] = maps()\n"
	"    print(json.dumps(out), flush=True)\n";

/* The probe a framework of this name gets, or NULL. */
static const char *
probe_of(const char *name)
{
	if (strcmp(name, "torch") == 0 || strcmp(name, "pytorch") == 0)
		return "torch";
	if (strncmp(name, "tensorflow", 10) == 0 ||
	    strncmp(name, "tf_nightly", 10) == 0)
		return "tensorflow";
	if (strncmp(name, "jax_cuda", 8) == 0 || strcmp(name, "jaxlib") == 0)
		return "jax";
	return NULL;
}

/* Run the probe for the frameworks fws under `exec --force id`, started
 * as self (the cudnnvm binary and its global flags); its stdout goes to
 * out. Returns its exit status (128+N for signal N), or <0 with err. */
static int
run_probe(const char *const *self, const char *id, const char *python,
	  const char *const *fws, size_t nfw, struct cv_buf *out,
	  struct cv_err *err)
{
	struct cv_child child = CV_CHILD_INIT;
	const char *args[64];
	size_t k = 0;

	for (size_t i = 0; self[i] != NULL && k < 40; i++)
		args[k++] = self[i];
	args[k++] = "-q"; /* the gate's --force warning is known */
	args[k++] = "exec";
	args[k++] = "--force";
	args[k++] = id;
	args[k++] = "--";
	args[k++] = python;
	args[k++] = "-c";
	args[k++] = probe_py;
	for (size_t i = 0; i < nfw && k < sizeof args / sizeof *args - 1; i++)
		args[k++] = fws[i];
	args[k] = NULL;
	child.argv = args;
	child.timeout_s = PROBE_TIMEOUT_S;
	child.out = out;
	return cv_child_run(&child, err);
}

/* The folder of a path (in place). */
static void
dir_of(char *p)
{
	char *s = strrchr(p, '/');
	if (s != NULL)
		*s = '\0';
}

static void
copy_fw(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src);
}

/* A cuDNN version number's major: 8907 is 8, 91400 is 9. */
static long
cudnn_major(long v)
{
	return v >= 90000 ? v / 10000 : v / 1000;
}

/* The rule JAX's start-up check and torch's apply to the cuDNN they run
 * and the one they were built against: the same major, and a minor at
 * least the build's (patches do not count). */
static int
own_rule(long runtime, long build)
{
	return cudnn_major(runtime) == cudnn_major(build) &&
	       runtime / 100 >= build / 100;
}

/* Judge one JSON line into *out. */
static void
judge(const char *line, const char *libdir_real, long expect, const char *id,
      struct cv_fw_verdict *out)
{
	struct cv_json *o = cv_json_loads(line, 0, NULL), *maps;
	const char *fw, *error;
	char other[PATH_MAX] = "", *why = out->why;
	size_t whyn = sizeof out->why;
	int ran, front_here = 0, subs = 0;
	long version, build;

	memset(out, 0, sizeof *out);
	if (o == NULL) {
		out->unreadable = 1;
		return;
	}
	fw = cv_json_string_value(cv_json_object_get(o, "fw"));
	error = cv_json_string_value(cv_json_object_get(o, "error"));
	ran = cv_json_is_true(cv_json_object_get(o, "ran"));
	version = (long)cv_json_integer_value(cv_json_object_get(o, "version"));
	build = (long)cv_json_integer_value(cv_json_object_get(o, "build"));
	maps = cv_json_object_get(o, "maps");
	for (size_t i = 0; i < cv_json_array_size(maps); i++) {
		const char *p =
			cv_json_string_value(cv_json_array_get(maps, i));
		char real[PATH_MAX], d[PATH_MAX];
		const char *base;
		if (p == NULL)
			continue;
		if (cv_os_realpath(p, real, sizeof real) == NULL)
			snprintf(real, sizeof real, "%s", p);
		snprintf(d, sizeof d, "%s", real);
		dir_of(d);
		base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
		if (strncmp(base, "libcudnn_", 9) == 0) {
			if (strcmp(d, libdir_real) == 0)
				subs++;
			else if (other[0] == '\0')
				snprintf(other, sizeof other, "%s", real);
		} else if (strcmp(d, libdir_real) == 0) {
			front_here = 1;
		}
	}
	if (!ran)
		snprintf(why, whyn, "the convolution did not run: %s",
			 error && *error ? error : "no reason given");
	else if (version == 0 && fw != NULL && strcmp(fw, "tensorflow") != 0)
		snprintf(why, whyn, "%s ran but reported no cuDNN version (%s)",
			 fw,
			 strcmp(fw, "jax") == 0
				 ? "its CUDA plugin's cuda_versions."
				   "cudnn_get_version()"
				 : "torch.backends.cudnn.version()");
	else if (version != 0 && build != 0 && !own_rule(version, build))
		snprintf(why, whyn,
			 "%s's own check fails: it runs cuDNN %ld but was "
			 "built against %ld (it needs the same major and at "
			 "least the build's minor)",
			 fw ? fw : "?", version, build);
	else if (version != 0 && version != expect)
		snprintf(why, whyn,
			 "it reports cuDNN %ld, not %ld (%s): it bound to "
			 "another copy",
			 version, expect, id);
	else if (other[0])
		snprintf(why, whyn,
			 "a sub-library was mapped from another folder: %s "
			 "(a mixed load)",
			 other);
	else if (!front_here)
		snprintf(why, whyn,
			 "no libcudnn.so from %s was mapped: it bound to "
			 "another copy",
			 libdir_real);
	out->pass = why[0] == '\0';
	out->version = version;
	out->build = build;
	out->subs = subs;
	copy_fw(out->fw, sizeof out->fw, fw ? fw : "?");
	cv_json_decref(o);
}

/* The probes for the frameworks of the Python environment in play, and
 * its interpreter; what the result depends on, beside the version's own
 * files, goes into key: the interpreter, each framework's record and
 * folder, the environment's own copy and the .pth hook. */
static size_t
pick(const char *fws[8], char *python, size_t n, struct cv_buf *key,
     struct cv_err *err)
{
	struct cv_fw_env fe;
	struct cv_stat sb;
	size_t nfw = 0;

	if (cv_frameworks_find(&fe, NULL, err) < 0)
		return (size_t)-1;
	for (size_t i = 0; i < fe.n; i++) {
		const char *p = probe_of(fe.fw[i].name);
		char sp[PATH_MAX + 16];
		int dup = 0;
		for (size_t k = 0; p && k < nfw; k++)
			dup |= strcmp(fws[k], p) == 0;
		if (p != NULL && !dup && nfw < 8)
			fws[nfw++] = p;
		cv_validate_key_identity(key, "framework", fe.fw[i].location);
		cv_validate_key_identity(key, "record", fe.fw[i].need.source);
		snprintf(sp, sizeof sp, "%s", fe.fw[i].location);
		dir_of(sp);
		strcat(sp, "/cudnnvm.pth");
		cv_validate_key_identity(key, "pth", sp);
	}
	snprintf(python, n, "%s/bin/python3", fe.prefix);
	if (cv_os_stat(python, &sb) < 0)
		snprintf(python, n, "%s/bin/python", fe.prefix);
	cv_validate_key_identity(key, "python", python);
	cv_validate_key_identity(key, "bundled", fe.bundled_dir);
	cv_fw_env_release(&fe);
	return nfw;
}

struct cv_json *
cv_fw_probe_json(const struct cv_fw_probe *p)
{
	struct cv_json *arr = cv_json_array();
	int pass = p->n == p->nfw;

	for (size_t i = 0; i < p->n; i++) {
		const struct cv_fw_verdict *v = &p->v[i];
		pass &= v->pass;
		cv_json_array_append_new(
			arr,
			cv_json_pack("{s:s,s:b,s:I,s:I,s:i,s:s}", "fw", v->fw,
				     "pass", v->pass, "cudnn_version",
				     (int64_t)v->version, "cudnn_build_version",
				     (int64_t)v->build, "sub_libraries",
				     v->subs, "reason", v->why));
	}
	return cv_json_pack("{s:b,s:b,s:b,s:s,s:i,s:o}", "ok", pass, "skipped",
			    p->nfw == 0, "cached", p->cached, "libdir",
			    p->libdir, "status", p->status, "frameworks", arr);
}

/* A cached result back into *out; 0, or -1 when it does not read. */
static int
from_json(struct cv_json *o, struct cv_fw_probe *out)
{
	struct cv_json *arr = cv_json_object_get(o, "frameworks");

	if (!cv_json_is_array(arr) ||
	    cv_json_array_size(arr) > CV_FW_PROBE_MAX ||
	    cv_json_array_size(arr) == 0)
		return -1;
	for (size_t i = 0; i < cv_json_array_size(arr); i++) {
		struct cv_json *x = cv_json_array_get(arr, i);
		struct cv_fw_verdict *v = &out->v[i];
		const char *fw =
			cv_json_string_value(cv_json_object_get(x, "fw"));
		if (fw == NULL ||
		    !cv_json_is_true(cv_json_object_get(x, "pass")))
			return -1;
		memset(v, 0, sizeof *v);
		copy_fw(v->fw, sizeof v->fw, fw);
		v->pass = 1;
		v->version = (long)cv_json_integer_value(
			cv_json_object_get(x, "cudnn_version"));
		v->build = (long)cv_json_integer_value(
			cv_json_object_get(x, "cudnn_build_version"));
		v->subs = (int)cv_json_integer_value(
			cv_json_object_get(x, "sub_libraries"));
	}
	out->n = out->nfw = cv_json_array_size(arr);
	out->cached = 1;
	return 0;
}

/* Run the probe and read its verdicts into *out. */
static int
probe(const char *const *self, const char *id, const struct cv_version *v,
      const char *python, const char *const *fws, struct cv_fw_probe *out,
      struct cv_err *err)
{
	struct cv_buf buf = CV_BUF_INIT;
	char *line, *next;

	out->status = run_probe(self, id, python, fws, out->nfw, &buf, err);
	if (out->status < 0) {
		cv_buf_release(&buf);
		return cv_err_prefix(err, "cannot start the framework probe: ");
	}
	for (line = buf.buf; *line && out->n < CV_FW_PROBE_MAX; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		if (*line == '{')
			judge(line, out->libdir, cv_version_cudnn_number(v), id,
			      &out->v[out->n++]);
	}
	cv_buf_release(&buf);
	return 0;
}

int
cv_fw_probe_run(const struct cv_store *st, const char *id,
		const char *const *self, struct cv_fw_probe *out,
		struct cv_err *err)
{
	struct cv_buf key = CV_BUF_INIT;
	const char *cache = cv_store_cache_dir(st);
	struct cv_version v;
	const char *fws[8] = { NULL };
	char python[PATH_MAX + 32], *vdir, *libdir, *base;
	struct cv_json *res;
	int r, pass;

	memset(out, 0, sizeof *out);
	if (cv_install_id_parse(&v, id, err) < 0)
		return err->code;
	vdir = cv_store_dir(st, id);
	/* the version's files, the driver and the GPUs, as validation's */
	base = cv_validate_cache_key(vdir, id, 0, NULL);
	cv_buf_addf(&key, "%sframeworks\n", base);
	free(base);
	if ((out->nfw = pick(fws, python, sizeof python, &key, err)) ==
	    (size_t)-1) {
		free(vdir);
		cv_buf_release(&key);
		return err->code;
	}
	libdir = cv_path_join(vdir, "lib");
	if (cv_os_realpath(libdir, out->libdir, sizeof out->libdir) == NULL)
		snprintf(out->libdir, sizeof out->libdir, "%s", libdir);
	free(libdir);
	free(vdir);
	if (out->nfw == 0) {
		cv_buf_release(&key);
		return 0;
	}
	res = cache ? cv_validate_cache_get_json(cache, key.buf, ".frameworks")
		    : NULL;
	if (res != NULL && from_json(res, out) == 0) {
		cv_json_decref(res);
		cv_buf_release(&key);
		return 0;
	}
	cv_json_decref(res);
	r = probe(self, id, &v, python, fws, out, err);
	/* only a pass is kept: a failure is probed again next time */
	pass = r == 0 && out->n == out->nfw && out->status == 0;
	for (size_t i = 0; pass && i < out->n; i++)
		pass = out->v[i].pass;
	if (pass && cache != NULL) {
		res = cv_fw_probe_json(out);
		cv_validate_cache_put_json(cache, key.buf, ".frameworks", res);
		cv_json_decref(res);
	}
	cv_buf_release(&key);
	return r;
}
