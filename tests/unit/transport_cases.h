/* transport_cases.h: the cases of cv_transport_get (backend_int.h) that
 * both backends pass, against the loopback HTTPS test mirror
 * (tests/fixtures/mirror.py): libcurl's in test_transport.c (make unit),
 * WinHTTP's under wine in tests/win/test_winbackends.c. Each case checks
 * what the callers (remote.c, download.c) act on: the return code, the
 * failure's kind (resp.fail), the status and the bytes the sink got; the
 * words are each backend's own, except that no message shows a
 * password. */
#ifndef CUDNNVM_TRANSPORT_CASES_H
#define CUDNNVM_TRANSPORT_CASES_H

#include "base/base.h"
#include "install/backend_int.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tc_got {
	struct cv_sha256 *h;
	uint64_t n, stop; /* stop: end the transfer after this many (0: no) */
};

static int
tc_sink(void *arg, const void *p, size_t n, struct cv_err *err)
{
	struct tc_got *g = arg;

	if (g->stop > 0 && g->n + n > g->stop)
		n = (size_t)(g->stop - g->n);
	cv_sha256_update(g->h, p, n);
	g->n += n;
	if (g->stop > 0 && g->n == g->stop)
		return cv_err_set(err, CV_EINTR, "stopped at %llu bytes",
				  (unsigned long long)g->n);
	return 0;
}

/* The mirror: its port, its CA and an unrelated one, an archive of its
 * tree (Range is served for those) with that tree's sha256 and size. */
struct tc_mirror {
	const char *port, *ca, *other, *rel, *sha;
	uint64_t size;
};

static int
tc_get(const struct tc_mirror *m, const char *fault, const char *ca,
       uint64_t from, long timeout, uint64_t max, struct tc_got *g,
       struct cv_transport_resp *resp, struct cv_err *err)
{
	struct cv_transport_req q = { 0 };
	char url[512];

	snprintf(url, sizeof url, "https://127.0.0.1:%s/%s%s", m->port,
		 fault ? fault : "", m->rel);
	q.url = url;
	q.ca_file = ca;
	q.timeout = timeout;
	q.from = from;
	q.max = max;
	q.sink = tc_sink;
	q.arg = g;
	*err = (struct cv_err)CV_ERR_INIT;
	return cv_transport_get(&q, resp, err);
}

static int
tc_stopped(void *arg)
{
	return *(int *)arg;
}

static void
transport_cases(const struct tc_mirror *m)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_transport_resp resp;
	struct tc_got g = { 0 };
	char hex[65], url[512];
	uint64_t half = m->size / 2 + 1;
	int rc;

	/* a download verified against ca_file: the right bytes */
	g.h = cv_sha256_new();
	rc = tc_get(m, NULL, m->ca, 0, 10, 0, &g, &resp, &err);
	cv_sha256_final(g.h, hex);
	cv_sha256_free(g.h);
	if (rc != 0)
		printf("# %s\n", err.msg);
	CHECK(rc == 0 && resp.status == 200 && resp.fail == CV_TF_NONE);
	CHECK(g.n == m->size && resp.got == m->size &&
	      resp.length == (int64_t)m->size);
	CHECK(strcmp(hex, m->sha) == 0);

	/* D12 (doc/reliability.md): a server whose certificate is not from
	 * ca_file's CA is refused before a byte of the body; without ca_file
	 * the system's store decides, and it knows no test CA */
	g = (struct tc_got){ cv_sha256_new(), 0, 0 };
	rc = tc_get(m, NULL, m->other, 0, 10, 0, &g, &resp, &err);
	printf("# %s\n", err.msg);
	CHECK(rc == CV_ENETWORK && g.n == 0 && resp.fail == CV_TF_TLS);
	rc = tc_get(m, NULL, NULL, 0, 10, 0, &g, &resp, &err);
	printf("# %s\n", err.msg);
	CHECK(rc == CV_ENETWORK && g.n == 0 && resp.fail == CV_TF_TLS);

	/* plain http: refused, whatever answers there; D9: nor may a
	 * redirect lead there; D10: a loop stops after 5 */
	{
		struct cv_transport_req q = { 0 };
		snprintf(url, sizeof url, "http://127.0.0.1:%s/%s", m->port,
			 m->rel);
		q.url = url;
		q.ca_file = m->ca;
		q.timeout = 10;
		q.sink = tc_sink;
		q.arg = &g;
		err = (struct cv_err)CV_ERR_INIT;
		rc = cv_transport_get(&q, &resp, &err);
		printf("# %s\n", err.msg);
		CHECK(rc == CV_ENETWORK && g.n == 0 &&
		      resp.fail == CV_TF_INSECURE);
	}
	rc = tc_get(m, "fault/redirhttp/", m->ca, 0, 10, 0, &g, &resp, &err);
	printf("# %s\n", err.msg);
	CHECK(rc == CV_ENETWORK && g.n == 0 && resp.fail == CV_TF_INSECURE);
	rc = tc_get(m, "fault/redirloop/", m->ca, 0, 10, 0, &g, &resp, &err);
	printf("# %s\n", err.msg);
	CHECK(rc == CV_ENETWORK && resp.fail == CV_TF_REDIRECTS &&
	      resp.redirects == 5);
	cv_sha256_free(g.h);

	/* D4: a transfer cut by its sink after `half` bytes (the sink's
	 * answer returned), resumed with a range request: the two parts
	 * make the whole file */
	g = (struct tc_got){ cv_sha256_new(), 0, half };
	rc = tc_get(m, NULL, m->ca, 0, 10, 0, &g, &resp, &err);
	CHECK(rc == CV_EINTR && g.n == half && resp.fail == CV_TF_SINK);
	g.stop = 0;
	rc = tc_get(m, NULL, m->ca, half, 10, 0, &g, &resp, &err);
	cv_sha256_final(g.h, hex);
	cv_sha256_free(g.h);
	if (rc != 0)
		printf("# %s\n", err.msg);
	CHECK(rc == 0 && resp.status == 206 && resp.got == m->size - half);
	CHECK(g.n == m->size && strcmp(hex, m->sha) == 0);

	/* a URL's user:pass goes to its host as Basic auth, and into no
	 * message; without the right one that mirror answers 401 */
	snprintf(url, sizeof url, "u:sekr%%69t@127.0.0.1:%s/fault/auth/%s",
		 m->port, m->rel);
	{
		struct cv_transport_req q = { 0 };
		char full[600];
		snprintf(full, sizeof full, "https://%s", url);
		g = (struct tc_got){ cv_sha256_new(), 0, 0 };
		q.url = full;
		q.ca_file = m->ca;
		q.timeout = 10;
		q.sink = tc_sink;
		q.arg = &g;
		err = (struct cv_err)CV_ERR_INIT;
		rc = cv_transport_get(&q, &resp, &err);
		cv_sha256_final(g.h, hex);
		cv_sha256_free(g.h);
		if (rc != 0)
			printf("# %s\n", err.msg);
		CHECK(rc == 0 && g.n == m->size && strcmp(hex, m->sha) == 0);
		snprintf(full, sizeof full,
			 "https://u:wrong@127.0.0.1:%s/fault/auth/%s", m->port,
			 m->rel);
		g = (struct tc_got){ cv_sha256_new(), 0, 0 };
		err = (struct cv_err)CV_ERR_INIT;
		rc = cv_transport_get(&q, &resp, &err);
		cv_sha256_free(g.h);
		printf("# %s\n", err.msg);
		CHECK(rc == CV_ENETWORK && resp.status == 401 && g.n == 0 &&
		      resp.fail == CV_TF_HTTP && !resp.retryable);
		CHECK(strstr(err.msg, "wrong") == NULL &&
		      strstr(resp.why, "wrong") == NULL);
	}

	/* D7: a 404 is an HTTP failure with its status, not worth a retry */
	g = (struct tc_got){ cv_sha256_new(), 0, 0 };
	rc = tc_get(m, "fault/404/", m->ca, 0, 10, 0, &g, &resp, &err);
	cv_sha256_free(g.h);
	printf("# %s\n", err.msg);
	CHECK(rc == CV_ENETWORK && resp.fail == CV_TF_HTTP &&
	      resp.status == 404 && !resp.retryable);

	/* D13: a body that stalls after its first bytes times out; D4: a
	 * body cut short of its Content-Length is a cut, worth a retry, not
	 * the end; D3 and D2: an endless body and a Content-Length over the
	 * limit stop at the limit; D22: a server that accepts and never
	 * answers times out */
	{
		static const char *const modes[] = { "stall", "truncate",
						     "endless", "bigcl",
						     "silent" };
		static const int codes[] = { CV_ENETWORK, CV_ENETWORK, CV_EDATA,
					     CV_EDATA, CV_ENETWORK };
		static const int fails[] = { CV_TF_TIMEOUT, CV_TF_CUT,
					     CV_TF_TOO_LARGE, CV_TF_TOO_LARGE,
					     CV_TF_TIMEOUT };

		for (int i = 0; i < 5; i++) {
			char fault[64];
			snprintf(fault, sizeof fault, "fault/%s/", modes[i]);
			g = (struct tc_got){ cv_sha256_new(), 0, 0 };
			rc = tc_get(m, fault, m->ca, 0, 1, m->size, &g, &resp,
				    &err);
			cv_sha256_free(g.h);
			printf("# %s: %d %s\n", modes[i], resp.fail, err.msg);
			CHECK(rc == codes[i] && g.n <= m->size &&
			      resp.fail == fails[i]);
		}
		CHECK(resp.fail == CV_TF_TIMEOUT && !resp.retryable);
	}

	/* D20: [remote] proxy is where the request goes (nothing listens on
	 * port 1): it cannot connect, worth a retry */
	{
		struct cv_transport_req q = { 0 };
		snprintf(url, sizeof url, "https://127.0.0.1:%s/%s", m->port,
			 m->rel);
		q.url = url;
		q.ca_file = m->ca;
		q.timeout = 5;
		q.proxy = "http://127.0.0.1:1";
		err = (struct cv_err)CV_ERR_INIT;
		rc = cv_transport_get(&q, &resp, &err);
		printf("# %s\n", err.msg);
		CHECK(rc == CV_ENETWORK && resp.fail == CV_TF_CONNECT &&
		      resp.retryable);
	}

	/* D2: a body over the limit is refused; a HEAD request gives the
	 * size alone; Ctrl-C (req.stop) ends a transfer */
	{
		struct cv_transport_req q = { 0 };
		int stop = 1;
		snprintf(url, sizeof url, "https://127.0.0.1:%s/%s", m->port,
			 m->rel);
		q.url = url;
		q.ca_file = m->ca;
		q.timeout = 10;
		q.max = m->size - 1;
		err = (struct cv_err)CV_ERR_INIT;
		rc = cv_transport_get(&q, &resp, &err);
		CHECK(rc == CV_EDATA && resp.fail == CV_TF_TOO_LARGE);
		q.max = 0;
		q.head = 1;
		rc = cv_transport_get(&q, &resp, &err);
		CHECK(rc == 0 && resp.length == (int64_t)m->size &&
		      resp.got == 0);
		q.head = 0;
		q.stop = tc_stopped;
		q.stop_arg = &stop;
		rc = cv_transport_get(&q, &resp, &err);
		CHECK(rc < 0 && resp.fail == CV_TF_ABORTED &&
		      resp.got < m->size);
	}

	/* a reference resolved as a browser would, by both */
	{
		char *u = cv_url_resolve("https://h.example/simple/cudnn/",
					 "../../files/x.whl#sha256=ab");
		CHECK(u != NULL &&
		      strcmp(u, "https://h.example/files/x.whl#sha256=ab") ==
			      0);
		free(u);
		u = cv_url_resolve("https://h.example/a/b", "/c?d=1");
		CHECK(u != NULL && strcmp(u, "https://h.example/c?d=1") == 0);
		free(u);
	}
}

#endif
