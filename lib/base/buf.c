/* buf.c: growable byte strings with an optional cap, so a remote answer or
 * a file read into memory can never grow without bound. */
#include "base/base_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char cv_buf_empty[1];

static int
grow(struct cv_buf *b, size_t extra)
{
	size_t want;

	if (b->max && (extra > b->max || b->len > b->max - extra))
		return CV_EDATA;
	want = b->len + extra + 1;
	if (want <= b->alloc)
		return 0;
	if (b->alloc == 0)
		b->buf = NULL;
	b->alloc = want < 64 ? 64 : want;
	if (b->alloc < want * 3 / 2)
		b->alloc = want * 3 / 2;
	b->buf = xrealloc(b->buf, b->alloc);
	return 0;
}

int
cv_buf_add(struct cv_buf *b, const void *data, size_t len)
{
	if (grow(b, len) < 0)
		return CV_EDATA;
	if (len)
		memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
	return 0;
}

int
cv_buf_adds(struct cv_buf *b, const char *s)
{
	return cv_buf_add(b, s, strlen(s));
}

int
cv_buf_addf(struct cv_buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	r = cv_buf_adds(b, s);
	free(s);
	return r;
}

void
cv_buf_reset(struct cv_buf *b)
{
	b->len = 0;
	if (b->alloc)
		b->buf[0] = '\0';
}

char *
cv_buf_detach(struct cv_buf *b)
{
	char *p = b->alloc ? b->buf : xstrdup("");
	b->alloc = b->len = 0;
	b->buf = cv_buf_empty;
	return p;
}

void
cv_buf_release(struct cv_buf *b)
{
	if (b->alloc)
		free(b->buf);
	b->alloc = b->len = 0;
	b->buf = cv_buf_empty;
}

void
cv_strv_push(struct cv_strv *l, const char *s)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 16;
		l->v = xrealloc(l->v, l->alloc * sizeof *l->v);
	}
	l->v[l->n++] = xstrdup(s);
}

void
cv_strv_release(struct cv_strv *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

size_t
cv_utf8_seq(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (*s < 0x80)
		return 1;
	if (*s >= 0xc2 && *s <= 0xdf)
		n = 2;
	else if (*s >= 0xe0 && *s <= 0xef)
		n = 3;
	else if (*s >= 0xf0 && *s <= 0xf4)
		n = 4;
	else
		return 0;
	/* the second byte's range rules out the overlong forms, the
	 * surrogates and code points past U+10FFFF */
	if (*s == 0xe0)
		lo = 0xa0;
	else if (*s == 0xed)
		hi = 0x9f;
	else if (*s == 0xf0)
		lo = 0x90;
	else if (*s == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}
