/* test_validate.c: version decoding, the driver and compute-capability
 * rules, the JSON round trip of a result, the cache key and cache, and
 * the doctor's message catalogue. */
#include "base/base.h"
#include "doctor/doctor_int.h"
#include "machine/machine.h"
#include "store/store.h"
#include "tap.h"
#include "validate/validate_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void
test_decode(void)
{
	int a, b, c;

	cv_probe_decode(91900, &a, &b, &c);
	CHECK(a == 9 && b == 19 && c == 0);
	cv_probe_decode(90100, &a, &b, &c);
	CHECK(a == 9 && b == 1 && c == 0);
	cv_probe_decode(8907, &a, &b, &c);
	CHECK(a == 8 && b == 9 && c == 7);
	cv_probe_decode(7605, &a, &b, &c);
	CHECK(a == 7 && b == 6 && c == 5);
	cv_probe_decode(92702, &a, &b, &c);
	CHECK(a == 9 && b == 27 && c == 2);
}

static void
test_rules(void)
{
	int need = 0;

	CHECK(cv_probe_min_driver(11) == 11000);
	CHECK(cv_probe_min_driver(12) == 12000);
	CHECK(cv_probe_min_driver(13) == 13000);
	CHECK(cv_probe_min_driver(0) == 0);
	/* 9.11 and newer: Turing (7.5) and later */
	CHECK(cv_probe_cc_ok(9, 19, 9, 0, &need) && need == 75);
	CHECK(!cv_probe_cc_ok(9, 19, 7, 0, &need));
	CHECK(cv_probe_cc_ok(9, 11, 7, 5, NULL));
	CHECK(!cv_probe_cc_ok(9, 11, 6, 1, NULL));
	/* 9.0-9.10 and 8.9: Maxwell (5.0) */
	CHECK(cv_probe_cc_ok(9, 10, 5, 0, &need) && need == 50);
	CHECK(!cv_probe_cc_ok(9, 10, 3, 7, NULL));
	CHECK(cv_probe_cc_ok(8, 9, 6, 0, NULL));
	CHECK(cv_probe_cc_ok(8, 2, 3, 5, &need) && need == 35);
	CHECK(cv_probe_cc_ok(7, 6, 3, 0, &need) && need == 30);
}

static void
fill(struct cv_validation *v)
{
	memset(v, 0, sizeof *v);
	snprintf(v->id, sizeof v->id, "9.19.0.56-cuda13");
	for (int i = 0; i < CV_NSTEPS; i++)
		v->step[i].status = CV_CHECK_PASS;
	v->step[CV_STEP_DRIVER].status = CV_CHECK_SKIP;
	snprintf(v->step[CV_STEP_DRIVER].reason, 64, "no NVIDIA GPU");
	snprintf(v->step[CV_STEP_GPU].reason, 64, "quote \" and \\ and \n");
	v->cudnn_version = 91900;
	v->cudart_version = 13010;
	v->driver_version = 13000;
	snprintf(v->gpu, sizeof v->gpu, "NVIDIA H200");
	v->cc_major = 9;
	v->max_err = 9.5e-7;
}

static void
test_json(void)
{
	struct cv_validation v, w;
	char *s;

	fill(&v);
	CHECK(cv_validation_failed(&v) < 0);
	s = cv_validation_json(&v);
	CHECK(strstr(s, "\"ok\":true") != NULL);
	CHECK(cv_validation_from_json(s, &w) == 0);
	CHECK(strcmp(w.id, v.id) == 0);
	CHECK(w.step[CV_STEP_DRIVER].status == CV_CHECK_SKIP);
	CHECK(strcmp(w.step[CV_STEP_GPU].reason, v.step[CV_STEP_GPU].reason) ==
	      0);
	CHECK(w.cudnn_version == 91900 && w.cudart_version == 13010);
	CHECK(w.driver_version == 13000 && w.cc_major == 9);
	CHECK(strcmp(w.gpu, "NVIDIA H200") == 0);
	CHECK(w.max_err > 9e-7 && w.max_err < 1e-6);
	free(s);

	v.step[CV_STEP_PROVENANCE].status = CV_CHECK_FAIL;
	CHECK(cv_validation_failed(&v) == CV_STEP_PROVENANCE);
	s = cv_validation_json(&v);
	CHECK(strstr(s, "\"ok\":false") != NULL);
	free(s);

	CHECK(cv_validation_from_json("", &w) < 0);
	CHECK(cv_validation_from_json("[]", &w) < 0);
	CHECK(cv_validation_from_json("{\"steps\":[]}", &w) < 0);
	CHECK(cv_validation_from_json("{\"steps\":[{\"status\":\"pass\"}]}",
				      &w) < 0);
	CHECK(strcmp(cv_step_name(CV_STEP_FILES), "files") == 0);
	CHECK(strcmp(cv_step_name(99), "?") == 0);
	CHECK(strcmp(cv_check_name(CV_CHECK_SKIP), "skip") == 0);
}

static void
write_file(const char *path, const char *data)
{
	FILE *f = fopen(path, "w");
	if (f != NULL) {
		fputs(data, f);
		fclose(f);
	}
}

static void
test_cache(void)
{
	char tmpl[] = "/tmp/cv-test-validate.XXXXXX";
	char *dir = mkdtemp(tmpl), *lib, *so, *k1, *k2, *k3, *k4, *cache;
	struct cv_validation v, w;
	struct timespec ts[2];

	CHECK(dir != NULL);
	if (dir == NULL)
		return;
	lib = cv_path_join(dir, "lib");
	mkdir(lib, 0755);
	so = cv_path_join(lib, "libcudnn.so.9");
	write_file(so, "x");
	cache = cv_path_join(dir, "cache");

	k1 = cv_validate_cache_key(dir, "9.19.0.56-cuda13", 0, NULL);
	k2 = cv_validate_cache_key(dir, "9.19.0.56-cuda13", 0, NULL);
	CHECK(strcmp(k1, k2) == 0);
	CHECK(strstr(k1, "libcudnn.so.9") != NULL);
	k3 = cv_validate_cache_key(dir, "9.19.0.56-cuda13", 1, NULL);
	CHECK(strcmp(k1, k3) != 0); /* --no-gpu is another result */

	/* a library changed in place (same size, other mtime) */
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[1] = ts[0];
	ts[1].tv_sec -= 1000;
	utimensat(AT_FDCWD, so, ts, 0);
	k4 = cv_validate_cache_key(dir, "9.19.0.56-cuda13", 0, NULL);
	CHECK(strcmp(k1, k4) != 0);

	fill(&v);
	CHECK(cv_validate_cache_get(cache, k4, &w) < 0);
	cv_validate_cache_put(cache, k4, &v);
	CHECK(cv_validate_cache_get(cache, k4, &w) == 0);
	CHECK(w.cached == 1 && strcmp(w.id, v.id) == 0);
	CHECK(cv_validate_cache_get(cache, k1, &w) < 0); /* other key */
	/* a key whose id would leave the folder is never used as a name */
	CHECK(cv_validate_cache_get(cache, "v1\nid=../x\n", &w) < 0);
	cv_validate_cache_put(cache, "v1\nid=../x\n", &v);
	CHECK(access(cache, F_OK) == 0);
	{
		char *bad = cv_path_join(dir, "x.json");
		CHECK(access(bad, F_OK) != 0);
		free(bad);
	}
	/* a damaged cache file is a miss, not an error */
	{
		char *f = xasprintf("%s/validate/9.19.0.56-cuda13.json", cache);
		write_file(f, "{not json");
		CHECK(cv_validate_cache_get(cache, k4, &w) < 0);
		unlink(f);
		free(f);
	}
	free(k1);
	free(k2);
	free(k3);
	free(k4);
	{
		char *cmd = xasprintf("rm -rf '%s'", dir);
		CHECK(system(cmd) == 0);
		free(cmd);
	}
	free(so);
	free(lib);
	free(cache);
}

/* The fix (and cause) for msg, or "" when nothing matched. */
static int
explains(const char *msg, const char *cause_has, const char *fix)
{
	struct cv_explanation e;
	int ok;

	if (!cv_doctor_explain(NULL, msg, &e))
		return cause_has == NULL && fix == NULL;
	ok = cause_has != NULL && strstr(e.cause, cause_has) != NULL &&
	     (fix == NULL || strcmp(e.fix, fix) == 0);
	if (!ok)
		fprintf(stderr, "# %s\n#  cause: %s\n#  fix:   %s\n",
			msg != NULL ? msg : "(null)", e.cause, e.fix);
	cv_explanation_release(&e);
	return ok;
}

static void
test_explain(void)
{
	CHECK(explains("Could not load library libcudnn_cnn_infer.so.8. "
		       "Error: libcudnn_cnn_infer.so.8: cannot open "
		       "shared object file",
		       "sub-libraries", NULL));
	/* the major the message names, not always 9 */
	CHECK(explains("ImportError: libcudnn.so.8: cannot open shared "
		       "object file: No such file or directory",
		       "cannot find cuDNN",
		       "cudnnvm install 8 && eval \"$(cudnnvm env 8)\""));
	CHECK(explains("RuntimeError: cuDNN error: "
		       "CUDNN_STATUS_NOT_INITIALIZED",
		       "driver", NULL));
	/* the version it was compiled with, as major.minor */
	CHECK(explains("Loaded runtime CuDNN library: 8.1.0 but source "
		       "was compiled with: 8.6.0.  CuDNN library needs to "
		       "have matching major version and equal or higher "
		       "minor version.",
		       "compiled with cuDNN 8.6 and needs cuDNN 8.6 or a newer "
		       "8.x; the cuDNN it loaded is 8.1",
		       "cudnnvm install 8.6 && eval \"$(cudnnvm env 8.6)\""));
	CHECK(explains("RuntimeError: cuDNN version incompatibility: PyTorch "
		       "was compiled  against (9, 19, 0) but found runtime "
		       "version (9, 14, 0). PyTorch already comes bundled "
		       "with cuDNN.",
		       "compiled with cuDNN 9.19 and needs 9.19 or a newer "
		       "9.x, but found 9.14",
		       "cudnnvm install 9.19 && eval \"$(cudnnvm env 9.19)\""));
	CHECK(explains("OSError: /usr/local/cuda/lib64/libcudnn_cnn.so.9: "
		       "cannot open shared object file: Permission denied",
		       "/usr/local/cuda/lib64/libcudnn_cnn.so.9 exists but "
		       "this user may not read it",
		       "sudo chmod a+r '/usr/local/cuda/lib64'/libcudnn*   (or "
		       "adopt it: cudnnvm import '/usr/local/cuda/lib64')"));
	CHECK(explains("Could not load library libcudnn_cnn.so.9: "
		       "Permission denied",
		       "may not read it", NULL));
	CHECK(explains("Unable to load any of {libcudnn_cnn.so.9.1.0, "
		       "libcudnn_cnn.so.9.1, libcudnn_cnn.so.9, "
		       "libcudnn_cnn.so}",
		       "no libcudnn_cnn.so.9.1 is on the loader path",
		       "cudnnvm install 9.1 && eval \"$(cudnnvm env 9.1)\" && "
		       "cudnnvm validate"));
	CHECK(explains("cuDNN error: CUDNN_STATUS_VERSION_MISMATCH",
		       "not of the same version", NULL));
	CHECK(explains("CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
		       "another version", "cudnnvm doctor"));
	CHECK(explains("Invalid handle. Cannot load symbol cublasLtCreate",
		       "libcublasLt", NULL));
	CHECK(explains("segmentation fault in my own code", NULL, NULL));
	CHECK(explains(NULL, NULL, NULL));
	CHECK(cv_doctor_catalogue_size() >= 10);
}

/* The runner, with a stand-in for the probe: a script that reports a
 * step, then dies, hangs or exits early. Checks the clean environment. */
static char *
script(const char *dir, const char *name, const char *body)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *text = xasprintf(
		"#!/bin/sh\n"
		"env > '%s/%s.env'\n"
		"echo '{\"k\":\"phase\",\"step\":0,\"what\":\"reading\"}'\n"
		"echo '{\"k\":\"step\",\"step\":0,\"status\":\"pass\","
		"\"reason\":\"\"}'\n"
		"echo '{\"k\":\"phase\",\"step\":1,\"what\":\"loading "
		"the test library\"}'\n%s\n",
		dir, name, body);
	write_file(path, text);
	chmod(path, 0755);
	free(text);
	return path;
}

static void
test_runner(void)
{
	char tmpl[] = "/tmp/cv-test-runner.XXXXXX";
	char *dir = mkdtemp(tmpl), *lib, *exe, *envf, *cmd;
	struct cv_validate_opts o = CV_VALIDATE_OPTS_INIT;
	struct cv_installed inst;
	struct cv_validation v;
	struct cv_err err = CV_ERR_INIT;
	FILE *f;
	char line[4096];
	int saw_ld = 0, saw_secret = 0;

	CHECK(dir != NULL);
	if (dir == NULL)
		return;
	lib = cv_path_join(dir, "lib");
	mkdir(lib, 0755);
	memset(&inst, 0, sizeof inst);
	snprintf(inst.id, sizeof inst.id, "9.19.0.56-cuda13");
	CHECK(cv_install_id_parse(&inst.version, inst.id, NULL) == 0);
	setenv("CUDNNVM_UNIT_SECRET", "1", 1);

	/* killed by SIGABRT while loading: a fail naming the signal */
	exe = script(dir, "abort",
		     "echo 'Invalid handle. Cannot load symbol "
		     "cublasLtCreate' >&2; kill -ABRT $$");
	o.self_exe = exe;
	CHECK(cv_validate(dir, &inst, &o, &v, &err) == 0);
	CHECK(v.step[CV_STEP_FILES].status == CV_CHECK_PASS);
	CHECK(v.step[CV_STEP_VERSION].status == CV_CHECK_FAIL);
	CHECK(strstr(v.step[CV_STEP_VERSION].reason, "SIGABRT") != NULL);
	CHECK(strstr(v.step[CV_STEP_VERSION].reason,
		     "while loading the test library") != NULL);
	CHECK(strstr(v.step[CV_STEP_VERSION].reason,
		     "Cannot load symbol cublasLtCreate") != NULL);
	CHECK(v.step[CV_STEP_GPU].status == CV_CHECK_SKIP);
	CHECK(cv_validation_failed(&v) == CV_STEP_VERSION);
	free(exe);

	/* the environment was clean: our own lib first, nothing inherited */
	envf = xasprintf("%s/abort.env", dir);
	f = fopen(envf, "r");
	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "LD_LIBRARY_PATH=", 16) == 0 &&
		    strncmp(line + 16, lib, strlen(lib)) == 0)
			saw_ld = 1;
		if (strncmp(line, "CUDNNVM_UNIT_SECRET=", 20) == 0)
			saw_secret = 1;
	}
	if (f != NULL)
		fclose(f);
	CHECK(saw_ld && !saw_secret);
	free(envf);

	/* a hang is killed at the timeout */
	exe = script(dir, "hang", "exec sleep 30");
	o.self_exe = exe;
	o.timeout_s = 1;
	CHECK(cv_validate(dir, &inst, &o, &v, &err) == 0);
	CHECK(v.step[CV_STEP_VERSION].status == CV_CHECK_FAIL);
	CHECK(strstr(v.step[CV_STEP_VERSION].reason, "no answer after 1 s") !=
	      NULL);
	free(exe);

	/* an early exit without "done" */
	exe = script(dir, "early", "exit 3");
	o.self_exe = exe;
	o.timeout_s = 0;
	CHECK(cv_validate(dir, &inst, &o, &v, &err) == 0);
	CHECK(strstr(v.step[CV_STEP_VERSION].reason, "exited with status 3") !=
	      NULL);
	free(exe);

	/* a program that cannot be run at all */
	o.self_exe = "/nonexistent/cudnnvm";
	CHECK(cv_validate(dir, &inst, &o, &v, &err) == 0);
	CHECK(cv_validation_failed(&v) >= 0);

	/* a version cudnnvm cannot check is refused up front */
	inst.version.part[0] = 6;
	CHECK(cv_validate(dir, &inst, &o, &v, &err) == CV_EDATA);

	unsetenv("CUDNNVM_UNIT_SECRET");
	cmd = xasprintf("rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	free(lib);
}

struct ldseen {
	int libc, bad;
};

static void
ldseen_cb(void *payload, const char *soname, const char *path)
{
	struct ldseen *l = payload;
	size_t n = strlen(path);

	if (*soname == '\0' || path[0] != '/' || strchr(soname, ' ') != NULL)
		l->bad++;
	if (strcmp(soname, "libc.so.6") == 0 && n >= 9 &&
	    strcmp(path + n - 9, "libc.so.6") == 0)
		l->libc++;
}

/* The loader cache as `ldconfig -p` prints it: every Debian system lists
 * libc.so.6, and every entry is a bare soname with an absolute path. */
static void
test_ldcache(void)
{
	struct ldseen l = { 0, 0 };

	if (system("ldconfig -p >/dev/null 2>&1") != 0) {
		printf("ok %d # skip no ldconfig\n", ++t_run);
		return;
	}
	cv_ldcache_each(ldseen_cb, &l);
	CHECK(l.libc >= 1);
	CHECK(l.bad == 0);
}

int
main(void)
{
	test_decode();
	test_ldcache();
	test_rules();
	test_json();
	test_cache();
	test_explain();
	test_runner();
	return TEST_DONE();
}
