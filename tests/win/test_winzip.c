/* test_winzip.c: the install wing's zip path where there is no libarchive
 * (extract_zip.c's reader, zlib's inflate, extract_policy.c), run under
 * wine by tests/win/zip.sh on zips tests/fixtures/mkarchive.py writes:
 *   test_winzip ARCHIVE DEST WANT [ARCHIVE DEST WANT]...
 * Each ARCHIVE is streamed into cv_extract as an install streams it;
 * WANT is the code it must return (0, or -4 for CV_EDATA). On success
 * zip.sh compares DEST with the archive's own listing. */
#include "base/base.h"
#include "install/install_int.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct file_src {
	FILE *f;
	char buf[1 << 16];
};

static ssize_t
file_read(void *ctx, const void **buf, struct cv_err *err)
{
	struct file_src *s = ctx;
	size_t n = fread(s->buf, 1, sizeof s->buf, s->f);

	(void)err;
	*buf = s->buf;
	return (ssize_t)n;
}

int
main(int argc, char **argv)
{
	static struct file_src s;

	for (int i = 1; i + 2 < argc; i += 3) {
		struct cv_source src = { file_read, &s };
		struct cv_extract_limits lim = { 0 };
		struct cv_err err = CV_ERR_INIT;
		char spool[600];
		int want = atoi(argv[i + 2]), r;

		lim.threads = 2;
		s.f = fopen(argv[i], "rb");
		if (s.f == NULL || cv_fs_mkdirs(argv[i + 1], 0755, &err) < 0) {
			printf("not ok - %s: cannot open it or make %s\n",
			       argv[i], argv[i + 1]);
			continue;
		}
		r = cv_extract(&src, argv[i + 1], &lim, &err);
		fclose(s.f);
		if (r != want)
			printf("# %s: %s\n", argv[i], err.msg);
		CHECK(r == want);
		/* a refusal is one line */
		CHECK(r == 0 || (err.msg[0] && !strpbrk(err.msg, "\r\n")));
		/* the spool is gone either way */
		snprintf(spool, sizeof spool, "%s/.cudnnvm-archive",
			 argv[i + 1]);
		{
			FILE *left = fopen(spool, "rb");
			CHECK(left == NULL);
			if (left != NULL)
				fclose(left);
		}
	}
	return TEST_DONE();
}
