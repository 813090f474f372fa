/* remote.c: the libcurl client. HTTPS only (redirects included; file://
 * only for a file:// mirror), TLS verification on, timeouts, bounded
 * retries, and a streaming download: a thread runs the transfer and
 * appends each block to the cache partial and to a ring buffer that the
 * installer reads from, so download, hash and extraction overlap. */
#include "internal.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RING_SIZE    (4u << 20)
#define REPLAY_BLOCK (256u << 10)
/* wake the reader only once this much is buffered (or at the end) */
#define LOW_MARK (256u << 10)

/* lock-free, so safe to set from a signal handler */
static atomic_int interrupted;

void
cv_remote_interrupt(void)
{
	interrupted = 1;
}

struct cv_remote {
	char *mirror;   /* without credentials: what messages and files show */
	char *userinfo; /* "user:pass" of the configured URL, or NULL */
	char *ca_file;
	char *proxy;
	long timeout;
	int retries;
	int allow_file;
	int verify_pins;
	CURL *get; /* reused for small documents: keeps connections */
};

int
cv_remote_new(struct cv_remote **out, const struct cv_config *cfg,
	      const char *mirror, struct cv_err *err)
{
	struct cv_remote *r;
	static int inited;
	int rc;

	const char *why;

	if (mirror == NULL)
		mirror = cfg->mirror ? cfg->mirror : CV_DEFAULT_MIRROR;
	if ((why = cv_url_mirror_problem(mirror)) != NULL) {
		char *shown = cv_url_redact(mirror);
		rc = cv_err_set(err, CV_ECONFIG, "mirror '%.200s' %s", shown,
				why);
		free(shown);
		return rc;
	}
	/* libcurl (and libcrypto, for pins and cache keys) load on first use */
	if ((rc = cv_dyn_require(CV_DYN_CURL, err)) < 0 ||
	    (rc = cv_dyn_require(CV_DYN_CRYPTO, err)) < 0)
		return rc;
	if (!inited) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
			return cv_err_set(err, CV_ERROR,
					  "cannot initialise libcurl");
		inited = 1;
	}
	r = xcalloc(1, sizeof *r);
	r->mirror = cv_url_redact(mirror);
	r->userinfo = cv_url_userinfo(mirror);
	r->allow_file = strncmp(mirror, "file://", 7) == 0;
	r->ca_file = cfg->ca_file ? xstrdup(cfg->ca_file) : NULL;
	r->proxy = cfg->proxy ? xstrdup(cfg->proxy) : NULL;
	r->verify_pins = cfg->verify_pins;
	r->timeout = cfg->timeout > 0 ? cfg->timeout : 30;
	r->retries = cfg->retries >= 0 ? cfg->retries : 3;
	if (r->retries > 10)
		r->retries = 10;
	*out = r;
	return 0;
}

void
cv_remote_free(struct cv_remote *r)
{
	if (r == NULL)
		return;
	if (r->get != NULL)
		curl_easy_cleanup(r->get);
	free(r->mirror);
	free(r->userinfo);
	free(r->ca_file);
	free(r->proxy);
	free(r);
}

const char *
cv_remote_mirror(const struct cv_remote *r)
{
	return r->mirror;
}

int
cv_remote_verify_pins(const struct cv_remote *r)
{
	return r->verify_pins;
}

/* The proxy in use (config, else environment), without credentials. */
static void
proxy_name(const struct cv_remote *r, char *buf, size_t n)
{
	const char *p = r->proxy, *at;

	if (p == NULL)
		p = getenv("https_proxy");
	if (p == NULL)
		p = getenv("HTTPS_PROXY");
	if (p == NULL)
		p = getenv("all_proxy");
	if (p == NULL)
		p = getenv("ALL_PROXY");
	buf[0] = '\0';
	if (p == NULL || *p == '\0')
		return;
	at = strrchr(p, '@');
	if (at != NULL) {
		const char *scheme = strstr(p, "://");
		snprintf(buf, n, "%.*s%s", scheme ? (int)(scheme + 3 - p) : 0,
			 p, at + 1);
	} else
		snprintf(buf, n, "%s", p);
}

/* Credentials go back only into URLs on the mirror's own host: a manifest
 * path cannot leave it, and libcurl drops them on a redirect elsewhere. */
static void
set_url(const struct cv_remote *r, CURL *h, const char *url)
{
	size_t origin;
	char *with_auth;

	if (r->userinfo == NULL || strncmp(r->mirror, "https://", 8) != 0) {
		curl_easy_setopt(h, CURLOPT_URL, url);
		return;
	}
	origin = strcspn(r->mirror + 8, "/") + 8;
	if (strncmp(url, r->mirror, origin) != 0 ||
	    (url[origin] != '/' && url[origin] != '\0')) {
		curl_easy_setopt(h, CURLOPT_URL, url);
		return;
	}
	with_auth = xasprintf("https://%s@%s", r->userinfo, url + 8);
	curl_easy_setopt(h, CURLOPT_URL, with_auth); /* libcurl copies it */
	free(with_auth);
}

static void
setup_easy(const struct cv_remote *r, CURL *h, const char *url, char *errbuf)
{
	const char *protos = r->allow_file ? "https,file" : "https";

	set_url(r, h, url);
	/* ~/.netrc is the place for a private mirror's password: it stays
	 * out of the configuration, of messages and of cudnnvm.json */
	curl_easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, protos);
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, protos);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(h, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	if (r->ca_file != NULL)
		curl_easy_setopt(h, CURLOPT_CAINFO, r->ca_file);
	if (r->proxy != NULL)
		curl_easy_setopt(h, CURLOPT_PROXY, r->proxy);
	curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, r->timeout);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, r->timeout);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "cudnnvm/" CV_VERSION_STRING);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	errbuf[0] = '\0';
}

static int
retryable(CURLcode res, long code)
{
	switch (res) {
	case CURLE_HTTP_RETURNED_ERROR:
		return code >= 500;
	case CURLE_COULDNT_CONNECT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return 1;
	default:
		return 0;
	}
}

/* Sleep 250 ms << attempt (at most 4 s); 1 when interrupted. */
static int
backoff(int attempt, atomic_int *abort)
{
	long ms = 250L << (attempt < 4 ? attempt : 4);

	for (; ms > 0; ms -= 50) {
		struct timespec ts = { 0, 50 * 1000000L };
		if (interrupted || (abort && *abort))
			return 1;
		nanosleep(&ts, NULL);
	}
	return interrupted != 0;
}

/* Turn a failed transfer into one clear line; the plain network failures
 * share one shape, "<what> <url>: <why><hint>". */
static int
transfer_error(const struct cv_remote *r, CURL *h, CURLcode res,
	       const char *url, const char *errbuf, struct cv_err *err)
{
	long code = 0;
	char proxy[256];
	const char *why = errbuf[0] ? errbuf : curl_easy_strerror(res);
	const char *what = "cannot download";
	const char *hint = "; check the network and the mirror";

	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	switch (res) {
	case CURLE_ABORTED_BY_CALLBACK:
		if (interrupted)
			return cv_err_set(err, CV_EINTR,
					  "interrupted; run the same command "
					  "again to resume the download");
		break;
	case CURLE_HTTP_RETURNED_ERROR:
		return cv_err_set(err, CV_ENETWORK,
				  "HTTP %ld for %s; check the version and the "
				  "mirror",
				  code, url);
	case CURLE_UNSUPPORTED_PROTOCOL:
		return cv_err_set(err, CV_ENETWORK,
				  "refused an insecure redirect from %s (only "
				  "https is allowed): %s",
				  url, why);
	case CURLE_FILESIZE_EXCEEDED:
		return cv_err_set(err, CV_EDATA,
				  "%s is larger than the manifest says; "
				  "refused",
				  url);
	case CURLE_TOO_MANY_REDIRECTS:
		what = "too many redirects for";
		hint = "";
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
		what = "TLS verification failed for";
		hint = "; for a private CA set [remote] ca_file";
		break;
	case CURLE_OPERATION_TIMEDOUT:
		what = "timed out downloading";
		hint = "; check the network or raise [remote] timeout";
		break;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_RECV_ERROR:
		proxy_name(r, proxy, sizeof proxy);
		if (proxy[0])
			return cv_err_set(err, CV_ENETWORK,
					  "cannot download %s via proxy %s: "
					  "%s; check the proxy settings "
					  "(https_proxy, no_proxy, [remote] "
					  "proxy)",
					  url, proxy, why);
		break;
	default:
		break;
	}
	return cv_err_set(err, CV_ENETWORK, "%s %s: %s%s", what, url, why,
			  hint);
}

/* ---- small documents (listing, manifests) ---- */

struct get_ctx {
	struct cv_buf *buf;
	int toobig;
};

static size_t
get_write(char *p, size_t sz, size_t n, void *arg)
{
	struct get_ctx *g = arg;

	if (cv_buf_add(g->buf, p, sz * n) < 0) {
		g->toobig = 1;
		return CURL_WRITEFUNC_ERROR;
	}
	return sz * n;
}

/* libcurl's progress callback: stop the transfer on Ctrl-C, or once the
 * flag `arg` points at (a download's abort; NULL for none) is set. */
static int
xfer_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut,
	      curl_off_t un)
{
	atomic_int *abort = arg;

	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	return interrupted || (abort != NULL && *abort);
}

int
cv_remote_get(struct cv_remote *r, const char *url, size_t max,
	      struct cv_buf *out, struct cv_err *err)
{
	char errbuf[CURL_ERROR_SIZE];
	struct get_ctx g = { out, 0 };
	CURL *h;
	CURLcode res = CURLE_OK;
	long code = 0;
	int rc = 0;

	if (r->get == NULL)
		r->get = curl_easy_init();
	h = r->get;
	if (h == NULL)
		return cv_err_set(err, CV_ERROR, "cannot start libcurl");
	out->max = max;
	for (int attempt = 0;; attempt++) {
		cv_buf_reset(out);
		g.toobig = 0;
		curl_easy_reset(h); /* options only; the connection stays */
		setup_easy(r, h, url, errbuf);
		curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, get_write);
		curl_easy_setopt(h, CURLOPT_WRITEDATA, &g);
		curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, xfer_progress);
		curl_easy_setopt(h, CURLOPT_XFERINFODATA, NULL);
		res = curl_easy_perform(h);
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		if (res == CURLE_OK || attempt >= r->retries ||
		    !retryable(res, code) || backoff(attempt, NULL))
			break;
	}
	if (g.toobig || res == CURLE_FILESIZE_EXCEEDED)
		rc = cv_err_set(err, CV_EDATA,
				"%s is larger than %zu bytes; refused", url,
				max);
	else if (res != CURLE_OK)
		rc = transfer_error(r, h, res, url, errbuf, err);
	curl_easy_reset(h);
	return rc;
}

/* At most this many transfers at once: over HTTP/1.1 each is a
 * connection, so a listing of 40 manifests takes two round trips; over
 * HTTP/2 they share one connection. */
#define GET_MANY_PARALLEL 24

struct many_item {
	CURL *h;
	struct get_ctx g;
	char errbuf[CURL_ERROR_SIZE];
	CURLcode res;
	int done;
};

int
cv_remote_get_many(struct cv_remote *r, char *const *urls, size_t n, size_t max,
		   struct cv_buf *outs, struct cv_err *errs)
{
	struct many_item *it;
	CURLM *m;
	size_t next = 0, i;
	int running = 0, rc = 0;

	if (n == 0)
		return 0;
	m = curl_multi_init();
	if (m == NULL)
		return cv_err_set(&errs[0], CV_ERROR, "cannot start libcurl");
	curl_multi_setopt(m, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS,
			  (long)GET_MANY_PARALLEL);
	it = xcalloc(n, sizeof *it);
	for (;;) {
		CURLMsg *msg;
		int left;

		/* keep GET_MANY_PARALLEL in flight; the multi handle's pool
		 * hands a finished connection to the next transfer */
		while (next < n && running < GET_MANY_PARALLEL) {
			struct many_item *t = &it[next];
			t->h = curl_easy_init();
			if (t->h == NULL) {
				next++; /* reported below */
				continue;
			}
			outs[next].max = max;
			cv_buf_reset(&outs[next]);
			t->g.buf = &outs[next];
			setup_easy(r, t->h, urls[next], t->errbuf);
			curl_easy_setopt(t->h, CURLOPT_MAXFILESIZE_LARGE,
					 (curl_off_t)max);
			curl_easy_setopt(t->h, CURLOPT_WRITEFUNCTION,
					 get_write);
			curl_easy_setopt(t->h, CURLOPT_WRITEDATA, &t->g);
			curl_easy_setopt(t->h, CURLOPT_XFERINFOFUNCTION,
					 xfer_progress);
			curl_easy_setopt(t->h, CURLOPT_XFERINFODATA, NULL);
			curl_easy_setopt(t->h, CURLOPT_PRIVATE, t);
			/* wait for a connection that may multiplex (HTTP/2)
			 * rather than open one per transfer */
			curl_easy_setopt(t->h, CURLOPT_PIPEWAIT, 1L);
			curl_multi_add_handle(m, t->h);
			next++;
			running++;
		}
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		while ((msg = curl_multi_info_read(m, &left)) != NULL) {
			struct many_item *t = NULL;
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
					  (char **)&t);
			t->res = msg->data.result;
			t->done = 1;
			curl_multi_remove_handle(m, t->h);
		}
		if (interrupted || (running == 0 && next == n))
			break;
		curl_multi_poll(m, NULL, 0, 100, NULL);
	}
	for (i = 0; i < n; i++) {
		struct many_item *t = &it[i];
		long code = 0;

		if (interrupted) {
			rc = cv_err_set(&errs[i], CV_EINTR, "interrupted");
		} else if (!t->done) {
			rc = cv_err_set(&errs[i], CV_ERROR,
					"cannot start libcurl");
		} else if (t->g.toobig || t->res == CURLE_FILESIZE_EXCEEDED) {
			rc = cv_err_set(&errs[i], CV_EDATA,
					"%s is larger than %zu bytes; refused",
					urls[i], max);
		} else if (t->res != CURLE_OK) {
			curl_easy_getinfo(t->h, CURLINFO_RESPONSE_CODE, &code);
			if (r->retries > 0 && retryable(t->res, code) &&
			    !backoff(0, NULL)) {
				/* the rare failure takes the one-by-one path
				 * and its remaining retries */
				int all = r->retries;
				r->retries = all - 1;
				rc = cv_remote_get(r, urls[i], max, &outs[i],
						   &errs[i]);
				r->retries = all;
			} else
				rc = transfer_error(r, t->h, t->res, urls[i],
						    t->errbuf, &errs[i]);
		}
		if (t->h != NULL) {
			if (!t->done)
				curl_multi_remove_handle(m, t->h);
			curl_easy_cleanup(t->h);
		}
	}
	free(it);
	curl_multi_cleanup(m);
	return interrupted ? CV_EINTR : (rc < 0 ? rc : 0);
}

/* ---- the streaming download ---- */

enum { RANGE_PENDING, RANGE_OK, RANGE_RESTART };

struct cv_download {
	struct cv_remote *r;
	char *url, *partial, *final;
	char sha256[65];
	uint64_t size;
	int keep;

	/* set up by open */
	int from_final; /* a verified archive from the cache */
	int rfd;        /* replay: the cached bytes, read from 0 */
	uint64_t replay_len, replay_off;
	char *replay_buf;
	int wfd;         /* the partial, appended by the thread */
	uint64_t offset; /* resume offset of the first request */
	int used_cache;

	/* shared with the thread, under mu */
	pthread_t th;
	int th_started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *ring;
	uint64_t head, tail; /* bytes written / consumed, ever */
	size_t held;         /* handed to the reader, not yet consumed */
	int range;
	int done;
	atomic_int abort;
	struct cv_err terr;
	atomic_int keep_partial; /* an error after which the partial is
				    resumable */
	int sniffed;
	int cons_wait, prod_wait; /* who sleeps on cv */
	CURL *h;
	uint64_t file_len; /* bytes in the partial */

	uint64_t delivered;
	void (*progress)(void *, uint64_t, uint64_t);
	void *payload;
};

int
cv_download_new(struct cv_download **out, struct cv_remote *r,
		const struct cv_artifact *art, const char *url,
		const char *cache_dir, int keep, struct cv_err *err)
{
	struct cv_download *d;
	char *dir;

	if (!cv_sha256_valid_hex(art->sha256) || art->size == 0)
		return cv_err_set(err, CV_EDATA,
				  "no sha256 and size for %s: refused", url);
	dir = cv_path_join(cache_dir, "downloads");
	if (cv_fs_mkdirs(dir, 0755, NULL) < 0) {
		int rc = cv_err_errno(err, cv_code_from_errno(errno),
				      "cannot create the cache folder %s", dir);
		free(dir);
		return rc;
	}
	d = xcalloc(1, sizeof *d);
	d->r = r;
	d->url = xstrdup(url);
	memcpy(d->sha256, art->sha256, 65);
	for (int i = 0; i < 64; i++)
		if (d->sha256[i] >= 'A' && d->sha256[i] <= 'F')
			d->sha256[i] = (char)(d->sha256[i] - 'A' + 'a');
	d->size = art->size;
	d->keep = keep;
	d->partial = xasprintf("%s/%s.partial", dir, d->sha256);
	d->final = xasprintf("%s/%s.archive", dir, d->sha256);
	d->rfd = d->wfd = -1;
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cv, NULL);
	free(dir);
	*out = d;
	return 0;
}

void
cv_download_progress(struct cv_download *d,
		     void (*fn)(void *, uint64_t, uint64_t), void *payload)
{
	d->progress = fn;
	d->payload = payload;
}

int
cv_download_used_cache(const struct cv_download *d)
{
	return d->used_cache;
}

void
cv_download_discard(struct cv_download *d)
{
	unlink(d->partial);
	unlink(d->final);
}

static void
thread_fail(struct cv_download *d, const struct cv_err *e)
{
	pthread_mutex_lock(&d->mu);
	if (d->terr.code == 0)
		d->terr = *e;
	pthread_mutex_unlock(&d->mu);
}

static size_t
dl_write(char *p, size_t sz, size_t n, void *arg)
{
	struct cv_download *d = arg;
	size_t len = sz * n, off = 0;
	struct cv_err e = CV_ERR_INIT;

	if (d->abort)
		return CURL_WRITEFUNC_ERROR;
	if (!d->sniffed) {
		char *ct = NULL;
		d->sniffed = 1;
		curl_easy_getinfo(d->h, CURLINFO_CONTENT_TYPE, &ct);
		if ((ct != NULL && strncasecmp(ct, "text/html", 9) == 0) ||
		    (d->file_len == 0 && len > 0 && p[0] == '<')) {
			cv_err_set(&e, CV_EDATA,
				   "the server returned an HTML page, not the "
				   "archive, for %s (a captive portal or a "
				   "wrong mirror?)",
				   d->url);
			thread_fail(d, &e);
			return CURL_WRITEFUNC_ERROR;
		}
	}
	if (d->file_len + len > d->size) {
		cv_err_set(&e, CV_EDATA,
			   "%s sent more than the %llu bytes the manifest "
			   "gives; refused",
			   d->url, (unsigned long long)d->size);
		thread_fail(d, &e);
		return CURL_WRITEFUNC_ERROR;
	}
	while (off < len) {
		ssize_t w = write(d->wfd, p + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			cv_err_errno(&e, cv_code_from_errno(errno),
				     "cannot write the download cache %s",
				     d->partial);
			thread_fail(d, &e);
			return CURL_WRITEFUNC_ERROR;
		}
		off += (size_t)w;
	}
	d->file_len += len;
	pthread_mutex_lock(&d->mu);
	if (d->range == RANGE_PENDING) {
		d->range = RANGE_OK;
		pthread_cond_broadcast(&d->cv);
	}
	off = 0;
	while (off < len) {
		size_t space, at, chunk;
		while (!d->abort && d->head - d->tail >= RING_SIZE) {
			d->prod_wait = 1;
			pthread_cond_wait(&d->cv, &d->mu);
			d->prod_wait = 0;
		}
		if (d->abort) {
			pthread_mutex_unlock(&d->mu);
			return CURL_WRITEFUNC_ERROR;
		}
		space = RING_SIZE - (size_t)(d->head - d->tail);
		at = (size_t)(d->head % RING_SIZE);
		chunk = len - off;
		if (chunk > space)
			chunk = space;
		if (chunk > RING_SIZE - at)
			chunk = RING_SIZE - at;
		memcpy(d->ring + at, p + off, chunk);
		d->head += chunk;
		off += chunk;
		if (d->cons_wait && d->head - d->tail >= LOW_MARK)
			pthread_cond_broadcast(&d->cv);
	}
	pthread_mutex_unlock(&d->mu);
	return len;
}

/* Start over from byte 0: the server ignored the Range request. Only
 * possible while the reader has not consumed replayed bytes. */
static int
restart_partial(struct cv_download *d)
{
	if (ftruncate(d->wfd, 0) < 0 || lseek(d->wfd, 0, SEEK_SET) < 0)
		return -1;
	d->file_len = 0;
	pthread_mutex_lock(&d->mu);
	d->range = RANGE_RESTART;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
	return 0;
}

static void *
dl_thread(void *arg)
{
	struct cv_download *d = arg;
	char errbuf[CURL_ERROR_SIZE];
	struct cv_err e = CV_ERR_INIT;
	CURLcode res = CURLE_OK;
	long code = 0;
	int restarted = 0;

	d->h = curl_easy_init();
	if (d->h == NULL) {
		cv_err_set(&e, CV_ERROR, "cannot start libcurl");
		thread_fail(d, &e);
		goto out;
	}
	for (int attempt = 0;;) {
		uint64_t from = d->file_len;
		setup_easy(d->r, d->h, d->url, errbuf);
		curl_easy_setopt(d->h, CURLOPT_MAXFILESIZE_LARGE,
				 (curl_off_t)(d->size - from));
		curl_easy_setopt(d->h, CURLOPT_RESUME_FROM_LARGE,
				 (curl_off_t)from);
		curl_easy_setopt(d->h, CURLOPT_WRITEFUNCTION, dl_write);
		curl_easy_setopt(d->h, CURLOPT_WRITEDATA, d);
		curl_easy_setopt(d->h, CURLOPT_XFERINFOFUNCTION, xfer_progress);
		curl_easy_setopt(d->h, CURLOPT_XFERINFODATA, &d->abort);
		d->sniffed = from > 0;
		res = curl_easy_perform(d->h);
		code = 0;
		curl_easy_getinfo(d->h, CURLINFO_RESPONSE_CODE, &code);
		if (res == CURLE_OK)
			break;
		if (d->terr.code != 0 || d->abort)
			goto out;
		/* Range ignored (33) or refused (416): start from 0, once,
		 * when nothing replayed has been consumed yet. */
		if (from > 0 && !restarted &&
		    (res == CURLE_RANGE_ERROR ||
		     (res == CURLE_HTTP_RETURNED_ERROR && code == 416))) {
			int pending;
			pthread_mutex_lock(&d->mu);
			pending = d->range == RANGE_PENDING;
			pthread_mutex_unlock(&d->mu);
			if (pending && restart_partial(d) == 0) {
				restarted = 1;
				continue;
			}
		}
		if (attempt < d->r->retries && retryable(res, code) &&
		    !backoff(attempt, &d->abort)) {
			attempt++;
			continue;
		}
		transfer_error(d->r, d->h, res, d->url, errbuf, &e);
		if (e.code == CV_ENETWORK || e.code == CV_EINTR)
			d->keep_partial = 1;
		thread_fail(d, &e);
		goto out;
	}
out:
	if (d->h != NULL)
		curl_easy_cleanup(d->h);
	d->h = NULL;
	pthread_mutex_lock(&d->mu);
	if (d->range == RANGE_PENDING)
		d->range = RANGE_OK; /* nothing new: the partial was whole */
	d->done = 1;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

static int dl_open(void *arg, struct cv_source *src, struct cv_err *err);
static ssize_t dl_read(void *ctx, const void **buf, struct cv_err *err);

static int
open_nofollow(const char *path, int flags, struct stat *st)
{
	int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd >= 0 && fstat(fd, st) < 0) {
		close(fd);
		return -1;
	}
	if (fd >= 0 && !S_ISREG(st->st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

static int
dl_open(void *arg, struct cv_source *src, struct cv_err *err)
{
	struct cv_download *d = arg;
	struct stat st;
	int fd;

	src->read = dl_read;
	src->ctx = d;
	d->replay_buf = xmalloc(REPLAY_BLOCK);
	/* A verified archive kept from an earlier install. */
	fd = open_nofollow(d->final, O_RDONLY, &st);
	if (fd >= 0) {
		if ((uint64_t)st.st_size == d->size && st.st_uid == geteuid()) {
			d->from_final = 1;
			d->used_cache = 1;
			d->rfd = fd;
			d->replay_len = d->size;
			return 0;
		}
		close(fd);
		unlink(d->final);
	}
	d->wfd = open_nofollow(d->partial, O_RDWR | O_CREAT | O_APPEND, &st);
	if (d->wfd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot open the download cache %s",
				    d->partial);
	if (st.st_uid != geteuid()) {
		/* not ours: do not trust or extend it */
		close(d->wfd);
		unlink(d->partial);
		d->wfd = open_nofollow(
			d->partial, O_RDWR | O_CREAT | O_EXCL | O_APPEND, &st);
		if (d->wfd < 0)
			return cv_err_errno(err, cv_code_from_errno(errno),
					    "cannot create the download cache "
					    "%s",
					    d->partial);
	}
	if ((uint64_t)st.st_size > d->size) {
		/* larger than the manifest says: junk */
		if (ftruncate(d->wfd, 0) < 0)
			return cv_err_errno(err, cv_code_from_errno(errno),
					    "cannot reset %s", d->partial);
		st.st_size = 0;
	}
	d->file_len = (uint64_t)st.st_size;
	d->offset = d->file_len;
	if (d->file_len > 0) {
		d->rfd = open(d->partial, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (d->rfd < 0)
			return cv_err_errno(err, cv_code_from_errno(errno),
					    "cannot read %s", d->partial);
		d->replay_len = d->file_len;
		d->used_cache = 1;
		d->range = RANGE_PENDING;
	} else
		d->range = RANGE_RESTART;
	if (d->file_len == d->size) {
		/* complete partial: nothing to fetch, just verify */
		d->range = RANGE_OK;
		d->done = 1;
		return 0;
	}
	d->ring = xmalloc(RING_SIZE);
	if (pthread_create(&d->th, NULL, dl_thread, d) != 0)
		return cv_err_set(err, CV_ERROR, "cannot start a thread");
	d->th_started = 1;
	return 0;
}

static void
report(struct cv_download *d)
{
	if (d->progress != NULL)
		d->progress(d->payload, d->delivered, d->size);
}

/* Sleep on d->cv (mu held) for at most 100 ms, so that the reader
 * notices an interrupt even when nobody signals. */
static void
wait_tick(struct cv_download *d)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 100000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&d->cv, &d->mu, &ts);
}

static ssize_t
dl_read(void *ctx, const void **buf, struct cv_err *err)
{
	struct cv_download *d = ctx;
	ssize_t n;

	if (interrupted)
		goto intr;
	/* 1. replay the cached bytes (after the server accepted the Range) */
	if (d->rfd >= 0) {
		if (!d->from_final) {
			pthread_mutex_lock(&d->mu);
			while (d->range == RANGE_PENDING && !interrupted)
				wait_tick(d);
			if (d->range == RANGE_RESTART)
				d->replay_off = d->replay_len;
			pthread_mutex_unlock(&d->mu);
			if (interrupted)
				goto intr;
		}
		if (d->replay_off < d->replay_len) {
			size_t want = REPLAY_BLOCK;
			if (d->replay_len - d->replay_off < want)
				want = (size_t)(d->replay_len - d->replay_off);
			n = pread(d->rfd, d->replay_buf, want,
				  (off_t)d->replay_off);
			if (n <= 0)
				return cv_err_errno(err, CV_EIO,
						    "cannot read the cached "
						    "download %s",
						    d->from_final ? d->final
								  : d->partial);
			d->replay_off += (uint64_t)n;
			d->delivered += (uint64_t)n;
			*buf = d->replay_buf;
			report(d);
			return n;
		}
		close(d->rfd);
		d->rfd = -1;
	}
	if (d->from_final || d->ring == NULL)
		goto end;
	/* 2. bytes from the network, as they arrive */
	pthread_mutex_lock(&d->mu);
	d->tail += d->held;
	d->held = 0;
	if (d->prod_wait)
		pthread_cond_broadcast(&d->cv);
	while (d->head - d->tail < LOW_MARK && !d->done && !interrupted) {
		d->cons_wait = 1;
		wait_tick(d);
		d->cons_wait = 0;
	}
	if (d->head > d->tail) {
		size_t at = (size_t)(d->tail % RING_SIZE);
		size_t avail = (size_t)(d->head - d->tail);
		if (avail > RING_SIZE - at)
			avail = RING_SIZE - at;
		d->held = avail;
		pthread_mutex_unlock(&d->mu);
		*buf = d->ring + at;
		d->delivered += avail;
		report(d);
		return (ssize_t)avail;
	}
	pthread_mutex_unlock(&d->mu);
	if (interrupted)
		goto intr;
	if (d->terr.code != 0) {
		if (err != NULL)
			*err = d->terr;
		return d->terr.code;
	}
end:
	if (d->delivered != d->size)
		return cv_err_set(err, CV_EDATA,
				  "download of %s ended after %llu of %llu "
				  "bytes (truncated)",
				  d->url, (unsigned long long)d->delivered,
				  (unsigned long long)d->size);
	return 0;
intr:
	d->keep_partial = 1;
	return cv_err_set(err, CV_EINTR,
			  "interrupted; the partial download is kept, run "
			  "the same command again to resume");
}

static void
dl_stop(struct cv_download *d)
{
	if (d->th_started) {
		pthread_mutex_lock(&d->mu);
		d->abort = 1;
		pthread_cond_broadcast(&d->cv);
		pthread_mutex_unlock(&d->mu);
		pthread_join(d->th, NULL);
		d->th_started = 0;
	}
	if (d->rfd >= 0)
		close(d->rfd);
	if (d->wfd >= 0)
		close(d->wfd);
	d->rfd = d->wfd = -1;
}

static void
dl_close(void *arg, int ok)
{
	struct cv_download *d = arg;

	/* a reader that stopped early is not an error of the server */
	pthread_mutex_lock(&d->mu);
	if (d->th_started && !d->done && !ok && !interrupted &&
	    d->terr.code == 0)
		d->keep_partial = 1;
	pthread_mutex_unlock(&d->mu);
	dl_stop(d);
	if (ok) {
		if (d->from_final) {
			if (!d->keep)
				unlink(d->final);
		} else if (d->keep) {
			if (rename(d->partial, d->final) < 0)
				unlink(d->partial);
		} else
			unlink(d->partial);
		return;
	}
	if (d->from_final) {
		unlink(d->final);
		return;
	}
	if (!d->keep_partial && !interrupted)
		unlink(d->partial);
}

void
cv_download_fetcher(struct cv_download *d, struct cv_fetcher *f)
{
	f->open = dl_open;
	f->close = dl_close;
	f->arg = d;
}

void
cv_download_free(struct cv_download *d)
{
	if (d == NULL)
		return;
	dl_stop(d);
	pthread_mutex_destroy(&d->mu);
	pthread_cond_destroy(&d->cv);
	free(d->ring);
	free(d->replay_buf);
	free(d->url);
	free(d->partial);
	free(d->final);
	free(d);
}
