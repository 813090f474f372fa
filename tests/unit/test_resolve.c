/* test_resolve.c: spec -> release resolution across NVIDIA's real 8.x and
 * 9.x manifests, CUDA variants and platforms, read through the index from
 * a file:// mirror folder (no network). Run from the repository root. */
#include "base/base.h"
#include "install/install_int.h"
#include "machine/machine_int.h"
#include "release/release.h"
#include "store/store.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[] = "/tmp/cudnnvm-resolve-XXXXXX";
static struct cv_index *ix;
static struct cv_err last;
/* the last one resolved: "<file name> <size> <its DLLs' folder>" */
static char last_file[400];

static void
copy(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	char buf[65536];
	size_t n;

	while (a && b && (n = fread(buf, 1, sizeof buf, a)) > 0)
		fwrite(buf, 1, n, b);
	if (a)
		fclose(a);
	if (b)
		fclose(b);
}

static void
put(const char *name, const char *text)
{
	char *p = xasprintf("%s/mirror/%s", tmp, name);
	FILE *f = fopen(p, "w");

	fputs(text, f);
	fclose(f);
	free(p);
}

/* Resolve; returns the code and writes "<id> <platform> <label>". */
static int
res(const char *spec, int cuda, const char *platform, char *out, size_t n)
{
	struct cv_version v;
	struct cv_resolve_req req = { NULL, cuda, platform, 0 };
	struct cv_resolved r;
	char id[64];
	int rc;

	last = (struct cv_err)CV_ERR_INIT;
	out[0] = '\0';
	if (spec != NULL) {
		if (cv_version_parse(&v, spec, &last) < 0)
			return last.code;
		req.spec = &v;
	}
	rc = cv_resolve(ix, &req, &r, &last);
	if (rc == 0) {
		cv_version_format_id(&r.art.version, id, sizeof id);
		snprintf(out, n, "%s %s %s", id, r.art.platform, r.label);
		snprintf(last_file, sizeof last_file, "%s %llu %s",
			 r.art.filename, (unsigned long long)r.art.size,
			 cv_store_dll_subdir(&r.art.version));
		cv_resolved_release(&r);
	}
	return rc;
}

int
main(void)
{
	const char *names[] = { "8.9.7.29", "9.8.0", "9.13.0", "9.20.0" };
	struct cv_config cfg;
	struct cv_remote *r = NULL;
	struct cv_err err = CV_ERR_INIT;
	char *url, *cache, out[256], how[64];
	int detected;

	char *path0 =
		xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");

	/* a deterministic CUDA: no nvcc, no CUDA_HOME */
	setenv("PATH", "/nonexistent", 1);
	unsetenv("CUDA_HOME");
	detected =
		(cv_machine_forget(), cv_machine_cuda(how, sizeof how, NULL));

	CHECK(mkdtemp(tmp) != NULL);
	{
		char *d = xasprintf("%s/mirror", tmp);
		mkdir(d, 0755);
		free(d);
	}
	for (int i = 0; i < 4; i++) {
		char *from = xasprintf(
			"tests/fixtures/manifests/redistrib_%s.json", names[i]);
		char *to =
			xasprintf("%s/mirror/redistrib_%s.json", tmp, names[i]);
		copy(from, to);
		free(from);
		free(to);
	}
	put("index.html", "junk redistrib_.json redistrib_9..json");
	cv_config_init(&cfg);
	url = xasprintf("file://%s/mirror/", tmp);
	cache = xasprintf("%s/cache", tmp);
	CHECK(cv_remote_new(&r, &cfg, url, &err) == 0);
	CHECK(cv_index_open(&ix, r, cache, 0, &err) == 0);
	if (ix == NULL) {
		printf("# %s\n", err.msg);
		return TEST_DONE();
	}
	CHECK(ix && cv_index_count(ix) == 4);
	CHECK(ix && strcmp(cv_index_name(ix, 0), "9.20.0") == 0);
	CHECK(ix && strcmp(cv_index_name(ix, 3), "8.9.7.29") == 0);

	/* newest of a major, for a variant */
	CHECK(res("9", 12, "linux-x86_64", out, sizeof out) == 0);
	CHECK(strncmp(out, "9.20.0.", 7) == 0 && strstr(out, "-cuda12 "));
	CHECK(res(NULL, 12, "linux-x86_64", out, sizeof out) == 0);
	CHECK(strncmp(out, "9.20.0.", 7) == 0);
	CHECK(res("9.13", 13, "linux-x86_64", out, sizeof out) == 0);
	CHECK(strcmp(out, "9.13.0.50-cuda13 linux-x86_64 9.13.0") == 0);
	CHECK(res("9.13.0.50-cuda12", 13, "linux-sbsa", out, sizeof out) == 0);
	CHECK(strcmp(out, "9.13.0.50-cuda12 linux-sbsa 9.13.0") == 0);
	/* 8.x shape */
	CHECK(res("8", 12, "linux-x86_64", out, sizeof out) == 0);
	CHECK(strcmp(out, "8.9.7.29-cuda12 linux-x86_64 8.9.7.29") == 0);
	CHECK(res("8.9.7.29", 12, "windows-x86_64", out, sizeof out) == 0);
	CHECK(strcmp(out, "8.9.7.29-cuda12 windows-x86_64 8.9.7.29") == 0);
	/* NVIDIA's Windows zips, from the real manifests: the newest for
	 * each CUDA major, bin/x64 from 9.18 and bin before */
	CHECK(res("9", 13, "windows-x86_64", out, sizeof out) == 0);
	CHECK(strcmp(out, "9.20.0.48-cuda13 windows-x86_64 9.20.0") == 0);
	CHECK(strncmp(last_file,
		      "cudnn-windows-x86_64-9.20.0.48_cuda13-archive.zip ",
		      50) == 0 &&
	      strstr(last_file, " bin/x64") != NULL);
	CHECK(res("9.20", 12, "windows-x86_64", out, sizeof out) == 0);
	CHECK(strcmp(last_file,
		     "cudnn-windows-x86_64-9.20.0.48_cuda12-archive.zip "
		     "634960681 bin/x64") == 0);
	CHECK(res("9.13", 12, "windows-x86_64", out, sizeof out) == 0);
	CHECK(strcmp(out, "9.13.0.50-cuda12 windows-x86_64 9.13.0") == 0);
	CHECK(strstr(last_file, "-archive.zip ") != NULL &&
	      strcmp(strrchr(last_file, ' '), " bin") == 0);
	CHECK(res("9", 11, "windows-x86_64", out, sizeof out) == 0);
	CHECK(strcmp(out, "9.8.0.87-cuda11 windows-x86_64 9.8.0") == 0);
	/* 8.9.7's manifest lists one Windows zip, cuda12's */
	CHECK(res("8", 11, "windows-x86_64", out, sizeof out) == CV_ENOTFOUND);
	CHECK(res("8", 12, "windows-x86_64", out, sizeof out) == 0);
	CHECK(strcmp(last_file,
		     "cudnn-windows-x86_64-8.9.7.29_cuda12-archive.zip "
		     "708408517 bin") == 0);
	/* the machine's own platform when none is asked for: base's answer
	 * (linux-x86_64 here, windows-x86_64 where winbase's platform.c
	 * runs), not a name the resolver keeps */
	{
		char plat[32];
		CHECK(cv_platform_detect(plat, NULL) == 0);
		if (strcmp(plat, "linux-x86_64") == 0 ||
		    strcmp(plat, "windows-x86_64") == 0) {
			char want[64];
			CHECK(res("9.13.0.50", 12, NULL, out, sizeof out) == 0);
			snprintf(want, sizeof want,
				 "9.13.0.50-cuda12 %s 9.13.0", plat);
			CHECK(strcmp(out, want) == 0);
		}
	}
	/* a variant only older releases have */
	CHECK(res("9", 11, "linux-x86_64", out, sizeof out) == 0);
	CHECK(strncmp(out, "9.8.0.", 6) == 0 && strstr(out, "-cuda11 "));
	/* M9: the release has no build for that variant / platform */
	CHECK(res("9.13", 11, "linux-x86_64", out, sizeof out) == CV_ENOTFOUND);
	CHECK(strstr(last.msg, "cuDNN 9.13.0 has no build for cuda11 on "
			       "linux-x86_64; builds exist for: cuda12, "
			       "cuda13") != NULL);
	CHECK(res("9.20", 13, "linux-aarch64", out, sizeof out) ==
	      CV_ENOTFOUND);
	CHECK(strstr(last.msg, "builds exist for: cuda12") != NULL);
	CHECK(res("9", 13, "linux-aarch64", out, sizeof out) == 0);
	CHECK(strncmp(out, "9.13.0.50-cuda13 linux-aarch64", 30) == 0);
	CHECK(res("8", 12, "linux-aarch64", out, sizeof out) == CV_ENOTFOUND);
	CHECK(res("8.9.7.29-cuda11", 0, "linux-x86_64", out, sizeof out) ==
	      CV_ENOTFOUND);
	/* nothing matches */
	CHECK(res("7", 12, "linux-x86_64", out, sizeof out) == CV_ENOTFOUND);
	CHECK(strstr(last.msg, "list-remote") != NULL);
	CHECK(res("9.13.0.49", 12, "linux-x86_64", out, sizeof out) ==
	      CV_ENOTFOUND);
	CHECK(res("9.14", 12, "linux-x86_64", out, sizeof out) == CV_ENOTFOUND);
	CHECK(res("9", 12, "linux-bogus", out, sizeof out) == CV_EUSAGE);
	/* without a variant: the detected one, else the newest */
	if (detected == 0) {
		CHECK(res("9.13", 0, "linux-x86_64", out, sizeof out) == 0);
		CHECK(strcmp(out, "9.13.0.50-cuda13 linux-x86_64 9.13.0") == 0);
		CHECK(res("9.8", 0, "linux-x86_64", out, sizeof out) == 0);
		CHECK(strstr(out, "-cuda12 ") != NULL);
	} else {
		printf("ok - # SKIP a CUDA toolkit is installed here (%s)\n",
		       how);
	}
	/* the detected toolkit: a fake nvcc on PATH */
	{
		char *bin = xasprintf("%s/bin", tmp), *nvcc;
		FILE *f;
		mkdir(bin, 0755);
		nvcc = xasprintf("%s/nvcc", bin);
		f = fopen(nvcc, "w");
		fputs("#!/bin/sh\necho 'Cuda compilation tools, release 11.8, "
		      "V11.8.89'\n",
		      f);
		fclose(f);
		chmod(nvcc, 0755);
		setenv("PATH", bin, 1);
		CHECK((cv_machine_forget(),
		       cv_machine_cuda(how, sizeof how, NULL)) == 11);
		CHECK(res("9", 0, "linux-x86_64", out, sizeof out) == 0);
		CHECK(strncmp(out, "9.8.0.", 6) == 0 && strstr(out, "cuda11"));
		CHECK(res("9.13", 0, "linux-x86_64", out, sizeof out) ==
		      CV_ENOTFOUND);
		CHECK(strstr(last.msg, "nvcc") != NULL);
		unlink(nvcc);
		free(nvcc);
		free(bin);
		setenv("PATH", "/nonexistent", 1);
	}
	/* $CUDA_HOME/version.json */
	{
		char *vj = xasprintf("%s/version.json", tmp);
		FILE *f = fopen(vj, "w");
		fputs("{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"13.0.1\"}}",
		      f);
		fclose(f);
		setenv("CUDA_HOME", tmp, 1);
		CHECK((cv_machine_forget(),
		       cv_machine_cuda(how, sizeof how, NULL)) == 13);
		unsetenv("CUDA_HOME");
		free(vj);
	}
	cv_index_free(ix);
	ix = NULL;

	/* a bad entry is named by its path when it is the one chosen; a
	 * tampered pinned manifest is refused */
	put("redistrib_9.21.0.json",
	    "{\"release_label\":\"9.21.0\",\"cudnn\":{\"version\":\"9.21.0.5\","
	    "\"linux-x86_64\":{\"cuda12\":{\"relative_path\":\"cudnn/x_cuda12"
	    "-archive.tar.xz\",\"sha256\":\"00\",\"size\":\"1\"},\"cuda13\":"
	    "{\"relative_path\":\"cudnn/x_cuda13-archive.tar.xz\",\"sha256\":"
	    "\"0000000000000000000000000000000000000000000000000000000000000000"
	    "\",\"size\":\"12x\"}}}}");
	CHECK(cv_index_open(&ix, r, cache, 0, &err) == 0);
	/* the listing is cached for a day: the new file is not seen */
	CHECK(cv_index_count(ix) == 4);
	cv_index_free(ix);
	CHECK(cv_index_open(&ix, r, cache, 1, &err) == 0);
	CHECK(cv_index_count(ix) == 5);
	CHECK(res("9.21", 13, "linux-x86_64", out, sizeof out) == CV_EDATA);
	CHECK(strstr(last.msg, "tampering") != NULL);
	cv_index_free(ix);
	cv_remote_free(r);
	cfg.verify_pins = 0;
	CHECK(cv_remote_new(&r, &cfg, url, &err) == 0);
	CHECK(cv_index_open(&ix, r, cache, 0, &err) == 0);
	CHECK(res("9.21", 13, "linux-x86_64", out, sizeof out) == CV_EDATA);
	CHECK(strstr(last.msg, "cudnn.linux-x86_64.cuda13.size: expected a "
			       "decimal string") != NULL);
	CHECK(res("9.21", 12, "linux-x86_64", out, sizeof out) == CV_EDATA);
	CHECK(strstr(last.msg, "cudnn.linux-x86_64.cuda12.sha256") != NULL);
	/* resolution uses the manifest's own file for the URL */
	{
		struct cv_version v;
		struct cv_resolve_req req = { &v, 12, "linux-x86_64", 0 };
		struct cv_resolved rr;
		cv_version_parse(&v, "9.13", NULL);
		CHECK(cv_resolve(ix, &req, &rr, &err) == 0);
		CHECK(strncmp(rr.url, url, strlen(url)) == 0);
		CHECK(strcmp(rr.url + strlen(url),
			     "cudnn/linux-x86_64/cudnn-linux-x86_64-9.13.0.50_"
			     "cuda12-archive.tar.xz") == 0);
		CHECK(strcmp(rr.art.filename,
			     "cudnn-linux-x86_64-9.13.0.50_cuda12-archive."
			     "tar.xz") == 0);
		CHECK(rr.art.size > 0 && strlen(rr.art.sha256) == 64);
		cv_resolved_release(&rr);
	}
	cv_index_free(ix);
	cv_remote_free(r);
	cv_config_release(&cfg);
	setenv("PATH", path0, 1);
	free(path0);
	{
		char *cmd = xasprintf("rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			printf("# cleanup failed\n");
		free(cmd);
	}
	free(url);
	free(cache);
	return TEST_DONE();
}
