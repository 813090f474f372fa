/* test_zipdir.c: the project's zip reader (extract_zip_list and
 * cv_extract_zip_file_own, the one Windows has), on zips written by
 * libarchive: NVIDIA's Windows layout unpacked, deflated and stored
 * entries alike; its listing the same as libarchive's; links, hostile
 * names and damaged data refused with nothing written. */
#include "base/base.h"
#include "install/install_int.h"
#include "tap.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WINTOP "cudnn-windows-x86_64-9.20.0.48_cuda12-archive"

static char root[] = "/tmp/cvzipdir.XXXXXX";
static struct cv_err err;

/* A zip written by Python's zipfile (what writes wheels), its entries a
 * Python list of (name, data, kind): 'd' deflated, 's' stored, 'z'
 * deflated with zip64 fields, 'D' a folder, 'L' a Unix symlink, 'R' a
 * file with the reparse-point attribute. */
static void
pyzip(const char *name, const char *entries)
{
	char cmd[8192];

	snprintf(cmd, sizeof cmd,
		 "python3 -c '\n"
		 "import sys, zipfile\n"
		 "z = zipfile.ZipFile(sys.argv[1], \"w\")\n"
		 "for n, d, k in %s:\n"
		 "    i = zipfile.ZipInfo(n)\n"
		 "    i.compress_type = zipfile.ZIP_STORED if k in \"sDLR\" "
		 "else zipfile.ZIP_DEFLATED\n"
		 "    i.external_attr = {\"D\": 0o40755 << 16 | 0x10, "
		 "\"L\": 0o120777 << 16, \"R\": 0o100644 << 16 | 0x400}"
		 ".get(k, 0o100644 << 16)\n"
		 "    with z.open(i, \"w\", force_zip64=(k == \"z\")) as f:\n"
		 "        f.write(d.encode())\n"
		 "z.close()\n' '%s/%s'",
		 entries, root, name);
	if (system(cmd) != 0)
		printf("# cannot write %s\n", name);
}

static int
unpack(const char *zip, const char *dest)
{
	char zp[512], dp[512];

	snprintf(zp, sizeof zp, "%s/%s", root, zip);
	snprintf(dp, sizeof dp, "%s/%s", root, dest);
	mkdir(dp, 0755);
	err = (struct cv_err)CV_ERR_INIT;
	return cv_extract_zip_file_own(zp, dp, NULL, 2, &err);
}

static char *
slurp(const char *rel)
{
	static char buf[4096];
	char p[512];
	FILE *f;
	size_t n;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	if ((f = fopen(p, "rb")) == NULL)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* No file under rel (the plan makes folders before any worker writes;
 * the staging folder they are in is never published). */
static int
empty(const char *rel)
{
	char p[512], cmd[600];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	snprintf(cmd, sizeof cmd, "test -z \"$(find '%s' ! -type d)\"", p);
	return system(cmd) == 0;
}

/* The NVIDIA-shaped zip, its files of `kind`. */
static void
nvidia_zip(const char *name, char kind)
{
	char e[2048];

	snprintf(
		e, sizeof e,
		"[(\"" WINTOP "/\", \"\", \"D\"),"
		" (\"" WINTOP "/bin/x64/cudnn64_9.dll\","
		"  \"MZ a DLL, MZ a DLL, MZ a DLL, MZ a DLL\", \"%c\"),"
		" (\"" WINTOP "/include/cudnn.h\","
		"  \"#define CUDNN_MAJOR 9\\n#define CUDNN_MINOR 20\\n\", \"%c\"),"
		" (\"" WINTOP "/lib/x64/cudnn.lib\", \"!<arch>\\n\", \"%c\"),"
		" (\"" WINTOP "/LICENSE\", \"NVIDIA\", \"%c\")]",
		kind, kind, kind, kind);
	pyzip(name, e);
}

/* libarchive's seekable listing and the project's, name for name. */
static int
same_listing(const char *zip)
{
	char zp[512];
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	struct zip_listed *v = NULL;
	size_t n = 0, i = 0;
	int fd, ok = 1;

	snprintf(zp, sizeof zp, "%s/%s", root, zip);
	fd = open(zp, O_RDONLY);
	err = (struct cv_err)CV_ERR_INIT;
	if (fd < 0 || extract_zip_list(fd, &v, &n, &err) != 0)
		ok = 0;
	archive_read_support_format_zip_seekable(a);
	if (ok && archive_read_open_filename(a, zp, 1 << 16) != ARCHIVE_OK)
		ok = 0;
	while (ok && archive_read_next_header(a, &e) == ARCHIVE_OK) {
		int lt = archive_entry_filetype(e);
		if (i >= n ||
		    strcmp(v[i].name, archive_entry_pathname(e)) != 0 ||
		    /* libarchive gives a link's target, not its size */
		    (lt != AE_IFLNK &&
		     (uint64_t)archive_entry_size(e) != v[i].size) ||
		    (lt == AE_IFDIR) != (v[i].type == XE_DIR) ||
		    (lt == AE_IFLNK) != (v[i].type == XE_LINK))
			ok = 0;
		i++;
	}
	archive_read_free(a);
	extract_zip_list_free(v, n);
	if (fd >= 0)
		close(fd);
	return ok && i == n;
}

int
main(void)
{
	CHECK(mkdtemp(root) != NULL);

	/* deflated, stored, and zip64 records */
	nvidia_zip("deflate.zip", 'd');
	nvidia_zip("store.zip", 's');
	nvidia_zip("zip64.zip", 'z');
	CHECK(same_listing("deflate.zip"));
	CHECK(same_listing("store.zip"));
	CHECK(same_listing("zip64.zip"));
	CHECK(unpack("deflate.zip", "d") == 0);
	CHECK(unpack("store.zip", "s") == 0);
	CHECK(unpack("zip64.zip", "z") == 0);
	if (err.code)
		printf("# %s\n", err.msg);
	CHECK(slurp("d/bin/x64/cudnn64_9.dll") != NULL &&
	      strcmp(slurp("d/bin/x64/cudnn64_9.dll"),
		     "MZ a DLL, MZ a DLL, MZ a DLL, MZ a DLL") == 0);
	CHECK(slurp("d/include/cudnn.h") != NULL &&
	      strstr(slurp("d/include/cudnn.h"), "CUDNN_MINOR 20") != NULL);
	CHECK(slurp("s/lib/x64/cudnn.lib") != NULL &&
	      strcmp(slurp("s/lib/x64/cudnn.lib"), "!<arch>\n") == 0);
	CHECK(slurp("z/LICENSE") != NULL &&
	      strcmp(slurp("z/LICENSE"), "NVIDIA") == 0);
	/* a Windows zip gets no lib64 link */
	CHECK(slurp("d/lib64") == NULL);

	/* a link (the central directory's Unix mode) or a reparse point
	 * is refused, nothing written */
	pyzip("link.zip",
	      "[(\"" WINTOP "/bin/cudnn64_9.dll\", \"MZ\", \"d\"),"
	      " (\"" WINTOP "/bin/l.dll\", \"cudnn64_9.dll\", \"L\")]");
	CHECK(same_listing("link.zip"));
	CHECK(unpack("link.zip", "l") == CV_EDATA &&
	      strstr(err.msg, "is a link") != NULL);
	CHECK(empty("l"));
	pyzip("reparse.zip",
	      "[(\"" WINTOP "/bin/cudnn64_9.dll\", \"MZ\", \"d\"),"
	      " (\"" WINTOP "/bin/r.dll\", \"x\", \"R\")]");
	CHECK(unpack("reparse.zip", "r") == CV_EDATA &&
	      strstr(err.msg, "is a link") != NULL);
	CHECK(empty("r"));

	/* names Windows forbids, through this reader too */
	pyzip("con.zip", "[(\"" WINTOP "/bin/cudnn64_9.dll\", \"MZ\", \"d\"),"
			 " (\"" WINTOP "/bin/CON.dll\", \"MZ\", \"d\")]");
	CHECK(unpack("con.zip", "c") == CV_EDATA &&
	      strstr(err.msg, "reserves") != NULL);
	CHECK(empty("c"));
	pyzip("dots.zip",
	      "[(\"" WINTOP "/bin/../../evil.dll\", \"MZ\", \"d\")]");
	CHECK(unpack("dots.zip", "dd") == CV_EDATA &&
	      strstr(err.msg, "'..'") != NULL);
	CHECK(empty("dd"));

	/* a byte of a stored entry's data changed: its CRC-32 tells */
	{
		char zp[512];
		FILE *f;
		long at;
		char *all = malloc(1 << 16);
		size_t n;

		snprintf(zp, sizeof zp, "%s/store.zip", root);
		f = fopen(zp, "r+b");
		n = fread(all, 1, 1 << 16, f);
		for (at = 0; at + 6 < (long)n; at++)
			if (memcmp(all + at, "NVIDIA", 6) == 0)
				break;
		fseek(f, at, SEEK_SET);
		fputc('X', f);
		fclose(f);
		free(all);
		CHECK(unpack("store.zip", "bad") == CV_EDATA &&
		      strstr(err.msg, "CRC-32") != NULL);
	}
	/* not a zip at all */
	{
		char zp[512];
		FILE *f;

		snprintf(zp, sizeof zp, "%s/not.zip", root);
		f = fopen(zp, "wb");
		fputs("this is not a zip", f);
		fclose(f);
		CHECK(unpack("not.zip", "n") == CV_EDATA &&
		      strstr(err.msg, "cannot be found") != NULL);
	}
	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf %s", root);
		CHECK(system(cmd) == 0);
	}
	return TEST_DONE();
}
