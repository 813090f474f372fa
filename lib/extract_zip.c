/* extract_zip.c: a zip file (a wheel) unpacked from its central
 * directory on all cores.
 *
 * A wheel's central directory lists every entry with its offset, so the
 * entries can be inflated independently: the policy runs over the whole
 * directory first (nothing is written unless every entry passes, and the
 * directory's file modes show links a streaming read cannot see), then
 * each thread opens the file with its own reader and writes its share,
 * the largest entries dealt out first to the least loaded thread. */
#include "extract_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int inflate_write_error(const char *rel, struct cv_err *err);

struct zip_worker {
	pthread_t th;
	const char *path;
	struct zip_job *jobs;
	size_t njobs;
	int me;
	atomic_int *stop;
	struct cv_err err;
	int rc;
};

static int
zip_open(const char *path, struct archive **out, struct cv_err *err)
{
	struct archive *a = archive_read_new();

	archive_read_support_format_zip_seekable(a);
	if (archive_read_open_filename(a, path, 1 << 20) != ARCHIVE_OK) {
		int rc = cv_err_set(
			err, CV_EDATA, "corrupt or unsupported wheel: %s",
			archive_error_string(a) ? archive_error_string(a)
						: "cannot open");
		archive_read_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

/* Entry `j` into a new file j->rel (below the cwd) through libdeflate:
 * 0 done, 1 to do through libarchive (nothing left behind), <0 failed. */
static int
inflate_file(struct libdeflate_decompressor *inflater, int fd,
	     const struct zip_job *j, struct cv_err *err)
{
	int out = openat(AT_FDCWD, j->rel,
			 O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			 0644);
	int r;

	if (out < 0)
		return inflate_write_error(j->rel, err);
	r = extract_inflate(inflater, fd, j, out, j->rel, err);
	if (close(out) != 0 && r == 0)
		r = inflate_write_error(j->rel, err);
	if (r == 1 && unlink(j->rel) != 0)
		r = inflate_write_error(j->rel, err);
	return r;
}

static void *
zip_work(void *arg)
{
	struct zip_worker *w = arg;
	struct archive *a = NULL, *aw;
	struct archive_entry *e;
	struct libdeflate_decompressor *inflater = NULL;
	size_t i = 0;
	int r, fd;

	if ((w->rc = zip_open(w->path, &a, &w->err)) < 0) {
		atomic_store(w->stop, 1);
		return NULL;
	}
	/* without either, every entry goes through libarchive */
	if ((fd = open(w->path, O_RDONLY | O_CLOEXEC)) >= 0 &&
	    (inflater = libdeflate_alloc_decompressor()) == NULL) {
		close(fd);
		fd = -1;
	}
	aw = archive_write_disk_new();
	archive_write_disk_set_options(
		aw, ARCHIVE_EXTRACT_SECURE_NODOTDOT |
			    ARCHIVE_EXTRACT_SECURE_SYMLINKS |
			    ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
	for (; !atomic_load(w->stop); i++) {
		struct zip_job *j;
		const void *buf;
		size_t size;
		la_int64_t off;
		int64_t got = 0;

		r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN || i >= w->njobs) {
			w->rc = cv_err_set(&w->err, CV_EDATA,
					   "corrupt wheel: %s",
					   archive_error_string(a)
						   ? archive_error_string(a)
						   : "entries changed");
			break;
		}
		j = &w->jobs[i];
		if (j->rel == NULL || j->dir || j->thread != w->me)
			continue;
		if (j->inflatable && inflater != NULL) {
			if ((r = inflate_file(inflater, fd, j, &w->err)) < 0) {
				w->rc = r;
				break;
			}
			if (r == 0)
				continue;
		}
		archive_entry_set_pathname(e, j->rel);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_uid(e, 0);
		archive_entry_set_gid(e, 0);
		archive_entry_set_uname(e, NULL);
		archive_entry_set_gname(e, NULL);
		if (archive_write_header(aw, e) < ARCHIVE_WARN) {
			w->rc = cv_err_set(&w->err, CV_EIO,
					   "cannot write '%s': %s", j->rel,
					   archive_error_string(aw));
			break;
		}
		while ((r = archive_read_data_block(a, &buf, &size, &off)) ==
		       ARCHIVE_OK) {
			if ((got + (int64_t)size) / WRITEBACK_STEP !=
			    got / WRITEBACK_STEP)
				extract_writeback(AT_FDCWD, j->rel);
			got += (int64_t)size;
			/* the directory's size is what the policy allowed */
			if (got > j->size) {
				w->rc = cv_err_set(
					&w->err, CV_EDATA,
					"unsafe archive: entry '%s' is larger than its directory entry says; the archive was not installed",
					j->rel);
				break;
			}
			if (archive_write_data_block(aw, buf, size, off) <
			    ARCHIVE_OK) {
				int en = archive_errno(aw);
				w->rc = cv_err_set(
					&w->err,
					en == ENOSPC || en == EDQUOT ? CV_EIO
								     : CV_EDATA,
					"cannot write '%s' into the store: %s",
					j->rel, archive_error_string(aw));
				break;
			}
		}
		if (w->rc == 0 && r != ARCHIVE_EOF)
			w->rc = cv_err_set(&w->err, CV_EDATA,
					   "corrupt wheel entry '%s': %s",
					   j->rel,
					   archive_error_string(a)
						   ? archive_error_string(a)
						   : "read error");
		if (w->rc == 0 && archive_write_finish_entry(aw) < ARCHIVE_WARN)
			w->rc = cv_err_set(&w->err, CV_EIO,
					   "cannot write '%s': %s", j->rel,
					   archive_error_string(aw));
		if (w->rc == 0)
			extract_writeback(AT_FDCWD, j->rel);
		if (w->rc < 0)
			break;
	}
	if (w->rc < 0)
		atomic_store(w->stop, 1);
	else if (archive_write_close(aw) != ARCHIVE_OK)
		w->rc = cv_err_set(&w->err, CV_EIO, "cannot finish writing: %s",
				   archive_error_string(aw));
	archive_write_free(aw);
	archive_read_free(a);
	if (inflater != NULL) {
		libdeflate_free_decompressor(inflater);
		close(fd);
	}
	return NULL;
}

/* Where the local headers are, for libdeflate: a wheel's writer puts each
 * right after the data of the one before, the first at the start of the
 * file. The walk stops at the first header that is not where libarchive's
 * entry says (or cannot tell where the next one is); the entries from
 * there on are inflated through libarchive. */
static void
zip_locate_all(const char *path, struct zip_job *jobs, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int64_t pos = 0;

	for (size_t i = 0; fd >= 0 && i < n && pos >= 0; i++) {
		jobs[i].hdr = pos;
		if (extract_zip_locate(fd, pos, &jobs[i], &pos) < 0)
			break;
	}
	if (fd >= 0)
		close(fd);
}

/* Read the directory, run the policy over every entry and deal the files
 * out to `threads` workers. */
static int
zip_plan(struct ectx *x, const char *path, struct zip_job **jobs_out,
	 size_t *njobs, int threads)
{
	struct archive_entry *e;
	struct zip_job *jobs = NULL;
	size_t n = 0, alloc = 0, *order;
	uint64_t *load;
	int r = 0;

	if ((r = zip_open(path, &x->ar, x->err)) < 0)
		return r;
	for (;;) {
		struct zip_job *j;
		r = archive_read_next_header(x->ar, &e);
		if (r == ARCHIVE_EOF) {
			r = 0;
			break;
		}
		if (r < ARCHIVE_WARN) {
			r = extract_feed_error(x->ar, &x->in, x->err);
			break;
		}
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			jobs = xrealloc(jobs, alloc * sizeof *jobs);
		}
		j = &jobs[n++];
		memset(j, 0, sizeof *j);
		j->data = archive_filter_bytes(x->ar, 0);
		if ((r = extract_policy(x, e)) < 0)
			break;
		if (r > 0) {
			r = 0;
			continue;
		}
		j->rel = xstrdup(archive_entry_pathname(e));
		j->dir = archive_entry_filetype(e) == AE_IFDIR;
		j->size = archive_entry_size(e);
		x->total += (uint64_t)(j->size > 0 ? j->size : 0);
		if (x->total > extract_bytes_allowed(x)) {
			r = extract_reject(
				x, j->rel,
				"makes the archive larger than the limit");
			break;
		}
		/* the folders exist before any worker writes into them */
		{
			char *dir = xstrdup(j->rel), *slash;
			if (!j->dir && (slash = strrchr(dir, '/')) != NULL)
				*slash = '\0';
			if ((j->dir || slash != NULL) &&
			    cv_fs_mkdirs(dir, 0755, x->err) < 0)
				r = x->err->code;
			free(dir);
			if (r < 0)
				break;
		}
	}
	archive_read_free(x->ar);
	x->ar = NULL;
	if (r == 0 && x->names.n == 0)
		r = cv_err_set(x->err, CV_EDATA,
			       "the wheel holds no cuDNN files; is it a cuDNN "
			       "wheel?");
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			free(jobs[i].rel);
		free(jobs);
		return r;
	}
	zip_locate_all(path, jobs, n);
	/* largest first, each to the thread with the least so far */
	order = xcalloc(n ? n : 1, sizeof *order);
	load = xcalloc((size_t)threads, sizeof *load);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t k = i;
		     k > 0 && jobs[order[k]].size > jobs[order[k - 1]].size;
		     k--) {
			size_t t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		int best = 0;
		for (int t = 1; t < threads; t++)
			if (load[t] < load[best])
				best = t;
		jobs[order[i]].thread = best;
		load[best] +=
			(uint64_t)(jobs[order[i]].size > 0 ? jobs[order[i]].size
							   : 0) +
			4096;
	}
	free(order);
	free(load);
	*jobs_out = jobs;
	*njobs = n;
	return 0;
}

/* 1 when the directory lists the very entries the stream delivered. */
static int
plan_matches(const struct zip_job *plan, size_t nplan,
	     const struct zip_job *got, size_t ngot)
{
	if (nplan != ngot)
		return 0;
	for (size_t i = 0; i < nplan; i++) {
		const struct zip_job *a = &plan[i], *b = &got[i];
		if ((a->rel == NULL) != (b->rel == NULL) ||
		    (a->rel != NULL && strcmp(a->rel, b->rel) != 0) ||
		    a->data != b->data || a->dir != b->dir ||
		    (a->rel != NULL && !a->dir && a->size != b->size))
			return 0;
	}
	return 1;
}

void
extract_jobs_free(struct zip_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].rel);
		free(jobs[i].name);
	}
	free(jobs);
}

/* Empty the current folder (the destination) except for the file `keep`
 * (the wheel, when it is spooled there). */
static int
clear_but(const char *keep, struct cv_err *err)
{
	struct stat ks, sb;
	struct dirent *e;
	DIR *d = opendir(".");
	int r = 0, have = stat(keep, &ks) == 0;

	if (d == NULL)
		return cv_err_errno(err, CV_EIO,
				    "cannot list the staging folder");
	while (r == 0 && (e = readdir(d)) != NULL) {
		struct cv_err ignored = CV_ERR_INIT;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (have && lstat(e->d_name, &sb) == 0 &&
		    sb.st_dev == ks.st_dev && sb.st_ino == ks.st_ino)
			continue;
		if (cv_fs_rmtree_at(AT_FDCWD, e->d_name, &ignored) < 0 &&
		    errno != ENOENT)
			r = cv_err_errno(err, CV_EIO, "cannot clear '%s'",
					 e->d_name);
	}
	closedir(d);
	return r;
}

/* Unpack the zip file `path` into `dest` from its central directory. When
 * `streamed` lists what was already unpacked from the local headers while
 * the file arrived, every one of them written in `whole`, and the
 * directory agrees with it entry for entry, that tree is kept; otherwise
 * it is removed and the directory's is written. */
int
extract_zip_unpack(const char *path, const char *dest,
		   const struct cv_extract_limits *limits, int threads,
		   const struct zip_job *streamed, size_t nstreamed, int whole,
		   struct cv_err *err)
{
	struct ectx x;
	struct cv_err dummy = CV_ERR_INIT;
	struct zip_job *jobs = NULL;
	struct zip_worker *w = NULL;
	atomic_int stop = 0;
	size_t njobs = 0;
	int oldcwd, r;
	mode_t oldmask;

	if (err == NULL)
		err = &dummy;
	if (threads < 1)
		threads = 1;
	extract_ctx_init(&x, NULL, limits, err);
	x.zip = 1;
	oldcwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (oldcwd < 0)
		return cv_err_errno(err, CV_EIO,
				    "cannot open the current folder");
	if (chdir(dest) != 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot enter '%s'", dest);
		close(oldcwd);
		return r;
	}
	oldmask = umask(022);
	r = zip_plan(&x, path, &jobs, &njobs, threads);
	if (r == 0 && streamed != NULL && whole &&
	    plan_matches(jobs, njobs, streamed, nstreamed)) {
		threads = 0; /* all of it is on disk already */
	} else if (streamed != NULL) {
		/* the stream and the directory disagree (or the directory
		 * refuses the wheel): nothing streamed may stay, not even a
		 * folder made for an entry the stream gave up on */
		if (clear_but(path, err) < 0 && r == 0)
			r = err->code;
		if (r == 0) {
			/* again, onto the cleared folder */
			extract_jobs_free(jobs, njobs);
			jobs = NULL;
			njobs = 0;
			extract_ctx_release(&x);
			extract_ctx_init(&x, NULL, limits, err);
			x.zip = 1;
			r = zip_plan(&x, path, &jobs, &njobs, threads);
		}
	}
	if (r == 0 && threads > 0) {
		int started = 0, rc = 0;

		w = xcalloc((size_t)threads, sizeof *w);
		for (; started < threads; started++) {
			w[started].path = path;
			w[started].jobs = jobs;
			w[started].njobs = njobs;
			w[started].me = started;
			w[started].stop = &stop;
			rc = pthread_create(&w[started].th, NULL, zip_work,
					    &w[started]);
			if (rc != 0) {
				/* the started ones stop at their next entry */
				atomic_store(&stop, 1);
				r = extract_thread_error(rc, err);
				break;
			}
		}
		for (int t = 0; t < started; t++) {
			pthread_join(w[t].th, NULL);
			if (w[t].rc < 0 && r == 0) {
				*err = w[t].err;
				r = w[t].rc;
			}
		}
		free(w);
		cv_checkpoint("mid-extract");
	}
	umask(oldmask);
	if (fchdir(oldcwd) != 0 && r == 0)
		r = cv_err_errno(err, CV_EIO,
				 "cannot return to the current folder");
	close(oldcwd);
	extract_jobs_free(jobs, njobs);
	extract_ctx_release(&x);
	if (r == 0)
		r = extract_check_tree(dest, err);
	return r;
}

int
cv_extract_zip_file(const char *path, const char *dest,
		    const struct cv_extract_limits *limits, int threads,
		    struct cv_err *err)
{
	return extract_zip_unpack(path, dest, limits, threads, NULL, 0, 0, err);
}

/* ---- one deflated entry in one call --------------------------------------
 * libarchive inflates through zlib a block at a time; libdeflate inflates a
 * whole entry at once about twice as fast when both buffers are whole, and
 * a wheel's entries have known sizes. libarchive still reads the archive's
 * structure (the central directory, checked against each local header) and
 * the policy still decides every name; only the bytes of a deflated file
 * are inflated here, from the spooled wheel mapped in memory straight into
 * the destination file mapped in memory, and checked against the sizes
 * and CRC-32 the headers give. */

#define LOCAL_HEADER_SIZE 30
#define LOCAL_HEADER_SIG  0x04034b50u
#define ZIP_ENCRYPTED     0x0001u
#define ZIP_DESCRIPTOR    0x0008u /* sizes and CRC after the data */
#define ZIP_DEFLATE       8
#define ZIP64_MARK        0xffffffffu

static uint32_t
le16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t
le32(const unsigned char *p)
{
	return le16(p) | le16(p + 2) << 16;
}

int
extract_zip_locate(int fd, int64_t hdr, struct zip_job *j, int64_t *next)
{
	unsigned char h[LOCAL_HEADER_SIZE];
	uint32_t flags, csize, usize;
	int64_t data;

	j->inflatable = 0;
	*next = -1;
	if (hdr < 0 || pread(fd, h, sizeof h, hdr) != (ssize_t)sizeof h ||
	    le32(h) != LOCAL_HEADER_SIG)
		return -1;
	flags = le16(h + 6);
	csize = le32(h + 18);
	usize = le32(h + 22);
	data = hdr + LOCAL_HEADER_SIZE + le16(h + 26) + le16(h + 28);
	/* not the entry libarchive read, or sizes that only a data
	 * descriptor or a zip64 field tell: libarchive inflates it, and
	 * where the next header starts is not known */
	if (data != j->data || (flags & ZIP_DESCRIPTOR) ||
	    csize == ZIP64_MARK || usize == ZIP64_MARK)
		return 0;
	*next = data + csize;
	if (j->name != NULL) {
		size_t len = strlen(j->name);
		char *got;
		int same;

		if (le16(h + 26) != len)
			return 0;
		got = xmalloc(len + 1);
		same = pread(fd, got, len, hdr + LOCAL_HEADER_SIZE) ==
			       (ssize_t)len &&
		       memcmp(got, j->name, len) == 0;
		free(got);
		if (!same)
			return 0;
	}
	if (usize != (uint64_t)j->size || j->dir || (flags & ZIP_ENCRYPTED) ||
	    le16(h + 8) != ZIP_DEFLATE || csize == 0 || usize == 0)
		return 0;
	j->inflatable = 1;
	j->csize = csize;
	j->crc = le32(h + 14);
	return 0;
}

static int
inflate_write_error(const char *rel, struct cv_err *err)
{
	int e = errno;

	return cv_err_errno(err,
			    e == ENOSPC || e == EDQUOT || e == EIO || e == EFBIG
				    ? CV_EIO
				    : CV_ERROR,
			    "cannot write '%s' into the store", rel);
}

int
extract_inflate(struct libdeflate_decompressor *d, int fd,
		const struct zip_job *j, int outfd, const char *rel,
		struct cv_err *err)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t start = (off_t)(j->data - j->data % page);
	size_t lead = (size_t)(j->data - start), inlen = lead + j->csize;
	size_t outlen = (size_t)j->size;
	struct stat sb;
	enum libdeflate_result res;
	unsigned char *in, *out;
	uint32_t crc;

	/* the mapped bytes must exist: past the end of a file, a mapping
	 * faults */
	if (fstat(fd, &sb) != 0 ||
	    (uint64_t)sb.st_size < (uint64_t)j->data + j->csize)
		return cv_err_set(err, CV_EDATA,
				  "corrupt wheel entry '%s': its data runs "
				  "past the end of the file",
				  rel);
	/* The blocks are reserved first: a write through a mapping that
	 * finds the disk full kills the process instead of failing. */
	if (fallocate(outfd, 0, 0, (off_t)outlen) != 0) {
		if (errno == EOPNOTSUPP || errno == ENOSYS)
			return 1;
		return inflate_write_error(rel, err);
	}
	in = mmap(NULL, inlen, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd,
		  start);
	if (in == MAP_FAILED)
		return cv_err_errno(err, CV_ERROR, "cannot map the wheel");
	out = mmap(NULL, outlen, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, outfd, 0);
	if (out == MAP_FAILED) {
		munmap(in, inlen);
		return inflate_write_error(rel, err);
	}
	res = libdeflate_deflate_decompress(d, in + lead, j->csize, out, outlen,
					    NULL);
	crc = res == LIBDEFLATE_SUCCESS ? libdeflate_crc32(0, out, outlen) : 0;
	munmap(in, inlen);
	munmap(out, outlen);
	switch (res) {
	case LIBDEFLATE_SUCCESS:
		break;
	case LIBDEFLATE_INSUFFICIENT_SPACE:
		return cv_err_set(
			err, CV_EDATA,
			"unsafe archive: entry '%s' is larger than its directory entry says; the archive was not installed",
			rel);
	case LIBDEFLATE_SHORT_OUTPUT:
		return cv_err_set(err, CV_EDATA,
				  "corrupt wheel entry '%s': smaller than its "
				  "directory entry says",
				  rel);
	default:
		return cv_err_set(err, CV_EDATA,
				  "corrupt wheel entry '%s': the deflated "
				  "data is damaged",
				  rel);
	}
	if (crc != j->crc)
		return cv_err_set(err, CV_EDATA,
				  "corrupt wheel entry '%s': CRC-32 mismatch",
				  rel);
	sync_file_range(outfd, 0, 0, SYNC_FILE_RANGE_WRITE);
	return 0;
}
