/* http_curl.c: cv_transport_get over libcurl, for Linux. HTTPS only
 * (file:// too for a file:// mirror), each redirect too, TLS 1.2 or newer
 * with verification on; ~/.netrc for a private mirror's password. The
 * transfers of a process share one pool of connections (a libcurl share
 * handle), so that the small documents of a listing and the archives of
 * an install reuse them, from any thread. */
#include "base/base.h"
#include "install/backend_int.h"
#include "install/install_int.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libcurl before 7.87 (Debian 11's 7.74, where the release files are
 * built) names no write-callback error: any count other than the one it
 * passed fails the transfer the same way. */
#ifndef CURL_WRITEFUNC_ERROR
#define CURL_WRITEFUNC_ERROR 0xFFFFFFFF
#endif

/* At most this many transfers at once: over HTTP/1.1 each is a
 * connection, so a listing of 40 manifests takes two round trips; over
 * HTTP/2 they share one connection. */
#define GET_MANY_PARALLEL 24

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CURLSH *share;
static int init_failed;
static pthread_mutex_t share_mu[CURL_LOCK_DATA_LAST];

static void
share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *arg)
{
	(void)h;
	(void)access;
	(void)arg;
	pthread_mutex_lock(&share_mu[data]);
}

static void
share_unlock(CURL *h, curl_lock_data data, void *arg)
{
	(void)h;
	(void)arg;
	pthread_mutex_unlock(&share_mu[data]);
}

static void
init(void)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
		init_failed = 1;
		return;
	}
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&share_mu[i], NULL);
	if ((share = curl_share_init()) == NULL)
		return;
	curl_share_setopt(share, CURLSHOPT_LOCKFUNC, share_lock);
	curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, share_unlock);
	curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
	curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
}

/* One transfer: its request, its answer, and what stopped it. */
struct xfer {
	const struct cv_transport_req *q;
	struct cv_transport_resp *resp;
	struct cv_err *err;
	CURL *h;
	struct curl_slist *hdrs;
	char errbuf[CURL_ERROR_SIZE];
	int sink_rc;   /* the sink's nonzero answer */
	int started;   /* the answer's headers were read into resp */
	int too_large; /* more body than req->max */
};

static void
headers_seen(struct xfer *x)
{
	char *ct = NULL;
	curl_off_t len = -1;

	if (x->started)
		return;
	x->started = 1;
	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->resp->status);
	if (curl_easy_getinfo(x->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &len) ==
	    CURLE_OK)
		x->resp->length = len;
	if (curl_easy_getinfo(x->h, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK &&
	    ct != NULL)
		snprintf(x->resp->content_type, sizeof x->resp->content_type,
			 "%s", ct);
}

static size_t
on_body(char *p, size_t sz, size_t n, void *arg)
{
	struct xfer *x = arg;
	int rc;

	headers_seen(x);
	/* libcurl checks its MAXFILESIZE against a Content-Length only */
	if (x->q->max > 0 && x->resp->got + sz * n > x->q->max) {
		x->too_large = 1;
		return CURL_WRITEFUNC_ERROR;
	}
	if (x->q->sink != NULL &&
	    (rc = x->q->sink(x->q->arg, p, sz * n, x->err)) != 0) {
		x->sink_rc = rc;
		return CURL_WRITEFUNC_ERROR;
	}
	x->resp->got += sz * n;
	return sz * n;
}

static int
on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut,
	    curl_off_t un)
{
	struct xfer *x = arg;

	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	return x->q->stop != NULL && x->q->stop(x->q->stop_arg);
}

/* The options of x's request on a fresh easy handle; 0 or -1. */
static int
setup(struct xfer *x)
{
	const struct cv_transport_req *q = x->q;
	const char *protos = q->allow_file ? "https,file" : "https";
	CURL *h = curl_easy_init();

	x->h = h;
	if (h == NULL)
		return -1;
	curl_easy_setopt(h, CURLOPT_URL, q->url); /* libcurl copies it */
	if (share != NULL)
		curl_easy_setopt(h, CURLOPT_SHARE, share);
	/* ~/.netrc is the place for a private mirror's password: it stays
	 * out of the configuration, of messages and of cudnnvm.json */
	curl_easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, protos);
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, protos);
#else
	/* libcurl before 7.85 (Debian 11's, where the release files are
	 * built) takes the same set as a bit mask */
	long mask = CURLPROTO_HTTPS | (q->allow_file ? CURLPROTO_FILE : 0);
	(void)protos;
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, mask);
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, mask);
#endif
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(h, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	if (q->ca_file != NULL)
		curl_easy_setopt(h, CURLOPT_CAINFO, q->ca_file);
	if (q->proxy != NULL)
		curl_easy_setopt(h, CURLOPT_PROXY, q->proxy);
	curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, q->timeout);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, q->timeout);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "cudnnvm/" CV_VERSION_STRING);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	/* the largest receive buffer libcurl takes: fewer, larger writes
	 * into the cache and the pipe at a GB/s */
	curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 512L * 1024);
	if (q->max > 0)
		curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE,
				 (curl_off_t)q->max);
	if (q->from > 0)
		curl_easy_setopt(h, CURLOPT_RESUME_FROM_LARGE,
				 (curl_off_t)q->from);
	if (q->head)
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	if (q->accept != NULL) {
		char *line = xasprintf("Accept: %s", q->accept);
		x->hdrs = curl_slist_append(NULL, line);
		free(line);
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, x->hdrs);
	}
	x->errbuf[0] = '\0';
	return 0;
}

static void
start(struct xfer *x, const struct cv_transport_req *q,
      struct cv_transport_resp *resp, struct cv_err *err)
{
	memset(x, 0, sizeof *x);
	memset(resp, 0, sizeof *resp);
	resp->length = -1;
	x->q = q;
	x->resp = resp;
	x->err = err;
}

/* What libcurl's answer `res` was, into x->resp (and err, unless the
 * sink set it); the return of cv_transport_get. */
static int
finish(struct xfer *x, CURLcode res)
{
	struct cv_transport_resp *r = x->resp;
	long code = 0;
	char *shown;
	int rc;

	if (x->h != NULL) {
		long hops = 0;
		headers_seen(x);
		curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
		curl_easy_getinfo(x->h, CURLINFO_REDIRECT_COUNT, &hops);
		r->status = code;
		r->redirects = (int)hops;
	}
	if (x->too_large)
		res = CURLE_FILESIZE_EXCEEDED;
	if (res == CURLE_OK)
		return 0;
	switch (res) {
	case CURLE_HTTP_RETURNED_ERROR:
		r->fail = CV_TF_HTTP;
		r->retryable = code >= 500;
		break;
	case CURLE_UNSUPPORTED_PROTOCOL:
		r->fail = CV_TF_INSECURE;
		break;
	case CURLE_FILESIZE_EXCEEDED:
		r->fail = CV_TF_TOO_LARGE;
		break;
	case CURLE_TOO_MANY_REDIRECTS:
		r->fail = CV_TF_REDIRECTS;
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
		r->fail = CV_TF_TLS;
		break;
	case CURLE_OPERATION_TIMEDOUT:
		r->fail = CV_TF_TIMEOUT;
		break;
	case CURLE_COULDNT_CONNECT:
		r->fail = CV_TF_CONNECT;
		r->retryable = 1;
		break;
	case CURLE_COULDNT_RESOLVE_PROXY:
		r->fail = CV_TF_PROXY;
		break;
	case CURLE_RECV_ERROR:
		r->fail = CV_TF_RECV;
		r->retryable = 1;
		break;
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		r->fail = CV_TF_CUT;
		r->retryable = 1;
		break;
	case CURLE_RANGE_ERROR:
		r->fail = CV_TF_RANGE;
		break;
	case CURLE_ABORTED_BY_CALLBACK:
		r->fail = CV_TF_ABORTED;
		break;
	default:
		r->fail = x->sink_rc != 0 ? CV_TF_SINK : CV_TF_OTHER;
		break;
	}
	snprintf(r->why, sizeof r->why, "%s",
		 x->errbuf[0] ? x->errbuf : curl_easy_strerror(res));
	if (r->fail == CV_TF_SINK)
		return x->sink_rc;
	shown = cv_url_redact(x->q->url);
	rc = cv_err_set(x->err,
			r->fail == CV_TF_TOO_LARGE ? CV_EDATA : CV_ENETWORK,
			"cannot download %s: %s", shown, r->why);
	free(shown);
	return rc;
}

static void
release(struct xfer *x)
{
	if (x->h != NULL)
		curl_easy_cleanup(x->h);
	curl_slist_free_all(x->hdrs);
	x->h = NULL;
	x->hdrs = NULL;
}

int
cv_transport_get(const struct cv_transport_req *q,
		 struct cv_transport_resp *resp, struct cv_err *err)
{
	struct xfer x;
	int rc;

	start(&x, q, resp, err);
	pthread_once(&once, init);
	if (init_failed || setup(&x) < 0) {
		release(&x);
		resp->fail = CV_TF_OTHER;
		snprintf(resp->why, sizeof resp->why, "cannot start libcurl");
		return cv_err_set(err, CV_ERROR, "cannot start libcurl");
	}
	rc = finish(&x, curl_easy_perform(x.h));
	release(&x);
	return rc;
}

void
cv_transport_get_many(const struct cv_transport_req *reqs, size_t n,
		      struct cv_transport_resp *resps, struct cv_err *errs)
{
	struct xfer *it;
	CURLM *m;
	size_t next = 0, done = 0;
	int running = 0;

	if (n == 0)
		return;
	pthread_once(&once, init);
	it = xcalloc(n, sizeof *it);
	for (size_t i = 0; i < n; i++)
		start(&it[i], &reqs[i], &resps[i], &errs[i]);
	m = init_failed ? NULL : curl_multi_init();
	if (m != NULL) {
		curl_multi_setopt(m, CURLMOPT_PIPELINING,
				  (long)CURLPIPE_MULTIPLEX);
		curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS,
				  (long)GET_MANY_PARALLEL);
	}
	while (m != NULL && done < n) {
		CURLMsg *msg;
		int left;

		/* keep GET_MANY_PARALLEL in flight; the pool hands a finished
		 * connection to the next transfer */
		while (next < n && running < GET_MANY_PARALLEL) {
			struct xfer *x = &it[next++];
			if (setup(x) < 0) {
				finish(x, CURLE_FAILED_INIT);
				done++;
				continue;
			}
			curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
			/* wait for a connection that may multiplex (HTTP/2)
			 * rather than open one per transfer */
			curl_easy_setopt(x->h, CURLOPT_PIPEWAIT, 1L);
			curl_multi_add_handle(m, x->h);
			running++;
		}
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		while ((msg = curl_multi_info_read(m, &left)) != NULL) {
			struct xfer *x = NULL;
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
					  (char **)&x);
			curl_multi_remove_handle(m, x->h);
			finish(x, msg->data.result);
			release(x);
			done++;
		}
		if (done < n)
			curl_multi_poll(m, NULL, 0, 100, NULL);
	}
	/* what a failed multi handle left: in flight, or never started */
	for (size_t i = 0; i < n; i++) {
		if (it[i].h != NULL) {
			curl_multi_remove_handle(m, it[i].h);
			finish(&it[i], CURLE_FAILED_INIT);
			release(&it[i]);
		} else if (i >= next) {
			finish(&it[i], CURLE_FAILED_INIT);
		}
	}
	free(it);
	if (m != NULL)
		curl_multi_cleanup(m);
}

char *
cv_url_resolve(const char *base, const char *ref)
{
	CURLU *u = curl_url();
	char *got = NULL, *out = NULL;

	if (u == NULL)
		return NULL;
	if (curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_URL, ref, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_URL, &got, 0) == CURLUE_OK)
		out = xstrdup(got);
	curl_free(got);
	curl_url_cleanup(u);
	return out;
}
