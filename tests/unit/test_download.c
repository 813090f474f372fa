/* test_download.c: the streaming download through a file:// mirror (so it
 * runs under the sanitizers without a server): bytes, cache, resume,
 * oversize, interrupt. The HTTPS cases are in tests/e2e/download_faults. */
#include "base/base.h"
#include "install/install_int.h"
#include "release/release.h"
#include "store/store.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[] = "/tmp/cudnnvm-download-XXXXXX";
static unsigned char *data;
static size_t size = 3u << 20;

static void
put(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	fwrite(p, 1, n, f);
	fclose(f);
}

/* Read the whole source; 0 when the bytes equal `data`. */
static int
pull(struct cv_download *d, struct cv_err *err, int ok_close)
{
	struct cv_fetcher f;
	struct cv_source src;
	const void *buf;
	ssize_t n;
	size_t got = 0;
	int rc = 0;

	cv_download_fetcher(d, &f);
	if ((rc = f.open(f.arg, &src, err)) < 0)
		return rc;
	while ((n = src.read(src.ctx, &buf, err)) > 0) {
		if (got + (size_t)n > size ||
		    memcmp(data + got, buf, (size_t)n) != 0)
			rc = -100;
		got += (size_t)n;
	}
	if (n < 0)
		rc = (int)n;
	else if (got != size)
		rc = -101;
	f.close(f.arg, ok_close && rc == 0);
	return rc;
}

static int
exists(const char *dir, const char *sha, const char *ext)
{
	char *p = xasprintf("%s/downloads/%s.%s", dir, sha, ext);
	struct stat st;
	int r = stat(p, &st) == 0;

	free(p);
	return r;
}

int
main(void)
{
	struct cv_config cfg;
	struct cv_remote *r = NULL;
	struct cv_download *d = NULL;
	struct cv_artifact art;
	struct cv_err err = CV_ERR_INIT;
	struct cv_sha256 *h;
	char *mirror, *url, *cache, *file, *partial;
	int rc;

	CHECK(mkdtemp(tmp) != NULL);
	data = xmalloc(size);
	for (size_t i = 0; i < size; i++)
		data[i] = (unsigned char)(rand() >> 7);
	file = xasprintf("%s/a.tar.xz", tmp);
	put(file, data, size);
	mirror = xasprintf("file://%s/", tmp);
	url = xasprintf("file://%s", file);
	cache = xasprintf("%s/cache", tmp);
	mkdir(cache, 0755);

	memset(&art, 0, sizeof art);
	h = cv_sha256_new();
	cv_sha256_update(h, data, size);
	cv_sha256_final(h, art.sha256);
	cv_sha256_free(h);
	art.size = size;
	partial = xasprintf("%s/downloads/%s.partial", cache, art.sha256);

	cv_config_init(&cfg);
	CHECK(cv_remote_new(&r, &cfg, mirror, &err) == 0);
	/* plain http mirrors are refused */
	{
		struct cv_remote *bad = NULL;
		CHECK(cv_remote_new(&bad, &cfg, "http://127.0.0.1/", NULL) ==
		      CV_ECONFIG);
		CHECK(bad == NULL);
	}

	/* 1. a fresh download: bytes in order, kept in the cache */
	CHECK(cv_download_new(&d, r, &art, url, cache, 1, &err) == 0);
	rc = pull(d, &err, 1);
	CHECK(rc == 0);
	CHECK(!cv_download_used_cache(d));
	cv_download_free(d);
	CHECK(exists(cache, art.sha256, "archive"));
	CHECK(!exists(cache, art.sha256, "partial"));

	/* 2. again: from the cache, no transfer needed */
	unlink(file);
	CHECK(cv_download_new(&d, r, &art, url, cache, 1, &err) == 0);
	CHECK(pull(d, &err, 1) == 0);
	CHECK(cv_download_used_cache(d));
	cv_download_discard(d);
	cv_download_free(d);
	CHECK(!exists(cache, art.sha256, "archive"));
	put(file, data, size);

	/* 3. resume from a partial */
	put(partial, data, size / 3);
	CHECK(cv_download_new(&d, r, &art, url, cache, 0, &err) == 0);
	CHECK(pull(d, &err, 1) == 0);
	CHECK(cv_download_used_cache(d));
	cv_download_free(d);
	CHECK(!exists(cache, art.sha256, "partial"));
	CHECK(!exists(cache, art.sha256, "archive"));

	/* 4. a complete partial: no transfer */
	put(partial, data, size);
	unlink(file);
	CHECK(cv_download_new(&d, r, &art, url, cache, 1, &err) == 0);
	CHECK(pull(d, &err, 1) == 0);
	cv_download_free(d);
	CHECK(exists(cache, art.sha256, "archive"));
	put(file, data, size);
	{
		char *a =
			xasprintf("%s/downloads/%s.archive", cache, art.sha256);
		unlink(a);
		free(a);
	}

	/* 5. a partial larger than the size is discarded */
	{
		unsigned char *big = xcalloc(1, size + 100);
		put(partial, big, size + 100);
		free(big);
	}
	CHECK(cv_download_new(&d, r, &art, url, cache, 0, &err) == 0);
	CHECK(pull(d, &err, 1) == 0);
	CHECK(!cv_download_used_cache(d));
	cv_download_free(d);

	/* 6. more bytes than the manifest says: CV_EDATA, partial dropped */
	art.size = size - 1000;
	CHECK(cv_download_new(&d, r, &art, url, cache, 1, &err) == 0);
	err = (struct cv_err)CV_ERR_INIT;
	rc = pull(d, &err, 1);
	CHECK(rc == CV_EDATA);
	CHECK(strstr(err.msg, "more than") != NULL);
	cv_download_free(d);
	CHECK(!exists(cache, art.sha256, "partial"));
	art.size = size;

	/* 7. a missing file: an error, no crash */
	{
		char *nourl = xasprintf("file://%s/nope.tar.xz", tmp);
		CHECK(cv_download_new(&d, r, &art, nourl, cache, 1, &err) == 0);
		err = (struct cv_err)CV_ERR_INIT;
		CHECK(pull(d, &err, 1) == CV_ENETWORK);
		cv_download_free(d);
		free(nourl);
	}

	/* 8. no sha256: refused before anything happens */
	{
		struct cv_artifact none = art;
		none.sha256[0] = '\0';
		CHECK(cv_download_new(&d, r, &none, url, cache, 1, &err) ==
		      CV_EDATA);
	}

	/* 9. interrupted (last: the flag stays set): CV_EINTR */
	put(partial, data, size / 2);
	cv_remote_interrupt();
	CHECK(cv_download_new(&d, r, &art, url, cache, 1, &err) == 0);
	err = (struct cv_err)CV_ERR_INIT;
	CHECK(pull(d, &err, 1) == CV_EINTR);
	cv_download_free(d);
	CHECK(exists(cache, art.sha256, "partial"));

	cv_remote_free(r);
	cv_config_release(&cfg);
	{
		char *cmd = xasprintf("rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			printf("# cleanup failed\n");
		free(cmd);
	}
	free(data);
	free(file);
	free(mirror);
	free(url);
	free(cache);
	free(partial);
	return TEST_DONE();
}
