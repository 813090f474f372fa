/* extract_zip.c: a zip file (a wheel) unpacked from its central
 * directory on all cores.
 *
 * A wheel's central directory lists every entry with its offset, so the
 * entries can be inflated independently: the policy runs over the whole
 * directory first (nothing is written unless every entry passes, and the
 * directory's file modes show links a streaming read cannot see), then
 * each thread opens the file with its own reader and writes its share,
 * the largest entries dealt out first to the least loaded thread. */
#include "base/base.h"
#include "install/install_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifndef CV_NO_LIBDEFLATE
#include <libdeflate.h>
#define zip_crc32(c, p, n) libdeflate_crc32(c, p, n)
#else
#define zip_crc32(c, p, n) ((uint32_t)crc32(c, p, (uInt)(n)))
#endif

static int inflate_write_error(const char *rel, struct cv_err *err);
static int inflate_read(int fd, void *buf, size_t n, uint64_t off);
static int inflate_write(int fd, const void *buf, size_t n);
static int inflate_damaged(const char *rel, const char *why,
			   struct cv_err *err);

#ifndef EDQUOT
#define EDQUOT ENOSPC /* where errno.h has no quotas (mingw) */
#endif

#define INFLATE_WHOLE_MAX (1u << 20) /* inflated bytes held in memory */
#define INFLATE_IN_CHUNK  (256u << 10)
#define INFLATE_OUT_CHUNK (1u << 20)

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

static uint64_t
le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* ---- the central directory, read by hand -----------------------------------
 * libarchive's seekable reader takes each entry's name (and, on a
 * mismatch with only a warning, its sizes) from the local header, while
 * pip and every other installer trust the central directory. So the
 * directory is read here too, and each of its records must agree with
 * the local header it points at: the same name byte for byte, the same
 * method, CRC-32 and sizes. A wheel where the two disagree shows one tree
 * to pip and another to a streaming reader; it is refused. */

#define EOCD_SIG       0x06054b50u
#define EOCD_SIZE      22
#define EOCD_TAIL      16384 /* where libarchive looks for it */
#define EOCD64_LOC_SIG 0x07064b50u
#define EOCD64_SIG     0x06064b50u
#define CDIR_SIG       0x02014b50u
#define CDIR_SIZE      46
#define CDIR_MAX       (256u << 20)
#define S_IFMT_ZIP     0170000u
#define S_IFDIR_ZIP    0040000u
#define S_IFLNK_ZIP    0120000u
#define S_IFREG_ZIP    0100000u
#define DOS_REPARSE    0x400u /* FILE_ATTRIBUTE_REPARSE_POINT */

struct cd_rec {
	int64_t hdr; /* where its local header starts */
	uint64_t csize, usize;
	uint32_t crc;
	uint32_t method, flags;
	int dir;   /* a folder by its mode or its trailing slash */
	int link;  /* a symlink by its Unix mode, or a reparse point */
	int other; /* a device, FIFO or socket by its Unix mode */
	const unsigned char *name;
	size_t nlen;
};

struct cdir {
	unsigned char *raw; /* the directory's bytes; names point in */
	struct cd_rec *v;
	size_t n;
};

static void
cdir_free(struct cdir *d)
{
	free(d->raw);
	free(d->v);
	memset(d, 0, sizeof *d);
}

static int
cd_unsafe(struct cv_err *err, const char *why)
{
	return cv_err_set(err, CV_EDATA,
			  "unsafe wheel: its central directory %s; the "
			  "wheel was not installed",
			  why);
}

/* The zip64 field of the extra block [x, x + len) with tag 0x0001: each
 * of *usize, *csize, *off that holds ZIP64_MARK is replaced, in that
 * order, from it. -1 when a marked field has no value there. */
static int
zip64_fields(const unsigned char *x, size_t len, uint64_t *usize,
	     uint64_t *csize, uint64_t *off)
{
	uint64_t *want[3] = { usize, csize, off };

	while (len >= 4) {
		size_t id = le16(x), sz = le16(x + 2), at = 4;
		if (sz + 4 > len)
			return -1;
		if (id == 1) {
			for (int i = 0; i < 3; i++) {
				if (want[i] == NULL || *want[i] != ZIP64_MARK)
					continue;
				if (at + 8 > sz + 4)
					return -1;
				*want[i] = le64(x + at);
				at += 8;
			}
			return 0;
		}
		x += sz + 4;
		len -= sz + 4;
	}
	for (int i = 0; i < 3; i++)
		if (want[i] != NULL && *want[i] == ZIP64_MARK)
			return -1;
	return 0;
}

/* 0 when the extra block [x, x + len) is whole the way libarchive reads
 * it: each field's size within the block, a zip64 field's values in
 * range. */
static int
extra_ok(const unsigned char *x, size_t len)
{
	size_t at = 0;

	/* too short for a field: zeros only (some writers pad) */
	if (len < 4) {
		for (size_t i = 0; i < len; i++)
			if (x[i] != 0)
				return -1;
		return 0;
	}
	while (at + 4 <= len) {
		size_t id = le16(x + at), sz = le16(x + at + 2);
		at += 4;
		if (at + sz > len || (id == 0x9901 /* WinZip AES */ && sz < 6))
			return -1;
		for (size_t k = 0; id == 1 && k + 8 <= sz; k += 8)
			if (le64(x + at + k) > (uint64_t)INT64_MAX)
				return -1;
		at += sz;
	}
	return 0;
}

/* Where the directory is and how many records it holds, from the last end
 * of central directory record in the file's last 16 KiB and, past 65535
 * entries or 4 GiB, its zip64 form. The record must be sane the way
 * libarchive's seekable reader wants it (one volume; the directory whole
 * and before it), and the directory must end right where the record (or
 * the zip64 one) starts: libarchive looks for it there, and a file with
 * bytes before its zip (a self-extractor) or between is refused rather
 * than read two ways. */
static int
cdir_locate(int fd, uint64_t fsize, uint64_t *off, uint64_t *len,
	    uint64_t *count, struct cv_err *err)
{
	size_t tail = fsize < EOCD_TAIL ? (size_t)fsize : EOCD_TAIL;
	unsigned char *t = xmalloc(tail ? tail : 1), l[20], z[56];
	int64_t at = -1;
	int sane = 0;

	if (cv_os_pread(fd, t, tail, (uint64_t)(fsize - tail)) != (long)tail) {
		free(t);
		return cv_err_errno(err, CV_EIO, "cannot read the wheel");
	}
	/* not at the tail's first byte, as libarchive does not look there */
	for (size_t i = tail >= EOCD_SIZE ? tail - EOCD_SIZE + 1 : 0; i-- > 1;)
		if (le32(t + i) == EOCD_SIG) {
			const unsigned char *e = t + i;
			at = (int64_t)(fsize - tail + i);
			*count = le16(e + 10);
			*len = le32(e + 12);
			*off = le32(e + 16);
			sane = le16(e + 4) == 0 && le16(e + 6) == 0 &&
			       le16(e + 8) == le16(e + 10) &&
			       *off + *len == (uint64_t)at;
			break;
		}
	free(t);
	if (at < 0)
		return cd_unsafe(err, "cannot be found");
	if (at >= 20 &&
	    cv_os_pread(fd, l, sizeof l, at - 20) == (long)sizeof l &&
	    le32(l) == EOCD64_LOC_SIG) {
		/* a zip64 locator: its record is the one that counts */
		uint64_t zat = le64(l + 8);
		if (le32(l + 4) != 0 || le32(l + 16) != 1 ||
		    zat > (uint64_t)at - 20 ||
		    cv_os_pread(fd, z, sizeof z, zat) != (long)sizeof z ||
		    le32(z) != EOCD64_SIG || le64(z + 4) + 12 < 56 ||
		    le64(z + 4) + 12 > 16384 || le32(z + 16) != 0 ||
		    le32(z + 20) != 0 || le64(z + 24) != le64(z + 32))
			return cd_unsafe(err,
					 "has no readable zip64 end record");
		*count = le64(z + 32);
		*len = le64(z + 40);
		*off = le64(z + 48);
		if (*off > zat || *len != zat - *off)
			return cd_unsafe(err, "does not end where its zip64 "
					      "end record starts");
		return 0;
	}
	if (*count == 0xffff || *len == ZIP64_MARK || *off == ZIP64_MARK)
		return cd_unsafe(err, "has no readable zip64 end record");
	if (!sane)
		return cd_unsafe(err, "does not end where its end record "
				      "starts");
	return 0;
}

/* What record `c` is, as libarchive tells it: a trailing slash makes a
 * folder whatever the mode says; then a Unix mode's type (made by Unix),
 * or the DOS folder bit (made by MS-DOS). A reparse point (the DOS
 * attribute, whoever made it) is a link here, which libarchive does not
 * know of. */
static void
cd_type(struct cd_rec *c, unsigned host, uint32_t attrs)
{
	uint32_t t = host == 3 ? (attrs >> 16) & S_IFMT_ZIP : 0;
	int slash = c->nlen > 0 && c->name[c->nlen - 1] == '/';

	c->dir = slash || t == S_IFDIR_ZIP || (host == 0 && (attrs & 0x10));
	c->other = !c->dir && t != 0 && t != S_IFLNK_ZIP && t != S_IFREG_ZIP;
	c->link = (!c->dir && t == S_IFLNK_ZIP) || (attrs & DOS_REPARSE) != 0;
}

static int
by_header(const void *pa, const void *pb)
{
	const struct cd_rec *a = pa, *b = pb;

	return a->hdr < b->hdr ? -1 : a->hdr > b->hdr;
}

/* Every record of the directory of the zip open at `fd`, in the order of
 * their local headers (the order libarchive's seekable reader gives). */
static int
cdir_read(int fd, struct cdir *d, struct cv_err *err)
{
	struct cv_stat sb;
	uint64_t off = 0, len = 0, count = 0;
	size_t at = 0;
	int r;

	memset(d, 0, sizeof *d);
	if (cv_os_fstat(fd, &sb) != 0)
		return cv_err_errno(err, CV_EIO, "cannot read the wheel");
	if ((r = cdir_locate(fd, sb.size, &off, &len, &count, err)) < 0)
		return r;
	if (len > CDIR_MAX || off + len > sb.size || count > len / CDIR_SIZE)
		return cd_unsafe(err, "does not fit in the file");
	d->raw = xmalloc(len ? (size_t)len : 1);
	if (cv_os_pread(fd, d->raw, (size_t)len, (uint64_t)off) != (long)len) {
		cdir_free(d);
		return cv_err_errno(err, CV_EIO, "cannot read the wheel");
	}
	d->v = xcalloc(count ? (size_t)count : 1, sizeof *d->v);
	for (; d->n < count; d->n++) {
		const unsigned char *p = d->raw + at;
		struct cd_rec *c = &d->v[d->n];
		size_t nl, xl, cl;
		uint64_t hdr;

		if (at + CDIR_SIZE > len || le32(p) != CDIR_SIG)
			break;
		nl = le16(p + 28);
		xl = le16(p + 30);
		cl = le16(p + 32);
		if (at + CDIR_SIZE + nl + xl + cl > len)
			break;
		c->flags = le16(p + 8);
		c->method = le16(p + 10);
		c->crc = le32(p + 16);
		c->csize = le32(p + 20);
		c->usize = le32(p + 24);
		hdr = le32(p + 42);
		c->name = p + CDIR_SIZE;
		c->nlen = nl;
		if (extra_ok(p + CDIR_SIZE + nl, xl) < 0 ||
		    zip64_fields(p + CDIR_SIZE + nl, xl, &c->usize, &c->csize,
				 &hdr) < 0 ||
		    hdr > (uint64_t)INT64_MAX)
			break;
		c->hdr = (int64_t)hdr;
		cd_type(c, p[5], le32(p + 38));
		at += CDIR_SIZE + nl + xl + cl;
	}
	/* its records fill it: libarchive reads records up to the end
	 * record, whatever the count says */
	if (d->n != count || at != len) {
		cdir_free(d);
		return cd_unsafe(err, "is damaged");
	}
	qsort(d->v, d->n, sizeof *d->v, by_header);
	for (size_t i = 1; i < d->n; i++)
		if (d->v[i].hdr == d->v[i - 1].hdr) {
			cdir_free(d);
			return cd_unsafe(err, "lists one local header twice");
		}
	return 0;
}

/* A printable copy of the name [s, s + n) for a message. */
static void
cd_name(const unsigned char *s, size_t n, char *out, size_t outlen)
{
	char *z = xstrndup((const char *)s, n);

	extract_safe_name(z, out, outlen);
	free(z);
}

/* 0 when the local header that record `c` points at agrees with it. */
static int
cdir_agrees(int fd, const struct cd_rec *c, int64_t *data, struct cv_err *err)
{
	unsigned char h[LOCAL_HEADER_SIZE], *rest;
	char cn[300], ln[300];
	size_t nl, xl;
	uint64_t csize, usize;
	uint32_t flags;
	const char *why = NULL;

	if (cv_os_pread(fd, h, sizeof h, c->hdr) != (long)sizeof h ||
	    le32(h) != LOCAL_HEADER_SIG) {
		cd_name(c->name, c->nlen, cn, sizeof cn);
		return cv_err_set(err, CV_EDATA,
				  "unsafe wheel: entry '%s' of the central "
				  "directory has no local header; the wheel "
				  "was not installed",
				  cn);
	}
	flags = le16(h + 6);
	nl = le16(h + 26);
	xl = le16(h + 28);
	csize = le32(h + 18);
	usize = le32(h + 22);
	rest = xmalloc(nl + xl + 1);
	if (cv_os_pread(fd, rest, nl + xl, c->hdr + LOCAL_HEADER_SIZE) !=
	    (long)(nl + xl))
		why = "a local header cut short";
	else if (nl != c->nlen || memcmp(rest, c->name, nl) != 0)
		why = "another name";
	else if (extra_ok(rest + nl, xl) < 0)
		why = "a damaged extra field";
	else if (le16(h + 8) != c->method)
		why = "another compression method";
	else if (flags != c->flags)
		/* libarchive goes by the local header's (encryption, a
		 * data descriptor), pip by the directory's */
		why = "other flags";
	else if (c->dir && c->usize != 0)
		why = "data in a folder";
	else if (!(flags & ZIP_DESCRIPTOR) || le32(h + 14) != 0 || csize != 0 ||
		 usize != 0) {
		/* the sizes and CRC are there, not in a data descriptor */
		if (zip64_fields(rest + nl, xl, &usize, &csize, NULL) < 0)
			why = "a damaged zip64 field";
		else if (le32(h + 14) != c->crc)
			why = "another CRC-32";
		else if (csize != c->csize || usize != c->usize)
			why = "another size";
	}
	if (why == NULL) {
		free(rest);
		if (data != NULL)
			*data = c->hdr + LOCAL_HEADER_SIZE + (int64_t)(nl + xl);
		return 0;
	}
	cd_name(c->name, c->nlen, cn, sizeof cn);
	ln[0] = '\0';
	if (strcmp(why, "another name") == 0) {
		snprintf(ln, sizeof ln, " ('");
		cd_name(rest, nl, ln + 3, sizeof ln - 5);
		strcat(ln, "')");
	}
	free(rest);
	return cv_err_set(err, CV_EDATA,
			  "unsafe wheel: entry '%s' of the central directory "
			  "has %s in its local header%s; the wheel was not "
			  "installed",
			  cn, why, ln);
}

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

/* What a wheel's .dist-info says of it, gathered as zip_plan meets the
 * entries, for lim.check_dist_info. */
struct dist_info {
	char *dir;  /* the one X.dist-info folder */
	char *text; /* its WHEEL file */
};

#define WHEEL_FILE_MAX (64u << 10)

static int plan_job(struct ectx *x, struct zip_job *j);
static int plan_finish(struct ectx *x, struct dist_info *di,
		       struct zip_job *jobs, size_t n, int threads,
		       struct zip_job **jobs_out, size_t *njobs);
static void plan_drop(struct dist_info *di, struct zip_job *jobs, size_t n);

#ifndef CV_NO_LIBARCHIVE
/* Entry `j` into a new file j->rel (below the cwd), inflated here. */
static int
inflate_file(struct libdeflate_decompressor *inflater, int fd,
	     const struct zip_job *j, struct cv_err *err)
{
	int out = cv_os_open(j->rel,
			     CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL |
				     CV_OPEN_NOFOLLOW,
			     0644);
	int r;

	if (out < 0)
		return inflate_write_error(j->rel, err);
	r = extract_inflate(inflater, fd, j, out, j->rel, NULL, err);
	if (cv_os_close(out) != 0 && r == 0)
		r = inflate_write_error(j->rel, err);
	return r;
}

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
	/* without it, every entry goes through libarchive; without
	 * libdeflate's (no memory), every one in chunks */
	if ((fd = cv_os_open(w->path, CV_OPEN_READ, 0)) >= 0)
		inflater = libdeflate_alloc_decompressor();
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
		if (j->inflatable && fd >= 0) {
			if ((r = inflate_file(inflater, fd, j, &w->err)) < 0) {
				w->rc = r;
				break;
			}
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
				extract_writeback(CV_AT_CWD, j->rel);
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
			extract_writeback(CV_AT_CWD, j->rel);
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
	if (inflater != NULL)
		libdeflate_free_decompressor(inflater);
	if (fd >= 0)
		cv_os_close(fd);
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
	int fd = cv_os_open(path, CV_OPEN_READ, 0);
	int64_t pos = 0;

	for (size_t i = 0; fd >= 0 && i < n && pos >= 0; i++) {
		jobs[i].hdr = pos;
		if (extract_zip_locate(fd, pos, &jobs[i], &pos) < 0)
			break;
	}
	if (fd >= 0)
		cv_os_close(fd);
}

/* Note entry `e` (as named in both the directory and its local header)
 * when it is in a .dist-info folder, reading its WHEEL file. */
static int
dist_info_note(struct ectx *x, struct archive_entry *e, struct dist_info *d)
{
	const char *name = archive_entry_pathname(e);
	size_t l0 = name ? strcspn(name, "/") : 0;
	la_int64_t size = archive_entry_size(e);

	if (l0 <= 10 || strncmp(name + l0 - 10, ".dist-info", 10) != 0)
		return 0;
	if (d->dir == NULL)
		d->dir = xstrndup(name, l0);
	else if (strlen(d->dir) != l0 || strncmp(d->dir, name, l0) != 0)
		return extract_reject(x, name,
				      "is in a second .dist-info folder");
	if (name[l0] != '/' || strcmp(name + l0 + 1, "WHEEL") != 0 ||
	    archive_entry_filetype(e) != AE_IFREG)
		return 0;
	if (d->text != NULL)
		return extract_reject(x, name, "is a duplicate");
	if (size < 0 || size > (la_int64_t)WHEEL_FILE_MAX)
		return extract_reject(x, name, "is larger than a WHEEL file");
	d->text = xmalloc((size_t)size + 1);
	if (archive_read_data(x->ar, d->text, (size_t)size) != size)
		return cv_err_set(x->err, CV_EDATA, "corrupt wheel entry '%s'",
				  name);
	d->text[size] = '\0';
	return 0;
}

/* Read the directory, run the policy over every entry and deal the files
 * out to `threads` workers. */
static int
zip_plan(struct ectx *x, const char *path, struct zip_job **jobs_out,
	 size_t *njobs, int threads)
{
	struct archive_entry *e;
	struct zip_job *jobs = NULL;
	size_t n = 0, alloc = 0;
	struct cdir cd;
	struct dist_info di = { NULL, NULL };
	int r = 0, fd;

	if ((r = zip_open(path, &x->ar, x->err)) < 0)
		return r;
	if ((fd = cv_os_open(path, CV_OPEN_READ, 0)) < 0 ||
	    (r = cdir_read(fd, &cd, x->err)) < 0) {
		if (fd < 0)
			r = cv_err_errno(x->err, CV_EIO, "cannot read '%s'",
					 path);
		else
			cv_os_close(fd);
		archive_read_free(x->ar);
		x->ar = NULL;
		return r;
	}
	for (;;) {
		struct zip_job *j;
		r = archive_read_next_header(x->ar, &e);
		if (r == ARCHIVE_EOF) {
			r = n == cd.n ? 0
				      : cd_unsafe(x->err,
						  "and libarchive disagree on "
						  "the entries");
			break;
		}
		if (r < ARCHIVE_WARN) {
			r = extract_feed_error(x->ar, &x->in, x->err);
			break;
		}
		/* libarchive gives the entries in the order of their local
		 * headers, as cd.v is sorted: the n-th is cd.v[n] */
		if (n >= cd.n) {
			r = cd_unsafe(x->err,
				      "and libarchive disagree on the entries");
			break;
		}
		if ((r = cdir_agrees(fd, &cd.v[n], NULL, x->err)) < 0)
			break;
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			jobs = xrealloc(jobs, alloc * sizeof *jobs);
		}
		j = &jobs[n++];
		memset(j, 0, sizeof *j);
		j->data = archive_filter_bytes(x->ar, 0);
		if (x->lim.check_dist_info != NULL &&
		    (r = dist_info_note(x, e, &di)) < 0)
			break;
		if ((r = extract_policy(x, e)) < 0)
			break;
		if (r > 0) {
			r = 0;
			continue;
		}
		j->rel = xstrdup(archive_entry_pathname(e));
		j->dir = archive_entry_filetype(e) == AE_IFDIR;
		j->size = archive_entry_size(e);
		if ((r = plan_job(x, j)) < 0)
			break;
	}
	archive_read_free(x->ar);
	x->ar = NULL;
	cdir_free(&cd);
	cv_os_close(fd);
	if (r == 0) {
		zip_locate_all(path, jobs, n);
		r = plan_finish(x, &di, jobs, n, threads, jobs_out, njobs);
	} else
		plan_drop(&di, jobs, n);
	return r;
}
#endif /* CV_NO_LIBARCHIVE */

static void
plan_drop(struct dist_info *di, struct zip_job *jobs, size_t n)
{
	free(di->dir);
	free(di->text);
	for (size_t i = 0; i < n; i++)
		free(jobs[i].rel);
	free(jobs);
}

/* A job to write, counted against the limit, its folders made. */
static int
plan_job(struct ectx *x, struct zip_job *j)
{
	char *dir, *slash = NULL;
	int r = 0;

	x->total += (uint64_t)(j->size > 0 ? j->size : 0);
	if (x->total > extract_bytes_allowed(x))
		return extract_reject(
			x, j->rel, "makes the archive larger than the limit");
	/* the folders exist before any worker writes into them */
	dir = xstrdup(j->rel);
	if (!j->dir && (slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	if ((j->dir || slash != NULL) && cv_fs_mkdirs(dir, 0755, x->err) < 0)
		r = x->err->code;
	free(dir);
	return r;
}

/* The plan's last checks, then the files dealt out to the threads. */
static int
plan_finish(struct ectx *x, struct dist_info *di, struct zip_job *jobs,
	    size_t n, int threads, struct zip_job **jobs_out, size_t *njobs)
{
	size_t *order;
	uint64_t *load;
	int r = 0;

	if (x->lim.check_dist_info != NULL)
		r = x->lim.check_dist_info(x->lim.payload, di->dir, di->text,
					   x->err);
	if (r == 0 && x->names.n == 0)
		r = cv_err_set(x->err, CV_EDATA,
			       x->lim.wheel ? "the wheel holds no cuDNN files; "
					      "is it a cuDNN wheel?"
					    : "the archive holds no files; is "
					      "it a cuDNN archive?");
	if (r < 0) {
		plan_drop(di, jobs, n);
		return r;
	}
	free(di->dir);
	free(di->text);
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

/* ---- the project's reader: the central directory alone ------------------
 * Where there is no libarchive (Windows), the directory read above is the
 * listing: each record checked against its local header (cdir_agrees),
 * the same policy, and the entries written here, deflated ones through
 * zlib's streaming inflate, stored ones copied, each checked against the
 * directory's size and CRC-32. On Linux, fuzz_zipdir.c holds this listing
 * to libarchive's. */

void
extract_zip_list_free(struct zip_listed *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int
extract_zip_list(int fd, struct zip_listed **out, size_t *n, struct cv_err *err)
{
	struct cdir cd;
	struct zip_listed *v;
	struct cv_stat sb;
	int r;

	*out = NULL;
	*n = 0;
	if ((r = cdir_read(fd, &cd, err)) < 0)
		return r;
	if (cv_os_fstat(fd, &sb) != 0) {
		cdir_free(&cd);
		return cv_err_errno(err, CV_EIO, "cannot read the archive");
	}
	v = xcalloc(cd.n ? cd.n : 1, sizeof *v);
	for (size_t i = 0; i < cd.n; i++) {
		const struct cd_rec *c = &cd.v[i];
		struct zip_listed *e = &v[i];
		int64_t data = 0;

		if ((r = cdir_agrees(fd, c, &data, err)) < 0)
			break;
		if (memchr(c->name, '\0', c->nlen) != NULL) {
			r = cd_unsafe(err, "names an entry with a NUL byte");
			break;
		}
		if ((uint64_t)data > sb.size ||
		    c->csize > sb.size - (uint64_t)data) {
			r = cd_unsafe(err, "has an entry that runs past the "
					   "end of the file");
			break;
		}
		if (c->link && c->method != 0) {
			/* libarchive reads a link's target as it lists, stored
			 * only; every link is refused later anyway */
			r = cd_unsafe(err, "has a compressed link");
			break;
		}
		e->name = xstrndup((const char *)c->name, c->nlen);
		e->type = c->link    ? XE_LINK
			  : c->other ? XE_OTHER
			  : c->dir   ? XE_DIR
				     : XE_FILE;
		e->size = c->usize;
		e->csize = c->csize;
		e->crc = c->crc;
		e->method = c->method;
		e->flags = c->flags;
		e->data = data;
		*n = i + 1;
	}
	cdir_free(&cd);
	if (r < 0) {
		extract_zip_list_free(v, *n);
		*n = 0;
		return r;
	}
	*out = v;
	return 0;
}

/* A small stored or deflated entry (a wheel's WHEEL file) into memory. */
static int
read_small(int fd, const struct zip_listed *e, char **text, struct cv_err *err)
{
	unsigned char *in = xmalloc(e->csize ? (size_t)e->csize : 1);
	char *out = xmalloc((size_t)e->size + 1);
	int ok = inflate_read(fd, in, (size_t)e->csize, (uint64_t)e->data) == 0;

	if (ok && e->method == 0)
		memcpy(out, in, (size_t)e->size);
	else if (ok) {
		z_stream z;
		memset(&z, 0, sizeof z);
		ok = inflateInit2(&z, -MAX_WBITS) == Z_OK;
		if (ok) {
			z.next_in = in;
			z.avail_in = (uInt)e->csize;
			z.next_out = (unsigned char *)out;
			z.avail_out = (uInt)e->size;
			ok = inflate(&z, Z_FINISH) == Z_STREAM_END &&
			     z.total_out == e->size;
			inflateEnd(&z);
		}
	}
	if (ok)
		ok = zip_crc32(0, (unsigned char *)out, (size_t)e->size) ==
		     e->crc;
	free(in);
	if (!ok) {
		free(out);
		return cv_err_set(err, CV_EDATA, "corrupt wheel entry '%s'",
				  e->name);
	}
	out[e->size] = '\0';
	*text = out;
	return 0;
}

/* dist_info_note's twin for an entry of the project's listing. */
static int
dist_info_own(struct ectx *x, int fd, const struct zip_listed *e,
	      struct dist_info *d)
{
	const char *name = e->name;
	size_t l0 = strcspn(name, "/");

	if (l0 <= 10 || strncmp(name + l0 - 10, ".dist-info", 10) != 0)
		return 0;
	if (d->dir == NULL)
		d->dir = xstrndup(name, l0);
	else if (strlen(d->dir) != l0 || strncmp(d->dir, name, l0) != 0)
		return extract_reject(x, name,
				      "is in a second .dist-info folder");
	if (name[l0] != '/' || strcmp(name + l0 + 1, "WHEEL") != 0 ||
	    e->type != XE_FILE)
		return 0;
	if (d->text != NULL)
		return extract_reject(x, name, "is a duplicate");
	if (e->size > WHEEL_FILE_MAX || e->csize > WHEEL_FILE_MAX ||
	    (e->method != 0 && e->method != ZIP_DEFLATE))
		return extract_reject(x, name, "is larger than a WHEEL file");
	return read_small(fd, e, &d->text, x->err);
}

/* zip_plan's twin on the project's listing. */
static int
zip_plan_own(struct ectx *x, const char *path, struct zip_job **jobs_out,
	     size_t *njobs, int threads)
{
	struct zip_listed *v = NULL;
	struct zip_job *jobs;
	struct dist_info di = { NULL, NULL };
	size_t n = 0, i;
	int r, fd = cv_os_open(path, CV_OPEN_READ, 0);

	if (fd < 0)
		return cv_err_errno(x->err, CV_EIO, "cannot read '%s'", path);
	if ((r = extract_zip_list(fd, &v, &n, x->err)) < 0) {
		cv_os_close(fd);
		return r;
	}
	jobs = xcalloc(n ? n : 1, sizeof *jobs);
	for (i = 0; i < n && r == 0; i++) {
		const struct zip_listed *e = &v[i];
		struct xentry xe = { e->name, e->type, (int64_t)e->size, NULL,
				     NULL };
		struct zip_job *j = &jobs[i];
		char *rel = NULL;

		j->data = e->data;
		j->hdr = -1;
		if (x->lim.check_dist_info != NULL &&
		    (r = dist_info_own(x, fd, e, &di)) < 0)
			break;
		if ((r = extract_policy_entry(x, &xe, &rel)) != 0) {
			r = r > 0 ? 0 : r;
			continue;
		}
		j->rel = rel;
		j->dir = e->type == XE_DIR;
		j->size = (int64_t)e->size;
		j->csize = e->csize;
		j->crc = e->crc;
		j->inflatable = e->method == ZIP_DEFLATE;
		if (!j->dir && (e->flags & ZIP_ENCRYPTED))
			r = extract_reject(x, e->name, "is encrypted");
		else if (!j->dir && e->method != 0 && e->method != ZIP_DEFLATE)
			r = extract_reject(x, e->name,
					   "uses a compression method other "
					   "than deflate or none");
		else if (!j->dir && e->method == 0 && e->csize != e->size)
			r = extract_reject(x, e->name,
					   "is stored with two sizes");
		else if (j->dir && e->size != 0)
			r = extract_reject(x, e->name, "is a folder with data");
		else
			r = plan_job(x, j);
	}
	cv_os_close(fd);
	extract_zip_list_free(v, n);
	if (r < 0) {
		plan_drop(&di, jobs, n);
		return r;
	}
	return plan_finish(x, &di, jobs, n, threads, jobs_out, njobs);
}

/* A stored entry copied, its size and CRC-32 checked. */
static int
copy_stored(int fd, const struct zip_job *j, int outfd, struct cv_err *err)
{
	unsigned char *buf = xmalloc(INFLATE_OUT_CHUNK);
	uint64_t done = 0, size = (uint64_t)j->size;
	uint32_t crc = 0;
	int r = 0;

	while (r == 0 && done < size) {
		size_t n = size - done < INFLATE_OUT_CHUNK
				   ? (size_t)(size - done)
				   : INFLATE_OUT_CHUNK;
		if (inflate_read(fd, buf, n, (uint64_t)j->data + done) != 0)
			r = inflate_damaged(j->rel,
					    "its data runs past the end of "
					    "the file",
					    err);
		else if (inflate_write(outfd, buf, n) != 0)
			r = inflate_write_error(j->rel, err);
		crc = zip_crc32(crc, buf, n);
		done += n;
	}
	free(buf);
	if (r == 0 && crc != j->crc)
		r = inflate_damaged(j->rel, "CRC-32 mismatch", err);
	return r;
}

/* zip_work's twin: this worker's files of the project's plan. */
static void *
zip_work_own(void *arg)
{
	struct zip_worker *w = arg;
	struct libdeflate_decompressor *inflater = NULL;
	int fd = cv_os_open(w->path, CV_OPEN_READ, 0);

	if (fd < 0) {
		w->rc = cv_err_errno(&w->err, CV_EIO, "cannot read '%s'",
				     w->path);
		atomic_store(w->stop, 1);
		return NULL;
	}
#ifndef CV_NO_LIBDEFLATE
	inflater = libdeflate_alloc_decompressor();
#endif
	for (size_t i = 0; i < w->njobs && !atomic_load(w->stop); i++) {
		const struct zip_job *j = &w->jobs[i];
		int out;

		if (j->rel == NULL || j->dir || j->thread != w->me)
			continue;
		out = cv_os_open(j->rel,
				 CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL |
					 CV_OPEN_NOFOLLOW,
				 0644);
		if (out < 0) {
			w->rc = inflate_write_error(j->rel, &w->err);
			break;
		}
		w->rc = j->inflatable ? extract_inflate(inflater, fd, j, out,
							j->rel, NULL, &w->err)
				      : copy_stored(fd, j, out, &w->err);
		if (cv_os_close(out) != 0 && w->rc == 0)
			w->rc = inflate_write_error(j->rel, &w->err);
		if (w->rc < 0)
			break;
	}
	if (w->rc < 0)
		atomic_store(w->stop, 1);
#ifndef CV_NO_LIBDEFLATE
	if (inflater != NULL)
		libdeflate_free_decompressor(inflater);
#endif
	cv_os_close(fd);
	return NULL;
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
	struct cv_stat ks, sb;
	struct cv_dir *d = cv_dir_open(".");
	const char *e;
	int r = 0, have = cv_os_stat(keep, &ks) == 0;

	if (d == NULL)
		return cv_err_errno(err, CV_EIO,
				    "cannot list the staging folder");
	while (r == 0 && (e = cv_dir_next(d, NULL)) != NULL) {
		struct cv_err ignored = CV_ERR_INIT;
		if (have && cv_os_lstat(e, &sb) == 0 &&
		    cv_os_same_file(&sb, &ks))
			continue;
		if (cv_fs_rmtree_at(CV_AT_CWD, e, &ignored) < 0 &&
		    errno != ENOENT)
			r = cv_err_errno(err, CV_EIO, "cannot clear '%s'", e);
	}
	cv_dir_close(d);
	return r;
}

/* Unpack the zip file `path` into `dest` from its central directory. When
 * `streamed` lists what was already unpacked from the local headers while
 * the file arrived, every one of them written in `whole`, and the
 * directory agrees with it entry for entry, that tree is kept; otherwise
 * it is removed and the directory's is written. */
/* Without libarchive, the project's reader is the only one. */
#ifdef CV_NO_LIBARCHIVE
#define ZIP_OWN 1
#else
#define ZIP_OWN 0
#endif

static int
zip_plan_with(int own, struct ectx *x, const char *path,
	      struct zip_job **jobs_out, size_t *njobs, int threads)
{
#ifndef CV_NO_LIBARCHIVE
	if (!own)
		return zip_plan(x, path, jobs_out, njobs, threads);
#endif
	return zip_plan_own(x, path, jobs_out, njobs, threads);
}

static int zip_unpack(const char *path, const char *dest,
		      const struct cv_extract_limits *limits, int threads,
		      const struct zip_job *streamed, size_t nstreamed,
		      int whole, int own, struct cv_err *err);

int
extract_zip_unpack(const char *path, const char *dest,
		   const struct cv_extract_limits *limits, int threads,
		   const struct zip_job *streamed, size_t nstreamed, int whole,
		   struct cv_err *err)
{
	return zip_unpack(path, dest, limits, threads, streamed, nstreamed,
			  whole, ZIP_OWN, err);
}

int
cv_extract_zip_file_own(const char *path, const char *dest,
			const struct cv_extract_limits *limits, int threads,
			struct cv_err *err)
{
	return zip_unpack(path, dest, limits, threads, NULL, 0, 0, 1, err);
}

static int
zip_unpack(const char *path, const char *dest,
	   const struct cv_extract_limits *limits, int threads,
	   const struct zip_job *streamed, size_t nstreamed, int whole, int own,
	   struct cv_err *err)
{
	struct ectx x;
	struct cv_err dummy = CV_ERR_INIT;
	struct zip_job *jobs = NULL;
	struct zip_worker *w = NULL;
	atomic_int stop = 0;
	size_t njobs = 0;
	struct extract_place back;
	int r;

	if (err == NULL)
		err = &dummy;
	if (threads < 1)
		threads = 1;
	extract_ctx_init(&x, NULL, limits, err);
	x.zip = 1;
	if ((r = extract_enter(dest, &back, err)) < 0)
		return r;
	r = zip_plan_with(own, &x, path, &jobs, &njobs, threads);
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
			r = zip_plan_with(own, &x, path, &jobs, &njobs,
					  threads);
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
#ifndef CV_NO_LIBARCHIVE
			rc = pthread_create(&w[started].th, NULL,
					    own ? zip_work_own : zip_work,
					    &w[started]);
#else
			rc = pthread_create(&w[started].th, NULL, zip_work_own,
					    &w[started]);
#endif
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
	r = extract_leave(&back, r, err);
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

/* ---- one deflated entry, in bounded memory ------------------------------
 * libarchive inflates through zlib a block at a time, libarchive's own
 * way; here a wheel's deflated files are inflated from the spooled wheel
 * straight into their staging file in fixed chunks (zlib's streaming
 * inflate: the memory an install takes does not grow with the size of
 * its largest file), and checked against the sizes and CRC-32 the headers
 * give. A file small enough to hold twice goes through libdeflate in one
 * call, which is faster. libarchive still reads the archive's structure
 * (the central directory, which zip_plan checks against each local
 * header) and the policy still decides every name. The deflate stream
 * must end exactly where its compressed size says: a stream that stops
 * short of it, or does not end by it, is damaged. */

int
extract_zip_locate(int fd, int64_t hdr, struct zip_job *j, int64_t *next)
{
	unsigned char h[LOCAL_HEADER_SIZE];
	uint32_t flags, csize, usize;
	int64_t data;

	j->inflatable = 0;
	*next = -1;
	if (hdr < 0 || cv_os_pread(fd, h, sizeof h, hdr) != (long)sizeof h ||
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
		same = cv_os_pread(fd, got, len, hdr + LOCAL_HEADER_SIZE) ==
			       (long)len &&
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

static int
inflate_read(int fd, void *buf, size_t n, uint64_t off)
{
	char *p = buf;

	while (n > 0) {
		long got = cv_os_pread(fd, p, n, off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		p += got;
		off += (uint64_t)got;
		n -= (size_t)got;
	}
	return 0;
}

static int
inflate_write(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		long put = cv_os_write(fd, p, n);
		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0)
			return -1;
		p += put;
		n -= (size_t)put;
	}
	return 0;
}

static int
inflate_too_large(const char *rel, struct cv_err *err)
{
	return cv_err_set(
		err, CV_EDATA,
		"unsafe archive: entry '%s' is larger than its directory entry says; the archive was not installed",
		rel);
}

static int
inflate_damaged(const char *rel, const char *why, struct cv_err *err)
{
	return cv_err_set(err, CV_EDATA, "corrupt wheel entry '%s': %s", rel,
			  why);
}

#define WHY_SHORT "smaller than its directory entry says"
#define WHY_BAD   "the deflated data is damaged"
#define WHY_EARLY "its deflate stream ends before its compressed size does"
#define WHY_LONG  "its deflate stream runs past its compressed size"

/* The bytes [off, off + n) of the wheel are on disk: waited for through
 * `feed` while it streams in, else checked against its size. */
static int
inflate_have(int fd, const struct inflate_feed *feed, uint64_t end,
	     const char *rel, struct cv_err *err)
{
	struct cv_stat sb;

	if (feed != NULL)
		return feed->wait(feed->ud, end) == 0
			       ? 0
			       : cv_err_set(err, CV_EDATA, "stopped");
	if (cv_os_fstat(fd, &sb) != 0 || sb.size < end)
		return inflate_damaged(
			rel, "its data runs past the end of the file", err);
	return 0;
}

static int
inflate_account(const struct inflate_feed *feed, uint64_t n, struct cv_err *err)
{
	if (feed != NULL && feed->wrote(feed->ud, n) != 0)
		return cv_err_set(err, CV_EDATA, "over the stream's caps");
	return 0;
}

#ifndef CV_NO_LIBDEFLATE
/* A small entry in one call of libdeflate. */
static int
inflate_whole(struct libdeflate_decompressor *d, int fd,
	      const struct zip_job *j, int outfd, const char *rel,
	      const struct inflate_feed *feed, struct cv_err *err)
{
	size_t outlen = (size_t)j->size, used = 0;
	unsigned char *in, *out;
	enum libdeflate_result res;
	int r;

	if ((r = inflate_have(fd, feed, (uint64_t)j->data + j->csize, rel,
			      err)) < 0 ||
	    (r = inflate_account(feed, outlen, err)) < 0)
		return r;
	in = xmalloc((size_t)j->csize);
	out = xmalloc(outlen);
	if (inflate_read(fd, in, (size_t)j->csize, (uint64_t)j->data) != 0) {
		r = cv_err_errno(err, CV_EIO, "cannot read the wheel");
		goto out;
	}
	res = libdeflate_deflate_decompress_ex(d, in, (size_t)j->csize, out,
					       outlen, &used, NULL);
	if (res == LIBDEFLATE_INSUFFICIENT_SPACE)
		r = inflate_too_large(rel, err);
	else if (res == LIBDEFLATE_SHORT_OUTPUT)
		r = inflate_damaged(rel, WHY_SHORT, err);
	else if (res != LIBDEFLATE_SUCCESS)
		/* libdeflate reads past the end as zeros, and then fails */
		r = inflate_damaged(rel, WHY_BAD, err);
	else if (used != j->csize)
		r = inflate_damaged(rel, WHY_EARLY, err);
	else if (libdeflate_crc32(0, out, outlen) != j->crc)
		r = inflate_damaged(rel, "CRC-32 mismatch", err);
	else if (inflate_write(outfd, out, outlen) != 0)
		r = inflate_write_error(rel, err);
out:
	free(in);
	free(out);
	return r;
}
#endif

/* A large entry in chunks of zlib's streaming inflate; `in` and `out` are
 * the chunk buffers. */
static int
inflate_chunks(z_stream *s, unsigned char *in, unsigned char *out, int fd,
	       const struct zip_job *j, int outfd, const char *rel,
	       const struct inflate_feed *feed, struct cv_err *err)
{
	uint64_t taken = 0, total = 0;
	uint32_t crc = 0;
	int zr = Z_OK, r;

	for (;;) {
		size_t made;

		if (s->avail_in == 0 && taken < j->csize) {
			size_t n = j->csize - taken < INFLATE_IN_CHUNK
					   ? (size_t)(j->csize - taken)
					   : INFLATE_IN_CHUNK;
			uint64_t at = (uint64_t)j->data + taken;
			if ((r = inflate_have(fd, feed, at + n, rel, err)) < 0)
				return r;
			if (inflate_read(fd, in, n, at) != 0)
				return cv_err_errno(err, CV_EIO,
						    "cannot read the wheel");
			s->next_in = in;
			s->avail_in = (uInt)n;
			taken += n;
		}
		s->next_out = out;
		s->avail_out = INFLATE_OUT_CHUNK;
		zr = inflate(s, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			return inflate_damaged(rel, WHY_BAD, err);
		made = INFLATE_OUT_CHUNK - s->avail_out;
		if (total + made > (uint64_t)j->size)
			return inflate_too_large(rel, err);
		if (made > 0) {
			if ((r = inflate_account(feed, made, err)) < 0)
				return r;
			crc = zip_crc32(crc, out, made);
			if (inflate_write(outfd, out, made) != 0)
				return inflate_write_error(rel, err);
			if ((total + made) / WRITEBACK_STEP !=
			    total / WRITEBACK_STEP)
				cv_os_writeback(outfd, 0, 0);
			total += made;
		}
		if (zr == Z_STREAM_END)
			break;
		if (made == 0 && s->avail_in == 0 && taken == j->csize)
			return inflate_damaged(rel, WHY_LONG, err);
	}
	if (s->avail_in != 0 || taken != j->csize)
		return inflate_damaged(rel, WHY_EARLY, err);
	if (total != (uint64_t)j->size)
		return inflate_damaged(rel, WHY_SHORT, err);
	if (crc != j->crc)
		return inflate_damaged(rel, "CRC-32 mismatch", err);
	return 0;
}

int
extract_inflate(struct libdeflate_decompressor *d, int fd,
		const struct zip_job *j, int outfd, const char *rel,
		const struct inflate_feed *feed, struct cv_err *err)
{
	unsigned char *in, *out;
	z_stream s;
	int r;

#ifndef CV_NO_LIBDEFLATE
	if (d != NULL && (uint64_t)j->size <= INFLATE_WHOLE_MAX &&
	    j->csize <= INFLATE_WHOLE_MAX)
		r = inflate_whole(d, fd, j, outfd, rel, feed, err);
	else
#endif
	{
		memset(&s, 0, sizeof s);
		/* raw deflate, as a zip holds it */
		if (inflateInit2(&s, -MAX_WBITS) != Z_OK)
			return cv_err_set(err, CV_ERROR,
					  "cannot start inflating '%s'", rel);
		in = xmalloc(INFLATE_IN_CHUNK);
		out = xmalloc(INFLATE_OUT_CHUNK);
		r = inflate_chunks(&s, in, out, fd, j, outfd, rel, feed, err);
		inflateEnd(&s);
		free(in);
		free(out);
	}
	if (r == 0)
		cv_os_writeback(outfd, 0, 0);
	return r;
}

#ifdef CV_NO_LIBARCHIVE
/* ---- without libarchive (Windows) ---------------------------------------
 * An archive arrives as a stream (hashed as it is read); its zip's
 * directory is at its end, so the stream is spooled into the staging
 * folder first and then unpacked by the project's reader, and a wheel is
 * unpacked once it is whole, not while it arrives. Only zips: NVIDIA's
 * Windows archives are zips, and there is no xz reader here. */
#define ARCHIVE_SPOOL ".cudnnvm-archive"

int
cv_extract(struct cv_source *src, const char *dest,
	   const struct cv_extract_limits *limits, struct cv_err *err)
{
	char *spool = cv_path_join(dest, ARCHIVE_SPOOL);
	int fd = cv_os_open(spool,
			    CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL |
				    CV_OPEN_NOFOLLOW,
			    0600);
	const void *buf;
	ssize_t n;
	int r = 0, first = 1;

	if (fd < 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot write '%s'", spool);
		free(spool);
		return r;
	}
	while (r == 0 && (n = src->read(src->ctx, &buf, err)) > 0) {
		if (first && (n < 4 || memcmp(buf, "PK\3\4", 4) != 0))
			r = cv_err_set(
				err, CV_EDATA,
				"not a zip archive: on Windows cuDNN "
				"installs from NVIDIA's Windows zips "
				"(cudnn-windows-x86_64-...-archive.zip)");
		else if (inflate_write(fd, buf, (size_t)n) != 0)
			r = inflate_write_error(spool, err);
		first = 0;
	}
	if (r == 0 && n < 0)
		r = (int)n;
	if (cv_os_close(fd) != 0 && r == 0)
		r = inflate_write_error(spool, err);
	/* by its name in dest, where the unpacking works */
	if (r == 0)
		r = zip_unpack(ARCHIVE_SPOOL, dest, limits,
			       (int)cv_inflate_threads(
				       limits != NULL ? limits->threads : 0),
			       NULL, 0, 0, 1, err);
	cv_os_unlink(spool);
	free(spool);
	return r;
}

int
cv_zip_stream_start(const char *path, const char *dest,
		    const struct cv_extract_limits *lim, int threads,
		    struct cv_zip_stream **out, struct cv_err *err)
{
	(void)path;
	(void)dest;
	(void)lim;
	(void)threads;
	(void)err;
	*out = NULL; /* unpacked by cv_extract_zip_file once whole */
	return 0;
}

void
cv_zip_stream_grew(struct cv_zip_stream *z, uint64_t bytes)
{
	(void)z;
	(void)bytes;
}

int
cv_zip_stream_finish(struct cv_zip_stream *z, int whole, struct cv_err *err)
{
	(void)z;
	(void)whole;
	(void)err;
	return 0;
}
#endif
