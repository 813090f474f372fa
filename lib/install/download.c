/* download.c: the streaming download of one archive. A thread runs the
 * transfer (the transport of backend_int.h, remote.c's retries); its sink
 * hands the bytes on through a cv_pipe, the same queue the rest of the
 * install reads from, appending each of its buffers to the cache partial
 * before handing it on, so download, hash and extraction overlap. A
 * verified archive kept in the cache is read back without the network; a
 * partial is resumed with a Range request, its bytes replayed into the
 * pipe first once the server has agreed to the range.
 *
 * A download can also start before anything reads it (cv_download_
 * prefetch: the install's other archives are fetched side by side while
 * the first one unpacks): the thread then only appends to the partial, and
 * the reader, once it opens, follows the partial as it grows, waiting on
 * the thread, until the thread is done. */

#include "base/base.h"
#include "install/install_int.h"
#include "release/release.h"
#include "store/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 16 x 256 KiB in flight between the network and the reader: enough to
 * ride out a stall of either side, small next to the 64 MiB budget. */
#define PIPE_BUFS    16
#define PIPE_BUFSIZE (256u << 10)
#define FILE_BLOCK   (256u << 10)

/* The most a download whose size no one gave (an index page without
 * sizes, a server that answers no HEAD) may be: several times NVIDIA's
 * largest wheel. Its sha256 is still checked. */
#define UNKNOWN_SIZE_MAX (4ULL << 30)

struct cv_download {
	struct cv_remote *r;
	char *url, *partial, *final;
	char sha256[65];
	uint64_t size;
	int keep;

	/* set up by open */
	int from_file;     /* the reader reads rfd itself: no transfer */
	int from_final;    /* a verified archive from the cache */
	int rfd;           /* the cached bytes, read from 0 */
	uint64_t file_off; /* next byte of rfd the reader takes */
	char *file_buf;
	int wfd; /* the partial, appended by the thread */
	int used_cache;

	/* the transfer thread */
	pthread_t th;
	int th_started;
	struct cv_pipe *pipe;
	char *cur;           /* the pipe buffer being filled, or NULL */
	size_t cur_len;      /* bytes in it */
	size_t cur_unsaved;  /* its last bytes, not yet in the partial */
	int save_errno;      /* why saving them failed, or 0 */
	uint64_t replay_len; /* cached bytes still to replay, 0 once done */
	struct cv_transport_resp *resp; /* the transfer in flight's answer */
	int sniffed;
	uint64_t file_len; /* bytes received: in the partial, or about to be */
	atomic_int abort;  /* the reader is gone: stop */
	atomic_int done;   /* the thread closed the pipe */
	atomic_int failed; /* ... with an error */
	/* an error after which the partial is worth resuming */
	atomic_int keep_partial;

	/* prefetching: no pipe; the reader follows the partial */
	int prefetch, follow;
	pthread_mutex_t mu;
	pthread_cond_t grew; /* more bytes in the partial, or done */
	struct cv_err perr;  /* the prefetching thread's error */

	uint64_t delivered;
	/* bytes in the partial as the network thread writes them: what a
	 * progress display polls between the reader's (256 KiB) buffers */
	_Atomic uint64_t received;
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

	/* a size of 0 is asked of the server once the download is needed */
	if (!cv_sha256_valid_hex(art->sha256))
		return cv_err_set(err, CV_EDATA, "no sha256 for %s: refused",
				  url);
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
	pthread_cond_init(&d->grew, NULL);
	d->perr = (struct cv_err)CV_ERR_INIT;
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

uint64_t
cv_download_received(void *d)
{
	return atomic_load(&((struct cv_download *)d)->received);
}

int
cv_download_fetching(const struct cv_download *d)
{
	return d->th_started;
}

int
cv_download_used_cache(const struct cv_download *d)
{
	return d->used_cache;
}

void
cv_download_discard(struct cv_download *d)
{
	cv_os_unlink(d->partial);
	cv_os_unlink(d->final);
}

/* ---- the transfer thread: the producer of the pipe ---- */

static void
cache_write_error(const struct cv_download *d, int e, struct cv_err *err)
{
	errno = e;
	cv_err_errno(err, cv_code_from_errno(e),
		     "cannot write the download cache %s", d->partial);
}

/* The received bytes at the end of the pipe buffer being filled that are
 * not in the partial yet, appended to it: the partial is written a pipe
 * buffer at a time, not once per TLS record (16 KiB), which cuts its
 * system calls sixteenfold. 0, or -1 with d->save_errno set; either way
 * they are not written again, so the partial stays a prefix of the
 * archive for the next run to resume. */
static int
save_unsaved(struct cv_download *d)
{
	size_t n = d->cur_unsaved;

	d->cur_unsaved = 0;
	if (n > 0 && cv_os_write_all(d->wfd, d->cur + d->cur_len - n, n) < 0) {
		d->save_errno = errno;
		return -1;
	}
	return 0;
}

/* Copy bytes into pipe buffers, handing each on once full; `fresh`:
 * received now, so also to be saved in the partial before the buffer is
 * handed on (replayed bytes are in it already). 0; -1 once the reader
 * has gone; -2 when the partial cannot be written (d->save_errno). */
static int
push(struct cv_download *d, const char *p, size_t len, int fresh)
{
	while (len > 0) {
		size_t k;
		if (d->cur == NULL) {
			if (d->abort || (d->cur = cv_pipe_get(d->pipe)) == NULL)
				return -1;
			d->cur_len = 0;
			d->cur_unsaved = 0;
		}
		k = PIPE_BUFSIZE - d->cur_len;
		if (k > len)
			k = len;
		memcpy(d->cur + d->cur_len, p, k);
		d->cur_len += k;
		if (fresh)
			d->cur_unsaved += k;
		p += k;
		len -= k;
		if (d->cur_len == PIPE_BUFSIZE) {
			if (save_unsaved(d) < 0)
				return -2;
			cv_pipe_put(d->pipe, d->cur, d->cur_len);
			d->cur = NULL;
		}
	}
	return 0;
}

/* The buffer being filled: saved, then handed on (ok) or dropped; 0, or
 * -1 when its bytes could not be saved. */
static int
flush(struct cv_download *d, int ok)
{
	int r = 0;

	if (d->cur == NULL)
		return 0;
	if (save_unsaved(d) < 0)
		r = -1;
	if (ok && r == 0 && d->cur_len > 0)
		cv_pipe_put(d->pipe, d->cur, d->cur_len);
	else
		cv_pipe_unget(d->pipe, d->cur);
	d->cur = NULL;
	return r;
}

/* The cached bytes go first, once the server has agreed to send the rest
 * (or there is no rest). */
static int
replay(struct cv_download *d, struct cv_err *e)
{
	char *buf;
	uint64_t off = 0;

	if (d->replay_len == 0)
		return 0;
	buf = xmalloc(FILE_BLOCK);
	while (off < d->replay_len) {
		size_t want = FILE_BLOCK;
		long n;
		if (d->replay_len - off < want)
			want = (size_t)(d->replay_len - off);
		n = cv_os_pread(d->rfd, buf, want, off);
		if (n <= 0) {
			free(buf);
			return cv_err_errno(e, CV_EIO,
					    "cannot read the cached download "
					    "%s",
					    d->partial);
		}
		if (push(d, buf, (size_t)n, 0) < 0) {
			free(buf);
			return -1;
		}
		off += (uint64_t)n;
	}
	free(buf);
	d->replay_len = 0;
	return 0;
}

/* A whole transfer that the cache will not keep is let go of here, on
 * the transfer's thread, as soon as the last byte is in the pipe: freeing
 * a large file's pages takes tens of milliseconds, which then overlap the
 * reader's unpacking of the last blocks instead of following the install.
 * The reader takes the pipe, never the partial. Should the install still
 * fail after this, it downloads again: the bytes were going to be thrown
 * away anyway, and on a full disk they are the space wanted back. */
static void
drop_whole_partial(struct cv_download *d)
{
	if (d->keep || (d->size != 0 && d->file_len != d->size))
		return;
	if (d->wfd >= 0)
		cv_os_close(d->wfd);
	if (d->rfd >= 0)
		cv_os_close(d->rfd);
	d->wfd = d->rfd = -1;
	cv_os_unlink(d->partial);
}

static void
finish(struct cv_download *d, struct cv_err *e)
{
	if (d->prefetch) {
		pthread_mutex_lock(&d->mu);
		if (e != NULL && e->code < 0) {
			d->perr = *e;
			d->failed = 1;
		}
		d->done = 1;
		pthread_cond_broadcast(&d->grew);
		pthread_mutex_unlock(&d->mu);
		return;
	}
	/* what was received is saved either way: a failed transfer's
	 * partial is what the next run resumes from */
	if (e->code < 0) {
		flush(d, 0);
		d->failed = 1;
	} else if (flush(d, 1) < 0) {
		cache_write_error(d, d->save_errno, e);
		d->failed = 1;
	}
	d->done = 1;
	cv_pipe_close(d->pipe, e);
	if (!d->failed)
		drop_whole_partial(d);
}

/* The error the write callback stopped the transfer with. */
struct write_ctx {
	struct cv_download *d;
	struct cv_err err;
};

/* The bytes the server may send: the size given, or the cap. */
static uint64_t
dl_limit(const struct cv_download *d)
{
	return d->size ? d->size : UNKNOWN_SIZE_MAX;
}

/* A server that sends more than the limit (told by the sink, or by the
 * transport before the sink saw it). */
static void
too_much(const struct cv_download *d, struct cv_err *err)
{
	cv_err_set(err, CV_EDATA,
		   d->size ? "%s sent more than the %llu bytes the manifest "
			     "gives; refused"
			   : "%s sent more than %llu bytes, the most a "
			     "download of unknown size may be; refused",
		   d->url, (unsigned long long)dl_limit(d));
}

/* The transport's sink: nonzero stops the transfer, w->err saying why
 * (nothing when the reader is gone). */
static int
dl_write(void *arg, const void *data, size_t len, struct cv_err *unused)
{
	struct write_ctx *w = arg;
	struct cv_download *d = w->d;
	const char *p = data;

	(void)unused;
	if (d->abort)
		return -1;
	if (!d->sniffed) {
		const char *ct = d->resp->content_type;
		d->sniffed = 1;
		if (strncasecmp(ct, "text/html", 9) == 0 ||
		    (d->file_len == 0 && len > 0 && p[0] == '<')) {
			cv_err_set(&w->err, CV_EDATA,
				   "the server returned an HTML page, not the "
				   "archive, for %s (a captive portal or a "
				   "wrong mirror?)",
				   d->url);
			return -1;
		}
	}
	if (d->file_len + len > dl_limit(d)) {
		too_much(d, &w->err);
		return -1;
	}
	/* body bytes of a resumed request: the server honoured the range */
	if (!d->prefetch && replay(d, &w->err) < 0)
		return -1;
	/* the reader's pipe: the bytes go into it, and into the partial a
	 * buffer at a time (push) */
	if (!d->prefetch) {
		int r;
		d->file_len += len;
		atomic_store(&d->received, d->file_len);
		if ((r = push(d, p, len, 1)) == -2)
			cache_write_error(d, d->save_errno, &w->err);
		return r < 0 ? -1 : 0;
	}
	/* prefetching: the reader follows the partial, so each block goes
	 * into it at once */
	if (cv_os_write_all(d->wfd, p, len) < 0) {
		cache_write_error(d, errno, &w->err);
		return -1;
	}
	d->file_len += len;
	pthread_mutex_lock(&d->mu);
	atomic_store(&d->received, d->file_len);
	pthread_cond_broadcast(&d->grew);
	pthread_mutex_unlock(&d->mu);
	return 0;
}

/* Start over from byte 0: the server ignored or refused the Range
 * request, and no cached byte has been handed on yet. */
static int
restart_partial(struct cv_download *d)
{
	if (cv_os_truncate(d->wfd, 0) < 0 || cv_os_seek(d->wfd, 0) < 0)
		return -1;
	d->file_len = 0;
	atomic_store(&d->received, 0);
	d->replay_len = 0;
	return 0;
}

static void *
dl_thread(void *arg)
{
	struct cv_download *d = arg;
	struct write_ctx w = { d, CV_ERR_INIT };
	struct cv_err e = CV_ERR_INIT;
	struct cv_transport_req q;
	struct cv_transport_resp resp;
	int restarted = 0, rc;

	cv_http_request(d->r, &q, d->url, &d->abort);
	q.sink = dl_write;
	q.arg = &w;
	d->resp = &resp;
	for (int attempt = 0;;) {
		uint64_t from = d->file_len;
		struct cv_err te = CV_ERR_INIT;

		q.max = dl_limit(d) - from;
		q.from = from;
		d->sniffed = from > 0;
		rc = cv_transport_get(&q, &resp, &te);
		if (rc == 0)
			break;
		if (w.err.code != 0) {
			e = w.err;
			goto out;
		}
		if (d->abort)
			goto out;
		if (resp.fail == CV_TF_TOO_LARGE) {
			too_much(d, &e);
			goto out;
		}
		/* Range ignored or refused (416): start from 0, once, when
		 * no cached byte has been handed on. */
		if (from > 0 && !restarted && d->replay_len > 0 &&
		    (resp.fail == CV_TF_RANGE ||
		     (resp.fail == CV_TF_HTTP && resp.status == 416)) &&
		    restart_partial(d) == 0) {
			restarted = 1;
			continue;
		}
		if (attempt < cv_remote_retries(d->r) && resp.retryable &&
		    !cv_http_backoff(attempt, &d->abort)) {
			attempt++;
			continue;
		}
		cv_http_error(d->r, &resp, d->url, &e);
		if (e.code == CV_ENETWORK || e.code == CV_EINTR)
			d->keep_partial = 1;
		goto out;
	}
	/* a success that sent no byte still owes the reader the cached ones */
	if (!d->prefetch)
		replay(d, &e);
out:
	cv_http_request_release(&q);
	d->resp = NULL;
	finish(d, &e);
	return NULL;
}

/* ---- the reader: the install's cv_source ---- */

static ssize_t dl_read(void *ctx, const void **buf, struct cv_err *err);

static int
open_nofollow(const char *path, unsigned flags, struct cv_stat *st)
{
	int fd = cv_os_open(path, flags | CV_OPEN_NOFOLLOW, 0644);

	if (fd >= 0 && cv_os_fstat(fd, st) < 0) {
		cv_os_close(fd);
		return -1;
	}
	if (fd >= 0 && st->kind != CV_KIND_FILE) {
		cv_os_close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* A size no one gave, from a HEAD request. A server that answers none
 * (405, 501), or answers without a length, is fetched with a plain GET
 * under UNKNOWN_SIZE_MAX, as pip fetches it; any other trouble shows in
 * that GET too. */
static void
ask_size(struct cv_download *d)
{
	uint64_t n = 0;

	if (d->size == 0 && cv_remote_size(d->r, d->url, &n, NULL) == 0)
		d->size = n;
}

/* The partial, opened for appending (a foreign or oversized one reset),
 * with its bytes to replay: 0, 1 when it already holds the whole archive
 * (then read as a file), <0 with err. */
static int
open_partial(struct cv_download *d, struct cv_err *err)
{
	struct cv_stat st;

	ask_size(d);
	d->wfd = open_nofollow(d->partial,
			       CV_OPEN_READ | CV_OPEN_WRITE | CV_OPEN_CREATE |
				       CV_OPEN_APPEND,
			       &st);
	if (d->wfd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot open the download cache %s",
				    d->partial);
	if (st.uid != cv_os_euid()) {
		/* not ours: do not trust or extend it */
		cv_os_close(d->wfd);
		cv_os_unlink(d->partial);
		d->wfd = open_nofollow(d->partial,
				       CV_OPEN_READ | CV_OPEN_WRITE |
					       CV_OPEN_CREATE | CV_OPEN_EXCL |
					       CV_OPEN_APPEND,
				       &st);
		if (d->wfd < 0)
			return cv_err_errno(err, cv_code_from_errno(errno),
					    "cannot create the download cache "
					    "%s",
					    d->partial);
	}
	if (st.size > dl_limit(d)) {
		/* larger than the manifest says: junk */
		if (cv_os_truncate(d->wfd, 0) < 0)
			return cv_err_errno(err, cv_code_from_errno(errno),
					    "cannot reset %s", d->partial);
		st.size = 0;
	}
	d->file_len = st.size;
	atomic_store(&d->received, d->file_len);
	if (d->file_len > 0) {
		d->rfd = cv_os_open(d->partial, CV_OPEN_READ | CV_OPEN_NOFOLLOW,
				    0);
		if (d->rfd < 0)
			return cv_err_errno(err, cv_code_from_errno(errno),
					    "cannot read %s", d->partial);
		d->replay_len = d->file_len;
		d->used_cache = 1;
	}
	if (d->size != 0 && d->file_len == d->size) {
		/* complete partial: nothing to fetch, just verify */
		d->from_file = 1;
		d->file_buf = xmalloc(FILE_BLOCK);
		return 1;
	}
	return 0;
}

static int
dl_open(void *arg, struct cv_source *src, struct cv_err *err)
{
	struct cv_download *d = arg;
	struct cv_stat st;
	int fd, r;

	src->read = dl_read;
	src->ctx = d;
	/* A verified archive kept from an earlier install (one of unknown
	 * size is checked by its hash alone, as every one is). */
	fd = open_nofollow(d->final, CV_OPEN_READ, &st);
	if (fd >= 0) {
		if (d->size == 0 && st.size > 0 && st.size <= UNKNOWN_SIZE_MAX)
			d->size = st.size;
		if (st.size == d->size && st.uid == cv_os_euid()) {
			d->from_final = d->from_file = 1;
			d->used_cache = 1;
			d->rfd = fd;
			d->file_buf = xmalloc(FILE_BLOCK);
			return 0;
		}
		cv_os_close(fd);
		cv_os_unlink(d->final);
	}
	if (d->prefetch) {
		/* the thread started already: follow the partial it writes */
		d->rfd = cv_os_open(d->partial, CV_OPEN_READ | CV_OPEN_NOFOLLOW,
				    0);
		if (d->rfd < 0)
			return cv_err_errno(err, cv_code_from_errno(errno),
					    "cannot read %s", d->partial);
		d->from_file = d->follow = 1;
		d->file_buf = xmalloc(FILE_BLOCK);
		return 0;
	}
	if ((r = open_partial(d, err)) != 0)
		return r < 0 ? r : 0;
	d->pipe = cv_pipe_new(PIPE_BUFS, PIPE_BUFSIZE);
	if (pthread_create(&d->th, NULL, dl_thread, d) != 0)
		return cv_err_set(err, CV_ERROR, "cannot start a thread");
	d->th_started = 1;
	return 0;
}

int
cv_download_prefetch(struct cv_download *d, struct cv_err *err)
{
	struct cv_stat st;
	int fd, r;

	if (d == NULL || d->th_started || d->rfd >= 0 || d->wfd >= 0)
		return 0;
	/* a verified archive in the cache needs no transfer */
	fd = open_nofollow(d->final, CV_OPEN_READ, &st);
	if (fd >= 0) {
		cv_os_close(fd);
		return 0;
	}
	/* complete already, an error the reader meets again, or a partial
	 * to resume: that one is left to the reader, which can still start
	 * over from byte 0 should the server refuse the range */
	if ((r = open_partial(d, err)) != 0 || d->file_len > 0) {
		if (d->rfd >= 0)
			cv_os_close(d->rfd);
		if (d->wfd >= 0)
			cv_os_close(d->wfd);
		d->rfd = d->wfd = -1;
		free(d->file_buf);
		d->file_buf = NULL;
		d->from_file = 0;
		d->replay_len = 0;
		d->used_cache = 0;
		return r < 0 ? r : 0;
	}
	d->prefetch = 1;
	if (pthread_create(&d->th, NULL, dl_thread, d) != 0) {
		d->prefetch = 0;
		cv_os_close(d->wfd);
		d->wfd = -1;
		return cv_err_set(err, CV_ERROR, "cannot start a thread");
	}
	d->th_started = 1;
	return 0;
}

static void
report(struct cv_download *d)
{
	if (d->progress != NULL)
		d->progress(d->payload, d->delivered, d->size);
}

/* Following a prefetch: the bytes in the partial, once there are more
 * than the reader has taken or the thread is done. */
static uint64_t
follow_wait(struct cv_download *d)
{
	uint64_t have;

	pthread_mutex_lock(&d->mu);
	while (!d->done && atomic_load(&d->received) <= d->file_off)
		pthread_cond_wait(&d->grew, &d->mu);
	have = atomic_load(&d->received);
	pthread_mutex_unlock(&d->mu);
	return have;
}

/* The end of a followed download: the thread's error, a short one, or
 * the end of the data. */
static ssize_t
follow_end(struct cv_download *d, struct cv_err *err)
{
	if (d->failed) {
		*err = d->perr;
		return err->code < 0 ? err->code : CV_ERROR;
	}
	if (d->size != 0 && d->file_off != d->size)
		return cv_err_set(err, CV_EDATA,
				  "download of %s ended after %llu of %llu "
				  "bytes (truncated)",
				  d->url, (unsigned long long)d->file_off,
				  (unsigned long long)d->size);
	return 0;
}

static ssize_t
dl_read(void *ctx, const void **buf, struct cv_err *err)
{
	struct cv_download *d = ctx;
	ssize_t n;

	if (cv_remote_interrupted()) {
		d->keep_partial = 1;
		return cv_err_set(err, CV_EINTR,
				  "interrupted; the partial download is "
				  "kept, run the same command again to "
				  "resume");
	}
	if (d->follow) {
		uint64_t have = follow_wait(d);
		size_t want = FILE_BLOCK;

		if (have <= d->file_off)
			return follow_end(d, err);
		if (have - d->file_off < want)
			want = (size_t)(have - d->file_off);
		n = cv_os_pread(d->rfd, d->file_buf, want, d->file_off);
		if (n <= 0)
			return cv_err_errno(err, CV_EIO,
					    "cannot read the download %s",
					    d->partial);
		d->file_off += (uint64_t)n;
	} else if (d->from_file) {
		size_t want = FILE_BLOCK;
		if (d->size - d->file_off < want)
			want = (size_t)(d->size - d->file_off);
		if (want == 0)
			return 0;
		n = cv_os_pread(d->rfd, d->file_buf, want, d->file_off);
		if (n <= 0)
			return cv_err_errno(err, CV_EIO,
					    "cannot read the cached download "
					    "%s",
					    d->from_final ? d->final
							  : d->partial);
		d->file_off += (uint64_t)n;
	} else {
		n = cv_pipe_take(d->pipe, buf, err);
		if (n < 0)
			return n;
		if (n == 0) {
			if (d->size != 0 && d->delivered != d->size)
				return cv_err_set(
					err, CV_EDATA,
					"download of %s ended after %llu of "
					"%llu bytes (truncated)",
					d->url,
					(unsigned long long)d->delivered,
					(unsigned long long)d->size);
			return 0;
		}
	}
	if (d->from_file || d->follow)
		*buf = d->file_buf;
	d->delivered += (uint64_t)n;
	report(d);
	return n;
}

static void
dl_stop(struct cv_download *d)
{
	if (d->th_started) {
		d->abort = 1;
		if (d->pipe != NULL)
			cv_pipe_abort(d->pipe);
		pthread_join(d->th, NULL);
		d->th_started = 0;
	}
	if (d->rfd >= 0)
		cv_os_close(d->rfd);
	if (d->wfd >= 0)
		cv_os_close(d->wfd);
	d->rfd = d->wfd = -1;
}

static void
dl_close(void *arg, int ok)
{
	struct cv_download *d = arg;

	/* a reader that stopped early is not an error of the server */
	if (d->th_started && !d->done && !ok && !cv_remote_interrupted() &&
	    !d->failed)
		d->keep_partial = 1;
	dl_stop(d);
	if (ok) {
		if (d->from_final) {
			if (!d->keep)
				cv_os_unlink(d->final);
		} else if (d->keep) {
			if (cv_os_rename_at(CV_AT_CWD, d->partial, CV_AT_CWD,
					    d->final) < 0)
				cv_os_unlink(d->partial);
		} else
			cv_os_unlink(d->partial);
		return;
	}
	if (d->from_final) {
		cv_os_unlink(d->final);
		return;
	}
	if (!d->keep_partial && !cv_remote_interrupted())
		cv_os_unlink(d->partial);
}

static uint64_t
dl_size(void *arg)
{
	return ((struct cv_download *)arg)->size;
}

void
cv_download_fetcher(struct cv_download *d, struct cv_fetcher *f)
{
	f->open = dl_open;
	f->close = dl_close;
	f->arg = d;
	f->size = dl_size;
}

void
cv_download_free(struct cv_download *d)
{
	if (d == NULL)
		return;
	dl_stop(d);
	/* started early and never read (the install stopped before it):
	 * nothing kept, but for a resume after Ctrl-C */
	if (d->prefetch && !d->follow && !cv_remote_interrupted())
		cv_os_unlink(d->partial);
	cv_pipe_free(d->pipe);
	pthread_mutex_destroy(&d->mu);
	pthread_cond_destroy(&d->grew);
	free(d->file_buf);
	free(d->url);
	free(d->partial);
	free(d->final);
	free(d);
}

/* ---- downloads side by side, counted as one ---- */

#define GROUP_MAX 8

struct cv_download_group {
	pthread_mutex_t mu;
	struct cv_download *d[GROUP_MAX];
	int n;
	uint64_t dropped; /* bytes of members gone */
	uint64_t total;
};

struct cv_download_group *
cv_download_group_new(void)
{
	struct cv_download_group *g = xcalloc(1, sizeof *g);

	pthread_mutex_init(&g->mu, NULL);
	return g;
}

void
cv_download_group_add(struct cv_download_group *g, struct cv_download *d)
{
	if (g == NULL || d == NULL)
		return;
	pthread_mutex_lock(&g->mu);
	if (g->n < GROUP_MAX) {
		g->d[g->n++] = d;
		g->total += d->size;
	}
	pthread_mutex_unlock(&g->mu);
}

void
cv_download_group_drop(struct cv_download_group *g, struct cv_download *d)
{
	if (g == NULL)
		return;
	pthread_mutex_lock(&g->mu);
	for (int i = 0; i < g->n; i++)
		if (g->d[i] == d) {
			g->dropped += atomic_load(&d->received);
			g->d[i] = g->d[--g->n];
			break;
		}
	pthread_mutex_unlock(&g->mu);
}

uint64_t
cv_download_group_received(void *arg)
{
	struct cv_download_group *g = arg;
	uint64_t n;

	pthread_mutex_lock(&g->mu);
	n = g->dropped;
	for (int i = 0; i < g->n; i++)
		n += atomic_load(&g->d[i]->received);
	pthread_mutex_unlock(&g->mu);
	return n;
}

uint64_t
cv_download_group_total(struct cv_download_group *g)
{
	uint64_t n;

	pthread_mutex_lock(&g->mu);
	n = g->total;
	pthread_mutex_unlock(&g->mu);
	return n;
}

void
cv_download_group_free(struct cv_download_group *g)
{
	if (g == NULL)
		return;
	pthread_mutex_destroy(&g->mu);
	free(g);
}
