/* test_winbackends.c: the Windows backends of the install wing, BCrypt's
 * SHA-256 and the WinHTTP transport, run under wine (tests/win/run.sh)
 * against the loopback HTTPS test mirror (tests/fixtures/mirror.py).
 *   test_winbackends VECTORS PORT CA OTHER_CA PATH SHA256 SIZE
 * PATH: an archive of the mirror (Range is served for those), with its
 * SHA256 and SIZE as the mirror's tree has them. */
#include "base/base.h"
#include "install/backend_int.h"
#include "sha256_vectors.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct got {
	struct cv_sha256 *h;
	uint64_t n, stop; /* stop: end the transfer after this many (0: no) */
};

static int
sink(void *arg, const void *p, size_t n, struct cv_err *err)
{
	struct got *g = arg;

	if (g->stop > 0 && g->n + n > g->stop)
		n = (size_t)(g->stop - g->n);
	cv_sha256_update(g->h, p, n);
	g->n += n;
	if (g->stop > 0 && g->n == g->stop)
		return cv_err_set(err, CV_EINTR, "stopped at %llu bytes",
				  (unsigned long long)g->n);
	return 0;
}

static int
get(const char *url, const char *ca, uint64_t from, struct got *g,
    struct cv_transport_resp *resp, struct cv_err *err)
{
	struct cv_transport_req q = { 0 };

	q.url = url;
	q.ca_file = ca;
	q.timeout = 10;
	q.from = from;
	q.sink = sink;
	q.arg = g;
	*err = (struct cv_err)CV_ERR_INIT;
	return cv_transport_get(&q, resp, err);
}

/* cv_sha256_file reads bytes, not text: CR LF and ^Z pass unchanged. */
static void
check_file(void)
{
	static const char data[] = "a\r\nb\x1a\r\n\n\r";
	const char *path = "cv-sha256-binary.tmp";
	char want[65], got_hex[65];
	struct cv_err err = CV_ERR_INIT;
	struct cv_sha256 *h = cv_sha256_new();
	FILE *f = fopen(path, "wb");

	fwrite(data, 1, sizeof data - 1, f);
	fclose(f);
	cv_sha256_update(h, data, sizeof data - 1);
	cv_sha256_final(h, want);
	cv_sha256_free(h);
	CHECK(cv_sha256_file(path, got_hex, &err) == 0 &&
	      strcmp(got_hex, want) == 0);
	remove(path);
	CHECK(cv_sha256_file(path, got_hex, &err) < 0 &&
	      strstr(err.msg, path) != NULL);
}

int
main(int argc, char **argv)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_transport_resp resp;
	struct got g = { 0 };
	char url[512], hex[65];
	const char *ca, *other, *sha;
	uint64_t size, half;
	int rc, nvec;

	if (argc != 8) {
		fprintf(stderr, "usage: test_winbackends VECTORS PORT CA "
				"OTHER_CA PATH SHA256 SIZE\n");
		return 2;
	}
	ca = argv[3];
	other = argv[4];
	sha = argv[6];
	size = strtoull(argv[7], NULL, 10);
	half = size / 2 + 1;
	snprintf(url, sizeof url, "https://127.0.0.1:%s/%s", argv[2], argv[5]);

	/* SHA-256 with BCrypt: the same vectors as the OpenSSL backend */
	nvec = check_sha256_vectors(argv[1]);
	CHECK(nvec >= 13);
	check_file();

	/* a download verified against ca_file: the right bytes */
	g.h = cv_sha256_new();
	rc = get(url, ca, 0, &g, &resp, &err);
	cv_sha256_final(g.h, hex);
	cv_sha256_free(g.h);
	if (rc != 0)
		printf("# %s\n", err.msg);
	CHECK(rc == 0 && resp.status == 200);
	CHECK(g.n == size && resp.got == size && resp.length == (int64_t)size);
	CHECK(strcmp(hex, sha) == 0);

	/* D12 (doc/reliability.md): a server whose certificate is not from
	 * ca_file's CA is refused before a byte of the body */
	g = (struct got){ cv_sha256_new(), 0, 0 };
	rc = get(url, other, 0, &g, &resp, &err);
	cv_sha256_free(g.h);
	printf("# %s\n", err.msg);
	CHECK(rc == CV_ENETWORK && g.n == 0 &&
	      strstr(err.msg, "TLS verification failed") != NULL);
	CHECK(strstr(err.hint, "remote.ca_file") != NULL);

	/* D12: without ca_file the system's store decides, and it knows no
	 * test CA */
	g = (struct got){ cv_sha256_new(), 0, 0 };
	rc = get(url, NULL, 0, &g, &resp, &err);
	cv_sha256_free(g.h);
	printf("# %s\n", err.msg);
	CHECK(rc == CV_ENETWORK && g.n == 0);

	/* plain http: refused, whatever answers there */
	g = (struct got){ cv_sha256_new(), 0, 0 };
	snprintf(url, sizeof url, "http://127.0.0.1:%s/%s", argv[2], argv[5]);
	rc = get(url, ca, 0, &g, &resp, &err);
	printf("# %s\n", err.msg);
	CHECK(rc == CV_ENETWORK && g.n == 0 &&
	      strstr(err.msg, "only https") != NULL);
	/* D9: nor may a redirect lead there; D10: a loop stops */
	snprintf(url, sizeof url, "https://127.0.0.1:%s/fault/redirhttp/%s",
		 argv[2], argv[5]);
	rc = get(url, ca, 0, &g, &resp, &err);
	printf("# %s\n", err.msg);
	CHECK(rc == CV_ENETWORK && g.n == 0 &&
	      strstr(err.msg, "insecure redirect") != NULL);
	snprintf(url, sizeof url, "https://127.0.0.1:%s/fault/redirloop/%s",
		 argv[2], argv[5]);
	rc = get(url, ca, 0, &g, &resp, &err);
	printf("# %s\n", err.msg);
	CHECK(rc == CV_ENETWORK && resp.redirects == 5 &&
	      strstr(err.msg, "too many redirects") != NULL);
	cv_sha256_free(g.h);

	/* D4: a transfer cut after `half` bytes, resumed with a range
	 * request: the two parts make the whole file */
	snprintf(url, sizeof url, "https://127.0.0.1:%s/%s", argv[2], argv[5]);
	g = (struct got){ cv_sha256_new(), 0, half };
	rc = get(url, ca, 0, &g, &resp, &err);
	CHECK(rc == CV_EINTR && g.n == half);
	g.stop = 0;
	rc = get(url, ca, half, &g, &resp, &err);
	cv_sha256_final(g.h, hex);
	cv_sha256_free(g.h);
	if (rc != 0)
		printf("# %s\n", err.msg);
	CHECK(rc == 0 && resp.status == 206 && resp.got == size - half);
	CHECK(g.n == size && strcmp(hex, sha) == 0);

	/* a mirror URL's user:pass goes to its host as Basic auth, and
	 * into no message; without it that mirror answers 401 */
	snprintf(url, sizeof url,
		 "https://u:sekr%%69t@127.0.0.1:%s/fault/auth/%s", argv[2],
		 argv[5]);
	g = (struct got){ cv_sha256_new(), 0, 0 };
	rc = get(url, ca, 0, &g, &resp, &err);
	cv_sha256_final(g.h, hex);
	cv_sha256_free(g.h);
	if (rc != 0)
		printf("# %s\n", err.msg);
	CHECK(rc == 0 && g.n == size && strcmp(hex, sha) == 0);
	snprintf(url, sizeof url, "https://u:wrong@127.0.0.1:%s/fault/auth/%s",
		 argv[2], argv[5]);
	g = (struct got){ cv_sha256_new(), 0, 0 };
	rc = get(url, ca, 0, &g, &resp, &err);
	cv_sha256_free(g.h);
	printf("# %s\n", err.msg);
	CHECK(rc == CV_ENETWORK && resp.status == 401 && g.n == 0 &&
	      strstr(err.msg, "wrong") == NULL);

	/* D7: a 404 is an error that names the status */
	snprintf(url, sizeof url, "https://127.0.0.1:%s/fault/404/%s", argv[2],
		 argv[5]);
	g = (struct got){ cv_sha256_new(), 0, 0 };
	rc = get(url, ca, 0, &g, &resp, &err);
	cv_sha256_free(g.h);
	printf("# %s\n", err.msg);
	CHECK(rc == CV_ENETWORK && strstr(err.msg, "HTTP 404") != NULL);

	/* D13: a body that stalls after its first bytes times out */
	{
		struct cv_transport_req q = { 0 };

		snprintf(url, sizeof url, "https://127.0.0.1:%s/fault/stall/%s",
			 argv[2], argv[5]);
		g = (struct got){ cv_sha256_new(), 0, 0 };
		q.url = url;
		q.ca_file = ca;
		q.timeout = 1;
		q.sink = sink;
		q.arg = &g;
		err = (struct cv_err)CV_ERR_INIT;
		rc = cv_transport_get(&q, &resp, &err);
		cv_sha256_free(g.h);
		printf("# %s\n", err.msg);
		CHECK(rc == CV_ENETWORK && g.n < size &&
		      strstr(err.msg, "timed out") != NULL);
	}

	/* D4: a body cut short of its Content-Length is an error, not the
	 * end; D3 and D2: an endless body and a Content-Length over the
	 * limit stop at the limit; D22: a server that accepts and never
	 * answers times out */
	{
		static const char *const modes[] = { "truncate", "endless",
						     "bigcl", "silent" };
		static const int codes[] = { CV_ENETWORK, CV_EDATA, CV_EDATA,
					     CV_ENETWORK };
		static const char *const says[] = { "ended after", "larger",
						    "larger", "timed out" };

		for (int i = 0; i < 4; i++) {
			struct cv_transport_req q = { 0 };

			snprintf(url, sizeof url,
				 "https://127.0.0.1:%s/fault/%s/%s", argv[2],
				 modes[i], argv[5]);
			g = (struct got){ cv_sha256_new(), 0, 0 };
			q.url = url;
			q.ca_file = ca;
			q.timeout = 1;
			q.max = size;
			q.sink = sink;
			q.arg = &g;
			err = (struct cv_err)CV_ERR_INIT;
			rc = cv_transport_get(&q, &resp, &err);
			cv_sha256_free(g.h);
			printf("# %s: %s\n", modes[i], err.msg);
			CHECK(rc == codes[i] && g.n <= size &&
			      strstr(err.msg, says[i]) != NULL);
		}
	}

	/* D20: [remote] proxy is where the request goes, and its failure
	 * names it (nothing listens on port 1) */
	{
		struct cv_transport_req q = { 0 };

		snprintf(url, sizeof url, "https://127.0.0.1:%s/%s", argv[2],
			 argv[5]);
		q.url = url;
		q.ca_file = ca;
		q.timeout = 5;
		q.proxy = "http://127.0.0.1:1";
		err = (struct cv_err)CV_ERR_INIT;
		rc = cv_transport_get(&q, &resp, &err);
		printf("# %s\n", err.msg);
		CHECK(rc == CV_ENETWORK &&
		      strstr(err.msg, "via proxy http://127.0.0.1:1") != NULL);
	}

	/* D2: a body over the limit is refused */
	snprintf(url, sizeof url, "https://127.0.0.1:%s/%s", argv[2], argv[5]);
	{
		struct cv_transport_req q = { 0 };

		q.url = url;
		q.ca_file = ca;
		q.timeout = 10;
		q.max = size - 1;
		err = (struct cv_err)CV_ERR_INIT;
		rc = cv_transport_get(&q, &resp, &err);
		CHECK(rc == CV_EDATA && strstr(err.msg, "larger") != NULL);
		/* and a HEAD request gives the size alone */
		q.max = 0;
		q.head = 1;
		rc = cv_transport_get(&q, &resp, &err);
		CHECK(rc == 0 && resp.length == (int64_t)size && resp.got == 0);
	}
	return TEST_DONE();
}
