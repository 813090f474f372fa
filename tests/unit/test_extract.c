/* test_extract.c: the entry policy, layouts, caps and modes of cv_extract,
 * on tar archives built in memory with libarchive. */
#include "base/base.h"
#include "install/install_int.h"
#include "tap.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ARMAX (1 << 20)
static char ar_buf[ARMAX];
static size_t ar_len;
static struct archive *aw;
static char root[] = "/tmp/cvext.XXXXXX";
static struct cv_err err;

static void
ar_begin(int zip)
{
	aw = archive_write_new();
	if (zip)
		archive_write_set_format_zip(aw);
	else {
		archive_write_set_format_pax_restricted(aw);
		archive_write_add_filter_xz(aw);
	}
	archive_write_open_memory(aw, ar_buf, sizeof ar_buf, &ar_len);
}

static void
ar_add(const char *name, int type, const char *data, const char *link, int mode)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, (unsigned)type);
	archive_entry_set_perm(e, (mode_t)mode);
	if (type == AE_IFLNK)
		archive_entry_set_symlink(e, link);
	if (type == AE_IFREG && link != NULL) {
		archive_entry_set_hardlink(e, link);
		archive_entry_set_size(e, 0);
	} else
		archive_entry_set_size(e, data ? (la_int64_t)strlen(data) : 0);
	archive_write_header(aw, e);
	if (data != NULL && type == AE_IFREG)
		archive_write_data(aw, data, strlen(data));
	archive_entry_free(e);
}

static void
ar_end(void)
{
	archive_write_close(aw);
	archive_write_free(aw);
}

struct memsrc {
	const char *p;
	size_t left, chunk;
	int fail;
};

static ssize_t
mem_read(void *ctx, const void **buf, struct cv_err *e)
{
	struct memsrc *m = ctx;
	size_t n = m->left < m->chunk ? m->left : m->chunk;

	if (m->fail && m->left < ar_len / 2)
		return cv_err_set(e, CV_ENETWORK, "connection reset");
	*buf = m->p;
	m->p += n;
	m->left -= n;
	return (ssize_t)n;
}

static int
extract_to(const char *name, const struct cv_extract_limits *lim, int fail)
{
	char dest[256];
	struct memsrc m = { ar_buf, ar_len, 97, fail };
	struct cv_source src = { mem_read, &m };

	snprintf(dest, sizeof dest, "%s/%s", root, name);
	mkdir(dest, 0755);
	err = (struct cv_err)CV_ERR_INIT;
	return cv_extract(&src, dest, lim, &err);
}

static int
exists(const char *rel)
{
	char p[512];
	struct stat sb;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	return lstat(p, &sb) == 0;
}

static int
mode_of(const char *rel)
{
	char p[512];
	struct stat sb;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	return lstat(p, &sb) == 0 ? (int)(sb.st_mode & 07777) : -1;
}

static const char *
link_of(const char *rel)
{
	static char t[256];
	char p[512];
	ssize_t n;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	n = readlink(p, t, sizeof t - 1);
	t[n < 0 ? 0 : n] = '\0';
	return t;
}

/* A one-case hostile archive: the legit top plus `fn`'s entries. */
#define TOP    "cudnn-linux-x86_64-9.1.0.70_cuda12-archive"
#define WINTOP "cudnn-windows-x86_64-9.1.0.70_cuda12-archive"
static int
hostile(const char *dest, void (*fn)(void))
{
	ar_begin(0);
	ar_add(TOP "/", AE_IFDIR, NULL, NULL, 0755);
	ar_add(TOP "/lib/libok.so", AE_IFREG, "ok", NULL, 0644);
	fn();
	ar_end();
	return extract_to(dest, NULL, 0);
}

static void
h_dotdot(void)
{
	ar_add(TOP "/../../evil", AE_IFREG, "x", NULL, 0644);
}
static void
h_abs(void)
{
	ar_add("/tmp/evil-abs", AE_IFREG, "x", NULL, 0644);
}
static void
h_abslink(void)
{
	ar_add(TOP "/lib/x", AE_IFLNK, NULL, "/etc/shadow", 0777);
}
static void
h_uplink(void)
{
	ar_add(TOP "/up", AE_IFLNK, NULL, "../../..", 0777);
}
static void
h_uplink2(void)
{
	ar_add(TOP "/lib/up", AE_IFLNK, NULL, "../..", 0777);
}
static void
h_hard(void)
{
	ar_add(TOP "/lib/hl", AE_IFREG, NULL, "../outside", 0644);
}
static void
h_fifo(void)
{
	ar_add(TOP "/lib/f", AE_IFIFO, NULL, NULL, 0644);
}
static void
h_chr(void)
{
	ar_add(TOP "/lib/c", AE_IFCHR, NULL, NULL, 0644);
}
static void
h_dup(void)
{
	ar_add(TOP "/lib/libok.so", AE_IFREG, "again", NULL, 0644);
}
static void
h_twotop(void)
{
	ar_add("other/x", AE_IFREG, "x", NULL, 0644);
}
static void
h_newline(void)
{
	ar_add(TOP "/lib/a\nb", AE_IFREG, "x", NULL, 0644);
}
static void
h_backslash(void)
{
	ar_add(TOP "/lib/a\\b", AE_IFREG, "x", NULL, 0644);
}
static void
h_colon(void)
{
	ar_add(TOP "/lib/a:b", AE_IFREG, "x", NULL, 0644);
}
static void
h_badutf8(void)
{
	ar_add(TOP "/lib/\xff\xfe", AE_IFREG, "x", NULL, 0644);
}
static void
h_deep(void)
{
	char p[512] = TOP;
	for (int i = 0; i < 33; i++)
		strcat(p, "/d");
	ar_add(p, AE_IFREG, "x", NULL, 0644);
}
static void
h_long(void)
{
	char p[1200] = TOP "/";
	memset(p + strlen(p), 'a', 1100);
	p[sizeof p - 1] = '\0';
	ar_add(p, AE_IFREG, "x", NULL, 0644);
}
static void
h_through(void)
{
	ar_add(TOP "/lnk", AE_IFLNK, NULL, "lib", 0777);
	ar_add(TOP "/lnk/evil", AE_IFREG, "x", NULL, 0644);
}

static int
refused(const char *name, void (*fn)(void), const char *what)
{
	int r = hostile(name, fn);

	if (r != CV_EDATA || strstr(err.msg, what) == NULL) {
		printf("# %s: got %d: %s\n", name, r, err.msg);
		return 0;
	}
	return 1;
}

int
main(void)
{
	struct cv_extract_limits lim = { 0 };
	char cmd[300];

	CHECK(mkdtemp(root) != NULL);
	umask(077);

	/* the xz decoder's auto threads: one per core on 1-3 cores, then
	 * two per core up to 64 */
	CHECK(cv_xz_auto_threads(1) == 1);
	CHECK(cv_xz_auto_threads(3) == 3);
	CHECK(cv_xz_auto_threads(4) == 8);
	CHECK(cv_xz_auto_threads(16) == 32);
	CHECK(cv_xz_auto_threads(32) == 64);
	CHECK(cv_xz_auto_threads(224) == 64);

	/* a cuDNN-like archive: chains, modes normalised whatever the umask */
	ar_begin(0);
	ar_add(TOP "/", AE_IFDIR, NULL, NULL, 0700);
	ar_add(TOP "/include/cudnn.h", AE_IFREG, "h", NULL, 0600);
	ar_add(TOP "/lib/libcudnn.so.9.1.0", AE_IFREG, "elf", NULL, 04777);
	ar_add(TOP "/lib/libcudnn.so.9", AE_IFLNK, NULL, "libcudnn.so.9.1.0",
	       0777);
	ar_add(TOP "/lib/libcudnn.so", AE_IFLNK, NULL, "libcudnn.so.9", 0777);
	ar_add(TOP "/include/sub/", AE_IFDIR, NULL, NULL, 0);
	ar_add(TOP "/include/sub/up", AE_IFLNK, NULL, "../cudnn.h", 0777);
	ar_add(TOP "/LICENSE", AE_IFREG, "license", NULL, 0);
	/* lib/ is what the loader searches: only cuDNN's names stay */
	ar_add(TOP "/lib/libz.so.1", AE_IFREG, "elf", NULL, 0644);
	ar_add(TOP "/lib/libz.so", AE_IFLNK, NULL, "libz.so.1", 0777);
	ar_add(TOP "/lib/glibc-hwcaps/", AE_IFDIR, NULL, NULL, 0755);
	ar_add(TOP "/lib/glibc-hwcaps/x86-64-v3/", AE_IFDIR, NULL, NULL, 0755);
	ar_add(TOP "/lib/glibc-hwcaps/x86-64-v3/libcudnn.so.9", AE_IFREG, "elf",
	       NULL, 0644);
	ar_end();
	CHECK(extract_to("good", NULL, 0) == 0);
	CHECK(mode_of("good/include/cudnn.h") == 0644);
	CHECK(mode_of("good/lib/libcudnn.so.9.1.0") == 0644);
	CHECK(mode_of("good/LICENSE") == 0644);
	CHECK(mode_of("good/lib") == 0755);
	CHECK(mode_of("good/include/sub") == 0755);
	CHECK(!exists("good/lib/libz.so.1") && !exists("good/lib/libz.so"));
	CHECK(!exists("good/lib/glibc-hwcaps"));
	CHECK(strcmp(link_of("good/lib/libcudnn.so.9"), "libcudnn.so.9.1.0") ==
	      0);
	CHECK(strcmp(link_of("good/lib/libcudnn.so"), "libcudnn.so.9") == 0);
	CHECK(strcmp(link_of("good/lib64"), "lib") == 0);
	CHECK(!exists("good/" TOP));

	/* the old .tgz layout: cuda/include, cuda/lib64 -> include/, lib/ */
	ar_begin(0);
	ar_add("cuda/include/cudnn.h", AE_IFREG, "h", NULL, 0644);
	ar_add("cuda/lib64/libcudnn.so.7.6.5", AE_IFREG, "elf", NULL, 0755);
	ar_add("cuda/lib64/libcudnn.so.7", AE_IFLNK, NULL, "libcudnn.so.7.6.5",
	       0777);
	ar_add("cuda/NVIDIA_SLA_cuDNN_Support.txt", AE_IFREG, "sla", NULL,
	       0644);
	ar_end();
	CHECK(extract_to("old", NULL, 0) == 0);
	CHECK(exists("old/include/cudnn.h"));
	CHECK(exists("old/lib/libcudnn.so.7.6.5"));
	CHECK(strcmp(link_of("old/lib/libcudnn.so.7"), "libcudnn.so.7.6.5") ==
	      0);
	CHECK(strcmp(link_of("old/lib64"), "lib") == 0);

	/* a Windows zip keeps bin/, gets no lib64 link */
	ar_begin(1);
	ar_add("cudnn-windows-x86_64-9.1.0.70_cuda12-archive/bin/cudnn64_9.dll",
	       AE_IFREG, "MZ", NULL, 0644);
	ar_add("cudnn-windows-x86_64-9.1.0.70_cuda12-archive/lib/x64/cudnn.lib",
	       AE_IFREG, "!", NULL, 0644);
	ar_end();
	CHECK(extract_to("win", NULL, 0) == 0);
	CHECK(exists("win/bin/cudnn64_9.dll"));
	CHECK(exists("win/lib/x64/cudnn.lib"));
	CHECK(!exists("win/lib64"));
	/* zip case-fold collision */
	ar_begin(1);
	ar_add("top/lib/A.lib", AE_IFREG, "a", NULL, 0644);
	ar_add("top/lib/a.lib", AE_IFREG, "b", NULL, 0644);
	ar_end();
	CHECK(extract_to("wincase", NULL, 0) == CV_EDATA);
	CHECK(strstr(err.msg, "differs only in case") != NULL);

	/* names Windows forbids, or reads as something else, in a Windows
	 * zip (doc/reliability.md §6.3): each refused, nothing written */
	{
		static const char *const bad[] = { "../evil.dll",
						   "/abs.dll",
						   "C:foo.dll",
						   "C:\\x.dll",
						   "\\\\server\\share",
						   "bin\\evil.dll",
						   "bin/CON",
						   "bin/con.txt",
						   "bin/Nul.dll",
						   "bin/AUX .h",
						   "bin/prn",
						   "bin/COM1.dll",
						   "bin/lpt9",
						   "bin/com\xc2\xb9.dll",
						   "bin/CONOUT$",
						   "bin/evil.",
						   "bin/evil ",
						   "bin/x.dll:stream",
						   "bin/a<b",
						   "bin/a|b",
						   "bin/a?b",
						   "bin/a*b",
						   "bin/a\"b",
						   "NUL/bin/x.dll",
						   NULL };
		for (int i = 0; bad[i]; i++) {
			char n[300], dest[64];
			if (bad[i][0] == '/' || strncmp(bad[i], "..", 2) == 0 ||
			    strchr(bad[i], ':') != NULL || bad[i][0] == '\\' ||
			    strncmp(bad[i], "NUL/", 4) == 0)
				snprintf(n, sizeof n, "%s", bad[i]);
			else
				snprintf(n, sizeof n, WINTOP "/%s", bad[i]);
			ar_begin(1);
			ar_add(WINTOP "/bin/cudnn64_9.dll", AE_IFREG, "MZ",
			       NULL, 0644);
			ar_add(n, AE_IFREG, "x", NULL, 0644);
			ar_end();
			snprintf(dest, sizeof dest, "winbad%d", i);
			CHECK(extract_to(dest, NULL, 0) == CV_EDATA);
			if (err.code != CV_EDATA || strchr(err.msg, '\n'))
				printf("# %s: %s\n", bad[i], err.msg);
		}
		/* the same names pass where Windows has them not reserved */
		ar_begin(1);
		ar_add(WINTOP "/bin/cudnn64_9.dll", AE_IFREG, "MZ", NULL, 0644);
		ar_add(WINTOP "/bin/console.dll", AE_IFREG, "MZ", NULL, 0644);
		ar_add(WINTOP "/bin/com10.dll", AE_IFREG, "MZ", NULL, 0644);
		ar_add(WINTOP "/bin/nul_x.dll", AE_IFREG, "MZ", NULL, 0644);
		ar_end();
		CHECK(extract_to("wingood", NULL, 0) == 0);
		CHECK(exists("wingood/bin/console.dll") &&
		      exists("wingood/bin/com10.dll"));
	}

	/* hostile entries (doc/reliability.md §6.3) */
	CHECK(refused("dotdot", h_dotdot, "'..'"));
	CHECK(refused("abs", h_abs, "absolute path"));
	CHECK(access("/tmp/evil-abs", F_OK) != 0);
	CHECK(refused("abslink", h_abslink, "symlink to an absolute path"));
	CHECK(refused("uplink", h_uplink, "leaves the archive"));
	CHECK(refused("uplink2", h_uplink2, "leaves the archive"));
	CHECK(refused("hard", h_hard, "hard link"));
	CHECK(refused("fifo", h_fifo, "device, FIFO or socket"));
	CHECK(refused("chr", h_chr, "device, FIFO or socket"));
	CHECK(refused("dup", h_dup, "duplicate"));
	CHECK(refused("twotop", h_twotop, "single top folder"));
	CHECK(refused("newline", h_newline, "control character"));
	CHECK(strchr(err.msg, '\n') == NULL);
	CHECK(refused("backslash", h_backslash, "backslash"));
	CHECK(refused("colon", h_colon, "':'"));
	CHECK(refused("badutf8", h_badutf8, "UTF-8"));
	CHECK(refused("deep", h_deep, "deeper"));
	CHECK(refused("long", h_long, "longer"));
	CHECK(refused("through", h_through, "lnk/evil"));

	/* caps: total bytes and entries */
	ar_begin(0);
	ar_add("t/a", AE_IFREG, "0123456789", NULL, 0644);
	ar_add("t/b", AE_IFREG, "0123456789", NULL, 0644);
	ar_end();
	lim.max_total_bytes = 15;
	CHECK(extract_to("cap", &lim, 0) == CV_EDATA);
	CHECK(strstr(err.msg, "larger than the limit") != NULL);
	lim.max_total_bytes = 0;
	lim.max_entries = 1;
	CHECK(extract_to("cap2", &lim, 0) == CV_EDATA);
	CHECK(strstr(err.msg, "number of entries") != NULL);
	/* an empty archive, garbage, and a failing source */
	ar_begin(0);
	ar_add("t/", AE_IFDIR, NULL, NULL, 0755);
	ar_end();
	CHECK(extract_to("empty", NULL, 0) == CV_EDATA);
	memset(ar_buf, 'x', 4096);
	ar_len = 4096;
	CHECK(extract_to("garbage", NULL, 0) == CV_EDATA);
	ar_begin(0);
	for (int i = 0; i < 50; i++) {
		char n[64], d[200];
		snprintf(n, sizeof n, "t/f%d", i);
		memset(d, 'a' + i % 26, sizeof d - 1);
		d[sizeof d - 1] = '\0';
		ar_add(n, AE_IFREG, d, NULL, 0644);
	}
	ar_end();
	CHECK(extract_to("srcfail", NULL, 1) == CV_ENETWORK);
	CHECK(strstr(err.msg, "connection reset") != NULL);
	/* A12: a corrupt xz stream surfaces as CV_EDATA, no hang */
	for (size_t i = ar_len / 3; i < ar_len / 3 + 64 && i < ar_len; i++)
		ar_buf[i] ^= 0x5a;
	CHECK(extract_to("corrupt", NULL, 0) == CV_EDATA);
	CHECK(strstr(err.msg, "corrupt") != NULL);
	/* a truncated one too */
	ar_begin(0);
	ar_add("t/a", AE_IFREG, "0123456789", NULL, 0644);
	ar_end();
	ar_len /= 2;
	CHECK(extract_to("truncated", NULL, 0) == CV_EDATA);

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	return TEST_DONE();
}
