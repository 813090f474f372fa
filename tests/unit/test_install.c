/* test_install.c: the one-pass verified install: hash and extraction in
 * one read, nothing published on a mismatch, already/force, names. */
#include "base/base.h"
#include "install/install_int.h"
#include "release/release.h"
#include "store/store.h"
#include "tap.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char ar_buf[1 << 20];
static size_t ar_len;
static char root[] = "/tmp/cvinst.XXXXXX";
static char path[512];
static struct cv_err err;
static int opens, closes, last_ok;

/* the archive's top folder, named like NVIDIA's for the version built */
static const char *top = "cudnn-linux-x86_64-9.1.0.70_cuda12-archive";

static void
build(const char *payload, int hostile)
{
	struct archive *aw = archive_write_new();
	struct archive_entry *e;
	const char *rel[] = { "lib/libcudnn.so.9.1.0", "LICENSE",
			      "include/cudnn_version.h" };
	char names[3][200], link[200];

	for (int i = 0; i < 3; i++)
		snprintf(names[i], sizeof names[i], "%s/%s", top, rel[i]);
	snprintf(link, sizeof link, "%s/lib/libcudnn.so.9", top);

	archive_write_set_format_pax_restricted(aw);
	archive_write_add_filter_xz(aw);
	archive_write_open_memory(aw, ar_buf, sizeof ar_buf, &ar_len);
	for (int i = 0; i < 3; i++) {
		e = archive_entry_new();
		archive_entry_set_pathname(e, names[i]);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, (la_int64_t)strlen(payload));
		archive_write_header(aw, e);
		archive_write_data(aw, payload, strlen(payload));
		archive_entry_free(e);
	}
	e = archive_entry_new();
	archive_entry_set_pathname(e, link);
	archive_entry_set_filetype(e, AE_IFLNK);
	archive_entry_set_symlink(e, hostile ? "/etc/passwd"
					     : "libcudnn.so.9.1.0");
	archive_write_header(aw, e);
	archive_entry_free(e);
	archive_write_close(aw);
	archive_write_free(aw);
}

struct mem {
	size_t off;
	int trailing; /* bytes of garbage after the archive */
};
static struct mem mem;
static char trail[64];

static ssize_t
mem_read(void *ctx, const void **buf, struct cv_err *e)
{
	struct mem *m = ctx;
	size_t n;

	(void)e;
	if (m->off < ar_len) {
		n = ar_len - m->off < 100 ? ar_len - m->off : 100;
		*buf = ar_buf + m->off;
		m->off += n;
		return (ssize_t)n;
	}
	if (m->trailing) {
		memset(trail, 0, sizeof trail);
		*buf = trail;
		m->trailing = 0;
		return sizeof trail;
	}
	return 0;
}

static int
mem_open(void *arg, struct cv_source *src, struct cv_err *e)
{
	(void)e;
	opens++;
	mem.off = 0;
	mem.trailing = *(int *)arg;
	src->read = mem_read;
	src->ctx = &mem;
	return 0;
}

static void
mem_close(void *arg, int ok)
{
	(void)arg;
	closes++;
	last_ok = ok;
}

static void
sha_of(char hex[65], int trailing)
{
	struct cv_sha256 *h = cv_sha256_new();
	char z[64];

	cv_sha256_update(h, ar_buf, ar_len);
	memset(z, 0, sizeof z);
	if (trailing)
		cv_sha256_update(h, z, sizeof z);
	cv_sha256_final(h, hex);
	cv_sha256_free(h);
}

static const char *
P(const char *rel)
{
	snprintf(path, sizeof path, "%s/%s", root, rel);
	return path;
}

static int
staging_empty(void)
{
	DIR *d = opendir(P(".staging"));
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n == 0;
}

static int
install(struct cv_store *st, struct cv_artifact *a, int trailing, int force,
	int *already)
{
	struct cv_fetcher f = { mem_open, mem_close, &trailing, NULL };
	struct cv_install_opts o = CV_INSTALL_OPTS_INIT;

	o.force = force;
	err = (struct cv_err)CV_ERR_INIT;
	return cv_store_install(st, a, &f, &o, already, &err);
}

int
main(void)
{
	struct cv_artifact a;
	struct cv_store *st;
	struct cv_config cfg;
	struct cv_installed inst;
	char cmd[600], buf[64];
	int already = 0;
	FILE *fp;

	/* names */
	memset(&a, 0, sizeof a);
	CHECK(cv_artifact_from_filename(
		      &a,
		      "/x/cudnn-linux-x86_64-9.13.0.50_cuda12-archive.tar.xz",
		      &err) == 0);
	CHECK(strcmp(a.platform, "linux-x86_64") == 0 && a.version.cuda == 12 &&
	      a.version.nparts == 4 && a.version.part[1] == 13 &&
	      a.version.part[3] == 50);
	CHECK(strcmp(a.filename,
		     "cudnn-linux-x86_64-9.13.0.50_cuda12-archive.tar.xz") ==
	      0);
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-windows-x86_64-8.9.7.29_cuda11-archive.zip",
		      &err) == 0);
	CHECK(strcmp(a.platform, "windows-x86_64") == 0 &&
	      a.version.cuda == 11);
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-linux-sbsa-9.1.0.70_cuda13-archive.tar.xz",
		      &err) == 0);
	CHECK(strcmp(a.platform, "linux-sbsa") == 0);
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-linux-x86_64-9.1.0_cuda12-archive.tar.xz",
		      &err) == CV_EUSAGE);
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-linux-x86_64-9.1.0.70_cuda-archive.tar.xz",
		      &err) == CV_EUSAGE);
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.gz",
		      &err) == CV_EUSAGE);
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-../../x-9.1.0.70_cuda12-archive.tar.xz",
		      &err) == CV_EUSAGE);
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz/",
		      &err) == CV_EUSAGE);
	/* 8.3/8.4 and 9.27 windows-arm64 carry the CUDA minor too */
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-linux-x86_64-8.3.2.44_cuda11.5-archive.tar.xz",
		      &err) == 0);
	CHECK(a.version.cuda == 11 && a.version.part[3] == 44 &&
	      strcmp(a.platform, "linux-x86_64") == 0);
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-windows-arm64-9.27.0.42_cuda13.4-archive.zip",
		      &err) == 0);
	CHECK(a.version.cuda == 13 && strcmp(a.platform, "windows-arm64") == 0);
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-linux-x86_64-8.3.2.44_cuda11.-archive.tar.xz",
		      &err) == CV_EUSAGE);
	CHECK(cv_artifact_from_filename(
		      &a,
		      "cudnn-linux-x86_64-8.3.2.44_cuda11.5.1-archive.tar.xz",
		      &err) == CV_EUSAGE);
	/* the 7.x and 8.0-8.2 names */
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-10.2-linux-x64-v7.6.5.32.tgz", &err) == 0);
	CHECK(a.version.cuda == 10 && a.version.part[0] == 7 &&
	      a.version.part[3] == 32 &&
	      strcmp(a.platform, "linux-x86_64") == 0 &&
	      strcmp(a.filename, "cudnn-10.2-linux-x64-v7.6.5.32.tgz") == 0);
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-11.3-linux-aarch64sbsa-v8.2.1.32.tgz", &err) ==
	      0);
	CHECK(a.version.cuda == 11 && strcmp(a.platform, "linux-sbsa") == 0);
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-10.2-windows10-x64-v7.6.5.32.zip", &err) == 0);
	CHECK(strcmp(a.platform, "windows-x86_64") == 0);
	CHECK(cv_artifact_from_filename(
		      &a, "cudnn-10.0-linux-x64-v7.4.1.5.solitairetheme8",
		      &err) == 0);
	CHECK(a.version.part[2] == 1 && a.version.cuda == 10);
	CHECK(cv_artifact_from_filename(&a, "cudnn-9.0-linux-x64-v7.tgz",
					&err) == CV_EUSAGE);
	CHECK(cv_artifact_from_filename(&a,
					"cudnn-10.2-linux-x64-v7.6.5.32;x.tgz",
					&err) == CV_EUSAGE);
	CHECK(cv_artifact_from_filename(&a, "cudnn-10.2-beos-x64-v7.6.5.32.tgz",
					&err) == CV_EUSAGE);
	CHECK(cv_artifact_from_filename(&a, "random.tar.xz", &err) ==
	      CV_EUSAGE);
	CHECK(strstr(err.msg, "--version") != NULL);

	/* the constructor makes the invariants true, or says which fails */
	{
		struct cv_version v;
		char upper[65];
		memset(upper, 'A', 64);
		upper[64] = '\0';
		cv_version_parse(&v, "9.1.0.70-cuda12", NULL);
		CHECK(cv_artifact_init(&a, &v, "linux-x86_64", upper, 7,
				       "f.tar.xz", "/src/f.tar.xz", &err) == 0);
		CHECK(strspn(a.sha256, "a") == 64 && a.sha256[64] == '\0');
		CHECK(a.size == 7 && a.version.cuda == 12 &&
		      strcmp(a.platform, "linux-x86_64") == 0 &&
		      strcmp(a.filename, "f.tar.xz") == 0 &&
		      strcmp(a.source, "/src/f.tar.xz") == 0);
		CHECK(cv_artifact_init(&a, &v, "linux-x86_64", "abc", 0, "f",
				       "s", &err) == CV_EUSAGE);
		CHECK(cv_artifact_init(&a, &v, "../x", upper, 0, "f", "s",
				       &err) == CV_EUSAGE);
		cv_version_parse(&v, "9.1.0", NULL);
		v.cuda = 12;
		CHECK(cv_artifact_init(&a, &v, "linux-x86_64", upper, 0, "f",
				       "s", &err) == CV_EUSAGE);
		cv_version_parse(&v, "9.1.0.70", NULL);
		CHECK(cv_artifact_init(&a, &v, "linux-x86_64", upper, 0, "f",
				       "s", &err) == CV_EUSAGE);
		/* beyond the grammar: its id would not parse back */
		cv_version_parse(&v, "9.1.0.70-cuda12", NULL);
		v.part[2] = 100000;
		CHECK(cv_artifact_init(&a, &v, "linux-x86_64", upper, 0, "f",
				       "s", &err) == CV_EUSAGE);
		v.part[2] = 99999;
		CHECK(cv_artifact_init(&a, &v, "linux-x86_64", upper, 0, "f",
				       "s", &err) == 0);
	}

	CHECK(mkdtemp(root) != NULL);
	cv_config_init(&cfg);
	CHECK(cv_store_open(&st, &cfg, root, 1, &err) == 0);

	/* a good install, with bytes after the archive's end in the hash */
	build("payload-1", 0);
	memset(&a, 0, sizeof a);
	cv_artifact_from_filename(
		&a, "cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz", NULL);
	sha_of(a.sha256, 1);
	a.size = ar_len + 64;
	strcpy(a.source,
	       "/src/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz");
	CHECK(install(st, &a, 1, 0, &already) == 0 && already == 0);
	CHECK(opens == 1 && closes == 1 && last_ok == 1);
	CHECK(access(P("9.1.0.70-cuda12/lib/libcudnn.so.9.1.0"), F_OK) == 0);
	CHECK(readlink(P("9.1.0.70-cuda12/lib/libcudnn.so.9"), buf,
		       sizeof buf) > 0);
	CHECK(cv_store_get(st, "9.1.0.70-cuda12", &inst, &err) == 0);
	CHECK(strcmp(inst.sha256, a.sha256) == 0 && inst.size == a.size);
	CHECK(strcmp(inst.source, a.source) == 0 &&
	      strcmp(inst.platform, "linux-x86_64") == 0);
	CHECK(staging_empty());
	/* again: already installed, nothing fetched */
	CHECK(install(st, &a, 1, 0, &already) == 0 && already == 1);
	CHECK(opens == 1);
	/* --force with new content replaces it atomically */
	build("payload-2", 0);
	sha_of(a.sha256, 0);
	/* an upper-case expected hash is fine */
	for (char *s = a.sha256; *s; s++)
		if (*s >= 'a' && *s <= 'f')
			*s = (char)(*s - 'a' + 'A');
	a.size = ar_len;
	CHECK(install(st, &a, 0, 1, &already) == 0 && already == 0);
	fp = fopen(P("9.1.0.70-cuda12/LICENSE"), "r");
	CHECK(fp && fgets(buf, sizeof buf, fp) &&
	      strcmp(buf, "payload-2") == 0);
	if (fp)
		fclose(fp);
	CHECK(staging_empty());

	/* wrong sha256: CV_EDATA, nothing published, staging gone */
	build("payload-3", 0);
	memset(a.sha256, '0', 64);
	a.size = ar_len;
	a.version.part[3] = 71;
	CHECK(install(st, &a, 0, 0, &already) == CV_EDATA);
	CHECK(strstr(err.msg, "sha256 mismatch") != NULL);
	CHECK(strstr(err.msg, "expected 0000") != NULL);
	CHECK(last_ok == 0);
	CHECK(access(P("9.1.0.70-cuda12"), F_OK) == 0); /* the old one stays */
	CHECK(access(P("9.1.0.71-cuda12"), F_OK) != 0);
	CHECK(staging_empty());
	/* wrong size */
	sha_of(a.sha256, 0);
	a.size = ar_len + 1;
	CHECK(install(st, &a, 0, 0, &already) == CV_EDATA);
	CHECK(strstr(err.msg, "size mismatch") != NULL);
	a.size = ar_len - 1;
	CHECK(install(st, &a, 0, 0, &already) == CV_EDATA);
	CHECK(access(P("9.1.0.71-cuda12"), F_OK) != 0);
	/* a top folder naming another version: refused, nothing published */
	build("payload-4", 0);
	sha_of(a.sha256, 0);
	a.size = ar_len;
	CHECK(install(st, &a, 0, 0, &already) == CV_EDATA);
	CHECK(strstr(err.msg, "holds cuDNN 9.1.0.70-cuda12") != NULL);
	CHECK(access(P("9.1.0.71-cuda12"), F_OK) != 0);
	CHECK(staging_empty());
	/* hostile archive with the right hash: the entry is named */
	top = "cudnn-linux-x86_64-9.1.0.71_cuda12-archive";
	build("payload-4", 1);
	sha_of(a.sha256, 0);
	a.size = ar_len;
	CHECK(install(st, &a, 0, 0, &already) == CV_EDATA);
	CHECK(strstr(err.msg, "libcudnn.so.9") != NULL);
	CHECK(access(P("9.1.0.71-cuda12"), F_OK) != 0);
	CHECK(staging_empty());
	/* a hostile archive with a wrong hash reports the hash */
	memset(a.sha256, 'b', 64);
	CHECK(install(st, &a, 0, 0, &already) == CV_EDATA);
	CHECK(strstr(err.msg, "sha256 mismatch") != NULL);
	/* bad artifacts */
	a.version.nparts = 3;
	CHECK(install(st, &a, 0, 0, &already) == CV_EUSAGE);
	a.version.nparts = 4;
	strcpy(a.sha256, "xyz");
	CHECK(install(st, &a, 0, 0, &already) == CV_EUSAGE);

	cv_store_free(st);
	cv_config_release(&cfg);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	return TEST_DONE();
}
