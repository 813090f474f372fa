/* backend_int.h: what the install wing asks of the platform, behind one
 * set of functions per concern: SHA-256 (sha256_openssl.c with OpenSSL's EVP;
 * sha256_bcrypt.c with Windows' BCrypt) and one HTTPS GET (http_winhttp.c
 * with WinHTTP; on Linux remote.c and download.c drive libcurl
 * themselves). Only standard C and base's face, so that the Windows files
 * compile without libcurl's, libarchive's or OpenSSL's headers;
 * install_int.h includes it. */
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

/* ---- http_winhttp.c: one HTTPS GET, the body streamed ----------------- */

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
	uint64_t from;       /* > 0: ask for bytes from..end (Range) */
	uint64_t max;        /* a body over this many bytes is refused; 0:
			      * no limit */
	int head;            /* 1: the size only, no body */
	/* Each block of the body, in order. Nonzero stops the transfer and is
	 * returned (with err as the sink set it). */
	int (*sink)(void *arg, const void *p, size_t n, struct cv_err *err);
	void *arg;
};

struct cv_transport_resp {
	long status;    /* the final HTTP status */
	int64_t length; /* Content-Length, -1 when not sent */
	uint64_t got;   /* body bytes passed to the sink */
	int redirects;  /* how many were followed (https only, at most 5) */
};

/* GET (or HEAD) req->url, following at most 5 redirects, each to https.
 * With req->ca_file the server's certificate chain must end at that CA
 * and name the host, checked before any of the body is read. An HTTP
 * status of 400 or more is an error (CV_ENETWORK); a body over req->max
 * CV_EDATA; a refused certificate CV_ENETWORK with a hint. */
int cv_transport_get(const struct cv_transport_req *req,
		     struct cv_transport_resp *resp, struct cv_err *err);

#endif
