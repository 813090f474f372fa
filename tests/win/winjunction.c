/* winjunction.c: cv_os_junction for the wine suite (TAP): `winjunction.exe
 * DIR` makes DIR\a and DIR\b, a junction DIR\cur to a, reads a's file
 * through it, rewrites it in place to b and reads b's. wine 8 has no
 * reparse points: there the first call must say ENOSYS and leave no
 * folder behind, and the rest is skipped, said as a skip. */
#include "base/base.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
put(const char *dir, const char *name)
{
	char *p = cv_path_join(dir, name);
	int fd = cv_os_open(p, CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_TRUNC,
			    0644);

	if (fd >= 0)
		cv_os_close(fd);
	free(p);
}

static int
exists(const char *dir, const char *name)
{
	char *p = cv_path_join(dir, name);
	int r = cv_os_access(p, CV_ACCESS_EXISTS) == 0;

	free(p);
	return r;
}

int
main(int argc, char **argv)
{
	char *a, *b, *cur, target[4096];
	struct cv_stat sb;
	int r, e;

	if (argc != 2)
		return 64;
	a = cv_path_join(argv[1], "a");
	b = cv_path_join(argv[1], "b");
	cur = cv_path_join(argv[1], "cur");
	cv_os_mkdir(a, 0755);
	cv_os_mkdir(b, 0755);
	put(a, "fa");
	put(b, "fb");
	r = cv_os_junction(cur, a, 0);
	e = errno;
	if (r < 0 && e == ENOSYS) {
		CHECK(cv_os_lstat(cur, &sb) != 0);
		printf("ok %d - # SKIP no reparse points here (wine 8): "
		       "cv_os_junction says ENOSYS\n",
		       ++t_run);
		return TEST_DONE();
	}
	CHECK(r == 0);
	CHECK(cv_os_lstat(cur, &sb) == 0 && sb.kind == CV_KIND_LINK);
	CHECK(exists(cur, "fa"));
	CHECK(cv_os_readlink(cur, target, sizeof target) > 0 &&
	      strstr(target, "a") != NULL);
	CHECK(cv_os_junction(cur, b, 0) < 0 && errno == EEXIST);
	CHECK(cv_os_junction(cur, b, 1) == 0);
	CHECK(exists(cur, "fb") && !exists(cur, "fa"));
	CHECK(cv_os_junction(a, b, 1) < 0 && errno == EINVAL);
	return TEST_DONE();
}
