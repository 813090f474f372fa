/* test_manifest.c: NVIDIA's real manifests (8.x and 9.x shapes) and
 * hostile ones (doc/reliability.md M1-M8). Run from the repository root. */
#include "base/base.h"
#include "install/install_int.h"
#include "release/release_int.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *
load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = xmalloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static struct cv_err last;

static int
parse(const char *json, struct cv_manifest *m)
{
	last = (struct cv_err)CV_ERR_INIT;
	return cv_manifest_parse(m, "redistrib_test.json", json, strlen(json),
				 &last);
}

/* Parse a 9.x-shaped manifest whose linux-x86_64.cuda12 file object is
 * `file`, and return that entry's bad reason ("" when usable). */
static const char *
entry_bad(const char *file)
{
	static char bad[256];
	char *json =
		xasprintf("{\"release_label\":\"9.1.0\",\"cudnn\":{\"version\":"
			  "\"9.1.0.70\",\"linux-x86_64\":{\"cuda12\":%s}}}",
			  file);
	struct cv_manifest m;
	const struct cv_release_file *f;

	snprintf(bad, sizeof bad, "<parse failed>");
	if (parse(json, &m) == 0) {
		f = cv_manifest_find(&m, "linux-x86_64", 12);
		snprintf(bad, sizeof bad, "%s", f ? f->bad : "<missing>");
		cv_manifest_release(&m);
	}
	free(json);
	return bad;
}

#define GOOD_SHA \
	"475333625c7e42a7af3ca0b2f7506a106e30c93b1aa0081cd9c13efb6e21e3bb"
#define FILEOBJ(path, sha, size) \
	"{\"relative_path\":\"" path "\",\"sha256\":" sha ",\"size\":" size "}"

static int
path_ok(const char *p)
{
	return cv_manifest_check_path(p, NULL) == 0;
}

int
main(void)
{
	struct cv_manifest m;
	const struct cv_release_file *f;
	char *data, buf[128];
	size_t len = 0; /* load() leaves it unset when the file is missing */

	/* 8.x: platform -> file, cuda from the file name */
	data = load("tests/fixtures/manifests/redistrib_8.9.7.29.json", &len);
	CHECK(data != NULL);
	CHECK(cv_manifest_parse(&m, "redistrib_8.9.7.29.json", data, len,
				&last) == 0);
	CHECK(m.version.nparts == 4 && m.version.part[3] == 29);
	CHECK(strcmp(m.label, "8.9.7.29") == 0);
	f = cv_manifest_find(&m, "linux-x86_64", 12);
	CHECK(f != NULL && f->bad[0] == '\0');
	CHECK(f && f->size == 864984964ULL);
	CHECK(f && strcmp(f->sha256, GOOD_SHA) == 0);
	CHECK(f &&
	      strcmp(f->relative_path,
		     "cudnn/linux-x86_64/"
		     "cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz") == 0);
	CHECK(cv_manifest_find(&m, "linux-x86_64", 11) == NULL);
	CHECK(cv_manifest_find(&m, "windows-x86_64", 12) != NULL);
	cv_manifest_variants(&m, "linux-sbsa", buf, sizeof buf);
	CHECK(strcmp(buf, "cuda12") == 0);
	/* the pin of the real file matches */
	CHECK(cv_pins_check("redistrib_8.9.7.29.json", data, len, NULL) == 0);
	cv_manifest_release(&m);
	data[len / 2] ^= 1;
	CHECK(cv_pins_check("redistrib_8.9.7.29.json", data, len, &last) ==
	      CV_EDATA);
	CHECK(strstr(last.msg, "tampering") != NULL);
	CHECK(cv_pins_check("redistrib_1.2.3.json", data, len, NULL) == 0);
	free(data);

	/* 9.x: platform -> cudaNN -> file */
	data = load("tests/fixtures/manifests/redistrib_9.13.0.json", &len);
	CHECK(data != NULL);
	CHECK(cv_manifest_parse(&m, "redistrib_9.13.0.json", data, len,
				&last) == 0);
	CHECK(strcmp(m.label, "9.13.0") == 0);
	CHECK(m.version.part[3] == 50);
	CHECK(cv_manifest_find(&m, "linux-x86_64", 12) != NULL);
	CHECK(cv_manifest_find(&m, "linux-x86_64", 13) != NULL);
	CHECK(cv_manifest_find(&m, "linux-aarch64", 13) != NULL);
	cv_manifest_variants(&m, "linux-x86_64", buf, sizeof buf);
	CHECK(strcmp(buf, "cuda12, cuda13") == 0);
	CHECK(cv_pins_check("redistrib_9.13.0.json", data, len, NULL) == 0);
	cv_manifest_release(&m);
	free(data);
	data = load("tests/fixtures/manifests/redistrib_9.8.0.json", &len);
	CHECK(cv_manifest_parse(&m, "redistrib_9.8.0.json", data, len, &last) ==
	      0);
	cv_manifest_variants(&m, "linux-x86_64", buf, sizeof buf);
	CHECK(strcmp(buf, "cuda11, cuda12") == 0);
	cv_manifest_variants(&m, "linux-aarch64", buf, sizeof buf);
	CHECK(strcmp(buf, "cuda12") == 0);
	cv_manifest_release(&m);
	free(data);
	data = load("tests/fixtures/manifests/redistrib_9.20.0.json", &len);
	CHECK(cv_manifest_parse(&m, "redistrib_9.20.0.json", data, len,
				&last) == 0);
	CHECK(cv_manifest_find(&m, "linux-aarch64", 13) == NULL);
	cv_manifest_release(&m);
	free(data);

	/* odd entry (9.27 windows-arm64): a variant and flat fields mixed */
	CHECK(parse("{\"cudnn\":{\"version\":\"9.27.0.42\",\"windows-arm64\":{"
		    "\"cuda13\":" FILEOBJ(
			    "cudnn/w/a_cuda13-archive.zip", "\"" GOOD_SHA "\"",
			    "\"10\"") ","
				      "\"relative_path\":\"cudnn/w/b_cuda13.4-archive.zip\","
				      "\"sha256\":\"" GOOD_SHA
				      "\",\"size\":\"11\"},"
				      "\"linux-x86_64\":{\"cuda12\":" FILEOBJ(
					      "cudnn/l/c_cuda12-archive.tar.xz",
					      "\"" GOOD_SHA "\"",
					      "\"12\"") "}}}",
		    &m) == 0);
	f = cv_manifest_find(&m, "windows-arm64", 13);
	CHECK(f != NULL && f->size == 10);
	CHECK(cv_manifest_find(&m, "linux-x86_64", 12) != NULL);
	cv_manifest_release(&m);
	/* unknown keys are ignored, order does not matter */
	CHECK(parse("{\"zzz\":[1,2],\"cudnn\":{\"linux-x86_64\":{\"cuda12\":"
		    "{\"extra\":{},\"size\":\"5\",\"sha256\":\"" GOOD_SHA
		    "\",\"relative_path\":\"cudnn/x_cuda12-archive.tar.xz\"}},"
		    "\"version\":\"9.1.0.70\",\"cuda_variant\":[\"12\"]}}",
		    &m) == 0);
	CHECK(m.nfiles == 1 && m.files[0].bad[0] == '\0');
	CHECK(strcmp(m.label, "9.1.0") == 0);
	cv_manifest_release(&m);

	/* M1: broken JSON, with a byte offset */
	CHECK(parse("", &m) == CV_EDATA);
	CHECK(parse("{\"cudnn\": {", &m) == CV_EDATA);
	CHECK(strstr(last.msg, "byte") != NULL);
	CHECK(parse("\xef\xbb\xbf{}", &m) == CV_EDATA);
	CHECK(parse("\xff\xfe{\0", &m) == CV_EDATA);
	CHECK(parse("[]", &m) == CV_EDATA);
	CHECK(parse("{\"cudnn\":{}}", &m) == CV_EDATA);
	CHECK(strstr(last.msg, "cudnn.version") != NULL);
	CHECK(parse("{\"cudnn\":{\"version\":\"9.1\"}}", &m) == CV_EDATA);
	CHECK(parse("{\"cudnn\":{\"version\":\"../x\"}}", &m) == CV_EDATA);
	/* M2: wrong types, with the field path */
	CHECK(strcmp(entry_bad(FILEOBJ("cudnn/a_cuda12-archive.tar.xz",
				       "\"" GOOD_SHA "\"", "{}")),
		     "cudnn.linux-x86_64.cuda12.size: expected a decimal "
		     "string (1 to 68719476736)") == 0);
	CHECK(strstr(entry_bad(FILEOBJ("cudnn/a_cuda12-archive.tar.xz", "5",
				       "\"1\"")),
		     "cudnn.linux-x86_64.cuda12.sha256") != NULL);
	CHECK(strstr(entry_bad("[]"), "cudnn.linux-x86_64.cuda12: expected "
				      "an object") != NULL);
	CHECK(strstr(entry_bad("{\"sha256\":\"" GOOD_SHA "\",\"size\":\"1\"}"),
		     "relative_path: missing") != NULL);
	/* M3: hostile numbers */
	{
		static const char *sizes[] = {
			"\"99999999999999999999\"",
			"\"-1\"",
			"\"1e400\"",
			"\"0x10\"",
			"\" 12\"",
			"\"12abc\"",
			"\"\"",
			"12",
			"\"68719476737\"",
			"\"0\"",
			"\"+5\"",
			NULL,
		};
		for (int i = 0; sizes[i]; i++) {
			char *o = xasprintf(
				"{\"relative_path\":\"cudnn/a_cuda12-archive."
				"tar.xz\",\"sha256\":\"" GOOD_SHA
				"\",\"size\":%s}",
				sizes[i]);
			CHECK(strstr(entry_bad(o), ".size: expected a decimal "
						   "string") != NULL);
			free(o);
		}
		CHECK(strcmp(entry_bad(FILEOBJ("cudnn/a_cuda12-archive.tar.xz",
					       "\"" GOOD_SHA "\"",
					       "\"68719476736\"")),
			     "") == 0);
	}
	/* M4: sha256 wrong length, non-hex, missing */
	CHECK(strstr(entry_bad(FILEOBJ("cudnn/a_cuda12-archive.tar.xz",
				       "\"abc\"", "\"1\"")),
		     "sha256: expected 64 hex") != NULL);
	CHECK(strstr(entry_bad(FILEOBJ(
			     "cudnn/a_cuda12-archive.tar.xz",
			     "\"g75333625c7e42a7af3ca0b2f7506a106e30c93b1aa0081cd"
			     "9c13efb6e21e3bb\"",
			     "\"1\"")),
		     "sha256") != NULL);
	CHECK(strstr(entry_bad("{\"relative_path\":\"cudnn/a_cuda12-archive."
			       "tar.xz\",\"size\":\"1\"}"),
		     "sha256: missing") != NULL);
	/* upper-case hex is folded */
	{
		char *o = xasprintf(FILEOBJ("cudnn/a_cuda12-archive.tar.xz",
					    "\"%s\"", "\"1\""),
				    "475333625C7E42A7AF3CA0B2F7506A106E30C93B1"
				    "AA0081CD9C13EFB6E21E3BB");
		CHECK(strcmp(entry_bad(o), "") == 0);
		free(o);
	}
	/* M5: deep nesting does not crash */
	{
		size_t n = 200000;
		char *deep = xmalloc(2 * n + 1);
		memset(deep, '[', n);
		memset(deep + n, ']', n);
		deep[2 * n] = '\0';
		CHECK(parse(deep, &m) == CV_EDATA);
		free(deep);
	}
	/* M6: over the size cap */
	CHECK(cv_manifest_parse(&m, "x", "{}", CV_MANIFEST_MAX_BYTES + 1,
				NULL) == CV_EDATA);
	/* M7: duplicate keys are refused */
	CHECK(parse("{\"cudnn\":{\"version\":\"9.1.0.70\",\"version\":"
		    "\"9.2.0.1\"}}",
		    &m) == CV_EDATA);
	/* M8: relative_path */
	CHECK(path_ok("cudnn/linux-x86_64/cudnn-linux-x86_64-9.13.0.50_cuda12-"
		      "archive.tar.xz"));
	CHECK(!path_ok("../../x"));
	CHECK(!path_ok("cudnn/../../x"));
	CHECK(!path_ok("/etc/x"));
	CHECK(!path_ok("https://evil/x"));
	CHECK(!path_ok("//evil/x"));
	CHECK(!path_ok("%2e%2e/x"));
	CHECK(!path_ok("a\\b"));
	CHECK(!path_ok("a?b"));
	CHECK(!path_ok("a#b"));
	CHECK(!path_ok("a/./b"));
	CHECK(!path_ok("a//b"));
	CHECK(!path_ok("a/\x01"));
	CHECK(!path_ok("user@evil/x"));
	CHECK(!path_ok(""));
	CHECK(strstr(entry_bad(FILEOBJ("../../x_cuda12-archive.tar.xz",
				       "\"" GOOD_SHA "\"", "\"1\"")),
		     "relative_path") != NULL);
	/* the URL is the base plus the path, one slash between */
	{
		char *u =
			cv_manifest_url("https://h/redist/", "cudnn/a.tar.xz");
		CHECK(strcmp(u, "https://h/redist/cudnn/a.tar.xz") == 0);
		free(u);
		u = cv_manifest_url("https://h/redist", "cudnn/a.tar.xz");
		CHECK(strcmp(u, "https://h/redist/cudnn/a.tar.xz") == 0);
		free(u);
	}
	/* cuBLAS's own channel: the cuDNN shape, one cuda<N> per CUDA major */
	{
		static const char chan[] =
			"{\"libcublas\": {\"version\": \"12.9.3.1\", "
			"\"cuda_variant\": [\"12\"], \"linux-x86_64\": "
			"{\"cuda12\": {\"relative_path\": "
			"\"libcublas/linux-x86_64/libcublas-linux-x86_64-"
			"12.9.3.1_cuda12-archive.tar.xz\", \"sha256\": \"" GOOD_SHA
			"\", \"size\": \"7\"}}}}";
		struct cv_release_file cf;
		struct cv_err e = CV_ERR_INIT;
		char ver[32];
		CHECK(cv_manifest_component("c.json", chan, strlen(chan),
					    "libcublas", "linux-x86_64", 12,
					    &cf, ver, &e) == 0 &&
		      strcmp(ver, "12.9.3.1") == 0 && cf.size == 7 &&
		      cf.cuda == 12);
		CHECK(cv_manifest_component("c.json", chan, strlen(chan),
					    "libcublas", "linux-x86_64", 13,
					    &cf, ver, &e) == CV_ENOTFOUND);
	}
	/* the file a channel names for a component, release and CUDA major */
	CHECK(cv_dep_url_ok("libcublas", "linux-x86_64", "12.8.4.1", 0,
			    "libcublas/linux-x86_64/libcublas-linux-x86_64-"
			    "12.8.4.1-archive.tar.xz"));
	CHECK(cv_dep_url_ok("libcublas", "linux-x86_64", "12.9.3.1", 12,
			    "libcublas/linux-x86_64/libcublas-linux-x86_64-"
			    "12.9.3.1_cuda12-archive.tar.xz"));
	CHECK(!cv_dep_url_ok("libcublas", "linux-x86_64", "12.9.3.1", 13,
			     "libcublas/linux-x86_64/libcublas-linux-x86_64-"
			     "12.9.3.1_cuda12-archive.tar.xz"));
	CHECK(!cv_dep_url_ok("libcublas", "linux-x86_64", "12.9.3.1", 12,
			     "cuda_nvrtc/linux-x86_64/cuda_nvrtc-linux-x86_64-"
			     "12.9.3.1_cuda12-archive.tar.xz"));
	CHECK(!cv_dep_url_ok("libcublas", "linux-x86_64", "12.9.3.1", 12,
			     "libcublas/linux-x86_64/libcublas-linux-x86_64-"
			     "12.9.3.1_cuda12-archive."));
	/* platform names */
	CHECK(cv_platform_valid("linux-sbsa"));
	CHECK(!cv_platform_valid("linux-x86"));
	CHECK(!cv_platform_valid("../x"));
	return TEST_DONE();
}
