/* remote.c: the libcurl client. HTTPS only (redirects included; file://
 * only for a file:// mirror), TLS verification on, timeouts, bounded
 * retries; small documents one at a time or many at once. The streaming
 * download of an archive is download.c, on the helpers of http.h. */
#include "base/base.h"
#include "install/install_int.h"
#include "release/release.h"

#include <curl/curl.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* lock-free, so safe to set from a signal handler */
static atomic_int interrupted;

void
cv_remote_interrupt(void)
{
	interrupted = 1;
}

int
cv_remote_interrupted(void)
{
	return interrupted != 0;
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
	/* the setting the mirror came from (NULL: the default) */
	const char *mirror_from;
	/* what the messages call it: "mirror", or "index" for the simple
	 * index of source = pypi */
	const char *noun;
	CURL *get;          /* reused for small documents: keeps connections */
	const char *accept; /* Accept header of cv_remote_get, or NULL */
};

static int remote_new(struct cv_remote **out, const struct cv_config *cfg,
		      const char *mirror, const char *noun, struct cv_err *err);

int
cv_remote_new(struct cv_remote **out, const struct cv_config *cfg,
	      const char *mirror, struct cv_err *err)
{
	if (mirror == NULL)
		mirror = cfg->mirror ? cfg->mirror : CV_DEFAULT_MIRROR;
	return remote_new(out, cfg, mirror, "mirror", err);
}

int
cv_remote_new_index(struct cv_remote **out, const struct cv_config *cfg,
		    const char *index, struct cv_err *err)
{
	return remote_new(out, cfg, index, "index", err);
}

static int
remote_new(struct cv_remote **out, const struct cv_config *cfg,
	   const char *mirror, const char *noun, struct cv_err *err)
{
	struct cv_remote *r;
	static int inited;
	const char *why;
	int rc;

	if ((why = cv_url_mirror_problem(mirror)) != NULL) {
		char *shown = cv_url_redact(mirror);
		rc = cv_err_set(err, CV_ECONFIG, "%s '%.200s' %s", noun, shown,
				why);
		free(shown);
		return rc;
	}
	/* a bundle that is not there fails every request alike: say which
	 * setting named it, before any */
	if (cfg->ca_file != NULL &&
	    cv_os_access(cfg->ca_file, CV_ACCESS_READ) != 0)
		return cv_err_errno(err, CV_ECONFIG, "%s names '%.200s'",
				    cfg->ca_from ? cfg->ca_from
						 : "remote.ca_file",
				    cfg->ca_file);
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
	r->noun = noun;
	r->ca_file = cfg->ca_file ? xstrdup(cfg->ca_file) : NULL;
	r->proxy = cfg->proxy ? xstrdup(cfg->proxy) : NULL;
	/* verify_pins = mirror: the one mirror named in the configuration
	 * makes its own manifests; NVIDIA's and any other stay pinned */
	r->verify_pins =
		cfg->verify_pins == CV_PINS_MIRROR
			? !(cfg->pins_mirror != NULL &&
			    cv_url_same_mirror(cfg->pins_mirror, mirror))
			: cfg->verify_pins != CV_PINS_NO;
	r->mirror_from =
		mirror == cfg->mirror || (cfg->mirror != NULL &&
					  strcmp(mirror, cfg->mirror) == 0)
			? cfg->mirror_from
			: "--mirror";
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
cv_remote_retries(const struct cv_remote *r)
{
	return r->retries;
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

void
cv_http_setup(const struct cv_remote *r, CURL *h, const char *url, char *errbuf)
{
	const char *protos = r->allow_file ? "https,file" : "https";

	set_url(r, h, url);
	/* ~/.netrc is the place for a private mirror's password: it stays
	 * out of the configuration, of messages and of cudnnvm.json */
	curl_easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, protos);
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, protos);
#else
	/* libcurl before 7.85 (Debian 11's, where the release files are
	 * built) takes the same set as a bit mask */
	long mask = CURLPROTO_HTTPS | (r->allow_file ? CURLPROTO_FILE : 0);
	(void)protos;
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, mask);
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, mask);
#endif
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

int
cv_http_retryable(CURLcode res, long code)
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
int
cv_http_backoff(int attempt, atomic_int *abort)
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
int
cv_http_error(const struct cv_remote *r, CURL *h, CURLcode res, const char *url,
	      const char *errbuf, struct cv_err *err)
{
	long code = 0;
	char proxy[256];
	const char *why = errbuf[0] ? errbuf : curl_easy_strerror(res);
	const char *what = "cannot download";
	int index = strcmp(r->noun, "index") == 0;
	const char *hint = index ? "; check the network and the index"
				 : "; check the network and the mirror";
	/* the setting to change, as the first network error says it */
	const char *fix = index ? "cudnnvm config set remote.index URL"
				: "cudnnvm config set remote.mirror URL";
	int about_mirror = !index;

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
				  "%s",
				  code, url, r->noun);
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
		hint = "; a private CA goes in remote.ca_file or SSL_CERT_FILE";
		fix = "cudnnvm config set remote.ca_file /path/to/ca.pem";
		about_mirror = 0;
		break;
	case CURLE_OPERATION_TIMEDOUT:
		what = "timed out downloading";
		hint = "; check the network or raise remote.timeout";
		fix = "cudnnvm config set remote.timeout 120";
		about_mirror = 0;
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
	if (about_mirror && r->mirror_from != NULL)
		cv_err_set(err, CV_ENETWORK, "%s %s: %s%s (set by %s)", what,
			   url, why, hint, r->mirror_from);
	else
		cv_err_set(err, CV_ENETWORK, "%s %s: %s%s", what, url, why,
			   hint);
	/* an environment variable beats the file config set writes */
	if (about_mirror && r->mirror_from != NULL &&
	    strcmp(r->mirror_from, "CUDNNVM_MIRROR") == 0)
		return cv_err_hint(err, "unset %s", r->mirror_from);
	return cv_err_hint(err, "%s", fix);
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
int
cv_http_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut,
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
	struct curl_slist *hdrs = NULL;
	CURL *h;
	CURLcode res = CURLE_OK;
	long code = 0;
	int rc = 0;

	if (r->accept != NULL) {
		char *line = xasprintf("Accept: %s", r->accept);
		hdrs = curl_slist_append(NULL, line);
		free(line);
	}
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
		cv_http_setup(r, h, url, errbuf);
		curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, get_write);
		curl_easy_setopt(h, CURLOPT_WRITEDATA, &g);
		curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cv_http_progress);
		curl_easy_setopt(h, CURLOPT_XFERINFODATA, NULL);
		if (hdrs != NULL)
			curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
		res = curl_easy_perform(h);
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		if (res == CURLE_OK || attempt >= r->retries ||
		    !cv_http_retryable(res, code) ||
		    cv_http_backoff(attempt, NULL))
			break;
	}
	if (g.toobig || res == CURLE_FILESIZE_EXCEEDED)
		rc = cv_err_set(err, CV_EDATA,
				"%s is larger than %zu bytes; refused", url,
				max);
	else if (res != CURLE_OK)
		rc = cv_http_error(r, h, res, url, errbuf, err);
	curl_easy_reset(h);
	curl_slist_free_all(hdrs);
	return rc;
}

int
cv_remote_get_accept(struct cv_remote *r, const char *url, const char *accept,
		     size_t max, struct cv_buf *out, struct cv_err *err)
{
	int rc;

	r->accept = accept;
	rc = cv_remote_get(r, url, max, out, err);
	r->accept = NULL;
	return rc;
}

static size_t
discard_body(char *p, size_t sz, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return sz * n;
}

int
cv_remote_size(struct cv_remote *r, const char *url, uint64_t *size,
	       struct cv_err *err)
{
	char errbuf[CURL_ERROR_SIZE];
	CURL *h = curl_easy_init();
	CURLcode res = CURLE_OK;
	curl_off_t len = -1;
	long code = 0;
	int rc = 0;

	if (h == NULL)
		return cv_err_set(err, CV_ERROR, "cannot start libcurl");
	for (int attempt = 0;; attempt++) {
		curl_easy_reset(h);
		cv_http_setup(r, h, url, errbuf);
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard_body);
		curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cv_http_progress);
		curl_easy_setopt(h, CURLOPT_XFERINFODATA, NULL);
		res = curl_easy_perform(h);
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		if (res == CURLE_OK || attempt >= r->retries ||
		    !cv_http_retryable(res, code) ||
		    cv_http_backoff(attempt, NULL))
			break;
	}
	if (res != CURLE_OK)
		rc = cv_http_error(r, h, res, url, errbuf, err);
	else if (curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
				   &len) != CURLE_OK ||
		 len <= 0)
		rc = cv_err_set(err, CV_EDATA,
				"%s does not say how large it is; refused",
				url);
	else
		*size = (uint64_t)len;
	curl_easy_cleanup(h);
	return rc;
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
			cv_http_setup(r, t->h, urls[next], t->errbuf);
			curl_easy_setopt(t->h, CURLOPT_MAXFILESIZE_LARGE,
					 (curl_off_t)max);
			curl_easy_setopt(t->h, CURLOPT_WRITEFUNCTION,
					 get_write);
			curl_easy_setopt(t->h, CURLOPT_WRITEDATA, &t->g);
			curl_easy_setopt(t->h, CURLOPT_XFERINFOFUNCTION,
					 cv_http_progress);
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
			if (r->retries > 0 && cv_http_retryable(t->res, code) &&
			    !cv_http_backoff(0, NULL)) {
				/* the rare failure takes the one-by-one path
				 * and its remaining retries */
				int all = r->retries;
				r->retries = all - 1;
				rc = cv_remote_get(r, urls[i], max, &outs[i],
						   &errs[i]);
				r->retries = all;
			} else
				rc = cv_http_error(r, t->h, t->res, urls[i],
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
