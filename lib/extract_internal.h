/* extract_internal.h: what the extraction engines share; private to
 * lib/extract_*.c.
 *
 *   extract_policy.c  the entry policy every engine applies before a byte
 *                     is written, its errors, and the walk that re-checks
 *                     the finished tree
 *   extract_tar.c     a tar stream (xz, gzip, bzip2 or plain; a zip read
 *                     front to back), xz decoded on several threads
 *   extract_zip.c     a zip file from its central directory, on all cores
 *   extract_stream.c  a wheel unpacked while it downloads, checked against
 *                     the central directory once it is whole */
#ifndef CUDNNVM_EXTRACT_INTERNAL_H
#define CUDNNVM_EXTRACT_INTERNAL_H

#include "internal.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdatomic.h>
#include <stdint.h>

#define EXTRACT_MAX_ENTRIES 100000
#define EXTRACT_MAX_TOTAL   (16ULL << 30)
#define EXTRACT_MAX_PATH    1024
#define EXTRACT_MAX_DEPTH   32

/* Start writing a file back to disk every WRITEBACK_STEP bytes of it and
 * once it is finished, so that the sync before publishing waits for little
 * more than the last few MiB. */
#define WRITEBACK_STEP (32 << 20)

/* The names written so far, to refuse duplicates. */
struct nameset {
	char **slot;
	size_t cap, n;
};

/* A cv_source that libarchive reads; its own error is kept, so that it
 * is reported as it was rather than as libarchive's EIO. */
struct feed {
	struct cv_source *src;
	struct cv_err err;
	int failed;
};

/* The raw archive bytes, with the first block read ahead to tell the
 * format; `nread` counts every byte taken from the source (read on the
 * decompressing thread, checked on the writing one). */
struct peek {
	struct cv_source *inner;
	const void *buf;
	ssize_t len;
	int used;
	atomic_uint_fast64_t nread;
};

/* One extraction's policy state: limits, the top folder, the names seen,
 * the bytes allowed, and where its error goes. */
struct ectx {
	struct feed in;
	struct peek *raw;
	struct archive *ar, *aw;
	struct cv_extract_limits lim;
	char top[256];
	int have_top;
	int zip;
	int pipeline; /* a decompressing thread feeds x.in */
	uint64_t entries, total;
	struct nameset names;
	struct cv_err *err;
};

/* One entry of a zip file, as the central directory (or, while a wheel
 * streams in, its local header) says. */
struct zip_job {
	char *rel; /* the name to write, NULL: skipped */
	int64_t size;
	int64_t data; /* where its bytes start in the file */
	int64_t hdr;  /* where its local header starts; -1: not known */
	char *name;   /* streamed: the name in that header */
	int dir;
	int thread;
	/* from the local header, for libdeflate (extract_zip_locate) */
	int inflatable;
	uint64_t csize; /* the deflated bytes at `data` */
	uint32_t crc;   /* the CRC-32 of the inflated ones */
};

/* extract_policy.c */
void extract_ctx_init(struct ectx *x, struct peek *raw,
		      const struct cv_extract_limits *limits,
		      struct cv_err *err);
void extract_ctx_release(struct ectx *x);
/* Where the engines write: the working folder becomes dest (entry names
 * are relative to it) and the umask 022, the way back kept in *back. */
struct extract_place {
	int oldcwd;
	mode_t oldmask;
};
int extract_enter(const char *dest, struct extract_place *back,
		  struct cv_err *err);
/* Back to where extract_enter was called; r, or the error of the way
 * back when r is 0. */
int extract_leave(struct extract_place *back, int r, struct cv_err *err);
/* 0: write the entry (its pathname rewritten), 1: skip it, <0: refuse the
 * archive with x->err set. */
int extract_policy(struct ectx *x, struct archive_entry *e);
int extract_reject(struct ectx *x, const char *name, const char *why);
uint64_t extract_bytes_allowed(const struct ectx *x);
void extract_safe_name(const char *s, char *out, size_t n);
int extract_feed_error(struct archive *a, const struct feed *f,
		       struct cv_err *err);
void extract_writeback(int dirfd, const char *rel);
/* Add lib64 -> lib where the layout wants it, then walk the finished tree:
 * every link must resolve inside it, only files, folders and links, modes
 * 0644 and 0755. */
int extract_check_tree(const char *dest, struct cv_err *err);
/* A message for a failed pthread_create's return value. */
int extract_thread_error(int rc, struct cv_err *err);

/* extract_zip.c: unpack the zip `path` into `dest` (the cwd is not
 * changed for the caller) from its central directory; see there for
 * `streamed` and `whole`. */
int extract_zip_unpack(const char *path, const char *dest,
		       const struct cv_extract_limits *limits, int threads,
		       const struct zip_job *streamed, size_t nstreamed,
		       int whole, struct cv_err *err);
void extract_jobs_free(struct zip_job *jobs, size_t n);
/* Read the local header at `hdr` of the zip open at `fd`: where the entry
 * after it starts (*next; -1 when the header cannot tell), and, when it
 * agrees with `j` (its data at j->data, j->size bytes inflated, the name
 * j->name unless that is NULL) and
 * libdeflate can take it (deflated, not encrypted, sizes in the header),
 * j->inflatable, j->csize and j->crc. <0: no local header there. */
int extract_zip_locate(int fd, int64_t hdr, struct zip_job *j, int64_t *next);
/* While a wheel streams in, the bytes of the file are waited for and the
 * bytes written counted against the stream's caps: `wait` returns once
 * the file holds `end` bytes (0) or the stream gives up (-1); `wrote`
 * counts `n` more bytes about to be written (-1: over the caps). */
struct inflate_feed {
	int (*wait)(void *ud, uint64_t end);
	int (*wrote)(void *ud, uint64_t n);
	void *ud;
};
/* Inflate entry `j` of the zip open at `fd` into the new, empty file
 * `outfd` in bounded chunks (zlib), or in one call of libdeflate `d` when
 * it is small (d may be NULL), checking its size, where its deflate
 * stream ends and its CRC-32. `feed` NULL: the whole file is there.
 * 0: done; <0: err set, naming `rel`. */
struct libdeflate_decompressor;
int extract_inflate(struct libdeflate_decompressor *d, int fd,
		    const struct zip_job *j, int outfd, const char *rel,
		    const struct inflate_feed *feed, struct cv_err *err);

#endif
