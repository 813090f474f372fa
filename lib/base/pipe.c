/* pipe.c: a bounded queue of byte buffers between two threads, so reading
 * and hashing, decompressing, and writing files can overlap (the install
 * pipeline of install.c and extract_tar.c). Memory is fixed:
 * nbufs * bufsize. */
#include "base/base_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct cv_pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t nbufs, bufsize;
	char **buf;    /* all buffers */
	size_t *len;   /* filled length per buffer */
	size_t *ring;  /* filled buffers in order: indices into buf */
	size_t *freel; /* free buffer indices */
	size_t head, count, nfree;
	long taken; /* buffer the consumer holds, -1 none */
	int closed, aborted;
	struct cv_err err; /* set when closed with an error */
};

struct cv_pipe *
cv_pipe_new(size_t nbufs, size_t bufsize)
{
	struct cv_pipe *p = xcalloc(1, sizeof *p);

	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->nbufs = nbufs;
	p->bufsize = bufsize;
	p->buf = xcalloc(nbufs, sizeof *p->buf);
	p->len = xcalloc(nbufs, sizeof *p->len);
	p->ring = xcalloc(nbufs, sizeof *p->ring);
	p->freel = xcalloc(nbufs, sizeof *p->freel);
	for (size_t i = 0; i < nbufs; i++) {
		p->buf[i] = xmalloc(bufsize);
		p->freel[i] = i;
	}
	p->nfree = nbufs;
	p->taken = -1;
	return p;
}

void
cv_pipe_free(struct cv_pipe *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->nbufs; i++)
		free(p->buf[i]);
	free(p->buf);
	free(p->len);
	free(p->ring);
	free(p->freel);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
}

size_t
cv_pipe_bufsize(const struct cv_pipe *p)
{
	return p->bufsize;
}

char *
cv_pipe_get(struct cv_pipe *p)
{
	char *b = NULL;

	pthread_mutex_lock(&p->mu);
	while (p->nfree == 0 && !p->aborted)
		pthread_cond_wait(&p->cv, &p->mu);
	if (!p->aborted)
		b = p->buf[p->freel[--p->nfree]];
	pthread_mutex_unlock(&p->mu);
	return b;
}

static size_t
index_of(const struct cv_pipe *p, const char *b)
{
	for (size_t i = 0; i < p->nbufs; i++)
		if (p->buf[i] == b)
			return i;
	abort();
}

void
cv_pipe_put(struct cv_pipe *p, char *b, size_t len)
{
	size_t i = index_of(p, b);

	pthread_mutex_lock(&p->mu);
	p->len[i] = len;
	p->ring[(p->head + p->count) % p->nbufs] = i;
	p->count++;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void
cv_pipe_unget(struct cv_pipe *p, char *b)
{
	pthread_mutex_lock(&p->mu);
	p->freel[p->nfree++] = index_of(p, b);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void
cv_pipe_close(struct cv_pipe *p, const struct cv_err *err)
{
	pthread_mutex_lock(&p->mu);
	p->closed = 1;
	if (err != NULL && err->code < 0)
		p->err = *err;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

ssize_t
cv_pipe_take(struct cv_pipe *p, const void **buf, struct cv_err *err)
{
	ssize_t n;
	size_t i;

	pthread_mutex_lock(&p->mu);
	if (p->taken >= 0) {
		p->freel[p->nfree++] = (size_t)p->taken;
		p->taken = -1;
		pthread_cond_broadcast(&p->cv);
	}
	while (p->count == 0 && !p->closed)
		pthread_cond_wait(&p->cv, &p->mu);
	if (p->count > 0) {
		i = p->ring[p->head];
		p->head = (p->head + 1) % p->nbufs;
		p->count--;
		p->taken = (long)i;
		*buf = p->buf[i];
		n = (ssize_t)p->len[i];
	} else if (p->err.code < 0) {
		if (err != NULL)
			*err = p->err;
		n = p->err.code;
	} else
		n = 0;
	pthread_mutex_unlock(&p->mu);
	return n;
}

ssize_t
cv_pipe_read(void *pipe, const void **buf, struct cv_err *err)
{
	return cv_pipe_take(pipe, buf, err);
}

void
cv_pipe_abort(struct cv_pipe *p)
{
	pthread_mutex_lock(&p->mu);
	p->aborted = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* ---- a thread copying a cv_source into a pipe --------------------------- */

struct cv_pump {
	pthread_t th;
	struct cv_source *src;
	struct cv_pipe *pipe;
	struct cv_err err;
};

static void *
pump_main(void *arg)
{
	struct cv_pump *pu = arg;
	const void *data;
	size_t off = 0, bs = pu->pipe->bufsize;
	ssize_t n = 0;
	char *b = NULL;

	for (;;) {
		if (b == NULL && (b = cv_pipe_get(pu->pipe)) == NULL)
			return NULL; /* aborted */
		n = pu->src->read(pu->src->ctx, &data, &pu->err);
		if (n <= 0)
			break;
		/* Copy, splitting a long read over several buffers. */
		for (size_t done = 0; done < (size_t)n;) {
			size_t k = (size_t)n - done < bs - off
					   ? (size_t)n - done
					   : bs - off;
			memcpy(b + off, (const char *)data + done, k);
			off += k;
			done += k;
			if (off == bs) {
				cv_pipe_put(pu->pipe, b, off);
				off = 0;
				if ((b = cv_pipe_get(pu->pipe)) == NULL)
					return NULL;
			}
		}
		if (off > 0) {
			cv_pipe_put(pu->pipe, b, off);
			off = 0;
			b = NULL;
		}
	}
	if (b != NULL)
		cv_pipe_unget(pu->pipe, b);
	cv_pipe_close(pu->pipe, n < 0 ? &pu->err : NULL);
	return NULL;
}

int
cv_pump_start(struct cv_source *src, struct cv_pipe *pipe, struct cv_pump **out,
	      struct cv_err *err)
{
	struct cv_pump *pu = xcalloc(1, sizeof *pu);
	int rc;

	pu->src = src;
	pu->pipe = pipe;
	if ((rc = pthread_create(&pu->th, NULL, pump_main, pu)) != 0) {
		free(pu);
		*out = NULL;
		return cv_err_set(err, CV_ERROR,
				  "cannot start a thread: %s; lower [install] "
				  "threads or --jobs",
				  strerror(rc));
	}
	*out = pu;
	return 0;
}

void
cv_pump_join(struct cv_pump *pu)
{
	if (pu == NULL)
		return;
	pthread_join(pu->th, NULL);
	free(pu);
}
