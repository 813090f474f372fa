/* fuzz_extract.c: extraction (cv_extract, the entry policy of
 * `install --archive`) of any bytes into a fresh folder.
 *
 * Each input is extracted into <run>/a/b/c/dest, a fresh folder four
 * levels below a fresh <run>. Oracles, on success and failure alike:
 * nothing appears in <run> outside dest. On success: every entry under
 * dest is a folder of mode 0755, a regular file of mode 0644 or a symlink
 * that, resolved component by component (following the links it meets),
 * stays inside dest.
 *
 * A custom mutator lets mutations of a plain tar reach the entry policy:
 * after LLVMFuzzerMutate it recomputes the checksum of every ustar header,
 * which the tar reader would otherwise refuse first. */
#include "fuzz.h"
#include "install/install_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINK_HOPS 40

static char base[PATH_MAX];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_tmpdir(base, sizeof base, "extract");
	return 0;
}

/* ---- the checksum-fixing mutator ---------------------------------------- */

static void
fix_tar_checksums(uint8_t *data, size_t size)
{
	for (size_t off = 0; off + 512 <= size; off += 512) {
		uint8_t *h = data + off;
		unsigned sum = 0;
		if (memcmp(h + 257, "ustar", 5) != 0)
			continue;
		memset(h + 148, ' ', 8);
		for (int i = 0; i < 512; i++)
			sum += h[i];
		snprintf((char *)h + 148, 8, "%06o", sum & 0777777);
		h[155] = ' ';
	}
}

size_t
LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			unsigned int seed)
{
	(void)seed;
	size = LLVMFuzzerMutate(data, size, max_size);
	fix_tar_checksums(data, size);
	return size;
}

/* ---- the input as a cv_source ------------------------------------------- */

struct memsrc {
	const uint8_t *data;
	size_t size, chunk, off;
};

static ssize_t
mem_read(void *ctx, const void **buf, struct cv_err *err)
{
	struct memsrc *m = ctx;
	size_t n = m->size - m->off;

	(void)err;
	if (n > m->chunk)
		n = m->chunk;
	*buf = m->data + m->off;
	m->off += n;
	return (ssize_t)n;
}

/* ---- the oracle ---------------------------------------------------------- */

/* Components of a path relative to dest, as a stack. */
struct stack {
	char *part[PATH_MAX / 2];
	int n;
};

static void
stack_path(const char *dest, const struct stack *st, char *out, size_t n)
{
	size_t len = (size_t)snprintf(out, n, "%s", dest);

	for (int i = 0; i < st->n && len < n; i++)
		len += (size_t)snprintf(out + len, n - len, "/%s", st->part[i]);
}

/* Walk `target` from the folder `st` (relative to dest), following every
 * symlink met on the way; 0 when it stays inside dest, -1 when it leaves.
 * A missing component ends the walk lexically; too many hops is a loop,
 * which the kernel refuses (ELOOP), so it is not an escape. */
static int
resolve_inside(const char *dest, struct stack *st, const char *target,
	       int *hops)
{
	char *copy = strdup(target), *save = NULL, *c;
	int rc = 0, missing = 0;

	if (copy == NULL)
		abort();
	if (target[0] == '/') {
		free(copy);
		return -1;
	}
	for (c = strtok_r(copy, "/", &save); c;
	     c = strtok_r(NULL, "/", &save)) {
		char path[PATH_MAX], link[PATH_MAX];
		struct stat sb;
		ssize_t n;

		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			if (st->n == 0) {
				rc = -1;
				break;
			}
			free(st->part[--st->n]);
			continue;
		}
		if (st->n >= (int)(sizeof st->part / sizeof st->part[0]))
			break;
		st->part[st->n++] = strdup(c);
		if (missing)
			continue;
		stack_path(dest, st, path, sizeof path);
		if (lstat(path, &sb) != 0) {
			missing = 1;
			continue;
		}
		if (!S_ISLNK(sb.st_mode))
			continue;
		if (++*hops > MAX_LINK_HOPS)
			break;
		n = readlink(path, link, sizeof link - 1);
		if (n < 0)
			abort();
		link[n] = '\0';
		free(st->part[--st->n]); /* the link resolves from its folder */
		if ((rc = resolve_inside(dest, st, link, hops)) < 0)
			break;
	}
	free(copy);
	return rc;
}

static const char *walk_dest;

static int
check_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	const char *rel = path + strlen(walk_dest);
	mode_t mode = sb->st_mode & 07777;

	(void)f;
	if (*rel == '\0')
		return 0; /* dest itself */
	rel++;
	if (flag == FTW_SL || flag == FTW_SLN) {
		char target[PATH_MAX], *dir, *save = NULL, *c;
		struct stack st = { .n = 0 };
		int hops = 0, rc;
		ssize_t n = readlink(path, target, sizeof target - 1);

		FUZZ_CHECK(n >= 0, "cannot read link '%s'", rel);
		target[n] = '\0';
		dir = strdup(rel);
		if (dir == NULL)
			abort();
		if (strrchr(dir, '/'))
			*strrchr(dir, '/') = '\0';
		else
			dir[0] = '\0';
		for (c = strtok_r(dir, "/", &save); c;
		     c = strtok_r(NULL, "/", &save))
			st.part[st.n++] = strdup(c);
		rc = resolve_inside(walk_dest, &st, target, &hops);
		while (st.n > 0)
			free(st.part[--st.n]);
		free(dir);
		FUZZ_CHECK(rc == 0, "symlink '%s' -> '%s' resolves outside",
			   rel, target);
		return 0;
	}
	if (flag == FTW_D || flag == FTW_DP) {
		FUZZ_CHECK(mode == 0755, "folder '%s' has mode %04o", rel,
			   (unsigned)mode);
		return 0;
	}
	FUZZ_CHECK(flag == FTW_F && S_ISREG(sb->st_mode),
		   "'%s' is not a file, folder or symlink (mode %o)", rel,
		   (unsigned)sb->st_mode);
	FUZZ_CHECK(mode == 0644, "file '%s' has mode %04o", rel,
		   (unsigned)mode);
	return 0;
}

/* Exactly one entry in `dir`, named `name`. */
static void
check_only(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	FUZZ_CHECK(d != NULL, "cannot open '%s'", dir);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		FUZZ_CHECK(strcmp(e->d_name, name) == 0,
			   "'%s' was written outside the folder, into '%s'",
			   e->d_name, dir);
	}
	closedir(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned long serial;
	char run[PATH_MAX], a[PATH_MAX], b[PATH_MAX], c[PATH_MAX],
		dest[PATH_MAX];
	/* Small reads for small inputs, so the feeding paths are exercised. */
	struct memsrc m = { data, size, size > 64 ? 4096 : 7, 0 };
	struct cv_source src = { mem_read, &m };
	struct cv_extract_limits lim = { .max_entries = 64,
					 .max_total_bytes = 1 << 20,
					 .max_path = 256,
					 .max_depth = 8 };
	struct cv_err err = CV_ERR_INIT;
	int rc;

	snprintf(run, sizeof run, "%s/%lu", base, serial++);
	snprintf(a, sizeof a, "%s/a", run);
	snprintf(b, sizeof b, "%s/b", a);
	snprintf(c, sizeof c, "%s/c", b);
	snprintf(dest, sizeof dest, "%s/dest", c);
	if (mkdir(run, 0700) || mkdir(a, 0700) || mkdir(b, 0700) ||
	    mkdir(c, 0700) || mkdir(dest, 0755))
		abort();
	rc = cv_extract(&src, dest, &lim, &err);
	fuzz_check_err(rc, &err);
	check_only(run, "a");
	check_only(a, "b");
	check_only(b, "c");
	check_only(c, "dest");
	check_only(base, run + strlen(base) + 1);
	if (rc == 0) {
		walk_dest = dest;
		nftw(dest, check_entry, 16, FTW_PHYS);
		walk_dest = NULL; /* dest ends with this call */
	}
	fuzz_remove_tree(run);
	return 0;
}
