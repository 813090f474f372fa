/* extract_stream.c: a wheel unpacked while it arrives.
 *
 * Unpacking only once the whole wheel is in costs the download on top of
 * the inflating. But a wheel's local headers carry each entry's sizes
 * (pip's and NVIDIA's tools write no data descriptors), so while the file
 * is still being written a scout walks the local headers as they land and
 * deals each file to a worker, which inflates it from the file as its
 * bytes arrive, a chunk at a time, a few MiB behind the download.
 *
 * Local headers are not what installers trust; the central directory is.
 * So once the file is whole and its sha256 matches, the directory is read
 * (each record must agree with its local header in name, method, CRC-32
 * and sizes, see zip_plan, and the policy runs over it as for any wheel)
 * and must list the very same entries: names, sizes, types and where
 * their bytes start. Any
 * difference, an entry whose size the stream cannot know, or any trouble
 * on the way, and the streamed tree is removed and the wheel unpacked from
 * its directory as it would have been without the stream. Nothing is
 * published either way until the caller's hash check has passed. */
#include "base/base.h"
#include "install/install_int.h"

#include <errno.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define STREAM_CHUNK       (1 << 20)
#define STREAM_RATIO_FLOOR (256ULL << 20)

struct cv_zip_stream {
	pthread_mutex_t mu;
	pthread_cond_t changed; /* more bytes, a new entry, or the end */
	uint64_t avail;         /* bytes in the file so far */
	int whole;              /* the writer is done */
	int stop;               /* give up: the caller's or a failure */
	int failed;             /* the streamed tree cannot be kept */
	int scouted;            /* the scout has seen every local header */
	struct zip_job *jobs;   /* what the scout found, in file order */
	size_t njobs, alloc, next;
	int fd, dfd;
	char *path, *dest;
	struct cv_extract_limits lim;
	int threads;
	uint64_t cap, written; /* bytes the tree may hold, and holds */
	pthread_t scout, *workers;
	struct ectx x;
	struct cv_err xerr;
};

struct stream_reader {
	struct cv_zip_stream *z;
	int64_t off;
	char *buf;
};

/* libarchive's read callback: the bytes at `off`, waiting for the writer
 * when they have not landed yet; the end of the data once it is whole. */
static la_ssize_t
stream_read(struct archive *a, void *ud, const void **buf)
{
	struct stream_reader *rd = ud;
	struct cv_zip_stream *z = rd->z;
	uint64_t avail;
	int stop;
	ssize_t n;
	size_t want;

	pthread_mutex_lock(&z->mu);
	while (!z->stop && !z->whole && z->avail <= (uint64_t)rd->off)
		pthread_cond_wait(&z->changed, &z->mu);
	avail = z->avail;
	stop = z->stop;
	pthread_mutex_unlock(&z->mu);
	if (stop) {
		archive_set_error(a, ECANCELED, "stopped");
		return ARCHIVE_FATAL;
	}
	if (avail <= (uint64_t)rd->off)
		return 0;
	want = avail - (uint64_t)rd->off < STREAM_CHUNK
		       ? (size_t)(avail - (uint64_t)rd->off)
		       : STREAM_CHUNK;
	do
		n = cv_os_pread(z->fd, rd->buf, want, (uint64_t)rd->off);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		archive_set_error(a, errno, "cannot read the wheel");
		return ARCHIVE_FATAL;
	}
	rd->off += n;
	*buf = rd->buf;
	return n;
}

/* Skipping needs no bytes: the next read waits for them. */
static la_int64_t
stream_skip(struct archive *a, void *ud, la_int64_t request)
{
	struct stream_reader *rd = ud;

	(void)a;
	rd->off += request;
	return request;
}

static struct archive *
stream_open(struct stream_reader *rd)
{
	struct archive *a = archive_read_new();

	archive_read_support_format_zip_streamable(a);
	archive_read_set_read_callback(a, stream_read);
	archive_read_set_skip_callback(a, stream_skip);
	archive_read_set_callback_data(a, rd);
	if (archive_read_open1(a) != ARCHIVE_OK) {
		archive_read_free(a);
		return NULL;
	}
	return a;
}

static void
stream_fail(struct cv_zip_stream *z)
{
	pthread_mutex_lock(&z->mu);
	z->failed = 1;
	z->stop = 1;
	pthread_cond_broadcast(&z->changed);
	pthread_mutex_unlock(&z->mu);
}

/* The folders above `rel`, made inside the destination. */
static int
stream_mkparents(int dfd, const char *rel)
{
	char *p = xstrdup(rel), *s;
	int r = 0;

	for (s = strchr(p, '/'); s != NULL && r == 0; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (cv_os_mkdir_at(dfd, p, 0755) != 0 && errno != EEXIST)
			r = -1;
		*s = '/';
	}
	free(p);
	return r;
}

static void *
stream_scout(void *arg)
{
	struct cv_zip_stream *z = arg;
	struct stream_reader rd = { z, 0, xmalloc(STREAM_CHUNK) };
	struct archive *a = stream_open(&rd);
	struct archive_entry *e;
	int ok = a != NULL;

	while (ok) {
		struct zip_job j;
		int r = archive_read_next_header(a, &e), type, p;

		if (r == ARCHIVE_EOF)
			break;
		/* an entry whose size only its end tells cannot be dealt
		 * out ahead of its bytes */
		if (r != ARCHIVE_OK || !archive_entry_size_is_set(e)) {
			ok = 0;
			break;
		}
		memset(&j, 0, sizeof j);
		j.hdr = archive_read_header_position(a);
		j.data = archive_filter_bytes(a, 0);
		j.name = xstrdup(archive_entry_pathname(e));
		j.size = archive_entry_size(e);
		type = archive_entry_filetype(e);
		if ((p = extract_policy(&z->x, e)) < 0) {
			free(j.name);
			ok = 0;
			break;
		}
		if (p == 0) {
			j.rel = xstrdup(archive_entry_pathname(e));
			j.dir = type == AE_IFDIR;
			z->x.total += (uint64_t)(j.size > 0 ? j.size : 0);
			if (z->x.total > z->cap ||
			    stream_mkparents(z->dfd, j.rel) != 0 ||
			    (j.dir &&
			     cv_os_mkdir_at(z->dfd, j.rel, 0755) != 0 &&
			     errno != EEXIST)) {
				free(j.rel);
				free(j.name);
				ok = 0;
				break;
			}
		}
		pthread_mutex_lock(&z->mu);
		if (z->njobs == z->alloc) {
			z->alloc = z->alloc ? z->alloc * 2 : 64;
			z->jobs = xrealloc(z->jobs, z->alloc * sizeof *z->jobs);
		}
		z->jobs[z->njobs++] = j;
		pthread_cond_broadcast(&z->changed);
		pthread_mutex_unlock(&z->mu);
	}
	if (a != NULL)
		archive_read_free(a);
	free(rd.buf);
	pthread_mutex_lock(&z->mu);
	z->scouted = 1;
	if (!ok) {
		z->failed = 1;
		z->stop = 1;
	}
	pthread_cond_broadcast(&z->changed);
	pthread_mutex_unlock(&z->mu);
	return NULL;
}

/* The bytes written may stay within the cap, and within 4x the bytes that
 * have arrived (at least 256 MiB): the cap comes from the size the index
 * gave, which is only checked once the download ends, so a bomb must not
 * fill the disk before that, as for an archive of unknown size. */
static int
stream_within_caps(const struct cv_zip_stream *z, uint64_t total,
		   uint64_t arrived)
{
	return total <= z->cap &&
	       total <= (arrived * 4 > STREAM_RATIO_FLOOR ? arrived * 4
							  : STREAM_RATIO_FLOOR);
}

static int
feed_wait(void *ud, uint64_t end)
{
	struct cv_zip_stream *z = ud;
	int ok;

	pthread_mutex_lock(&z->mu);
	while (!z->stop && !z->whole && z->avail < end)
		pthread_cond_wait(&z->changed, &z->mu);
	ok = !z->stop && z->avail >= end;
	pthread_mutex_unlock(&z->mu);
	return ok ? 0 : -1;
}

static int
feed_wrote(void *ud, uint64_t n)
{
	struct cv_zip_stream *z = ud;
	int ok;

	pthread_mutex_lock(&z->mu);
	z->written += n;
	ok = stream_within_caps(z, z->written, z->avail);
	pthread_mutex_unlock(&z->mu);
	return ok ? 0 : -1;
}

/* Entry `j` inflated here, a chunk at a time as its deflated bytes arrive
 * (the local header tells where they are): 0 done, 1 to do through
 * libarchive (nothing written), <0 the stream gives up. */
static int
stream_inflate(struct cv_zip_stream *z, const struct zip_job *j,
	       struct libdeflate_decompressor *inflater)
{
	struct zip_job loc = *j;
	struct cv_err ignored = CV_ERR_INIT;
	struct inflate_feed feed = { feed_wait, feed_wrote, z };
	int64_t next;
	int fd, r;

	if (extract_zip_locate(z->fd, j->hdr, &loc, &next) < 0 ||
	    !loc.inflatable)
		return 1;
	fd = cv_os_open_at(z->dfd, j->rel,
			   CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL |
				   CV_OPEN_NOFOLLOW,
			   0644);
	if (fd < 0)
		return -1;
	r = extract_inflate(inflater, z->fd, &loc, fd, j->rel, &feed, &ignored);
	if (cv_os_fchmod(fd, 0644) != 0 && r == 0)
		r = -1;
	if (cv_os_close(fd) != 0 && r == 0)
		r = -1;
	return r < 0 ? -1 : 0;
}

/* Inflate one entry, from its local header on, into j->rel. The header
 * must still say what the scout saw (the entry's name as stored: the
 * policy rewrote the scout's copy). */
static int
stream_entry(struct cv_zip_stream *z, const struct zip_job *j,
	     struct stream_reader *rd, struct libdeflate_decompressor *inflater)
{
	const int64_t hdr = j->hdr;
	const char *name = j->name;
	struct archive *a;
	struct archive_entry *e;
	const void *buf;
	size_t size;
	la_int64_t off;
	int64_t got = 0;
	uint64_t arrived;
	int fd = -1, r;

	if ((r = stream_inflate(z, j, inflater)) <= 0)
		return r;
	rd->off = hdr;
	if ((a = stream_open(rd)) == NULL)
		return -1;
	r = archive_read_next_header(a, &e) == ARCHIVE_OK &&
			    strcmp(archive_entry_pathname(e), name) == 0 &&
			    archive_entry_size_is_set(e) &&
			    archive_entry_size(e) == j->size &&
			    hdr + archive_filter_bytes(a, 0) == j->data
		    ? 0
		    : -1;
	if (r == 0)
		fd = cv_os_open_at(z->dfd, j->rel,
				   CV_OPEN_WRITE | CV_OPEN_CREATE |
					   CV_OPEN_EXCL | CV_OPEN_NOFOLLOW,
				   0644);
	if (fd < 0)
		r = -1;
	while (r == 0 && (r = archive_read_data_block(a, &buf, &size, &off)) ==
				 ARCHIVE_OK) {
		const char *p = buf;
		uint64_t total;

		if ((got + (int64_t)size) / WRITEBACK_STEP !=
		    got / WRITEBACK_STEP)
			cv_os_writeback(fd, 0, 0);
		got += (int64_t)size;
		pthread_mutex_lock(&z->mu);
		total = z->written += size;
		arrived = z->avail;
		pthread_mutex_unlock(&z->mu);
		/* past the caps the stream gives up and the verified wheel
		 * is unpacked from its directory */
		if (got > j->size || off + (int64_t)size > j->size ||
		    !stream_within_caps(z, total, arrived)) {
			r = -1;
			break;
		}
		while (size > 0) {
			long n = cv_os_pwrite(fd, p, size, (uint64_t)off);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				r = -1;
				break;
			}
			p += n;
			off += n;
			size -= (size_t)n;
		}
	}
	if (r == ARCHIVE_EOF && got == j->size)
		r = 0;
	else if (r == 0 || r == ARCHIVE_EOF)
		r = -1;
	if (r == 0)
		cv_os_writeback(fd, 0, 0);
	if (fd >= 0 && (cv_os_fchmod(fd, 0644) != 0 || cv_os_close(fd) != 0))
		r = -1;
	archive_read_free(a);
	return r < 0 ? -1 : 0;
}

static void *
stream_worker(void *arg)
{
	struct cv_zip_stream *z = arg;
	struct stream_reader rd = { z, 0, NULL };
	/* NULL (no memory for it): every entry in chunks */
	struct libdeflate_decompressor *inflater =
		libdeflate_alloc_decompressor();
	int done_one = 0, r;

	for (;;) {
		struct zip_job j;

		pthread_mutex_lock(&z->mu);
		while (!z->stop && z->next >= z->njobs && !z->scouted)
			pthread_cond_wait(&z->changed, &z->mu);
		if (z->stop || z->next >= z->njobs) {
			pthread_mutex_unlock(&z->mu);
			break;
		}
		/* the scout may grow (move) the array: work on a copy */
		j = z->jobs[z->next++];
		if (j.rel == NULL || j.dir) {
			pthread_mutex_unlock(&z->mu);
			continue;
		}
		j.rel = xstrdup(j.rel);
		j.name = xstrdup(j.name);
		pthread_mutex_unlock(&z->mu);
		if (rd.buf == NULL)
			rd.buf = xmalloc(STREAM_CHUNK);
		r = stream_entry(z, &j, &rd, inflater);
		free(j.rel);
		free(j.name);
		if (r < 0) {
			stream_fail(z);
			break;
		}
		if (!done_one++)
			cv_checkpoint("mid-extract");
	}
	free(rd.buf);
	if (inflater != NULL)
		libdeflate_free_decompressor(inflater);
	return NULL;
}

/* Stop the threads that run (the scout when `scout`, the first `workers`
 * workers) and wait for them. */
static void
stream_stop(struct cv_zip_stream *z, int scout, int workers, int whole)
{
	pthread_mutex_lock(&z->mu);
	z->whole = 1;
	if (!whole)
		z->stop = 1;
	pthread_cond_broadcast(&z->changed);
	pthread_mutex_unlock(&z->mu);
	if (scout)
		pthread_join(z->scout, NULL);
	for (int t = 0; t < workers; t++)
		pthread_join(z->workers[t], NULL);
}

static void
stream_free(struct cv_zip_stream *z)
{
	cv_os_close(z->fd);
	cv_os_close(z->dfd);
	extract_jobs_free(z->jobs, z->njobs);
	extract_ctx_release(&z->x);
	pthread_mutex_destroy(&z->mu);
	pthread_cond_destroy(&z->changed);
	free(z->workers);
	free(z->path);
	free(z->dest);
	free(z);
}

int
cv_zip_stream_start(const char *path, const char *dest,
		    const struct cv_extract_limits *limits, int threads,
		    struct cv_zip_stream **out, struct cv_err *err)
{
	struct cv_zip_stream *z;
	int fd, dfd, rc, t;

	*out = NULL;
	/* without a cap known up front, a bomb could fill the disk before
	 * the hash is checked: such a wheel waits for its download */
	if (limits == NULL || limits->max_total_bytes == 0)
		return 0;
	fd = cv_os_open(path, CV_OPEN_READ, 0);
	if (fd < 0)
		return 0;
	dfd = cv_os_open(dest, CV_OPEN_READ | CV_OPEN_DIR, 0);
	if (dfd < 0) {
		cv_os_close(fd);
		return 0;
	}
	z = xcalloc(1, sizeof *z);
	pthread_mutex_init(&z->mu, NULL);
	pthread_cond_init(&z->changed, NULL);
	z->fd = fd;
	z->dfd = dfd;
	z->path = xstrdup(path);
	z->dest = xstrdup(dest);
	z->lim = *limits;
	z->cap = limits->max_total_bytes;
	z->threads = threads < 1 ? 1 : threads;
	z->xerr = (struct cv_err)CV_ERR_INIT;
	extract_ctx_init(&z->x, NULL, limits, &z->xerr);
	z->x.zip = 1;
	z->workers = xcalloc((size_t)z->threads, sizeof *z->workers);
	if ((rc = pthread_create(&z->scout, NULL, stream_scout, z)) != 0) {
		stream_free(z);
		return extract_thread_error(rc, err);
	}
	for (t = 0; t < z->threads; t++)
		if ((rc = pthread_create(&z->workers[t], NULL, stream_worker,
					 z)) != 0) {
			stream_stop(z, 1, t, 0);
			stream_free(z);
			return extract_thread_error(rc, err);
		}
	*out = z;
	return 0;
}

void
cv_zip_stream_grew(struct cv_zip_stream *z, uint64_t bytes)
{
	if (z == NULL)
		return;
	pthread_mutex_lock(&z->mu);
	z->avail = bytes;
	pthread_cond_broadcast(&z->changed);
	pthread_mutex_unlock(&z->mu);
}

int
cv_zip_stream_finish(struct cv_zip_stream *z, int whole, struct cv_err *err)
{
	int r = 0;

	stream_stop(z, 1, z->threads, whole);
	if (whole)
		/* a failed stream leaves files to clear but proves nothing:
		 * the directory decides, as without the stream */
		r = extract_zip_unpack(z->path, z->dest, &z->lim, z->threads,
				       z->jobs, z->njobs, !z->failed, err);
	stream_free(z);
	return r;
}
