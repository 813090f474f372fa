/* test_activate.c: pin files (doc/reliability.md P1, P2, P4): what is read,
 * what is refused with one clear line, and the upward search. */
#include "activate/activate_int.h"
#include "base/base.h"
#include "python/python.h"
#include "store/store.h"
#include "tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A spec parsed the way cmd/ parses it at the edge (static storage). */
static const struct cv_version *
V(const char *text)
{
	static struct cv_version v[8];
	static int next;
	struct cv_version *out = &v[next++ % 8];

	if (cv_version_parse(out, text, NULL) < 0)
		abort();
	return out;
}

static char dir[256];

static const char *
put(const char *rel, const char *content)
{
	static char p[512];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	f = fopen(p, "w");
	if (f == NULL)
		return p;
	fputs(content, f);
	fclose(f);
	return p;
}

static int
reads(const char *content, int tv, const char *want)
{
	struct cv_err err = CV_ERR_INIT;
	char spec[64] = "";
	const char *p = put(tv ? ".tool-versions" : ".cudnn-version", content);
	int r = cv_pin_read(p, tv, spec, &err);

	if (want == NULL)
		return r == 0;
	return r == 1 && strcmp(spec, want) == 0;
}

static int
refused(const char *content, const char *why)
{
	struct cv_err err = CV_ERR_INIT;
	char spec[64];
	const char *p = put(".cudnn-version", content);
	int r = cv_pin_read(p, 0, spec, &err);

	if (r != CV_EDATA || strchr(err.msg, '\n') != NULL)
		return 0;
	return why == NULL || strstr(err.msg, why) != NULL;
}

/* A store entry as the store writes it: <root>/<id>/ with cudnnvm.json. */
static void
mkver(const char *root, const char *id)
{
	char p[700], ver[64];
	FILE *f;

	snprintf(ver, sizeof ver, "%s", id);
	*strstr(ver, "-cuda") = '\0';
	snprintf(p, sizeof p, "%s/%s", root, id);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/%s/lib", root, id);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/%s/cudnnvm.json", root, id);
	f = fopen(p, "w");
	fprintf(f,
		"{\"id\": \"%s\", \"version\": \"%s\", \"cuda\": %s, "
		"\"platform\": \"linux-x86_64\", \"sha256\": \"%064d\", "
		"\"size\": 1, \"source\": \"test\", "
		"\"installed_at\": \"2026-01-01T00:00:00Z\"}\n",
		id, ver, strstr(id, "-cuda") + 5, 0);
	fclose(f);
}

/* Resolution order with a real store: env, then pins, then global. */
static void
resolve_tests(void)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_config cfg;
	struct cv_store *st = NULL;
	struct cv_active a;
	char root[700], proj[700], link[760], id[64], top[64], rm[100];

	/* a tree of its own: no pin of the tests above sits over it */
	snprintf(top, sizeof top, "/tmp/cv-test-resolve.XXXXXX");
	if (mkdtemp(top) == NULL)
		return;
	snprintf(root, sizeof root, "%s/store", top);
	snprintf(proj, sizeof proj, "%s/proj", top);
	mkdir(root, 0755);
	mkdir(proj, 0755);
	mkver(root, "9.1.0.70-cuda12");
	mkver(root, "9.13.0.50-cuda12");
	cv_config_init(&cfg);
	CHECK(cv_store_open(&st, &cfg, root, 0, &err) == 0);
	if (st == NULL) {
		printf("# %s\n", err.msg);
		cv_config_release(&cfg);
		return;
	}
	unsetenv("CUDNNVM_VERSION");
	CHECK(cv_active_resolve(st, proj, &a, NULL, NULL, &err) ==
		      CV_ENOTFOUND &&
	      a.origin == CV_ORIGIN_NONE);
	snprintf(link, sizeof link, "%s/current", root);
	CHECK(symlink("9.1.0.70-cuda12", link) == 0);
	CHECK(cv_active_resolve(st, proj, &a, NULL, NULL, &err) == 0 &&
	      a.origin == CV_ORIGIN_GLOBAL &&
	      strcmp(a.id, "9.1.0.70-cuda12") == 0);
	CHECK(cv_pin_write(proj, V("9"), &err) == 0);
	CHECK(cv_active_resolve(st, proj, &a, NULL, NULL, &err) == 0 &&
	      a.origin == CV_ORIGIN_FILE &&
	      strcmp(a.id, "9.13.0.50-cuda12") == 0 &&
	      strcmp(a.spec, "9") == 0 && strstr(a.file, "/proj/") != NULL);
	setenv("CUDNNVM_VERSION", "9.1", 1);
	CHECK(cv_active_resolve(st, proj, &a, NULL, NULL, &err) == 0 &&
	      a.origin == CV_ORIGIN_ENV &&
	      strcmp(a.id, "9.1.0.70-cuda12") == 0);
	setenv("CUDNNVM_VERSION", "9.2", 1);
	CHECK(cv_active_resolve(st, proj, &a, NULL, NULL, &err) ==
		      CV_ENOTFOUND &&
	      strcmp(err.hint, "cudnnvm install 9.2\n") == 0);
	setenv("CUDNNVM_VERSION", "../x", 1);
	CHECK(cv_active_resolve(st, proj, &a, NULL, NULL, &err) == CV_EUSAGE);
	unsetenv("CUDNNVM_VERSION");
	CHECK(cv_pin_write(proj, V("8.9"), &err) == 0);
	CHECK(cv_active_resolve(st, proj, &a, NULL, NULL, &err) ==
		      CV_ENOTFOUND &&
	      strcmp(err.hint, "cudnnvm install 8.9\n") == 0 &&
	      strstr(err.msg, ".cudnn-version") != NULL);
	CHECK(cv_active_find(st, V("9.13.0.50-cuda12"), id, &err) == 0 &&
	      strcmp(id, "9.13.0.50-cuda12") == 0);
	CHECK(cv_active_find(st, V("9.13.0.50-cuda11"), id, &err) ==
	      CV_ENOTFOUND);
	CHECK(cv_active_find(st, V("9.13"), id, &err) == 0 &&
	      strcmp(id, "9.13.0.50-cuda12") == 0);
	cv_store_free(st);
	cv_config_release(&cfg);
	snprintf(rm, sizeof rm, "rm -rf '%s'", top);
	CHECK(system(rm) == 0);
}

int
main(void)
{
	struct cv_err err = CV_ERR_INIT;
	char spec[64], file[4096], p[600], sub[600];

	snprintf(dir, sizeof dir, "/tmp/cv-test-activate.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;

	CHECK(reads("9.13\n", 0, "9.13"));
	CHECK(reads("  9.13.0.50-cuda12  \r\n", 0, "9.13.0.50-cuda12"));
	CHECK(reads("# pinned for CI\n\n9 # major only\n", 0, "9"));
	CHECK(reads("9.1", 0, "9.1"));
	CHECK(reads("python 3.12\ncudnn 9.13 9.1\n", 1, "9.13"));
	CHECK(reads("python 3.12\n", 1, NULL));
	CHECK(reads("# cudnn 9\n", 1, NULL));

	CHECK(refused("", "holds no version"));
	CHECK(refused("# only a comment\n", "holds no version"));
	CHECK(refused("9.1\n9.2\n", "more than one"));
	CHECK(refused("9.1 9.2\n", "more than one"));
	CHECK(refused("/opt/cudnn/9.1.0.70-cuda12\n", "path or URL"));
	CHECK(refused("../9.1\n", "path or URL"));
	CHECK(refused("https://example.invalid/cudnn.tar.xz\n", "path or URL"));
	CHECK(refused("~/cudnn\n", "path or URL"));
	CHECK(refused("latest\n", "not a version spec"));
	CHECK(refused("9.01\n", "not a version spec"));
	CHECK(refused("9.1-cuda\n", "not a version spec"));
	CHECK(refused("9.1\x1b[31m\n", "control"));
	CHECK(refused("9.\xc3\xa9\n", NULL));
	{
		char big[5000];
		memset(big, '#', sizeof big - 1);
		big[sizeof big - 1] = '\0';
		CHECK(refused(big, "larger than 4096"));
	}
	{
		struct cv_err e = CV_ERR_INIT;
		char nul[] = "9.1\0\n";
		snprintf(p, sizeof p, "%s/.cudnn-version", dir);
		FILE *f = fopen(p, "w");
		fwrite(nul, 1, 5, f);
		fclose(f);
		CHECK(cv_pin_read(p, 0, spec, &e) == CV_EDATA);
	}
	/* not regular files: FIFO, device, folder, symlink */
	snprintf(p, sizeof p, "%s/fifo", dir);
	CHECK(mkfifo(p, 0644) == 0);
	CHECK(cv_pin_read(p, 0, spec, &err) == CV_EDATA &&
	      strstr(err.msg, "not a regular file") != NULL);
	CHECK(cv_pin_read("/dev/zero", 0, spec, &err) == CV_EDATA);
	CHECK(cv_pin_read(dir, 0, spec, &err) == CV_EDATA);
	snprintf(p, sizeof p, "%s/link", dir);
	CHECK(symlink("/proc/self/mem", p) == 0);
	CHECK(cv_pin_read(p, 0, spec, &err) == CV_EDATA &&
	      strstr(err.msg, "symlink") != NULL);

	/* the upward search: nearest wins, .cudnn-version before
	 * .tool-versions in one folder, a .tool-versions without cudnn is
	 * passed over */
	snprintf(p, sizeof p, "%s/.cudnn-version", dir);
	unlink(p);
	put(".cudnn-version", "9.1\n");
	snprintf(sub, sizeof sub, "%s/a", dir);
	mkdir(sub, 0755);
	snprintf(sub, sizeof sub, "%s/a/b", dir);
	mkdir(sub, 0755);
	CHECK(cv_pin_find(sub, file, spec, NULL, NULL, &err) == 1 &&
	      strcmp(spec, "9.1") == 0);
	put("a/.tool-versions", "nodejs 20\n");
	CHECK(cv_pin_find(sub, file, spec, NULL, NULL, &err) == 1 &&
	      strcmp(spec, "9.1") == 0);
	put("a/.tool-versions", "nodejs 20\ncudnn 8.9\n");
	CHECK(cv_pin_find(sub, file, spec, NULL, NULL, &err) == 1 &&
	      strcmp(spec, "8.9") == 0 &&
	      strstr(file, "/a/.tool-versions") != NULL);
	put("a/.cudnn-version", "9.13\n");
	CHECK(cv_pin_find(sub, file, spec, NULL, NULL, &err) == 1 &&
	      strcmp(spec, "9.13") == 0);
	/* a bad pin on the way stops the search with its error */
	put("a/b/.cudnn-version", "/etc/passwd\n");
	CHECK(cv_pin_find(sub, file, spec, NULL, NULL, &err) == CV_EDATA);
	snprintf(p, sizeof p, "%s/a/b/.cudnn-version", dir);
	unlink(p);
	/* nothing from / down: 0 */
	CHECK(cv_pin_find("/", file, spec, NULL, NULL, &err) == 0 ||
	      access("/.cudnn-version", F_OK) == 0);
	CHECK(cv_pin_find("relative", file, spec, NULL, NULL, &err) ==
	      CV_EUSAGE);

	/* writing: atomic, exactly one line, bad specs refused */
	CHECK(cv_pin_write(sub, V("9.13.0"), &err) == 0);
	CHECK(cv_pin_find(sub, file, spec, NULL, NULL, &err) == 1 &&
	      strcmp(spec, "9.13.0") == 0);
	CHECK(cv_pin_write(sub, V("9.13-cuda12"), &err) == 0);
	CHECK(cv_pin_find(sub, file, spec, NULL, NULL, &err) == 1 &&
	      strcmp(spec, "9.13-cuda12") == 0);
	/* a bad spec never becomes a value to write: refused where parsed */
	{
		struct cv_version bad;
		CHECK(cv_version_parse(&bad, "../x", &err) == CV_EUSAGE);
	}
	CHECK(cv_pin_write("/nonexistent-dir", V("9"), &err) < 0);

	resolve_tests();

	snprintf(p, sizeof p, "rm -rf '%s'", dir);
	CHECK(system(p) == 0);
	return TEST_DONE();
}
