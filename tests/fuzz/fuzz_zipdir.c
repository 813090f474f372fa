/* fuzz_zipdir.c: the project's zip reader (extract_zip_list, the one
 * Windows has, where there is no libarchive) against libarchive's
 * seekable listing of the same bytes, and its unpacking under the policy
 * of an NVIDIA Windows zip.
 *
 * Oracles: whatever the project's reader lists, libarchive lists too,
 * entry for entry in the same order (name, folder or not, link or not,
 * and a file's size); every refusal is one line that says something; an
 * unpack writes nothing outside its folder, and each file it writes is
 * named like a listed file. The project's reader may refuse more than
 * libarchive's listing does, never less: it checks each record against its
 * local header (as the Linux install does on top of libarchive), and refuses a
 * name with a NUL byte, an entry whose data runs past the end of the
 * file, and any link or reparse point (which the policy would refuse). */
#include "base/base.h"
#include "fuzz.h"
#include "install/install_int.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[PATH_MAX];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_tmpdir(base, sizeof base, "zipdir");
	return 0;
}

/* libarchive's listing of the file at `path` against v[0..n). */
static void
same_as_libarchive(const char *path, const struct zip_listed *v, size_t n)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	size_t i = 0;
	int r;

	archive_read_support_format_zip_seekable(a);
	FUZZ_CHECK(archive_read_open_filename(a, path, 1 << 16) == ARCHIVE_OK,
		   "libarchive cannot open what the reader lists (%zu "
		   "entries): %s",
		   n, archive_error_string(a));
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		const char *name = archive_entry_pathname(e);
		unsigned t = archive_entry_filetype(e);

		FUZZ_CHECK(i < n, "libarchive lists more than %zu entries", n);
		/* libarchive ends a folder's name with a slash */
		FUZZ_CHECK(name != NULL &&
				   (strcmp(name, v[i].name) == 0 ||
				    (t == AE_IFDIR &&
				     strlen(name) == strlen(v[i].name) + 1 &&
				     strncmp(name, v[i].name,
					     strlen(v[i].name)) == 0)),
			   "entry %zu: libarchive '%s', the reader '%s'", i,
			   name ? name : "(null)", v[i].name);
		/* a reparse point is a link to the reader alone */
		FUZZ_CHECK(v[i].type == XE_LINK ||
				   (t == AE_IFDIR) == (v[i].type == XE_DIR),
			   "entry '%s': folder or not", v[i].name);
		FUZZ_CHECK(t != AE_IFLNK || v[i].type == XE_LINK,
			   "entry '%s': a link to libarchive only", v[i].name);
		FUZZ_CHECK(v[i].type == XE_LINK ||
				   (t != AE_IFREG && t != AE_IFDIR &&
				    t != AE_IFLNK) == (v[i].type == XE_OTHER),
			   "entry '%s': a device, FIFO or socket or not",
			   v[i].name);
		/* a link's size is its target's length to libarchive */
		if (v[i].type == XE_FILE)
			FUZZ_CHECK(t == AE_IFREG &&
					   (uint64_t)archive_entry_size(e) ==
						   v[i].size,
				   "entry '%s': size %lld, the reader %llu",
				   v[i].name, (long long)archive_entry_size(e),
				   (unsigned long long)v[i].size);
		i++;
	}
	FUZZ_CHECK(r == ARCHIVE_EOF,
		   "libarchive fails at entry %zu of %zu the reader lists: %s",
		   i, n, archive_error_string(a));
	FUZZ_CHECK(i == n, "libarchive lists %zu entries, the reader %zu", i,
		   n);
	archive_read_free(a);
}

/* Every file the unpack left is a listed entry's, below the top folder. */
static void
wrote_only_listed(const char *dest, const struct zip_listed *v, size_t n)
{
	char cmd[PATH_MAX + 64];
	char line[PATH_MAX];
	FILE *p;
	size_t dl = strlen(dest);

	snprintf(cmd, sizeof cmd, "find '%s' ! -type d", dest);
	p = popen(cmd, "r");
	if (p == NULL)
		return;
	while (fgets(line, sizeof line, p) != NULL) {
		int found = 0;
		line[strcspn(line, "\n")] = '\0';
		FUZZ_CHECK(strncmp(line, dest, dl) == 0 && line[dl] == '/',
			   "wrote '%s' outside its folder", line);
		const char *b = strrchr(line, '/') + 1;
		/* the link the old layouts' lib/ gets */
		found = strcmp(line + dl, "/lib64") == 0;
		for (size_t i = 0; i < n && !found; i++) {
			const char *s = strrchr(v[i].name, '/');
			found = strcmp(s ? s + 1 : v[i].name, b) == 0 &&
				v[i].type == XE_FILE;
		}
		FUZZ_CHECK(found, "wrote '%s', which no entry names", line);
	}
	pclose(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[PATH_MAX], dest[PATH_MAX];
	struct cv_err err = CV_ERR_INIT;
	struct zip_listed *v = NULL;
	size_t n = 0;
	int fd, r;

	snprintf(path, sizeof path, "%s/in.zip", base);
	snprintf(dest, sizeof dest, "%s/out", base);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	fd = open(path, O_RDONLY);
	r = extract_zip_list(fd, &v, &n, &err);
	close(fd);
	fuzz_check_err(r, &err);
	/* an empty listing holds nothing to install: the plan refuses it
	 * ("holds no files"), as libarchive does not recognise it */
	if (r == 0 && n > 0) {
		same_as_libarchive(path, v, n);
		mkdir(dest, 0755);
		err = (struct cv_err)CV_ERR_INIT;
		r = cv_extract_zip_file_own(path, dest, NULL, 2, &err);
		fuzz_check_err(r, &err);
		wrote_only_listed(dest, v, n);
		fuzz_remove_tree(dest);
	}
	extract_zip_list_free(v, n);
	return 0;
}
