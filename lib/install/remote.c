/* remote.c: the HTTPS client, on the transport of backend_int.h (libcurl
 * on Linux, WinHTTP on Windows). HTTPS only (redirects included; file://
 * only for a file:// mirror), TLS verification on, timeouts, bounded
 * retries and the messages; small documents one at a time or many at
 * once. The streaming download of an archive is download.c, on the
 * helpers below (cv_http_*). */
#include "base/base.h"
#include "install/install_int.h"
#include "release/release.h"

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
 * path cannot leave it, and the transport drops them on a redirect
 * elsewhere. xmalloc'd. */
static char *
url_with_auth(const struct cv_remote *r, const char *url)
{
	size_t origin;

	if (r->userinfo == NULL || strncmp(r->mirror, "https://", 8) != 0)
		return xstrdup(url);
	origin = strcspn(r->mirror + 8, "/") + 8;
	if (strncmp(url, r->mirror, origin) != 0 ||
	    (url[origin] != '/' && url[origin] != '\0'))
		return xstrdup(url);
	return xasprintf("https://%s@%s", r->userinfo, url + 8);
}

static int
stop_flag(void *arg)
{
	atomic_int *abort = arg;

	return interrupted || (abort != NULL && *abort);
}

void
cv_http_request(const struct cv_remote *r, struct cv_transport_req *q,
		const char *url, atomic_int *abort)
{
	memset(q, 0, sizeof *q);
	q->url = url_with_auth(r, url);
	q->ca_file = r->ca_file;
	q->proxy = r->proxy;
	q->timeout = r->timeout;
	q->allow_file = r->allow_file;
	q->stop = stop_flag;
	q->stop_arg = abort;
}

void
cv_http_request_release(struct cv_transport_req *q)
{
	char *url = (char *)q->url;

	if (url != NULL) {
		/* it may hold the mirror's password */
		memset(url, 0, strlen(url));
		free(url);
	}
	q->url = NULL;
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
cv_http_error(const struct cv_remote *r, const struct cv_transport_resp *resp,
	      const char *url, struct cv_err *err)
{
	char proxy[256];
	const char *why = resp->why[0] ? resp->why : "network error";
	const char *what = "cannot download";
	int index = strcmp(r->noun, "index") == 0;
	const char *hint = index ? "; check the network and the index"
				 : "; check the network and the mirror";
	/* the setting to change, as the first network error says it */
	const char *fix = index ? "cudnnvm config set remote.index URL"
				: "cudnnvm config set remote.mirror URL";
	int about_mirror = !index;

	switch (resp->fail) {
	case CV_TF_ABORTED:
		if (interrupted)
			return cv_err_set(err, CV_EINTR,
					  "interrupted; run the same command "
					  "again to resume the download");
		break;
	case CV_TF_HTTP:
		return cv_err_set(err, CV_ENETWORK,
				  "HTTP %ld for %s; check the version and the "
				  "%s",
				  resp->status, url, r->noun);
	case CV_TF_INSECURE:
		return cv_err_set(err, CV_ENETWORK,
				  "refused an insecure redirect from %s (only "
				  "https is allowed): %s",
				  url, why);
	case CV_TF_TOO_LARGE:
		return cv_err_set(err, CV_EDATA,
				  "%s is larger than the manifest says; "
				  "refused",
				  url);
	case CV_TF_REDIRECTS:
		what = "too many redirects for";
		hint = "";
		break;
	case CV_TF_TLS:
		what = "TLS verification failed for";
		hint = "; a private CA goes in remote.ca_file or SSL_CERT_FILE";
		fix = "cudnnvm config set remote.ca_file /path/to/ca.pem";
		about_mirror = 0;
		break;
	case CV_TF_TIMEOUT:
		what = "timed out downloading";
		hint = "; check the network or raise remote.timeout";
		fix = "cudnnvm config set remote.timeout 120";
		about_mirror = 0;
		break;
	case CV_TF_CONNECT:
	case CV_TF_PROXY:
	case CV_TF_RECV:
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
	const char *url;
	size_t max;
	int toobig;
};

static int
get_write(void *arg, const void *p, size_t n, struct cv_err *err)
{
	struct get_ctx *g = arg;

	if (cv_buf_add(g->buf, p, n) < 0) {
		g->toobig = 1;
		return cv_err_set(err, CV_EDATA,
				  "%s is larger than %llu bytes; refused",
				  g->url, (unsigned long long)g->max);
	}
	return 0;
}

/* The answer to one small GET: 0, or its error in err. */
static int
get_result(const struct cv_remote *r, const struct get_ctx *g,
	   const struct cv_transport_resp *resp, int rc, const char *url,
	   struct cv_err *err)
{
	if (g->toobig || resp->fail == CV_TF_TOO_LARGE)
		return cv_err_set(err, CV_EDATA,
				  "%s is larger than %llu bytes; refused", url,
				  (unsigned long long)g->max);
	if (rc == 0)
		return 0;
	return cv_http_error(r, resp, url, err);
}

static void
get_request(struct cv_remote *r, struct cv_transport_req *q, const char *url,
	    size_t max, struct get_ctx *g)
{
	cv_http_request(r, q, url, NULL);
	q->max = max;
	q->accept = r->accept;
	q->sink = get_write;
	q->arg = g;
}

int
cv_remote_get(struct cv_remote *r, const char *url, size_t max,
	      struct cv_buf *out, struct cv_err *err)
{
	struct get_ctx g = { out, url, max, 0 };
	struct cv_transport_req q;
	struct cv_transport_resp resp;
	struct cv_err e = CV_ERR_INIT;
	int rc = 0;

	get_request(r, &q, url, max, &g);
	out->max = max;
	for (int attempt = 0;; attempt++) {
		cv_buf_reset(out);
		g.toobig = 0;
		e = (struct cv_err)CV_ERR_INIT;
		rc = cv_transport_get(&q, &resp, &e);
		if (rc == 0 || attempt >= r->retries || !resp.retryable ||
		    cv_http_backoff(attempt, NULL))
			break;
	}
	cv_http_request_release(&q);
	return get_result(r, &g, &resp, rc, url, err);
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

int
cv_remote_size(struct cv_remote *r, const char *url, uint64_t *size,
	       struct cv_err *err)
{
	struct cv_transport_req q;
	struct cv_transport_resp resp;
	struct cv_err e = CV_ERR_INIT;
	int rc = 0;

	cv_http_request(r, &q, url, NULL);
	q.head = 1;
	for (int attempt = 0;; attempt++) {
		e = (struct cv_err)CV_ERR_INIT;
		rc = cv_transport_get(&q, &resp, &e);
		if (rc == 0 || attempt >= r->retries || !resp.retryable ||
		    cv_http_backoff(attempt, NULL))
			break;
	}
	cv_http_request_release(&q);
	if (rc != 0)
		return cv_http_error(r, &resp, url, err);
	if (resp.length <= 0)
		return cv_err_set(err, CV_EDATA,
				  "%s does not say how large it is; refused",
				  url);
	*size = (uint64_t)resp.length;
	return 0;
}

int
cv_remote_get_many(struct cv_remote *r, char *const *urls, size_t n, size_t max,
		   struct cv_buf *outs, struct cv_err *errs)
{
	struct cv_transport_req *q;
	struct cv_transport_resp *resp;
	struct get_ctx *g;
	struct cv_err *e;
	int rc = 0;

	if (n == 0)
		return 0;
	q = xcalloc(n, sizeof *q);
	resp = xcalloc(n, sizeof *resp);
	g = xcalloc(n, sizeof *g);
	e = xcalloc(n, sizeof *e);
	for (size_t i = 0; i < n; i++) {
		g[i] = (struct get_ctx){ &outs[i], urls[i], max, 0 };
		outs[i].max = max;
		cv_buf_reset(&outs[i]);
		e[i] = (struct cv_err)CV_ERR_INIT;
		get_request(r, &q[i], urls[i], max, &g[i]);
	}
	cv_transport_get_many(q, n, resp, e);
	for (size_t i = 0; i < n; i++) {
		int failed = g[i].toobig || resp[i].fail != CV_TF_NONE;

		cv_http_request_release(&q[i]);
		if (interrupted) {
			rc = cv_err_set(&errs[i], CV_EINTR, "interrupted");
		} else if (failed && !g[i].toobig && r->retries > 0 &&
			   resp[i].retryable && !cv_http_backoff(0, NULL)) {
			/* the rare failure takes the one-by-one path and its
			 * remaining retries */
			int all = r->retries;
			r->retries = all - 1;
			rc = cv_remote_get(r, urls[i], max, &outs[i], &errs[i]);
			r->retries = all;
		} else if (failed) {
			rc = get_result(r, &g[i], &resp[i], -1, urls[i],
					&errs[i]);
		}
	}
	free(q);
	free(resp);
	free(g);
	free(e);
	return interrupted ? CV_EINTR : (rc < 0 ? rc : 0);
}
