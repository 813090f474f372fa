/* extract_tar.c: an archive read front to back from a cv_source: a tar
 * (xz, gzip, bzip2 or none) or a zip read as a stream, under the entry
 * policy of extract_policy.c. Extraction runs with the cwd in `dest` and
 * relative names so libarchive's three SECURE_* flags apply. A compressed
 * tarball is decompressed on its own thread, xz through liblzma's
 * multi-threaded decoder. */
#include "base/base.h"
#include "install/install_int.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static la_ssize_t
read_cb(struct archive *a, void *ud, const void **buf)
{
	struct feed *f = ud;
	ssize_t n = f->src->read(f->src->ctx, buf, &f->err);

	if (n < 0) {
		f->failed = 1;
		archive_set_error(a, EIO, "%s", f->err.msg);
		return -1;
	}
	return n;
}

/* Why reading `a` failed: the source's own error, or the archive's. */
int
extract_feed_error(struct archive *a, const struct feed *f, struct cv_err *err)
{
	if (f->failed) {
		*err = f->err;
		return f->err.code;
	}
	return cv_err_set(err, CV_EDATA, "corrupt or unsupported archive: %s",
			  archive_error_string(a) ? archive_error_string(a)
						  : "read error");
}

int
extract_policy(struct ectx *x, struct archive_entry *e)
{
	unsigned t = archive_entry_filetype(e);
	struct xentry xe = {
		archive_entry_pathname(e),
		t == AE_IFREG   ? XE_FILE
		: t == AE_IFDIR ? XE_DIR
		: t == AE_IFLNK ? XE_LINK
				: XE_OTHER,
		archive_entry_size_is_set(e) ? archive_entry_size(e) : -1,
		archive_entry_symlink(e), archive_entry_hardlink(e)
	};
	char *rel = NULL;
	int r = extract_policy_entry(x, &xe, &rel);

	if (r != 0)
		return r;
	archive_entry_set_pathname(e, rel);
	archive_entry_set_perm(e, t == AE_IFDIR ? 0755 : 0644);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_uname(e, NULL);
	archive_entry_set_gname(e, NULL);
	free(rel);
	return 0;
}

static int
write_error(struct ectx *x, const char *name)
{
	char safe[300];
	int e = archive_errno(x->aw);

	extract_safe_name(name, safe, sizeof safe);
	if (e == ENOSPC || e == EDQUOT || e == EIO || e == EFBIG)
		return cv_err_set(
			x->err, CV_EIO,
			"cannot write '%s' into the store: %s; free some space and retry",
			safe, strerror(e));
	return cv_err_set(x->err, CV_EDATA,
			  "unsafe or broken archive entry '%s': %s", safe,
			  archive_error_string(x->aw)
				  ? archive_error_string(x->aw)
				  : "write failed");
}

static int
read_error(struct ectx *x)
{
	return extract_feed_error(x->ar, &x->in, x->err);
}

static int
copy_data(struct ectx *x, const char *name)
{
	const void *buf;
	size_t size, unsynced = 0;
	la_int64_t off;
	int r;

	for (;;) {
		r = archive_read_data_block(x->ar, &buf, &size, &off);
		if (r == ARCHIVE_EOF)
			return 0;
		if (r < ARCHIVE_WARN)
			return read_error(x);
		if ((unsynced += size) >= WRITEBACK_STEP) {
			extract_writeback(AT_FDCWD, name);
			unsynced = 0;
		}
		x->total += size;
		if (x->total > extract_bytes_allowed(x))
			return extract_reject(
				x, name,
				"makes the archive larger than the limit");
		if (archive_write_data_block(x->aw, buf, size, off) <
		    ARCHIVE_OK)
			return write_error(x, name);
	}
}

static int
extract_all(struct ectx *x)
{
	struct archive_entry *e;
	int r;

	for (;;) {
		r = archive_read_next_header(x->ar, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN)
			return read_error(x);
		if (x->entries == 0) {
			int fmt = archive_format(x->ar);
			x->zip = (fmt & ARCHIVE_FORMAT_BASE_MASK) ==
				 ARCHIVE_FORMAT_ZIP;
		}
		r = extract_policy(x, e);
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		if (archive_write_header(x->aw, e) < ARCHIVE_WARN)
			return write_error(x, archive_entry_pathname(e));
		if (archive_entry_filetype(e) == AE_IFREG &&
		    (r = copy_data(x, archive_entry_pathname(e))) < 0)
			return r;
		if (archive_write_finish_entry(x->aw) < ARCHIVE_WARN)
			return write_error(x, archive_entry_pathname(e));
		if (archive_entry_filetype(e) == AE_IFREG)
			extract_writeback(AT_FDCWD, archive_entry_pathname(e));
		if (x->entries == 3)
			cv_checkpoint("mid-extract");
	}
	if (x->names.n == 0)
		return cv_err_set(
			x->err, CV_EDATA,
			"the archive holds no files; is it a cuDNN archive?");
	return 0;
}

/* ---- the decompressing stage ---------------------------------------------
 * A compressed tarball is decompressed on its own thread (libarchive's raw
 * format plus the xz/gzip/bzip2 filter) into a pipe that the tar reader on
 * this thread consumes, as `tar -xJ` runs xz beside tar. */

static ssize_t
peek_read(void *ctx, const void **buf, struct cv_err *err)
{
	struct peek *p = ctx;
	ssize_t n;

	if (!p->used) {
		p->used = 1;
		*buf = p->buf;
		return p->len;
	}
	n = p->inner->read(p->inner->ctx, buf, err);
	if (n > 0)
		atomic_fetch_add(&p->nread, (uint_fast64_t)n);
	return n;
}

struct decoder {
	pthread_t th;
	struct feed in;
	struct cv_pipe *out;
	unsigned threads; /* xz decoding threads */
};

/* The xz decoder's threads when [install] threads is auto. liblzma holds
 * at most `threads` blocks, decoding or decoded, until the oldest has been
 * written out in order; with one thread per core the cores whose blocks
 * came out quick then wait on the slowest (`xz -T16 -dc` keeps about 11
 * of 16 cores busy). Two per core fill those gaps: on 16 cores the install
 * went from 1.11x to 1.01-1.06x `xz -T0 -dc` (bench/bench_install_xz.sh),
 * at a few MiB more each. On 2 or 3 cores there are no gaps worth it, and the
 * install's own writing and hashing threads would lose their share: one
 * per core there. Never more than XZ_AUTO_MAX: each thread holds a block
 * in and out, and 64 of them decode faster than a download arrives. */
#define XZ_AUTO_MAX 64

unsigned
cv_xz_auto_threads(unsigned cores)
{
	if (cores < 4)
		return cores;
	return 2 * cores < XZ_AUTO_MAX ? 2 * cores : XZ_AUTO_MAX;
}

/* What the xz decoder may hold for its threads: a quarter of the
 * machine's memory, as `xz -T0 -d` allows itself. Past it liblzma runs
 * fewer threads, down to decoding in place on one, so the bound holds
 * whatever block size the archive was written with. */
static uint64_t
xz_thread_memlimit(void)
{
	uint64_t mem = lzma_physmem();

	return mem ? mem / 4 : (uint64_t)256 << 20;
}

static int
xz_error(lzma_ret ret, struct cv_err *err)
{
	switch (ret) {
	case LZMA_MEM_ERROR:
		return cv_err_set(
			err, CV_ERROR,
			"out of memory while decompressing the archive; lower [install] threads or --jobs");
	case LZMA_BUF_ERROR:
		return cv_err_set(
			err, CV_EDATA,
			"corrupt or unsupported archive: the xz data ends early; the file is truncated, fetch it again");
	case LZMA_FORMAT_ERROR:
	case LZMA_OPTIONS_ERROR:
		return cv_err_set(
			err, CV_EDATA,
			"corrupt or unsupported archive: not xz data this decoder supports");
	default:
		return cv_err_set(
			err, CV_EDATA,
			"corrupt or unsupported archive: the xz data is corrupt (liblzma error %d); the file is damaged, fetch it again",
			(int)ret);
	}
}

/* The liblzma that decodes on several threads: this build's own, or,
 * built against a liblzma without the threaded decoder (before 5.4:
 * Debian 11's 5.2, where the release files are built and whose copy they
 * carry), a newer liblzma.so.5 of the machine's, found at run time, as
 * Debian 12, Ubuntu 24.04 and Fedora have (RHEL 8 and 9 and Ubuntu 22.04
 * have 5.2: one thread there, as their own xz). The two copies share
 * nothing: a stream is made, run and ended by the one it came from. */
struct xz_api {
	lzma_ret (*decoder_mt)(lzma_stream *s, const lzma_mt *mt);
	lzma_ret (*code)(lzma_stream *s, lzma_action action);
	void (*end)(lzma_stream *s);
};

#if LZMA_VERSION >= 50040002
#define MT_MEMLIMIT_THREADING(mt) ((mt).memlimit_threading)
#define MT_MEMLIMIT_STOP(mt)      ((mt).memlimit_stop)

static const struct xz_api *
xz_threaded_api(void)
{
	static const struct xz_api own = { lzma_stream_decoder_mt, lzma_code,
					   lzma_end };

	return &own;
}
#else
/* 5.4 named two of 5.2's reserved fields, in the same place; its flag is
 * one 5.2's headers do not have */
#define MT_MEMLIMIT_THREADING(mt) ((mt).reserved_int5)
#define MT_MEMLIMIT_STOP(mt)      ((mt).reserved_int6)
#define LZMA_FAIL_FAST            UINT32_C(0x20)

static struct xz_api system_lzma;
static pthread_once_t system_lzma_once = PTHREAD_ONCE_INIT;

static void
find_system_lzma(void)
{
	void *lib = cv_dl_open("liblzma.so.5", 0);
	struct xz_api a = { NULL, NULL, NULL };

	if (lib == NULL)
		return;
	*(void **)&a.decoder_mt = cv_dl_sym(lib, "lzma_stream_decoder_mt");
	*(void **)&a.code = cv_dl_sym(lib, "lzma_code");
	*(void **)&a.end = cv_dl_sym(lib, "lzma_end");
	if (a.decoder_mt != NULL && a.code != NULL && a.end != NULL)
		system_lzma = a;
	else
		cv_dl_close(lib);
}

static const struct xz_api *
xz_threaded_api(void)
{
	pthread_once(&system_lzma_once, find_system_lzma);
	return system_lzma.decoder_mt != NULL ? &system_lzma : NULL;
}
#endif

/* The decoder of d's stream into s: the threaded one when there is one
 * (*api then the calls to run and end it with), else one thread. */
static lzma_ret
xz_start(const struct decoder *d, lzma_stream *s, struct xz_api *api)
{
	const struct xz_api *mt_api = xz_threaded_api();
	lzma_mt mt;

	api->code = lzma_code;
	api->end = lzma_end;
	if (mt_api == NULL)
		return lzma_stream_decoder(s, UINT64_MAX, LZMA_CONCATENATED);
	*api = *mt_api;
	memset(&mt, 0, sizeof mt);
	mt.flags = LZMA_CONCATENATED | LZMA_FAIL_FAST;
	mt.threads = d->threads;
	MT_MEMLIMIT_THREADING(mt) = xz_thread_memlimit();
	MT_MEMLIMIT_STOP(mt) = UINT64_MAX;
	return api->decoder_mt(s, &mt);
}

/* xz through liblzma's multi-threaded decoder: a stream written in
 * several blocks that record their sizes (xz -T2 and up, pxz) is decoded
 * on `threads` cores; a one-block stream, or one whose blocks do not say
 * their sizes (xz -T1), is decoded in place on one, as liblzma decides by
 * itself from the block headers, so nothing has to seek ahead in a
 * download to tell the two apart. Errors are reported as soon as a block
 * fails, not after the blocks before it drain. */
static void *
xz_main(void *arg)
{
	struct decoder *d = arg;
	lzma_stream s = LZMA_STREAM_INIT;
	struct xz_api api;
	lzma_action action = LZMA_RUN;
	lzma_ret ret;
	struct cv_err err = CV_ERR_INIT;
	size_t bs = cv_pipe_bufsize(d->out);
	char *b = NULL;
	int failed = 0, filled = 0;

	ret = xz_start(d, &s, &api);
	if (ret != LZMA_OK) {
		xz_error(ret, &err);
		failed = 1;
		goto out;
	}
	for (;;) {
		if (s.avail_in == 0 && action == LZMA_RUN) {
			const void *in;
			ssize_t n = d->in.src->read(d->in.src->ctx, &in, &err);
			if (n < 0) {
				failed = 1;
				break;
			}
			if (n == 0)
				action = LZMA_FINISH;
			s.next_in = in;
			s.avail_in = (size_t)n;
		}
		if (b == NULL) {
			if ((b = cv_pipe_get(d->out)) == NULL) {
				api.end(&s);
				return NULL; /* the reader gave up */
			}
			s.next_out = (uint8_t *)b;
			s.avail_out = bs;
		}
		ret = api.code(&s, action);
		if (ret != LZMA_OK && ret != LZMA_STREAM_END) {
			xz_error(ret, &err);
			failed = 1;
			break;
		}
		if (s.avail_out == 0 || ret == LZMA_STREAM_END) {
			if (s.avail_out < bs)
				cv_pipe_put(d->out, b, bs - s.avail_out);
			else
				cv_pipe_unget(d->out, b);
			b = NULL;
			if (++filled == 2)
				cv_checkpoint("mid-xz");
		}
		if (ret == LZMA_STREAM_END)
			break;
	}
	if (b != NULL)
		cv_pipe_unget(d->out, b);
out:
	cv_pipe_close(d->out, failed ? &err : NULL);
	api.end(&s);
	return NULL;
}

static void *
dec_main(void *arg)
{
	struct decoder *d = arg;
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	struct cv_err err = CV_ERR_INIT;
	size_t bs = cv_pipe_bufsize(d->out);
	la_ssize_t n = -1;
	char *b;

	archive_read_support_filter_xz(a);
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_format_raw(a);
	if (archive_read_open(a, &d->in, NULL, read_cb, NULL) == ARCHIVE_OK &&
	    archive_read_next_header(a, &e) == ARCHIVE_OK) {
		for (;;) {
			if ((b = cv_pipe_get(d->out)) == NULL) {
				archive_read_free(a);
				return NULL; /* the reader gave up */
			}
			n = archive_read_data(a, b, bs);
			if (n <= 0) {
				cv_pipe_unget(d->out, b);
				break;
			}
			cv_pipe_put(d->out, b, (size_t)n);
		}
	}
	if (n < 0)
		extract_feed_error(a, &d->in, &err);
	cv_pipe_close(d->out, n < 0 ? &err : NULL);
	archive_read_free(a);
	return NULL;
}

static int
is_xz(const unsigned char *b, ssize_t n)
{
	static const unsigned char xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

	return n >= 6 && memcmp(b, xz, 6) == 0;
}

static int
compressed(const unsigned char *b, ssize_t n)
{
	return is_xz(b, n) || (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) ||
	       (n >= 3 && memcmp(b, "BZh", 3) == 0);
}

int
cv_extract(struct cv_source *src, const char *dest,
	   const struct cv_extract_limits *limits, struct cv_err *err)
{
	struct ectx x;
	struct cv_err dummy = CV_ERR_INIT;
	struct peek pk = { NULL, NULL, 0, 0, 0 };
	struct cv_source psrc = { peek_read, &pk };
	struct cv_source tsrc = { cv_pipe_read, NULL };
	struct decoder dec;
	struct extract_place back;
	int r, rc;

	if (err == NULL)
		err = &dummy;
	memset(&dec, 0, sizeof dec);
	extract_ctx_init(&x, &pk, limits, err);
	/* Look at the first bytes: a compressed tarball gets its own
	 * decompressing thread; a zip or a plain tar is read here. */
	pk.inner = src;
	pk.len = src->read(src->ctx, &pk.buf, err);
	if (pk.len < 0)
		return (int)pk.len;
	atomic_store(&pk.nread, (uint_fast64_t)pk.len);
	x.in.src = &psrc;
	if (compressed(pk.buf, pk.len)) {
		dec.in.src = &psrc;
		dec.out = cv_pipe_new(8, 1 << 20);
		dec.threads = x.lim.threads
				      ? x.lim.threads
				      : cv_xz_auto_threads(cv_usable_cores());
		rc = pthread_create(&dec.th, NULL,
				    is_xz(pk.buf, pk.len) ? xz_main : dec_main,
				    &dec);
		if (rc != 0) {
			cv_pipe_free(dec.out);
			return extract_thread_error(rc, err);
		}
		tsrc.ctx = dec.out;
		x.in.src = &tsrc;
		x.pipeline = 1;
	}
	if ((r = extract_enter(dest, &back, err)) < 0)
		goto stop;
	x.ar = archive_read_new();
	x.aw = archive_write_disk_new();
	archive_read_support_format_tar(x.ar);
	if (!x.pipeline) {
		archive_read_support_format_zip(x.ar);
		archive_read_support_filter_xz(x.ar);
		archive_read_support_filter_gzip(x.ar);
		archive_read_support_filter_bzip2(x.ar);
	}
	archive_write_disk_set_options(
		x.aw, ARCHIVE_EXTRACT_SECURE_NODOTDOT |
			      ARCHIVE_EXTRACT_SECURE_SYMLINKS |
			      ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
	if (archive_read_open(x.ar, &x.in, NULL, read_cb, NULL) != ARCHIVE_OK)
		r = read_error(&x);
	else
		r = extract_all(&x);
	if (r == 0 && archive_write_close(x.aw) != ARCHIVE_OK)
		r = write_error(&x, "(folder fix-up)");
	archive_read_free(x.ar);
	archive_write_free(x.aw);
	r = extract_leave(&back, r, err);
stop:
	extract_ctx_release(&x);
	if (x.pipeline) {
		cv_pipe_abort(dec.out);
		pthread_join(dec.th, NULL);
		cv_pipe_free(dec.out);
	}
	if (r == 0)
		r = extract_check_tree(dest, err);
	return r;
}
