/* test_hook.c: the prompt hook's stamp: made once per shell in the stamp
 * folder, a second before now; reused when the shell hands it back;
 * never a file outside that folder; settled up to the newest watched
 * change, but never to this run's own start. */
#include "activate/activate.h"
#include "tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double
mtime_of(const char *p)
{
	struct stat sb;

	if (stat(p, &sb) < 0)
		return -1;
	return (double)sb.st_mtim.tv_sec + (double)sb.st_mtim.tv_nsec / 1e9;
}

int
main(void)
{
	char dir[] = "/tmp/cudnnvm-test-hook.XXXXXX", sdir[512], other[600];
	char watched[600], first[sizeof((struct cv_hook_stamp *)0)->path];
	struct cv_hook_stamp s, t;
	struct timespec ts[2];
	char *const list[] = { watched };
	double now;
	int fd;

	if (mkdtemp(dir) == NULL)
		return 1;
	setenv("XDG_RUNTIME_DIR", dir, 1);
	snprintf(sdir, sizeof sdir, "%s/cudnnvm-hook/", dir);
	now = (double)time(NULL);

	cv_hook_stamp_touch(&s, NULL);
	CHECK(strncmp(s.path, sdir, strlen(sdir)) == 0);
	CHECK(strstr(s.path, "/stamp.") != NULL);
	CHECK(mtime_of(s.path) <= now && mtime_of(s.path) >= now - 3);
	snprintf(first, sizeof first, "%s", s.path);

	/* handed back by the shell: the same file */
	cv_hook_stamp_touch(&t, first);
	CHECK(strcmp(t.path, first) == 0);

	/* a file elsewhere is never touched: a new stamp instead */
	snprintf(other, sizeof other, "%s/stamp.elsewhere", dir);
	fd = open(other, O_WRONLY | O_CREAT, 0644);
	close(fd);
	cv_hook_stamp_touch(&t, other);
	CHECK(strcmp(t.path, other) != 0);
	CHECK(strncmp(t.path, sdir, strlen(sdir)) == 0);

	/* settle: up to a watched change older than this run ... */
	snprintf(watched, sizeof watched, "%s/watched", dir);
	fd = open(watched, O_WRONLY | O_CREAT, 0644);
	close(fd);
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= 1;
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	utimensat(AT_FDCWD, watched, ts, 0);
	cv_hook_stamp_touch(&s, first);
	utimensat(AT_FDCWD, s.path, (struct timespec[2]){ { 0, 0 }, { 0, 0 } },
		  0);
	cv_hook_stamp_settle(&s, list, 1);
	CHECK(mtime_of(s.path) == mtime_of(watched));

	/* ... but a change made during the run stays newer than the stamp */
	utimensat(AT_FDCWD, watched, NULL, 0);
	cv_hook_stamp_settle(&s, list, 1);
	CHECK(mtime_of(s.path) < mtime_of(watched));

	unsetenv("XDG_RUNTIME_DIR");
	{
		char cmd[700];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		CHECK(system(cmd) == 0);
	}
	return TEST_DONE();
}
