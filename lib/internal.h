/* internal.h: helpers shared by lib/ modules and unit tests; not public. */
#ifndef CUDNNVM_INTERNAL_H
#define CUDNNVM_INTERNAL_H

#include "cudnnvm.h"

#include <stdarg.h>

/* xalloc.c: allocation that cannot fail (OOM aborts, as in git/tmux). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

/* buf.c: a growable, always NUL-terminated byte string (git strbuf). */
struct cv_buf {
	size_t alloc, len, max; /* max 0 = unbounded */
	char *buf;		/* never NULL after init */
};
#define CV_BUF_INIT { 0, 0, 0, cv_buf_empty }
extern char cv_buf_empty[];
/* Appends fail with CV_EDATA once max would be exceeded. */
int cv_buf_add(struct cv_buf *b, const void *data, size_t len);
int cv_buf_adds(struct cv_buf *b, const char *s);
int cv_buf_addf(struct cv_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cv_buf_reset(struct cv_buf *b);
char *cv_buf_detach(struct cv_buf *b);
void cv_buf_release(struct cv_buf *b);

/* path.c */
/* Join two path parts with one slash (xmalloc'd). */
char *cv_path_join(const char *a, const char *b);

/* link.c: the `current` link by store root (unit tests use these). */
int cv_link_get(const char *root, char id[64], struct cv_err *err);
int cv_link_set(const char *root, const char *id, struct cv_err *err);
/* 1 when <root>/<id> is a real folder holding its cudnnvm.json. */
int cv_link_installed(const char *root, const char *id);

/* remote.c: GET a small document (listing, manifest) into `out`, at most
 * `max` bytes, with the client's retries. */
struct cv_remote;
int cv_remote_get(struct cv_remote *r, const char *url, size_t max,
		  struct cv_buf *out, struct cv_err *err);
/* 1 unless [remote] verify_pins = no. */
int cv_remote_verify_pins(const struct cv_remote *r);
/* index.c: the client an index reads with. */
struct cv_index;
struct cv_remote *cv_index_remote(const struct cv_index *ix);

#endif
