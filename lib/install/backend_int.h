/* backend_int.h: what the install wing asks of the platform, behind one
 * set of functions per concern: SHA-256 (sha256_openssl.c with OpenSSL's EVP;
 * sha256_bcrypt.c with Windows' BCrypt) and HTTPS GETs (http_curl.c with
 * libcurl; http_winhttp.c with WinHTTP), with a URL reference resolved
 * alike (cv_url_resolve, install_int.h). Only standard C and base's face,
 * so that the Windows files compile without libcurl's, libarchive's or
 * OpenSSL's headers; install_int.h includes it. */
#ifndef CUDNNVM_INSTALL_BACKEND_INT_H
#define CUDNNVM_INSTALL_BACKEND_INT_H

#include "base/base.h"

#include <stddef.h>
#include <stdint.h>

struct cv_sha256;

/* ---- sha256_openssl.c / sha256_bcrypt.c: streaming SHA-256 ------------ */

struct cv_sha256 *cv_sha256_new(void);

void cv_sha256_update(struct cv_sha256 *h, const void *data, size_t len);

/* Writes 64 lower-case hex digits and a NUL into hex[65]. */
void cv_sha256_final(struct cv_sha256 *h, char hex[65]);

void cv_sha256_free(struct cv_sha256 *h);

/* A digest's 32 bytes as the 64 lowercase hex digits both backends give
 * (inline: sha256.c calls the backends, so they call nothing there). */
static inline void
cv_sha256_hex(const unsigned char md[32], char hex[65])
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned int i = 0; i < 32; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[64] = '\0';
}

/* sha256.c: hash a whole file. */
int cv_sha256_file(const char *path, char hex[65], struct cv_err *err);

/* ---- http_curl.c / http_winhttp.c: one HTTPS GET, the body streamed ---
 * libcurl on Linux, WinHTTP on Windows, behind the same functions:
 * remote.c and download.c (the retries, the messages, the cache) call
 * only these. tests/unit/transport_cases.h holds the cases both pass. */

struct cv_transport_resp;

struct cv_transport_req {
	const char *url;     /* https:// only; anything else is refused. Its
			      * user:pass@ goes, as Basic auth, to its host
			      * and port only (once it answered 401 with a
			      * certificate that passed), never into a
			      * message */
	const char *ca_file; /* PEM: the only root the server may chain
			      * to; NULL: the system's trust store */
	const char *proxy;   /* [http://]host:port; NULL: the system's */
	const char *accept;  /* the Accept header; NULL: none */
	long timeout;        /* seconds to connect, and the longest stall */
	uint64_t from;       /* > 0: ask for bytes from..end (Range); a server
			      * that sends all of it is CV_TF_RANGE */
	uint64_t max;        /* a body over this many bytes is refused; 0:
			      * no limit */
	int head;            /* 1: the size only, no body */
	int allow_file;      /* 1: file:// too (a file:// mirror; libcurl's
			      * backend only) */
	/* Each block of the body, in order. Nonzero stops the transfer and is
	 * returned (with err as the sink set it). The caller's resp has
	 * status, length and content_type filled before the first call. */
	int (*sink)(void *arg, const void *p, size_t n, struct cv_err *err);
	void *arg;
	/* Asked between blocks: nonzero stops the transfer (CV_TF_ABORTED);
	 * NULL: never. */
	int (*stop)(void *arg);
	void *stop_arg;
};

/* Why a transfer failed, for the caller's message and retries. */
enum cv_transport_fail {
	CV_TF_NONE,
	CV_TF_HTTP,      /* an HTTP status of 400 or more (resp->status) */
	CV_TF_INSECURE,  /* a redirect (or URL) to anything but https */
	CV_TF_TOO_LARGE, /* over req->max */
	CV_TF_REDIRECTS, /* more than 5 */
	CV_TF_TLS,       /* the certificate or the handshake */
	CV_TF_TIMEOUT,
	CV_TF_CONNECT, /* could not connect (through the proxy, if any) */
	CV_TF_PROXY,   /* the proxy's name does not resolve */
	CV_TF_RECV,    /* the connection broke while receiving */
	CV_TF_CUT,     /* sent nothing, or less than it said */
	CV_TF_RANGE,   /* asked for a range, got all of it */
	CV_TF_ABORTED, /* req->stop said so */
	CV_TF_SINK,    /* req->sink said so */
	CV_TF_OTHER
};

struct cv_transport_resp {
	long status;    /* the final HTTP status */
	int64_t length; /* Content-Length, -1 when not sent */
	uint64_t got;   /* body bytes passed to the sink */
	int redirects;  /* how many were followed (https only, at most 5) */
	char content_type[128]; /* "" when not sent */
	int fail;               /* enum cv_transport_fail */
	int retryable;          /* 1: worth asking again */
	char why[256];          /* the backend's words for the failure */
};

/* GET (or HEAD) req->url, following at most 5 redirects, each to https.
 * With req->ca_file the server's certificate chain must end at that CA
 * and name the host, checked before any of the body is read. An HTTP
 * status of 400 or more is an error (CV_ENETWORK); a body over req->max
 * CV_EDATA; a refused certificate CV_ENETWORK with a hint. resp->fail
 * says which, whatever err says. */
int cv_transport_get(const struct cv_transport_req *req,
		     struct cv_transport_resp *resp, struct cv_err *err);

/* n GETs at once where the backend can (libcurl's multi interface, over
 * connections it shares; WinHTTP one after the other): as n calls of
 * cv_transport_get, each with its own resp and err. */
void cv_transport_get_many(const struct cv_transport_req *reqs, size_t n,
			   struct cv_transport_resp *resps,
			   struct cv_err *errs);

/* `ref` resolved against `base` as a browser would (libcurl's URL API;
 * UrlCombineW on Windows); xmalloc'd, NULL when either does not parse. */
char *cv_url_resolve(const char *base, const char *ref);

#endif
