/* http.h: what remote.c (the client, small documents) shares with
 * download.c (the streaming archive download): one way to set up a
 * transfer, to decide on a retry and to word a failure. Not public. */
#ifndef CUDNNVM_HTTP_H
#define CUDNNVM_HTTP_H

#include "internal.h"

#include <curl/curl.h>
#include <stdatomic.h>

/* libcurl before 7.87 (Debian 11's 7.74, where the release files are
 * built) names no write-callback error: any count other than the one it
 * passed fails the transfer the same way. */
#ifndef CURL_WRITEFUNC_ERROR
#define CURL_WRITEFUNC_ERROR 0xFFFFFFFF
#endif

/* 1 once cv_remote_interrupt() ran (Ctrl-C). */
int cv_remote_interrupted(void);
int cv_remote_retries(const struct cv_remote *r);
/* URL (with the mirror's credentials when it is on the mirror's host),
 * protocols, TLS, proxy, timeouts and user agent of one transfer. */
void cv_http_setup(const struct cv_remote *r, CURL *h, const char *url,
		   char *errbuf);
/* 1 when a failure may pass on a second try (5xx, a dropped connection). */
int cv_http_retryable(CURLcode res, long code);
/* Sleep 250 ms << attempt (at most 4 s); 1 when interrupted or *abort. */
int cv_http_backoff(int attempt, atomic_int *abort);
/* One clear line for a failed transfer; returns its code. */
int cv_http_error(const struct cv_remote *r, CURL *h, CURLcode res,
		  const char *url, const char *errbuf, struct cv_err *err);
/* libcurl's progress callback: stop on Ctrl-C, or once the atomic_int
 * that `arg` points at is set (NULL: none). */
int cv_http_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut,
		     curl_off_t un);

#endif
