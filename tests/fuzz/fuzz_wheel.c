/* fuzz_wheel.c: a wheel unpacked while it arrives (cv_zip_stream_*)
 * against the same bytes unpacked from the central directory alone
 * (cv_extract_zip_file), both under the wheel policy.
 *
 * Each input is written into a spool in <run>/stream in pieces, the
 * stream told of each, then checked as a verified download would be; the
 * same input is unpacked into <run>/plain the usual way. Oracles: the two
 * agree on success or failure; on success the two trees are the same
 * (names, types, modes, sizes and bytes); nothing appears in <run> but the
 * two folders. The stream may take any route to its answer (keep what it
 * unpacked or redo it from the directory): only the answer is checked.
 *
 * Both views come from the code under test, so a third comes from a
 * reader of the central directory of this file's own, the one pip trusts:
 * when a directory record disagrees with the local header it points at
 * (name, method, CRC-32 or sizes), both must refuse the wheel; when they
 * succeed, every file of the tree is a directory record's file, mapped to
 * the archive layout, with the record's size. */
#include "base/base.h"
#include "fuzz.h"
#include "install/install_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPOOL ".cudnnvm-wheel"

static char base[PATH_MAX];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_tmpdir(base, sizeof base, "wheel");
	return 0;
}

/* ---- a tree as one string ------------------------------------------------ */

static char *listing;
static size_t listing_len, listing_cap;
static size_t root_len;

static void
add(const char *s, size_t n)
{
	if (listing_len + n + 1 > listing_cap) {
		listing_cap = (listing_len + n + 1) * 2;
		listing = realloc(listing, listing_cap);
		if (listing == NULL)
			abort();
	}
	memcpy(listing + listing_len, s, n);
	listing_len += n;
	listing[listing_len] = '\0';
}

static int
describe(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	char line[PATH_MAX + 64];
	const char *rel = path + root_len;
	int n;

	(void)f;
	if (strcmp(rel, "/" SPOOL) == 0)
		return 0;
	n = snprintf(line, sizeof line, "%s %d %o %lld\n", rel, flag,
		     (unsigned)sb->st_mode, (long long)sb->st_size);
	add(line, (size_t)n);
	if (flag == FTW_F) {
		char buf[4096];
		ssize_t k;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		FUZZ_CHECK(fd >= 0, "cannot open '%s'", path);
		while ((k = read(fd, buf, sizeof buf)) > 0)
			add(buf, (size_t)k);
		close(fd);
		add("\n", 1);
	}
	return 0;
}

/* Each tree is described with every folder's entries in name order, so
 * that two trees compare as two strings. */
static int
by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void
walk_sorted(const char *dir)
{
	struct dirent **v;
	int n = scandir(dir, &v, NULL, by_name);

	FUZZ_CHECK(n >= 0, "cannot list '%s'", dir);
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX];
		struct stat sb;
		if (strcmp(v[i]->d_name, ".") != 0 &&
		    strcmp(v[i]->d_name, "..") != 0) {
			snprintf(p, sizeof p, "%s/%s", dir, v[i]->d_name);
			FUZZ_CHECK(lstat(p, &sb) == 0, "cannot stat '%s'", p);
			describe(p, &sb,
				 S_ISDIR(sb.st_mode)   ? FTW_D
				 : S_ISLNK(sb.st_mode) ? FTW_SL
						       : FTW_F,
				 NULL);
			if (S_ISDIR(sb.st_mode))
				walk_sorted(p);
		}
		free(v[i]);
	}
	free(v);
}

static char *
tree(const char *dir)
{
	char *out;

	listing_len = 0;
	add("", 0);
	root_len = strlen(dir);
	walk_sorted(dir);
	out = strdup(listing);
	if (out == NULL)
		abort();
	return out;
}

/* ---- the central directory, read here -------------------------------------
 * Only what the oracle needs: plain (not zip64) records, each with its
 * local header's fields beside it. */

#define MAX_RECS 128

struct rec {
	char name[512];
	uint32_t usize;
	int dir;
	int disagrees; /* the local header says something else */
};

static uint32_t
get16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t
get32(const uint8_t *p)
{
	return get16(p) | get16(p + 2) << 16;
}

/* The records of the end of central directory record that Python's
 * zipfile finds (the last signature at least 22 bytes from the end, in
 * the last 64 KiB); -1 when there is none, or the directory is one this
 * reader does not judge (zip64, damaged, too many records). */
static int
read_directory(const uint8_t *d, size_t n, struct rec *v)
{
	size_t eocd = 0, at, end;
	uint32_t count;
	int found = 0;

	for (size_t i = n >= 22 ? n - 22 + 1 : 0; i-- > 0 && n - i <= 65557;)
		if (get32(d + i) == 0x06054b50u) {
			eocd = i;
			found = 1;
			break;
		}
	if (!found)
		return -1;
	count = get16(d + eocd + 10);
	at = get32(d + eocd + 16);
	end = at + get32(d + eocd + 12);
	if (count > MAX_RECS || end > n || end < at)
		return -1;
	for (uint32_t k = 0; k < count; k++) {
		const uint8_t *c = d + at, *l;
		size_t nl, hdr, lnl;
		uint32_t lflags;

		if (at + 46 > end || get32(c) != 0x02014b50u)
			return -1;
		nl = get16(c + 28);
		hdr = get32(c + 42);
		if (at + 46 + nl > end || nl >= sizeof v[k].name ||
		    get32(c + 20) == 0xffffffffu ||
		    get32(c + 24) == 0xffffffffu || hdr == 0xffffffffu)
			return -1;
		memcpy(v[k].name, c + 46, nl);
		v[k].name[nl] = '\0';
		v[k].usize = get32(c + 24);
		v[k].dir = (nl > 0 && v[k].name[nl - 1] == '/') ||
			   (c[5] == 3 &&
			    ((get32(c + 38) >> 16) & 0170000) == 0040000);
		v[k].disagrees = 1;
		if (hdr + 30 <= n && get32(d + hdr) == 0x04034b50u) {
			l = d + hdr;
			lnl = get16(l + 26);
			lflags = get16(l + 6);
			v[k].disagrees =
				hdr + 30 + lnl > n || lnl != nl ||
				memcmp(l + 30, c + 46, nl) != 0 ||
				get16(l + 8) != get16(c + 10) ||
				/* sizes in a data descriptor: zero here */
				(!((lflags & 8) && get32(l + 14) == 0 &&
				   get32(l + 18) == 0 && get32(l + 22) == 0) &&
				 (get32(l + 14) != get32(c + 16) ||
				  get32(l + 18) != get32(c + 20) ||
				  get32(l + 22) != get32(c + 24)));
		}
		at += 46 + nl + get16(c + 30) + get16(c + 32);
	}
	return (int)count;
}

/* A record's name in the archive layout a wheel is unpacked to
 * (nvidia/cudnn/lib/X -> lib/X, nvidia/cudnn/include/X -> include/X, the
 * dist-info's License.txt or LICENSE -> LICENSE), "" and "." components
 * dropped; 0 when it maps to no file. */
static int
layout_name(const char *name, char *out, size_t outlen)
{
	char buf[512], *comp[64], *save = NULL, *t;
	size_t nc = 0, o = 0, l0;

	snprintf(buf, sizeof buf, "%s", name);
	for (t = strtok_r(buf, "/", &save); t != NULL && nc < 64;
	     t = strtok_r(NULL, "/", &save))
		if (strcmp(t, ".") != 0)
			comp[nc++] = t;
	if (nc == 0)
		return 0;
	l0 = strlen(comp[0]);
	if (nc == 2 && l0 > 10 &&
	    strcmp(comp[0] + l0 - 10, ".dist-info") == 0 &&
	    (strcasecmp(comp[1], "License.txt") == 0 ||
	     strcasecmp(comp[1], "LICENSE") == 0)) {
		snprintf(out, outlen, "LICENSE");
		return 1;
	}
	if (nc < 4 || strcmp(comp[0], "nvidia") != 0 ||
	    strcmp(comp[1], "cudnn") != 0 ||
	    (strcmp(comp[2], "lib") != 0 && strcmp(comp[2], "include") != 0))
		return 0;
	for (size_t i = 2; i < nc && o < outlen; i++)
		o += (size_t)snprintf(out + o, outlen - o, "%s%s",
				      i > 2 ? "/" : "", comp[i]);
	return o < outlen;
}

/* Each regular file below `dir` (`rel` its path from the root) must be
 * the file of a directory record with the record's size. */
static void
files_from_directory(const char *dir, const char *rel, const struct rec *v,
		     int nrec)
{
	struct dirent **e;
	int n = scandir(dir, &e, NULL, by_name);

	FUZZ_CHECK(n >= 0, "cannot list '%s'", dir);
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX], r[PATH_MAX], mapped[PATH_MAX];
		struct stat sb;
		int found = 0;

		if (strcmp(e[i]->d_name, ".") == 0 ||
		    strcmp(e[i]->d_name, "..") == 0 ||
		    strcmp(e[i]->d_name, SPOOL) == 0) {
			free(e[i]);
			continue;
		}
		snprintf(p, sizeof p, "%s/%s", dir, e[i]->d_name);
		snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "",
			 e[i]->d_name);
		free(e[i]);
		FUZZ_CHECK(lstat(p, &sb) == 0, "cannot stat '%s'", p);
		if (S_ISDIR(sb.st_mode)) {
			files_from_directory(p, r, v, nrec);
			continue;
		}
		if (!S_ISREG(sb.st_mode))
			continue; /* lib64 -> lib, or a chain's link */
		for (int k = 0; k < nrec && !found; k++)
			found = !v[k].dir &&
				layout_name(v[k].name, mapped, sizeof mapped) &&
				strcmp(mapped, r) == 0 &&
				(off_t)v[k].usize == sb.st_size;
		FUZZ_CHECK(found,
			   "'%s' (%lld bytes) is no file of the central "
			   "directory",
			   r, (long long)sb.st_size);
	}
	free(e);
}

/* ---- the run ------------------------------------------------------------- */

static void
write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			abort();
		p += w;
		n -= (size_t)w;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned long serial;
	char run[PATH_MAX], sdir[PATH_MAX], pdir[PATH_MAX], spool[PATH_MAX],
		plainfile[PATH_MAX];
	struct cv_extract_limits lim = { .max_entries = 64,
					 .max_total_bytes = 1 << 20,
					 .max_path = 256,
					 .max_depth = 8,
					 .wheel = 1 };
	struct cv_err serr = CV_ERR_INIT, perr = CV_ERR_INIT;
	struct cv_zip_stream *zs;
	/* pieces of a few sizes, so headers and data are split anywhere */
	size_t piece = size > 64 ? 1 + (size_t)data[size / 2] * 3 : 5, off = 0;
	int fd, rs, rp;

	snprintf(run, sizeof run, "%s/%lu", base, serial++);
	snprintf(sdir, sizeof sdir, "%s/stream", run);
	snprintf(pdir, sizeof pdir, "%s/plain", run);
	snprintf(spool, sizeof spool, "%s/" SPOOL, sdir);
	snprintf(plainfile, sizeof plainfile, "%s/" SPOOL, pdir);
	if (mkdir(run, 0700) || mkdir(sdir, 0755) || mkdir(pdir, 0755))
		abort();

	fd = open(spool, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	rs = cv_zip_stream_start(spool, sdir, &lim, 2, &zs, &serr);
	FUZZ_CHECK(rs == 0 && zs != NULL, "no stream for %s: %s", spool,
		   serr.msg);
	while (off < size) {
		size_t n = size - off < piece ? size - off : piece;
		write_all(fd, data + off, n);
		off += n;
		cv_zip_stream_grew(zs, off);
	}
	close(fd);
	rs = cv_zip_stream_finish(zs, 1, &serr);
	fuzz_check_err(rs, &serr);

	fd = open(plainfile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	write_all(fd, data, size);
	close(fd);
	rp = cv_extract_zip_file(plainfile, pdir, &lim, 2, &perr);
	fuzz_check_err(rp, &perr);

	FUZZ_CHECK((rs == 0) == (rp == 0),
		   "streamed: %d (%s), from the directory: %d (%s)", rs,
		   serr.msg, rp, perr.msg);
	{
		static struct rec recs[MAX_RECS];
		int nrec = read_directory(data, size, recs);

		for (int k = 0; k < nrec; k++)
			FUZZ_CHECK(!recs[k].disagrees || rp < 0,
				   "record '%s' disagrees with its local "
				   "header, and the wheel was unpacked",
				   recs[k].name);
		if (nrec >= 0 && rp == 0)
			files_from_directory(pdir, "", recs, nrec);
	}
	if (rs == 0) {
		char *a = tree(sdir), *b = tree(pdir);
		FUZZ_CHECK(strcmp(a, b) == 0,
			   "the trees differ:\n--- streamed\n%s--- from the "
			   "directory\n%s",
			   a, b);
		free(a);
		free(b);
	}
	{
		/* nothing but the two folders in the run */
		DIR *d = opendir(run);
		struct dirent *e;
		FUZZ_CHECK(d != NULL, "cannot open '%s'", run);
		while ((e = readdir(d)) != NULL)
			FUZZ_CHECK(strcmp(e->d_name, ".") == 0 ||
					   strcmp(e->d_name, "..") == 0 ||
					   strcmp(e->d_name, "stream") == 0 ||
					   strcmp(e->d_name, "plain") == 0,
				   "'%s' was written into the run", e->d_name);
		closedir(d);
	}
	fuzz_remove_tree(run);
	return 0;
}
