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
 * unpacked or redo it from the directory): only the answer is checked. */
#include "fuzz.h"
#include "internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
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
