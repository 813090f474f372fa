/* test_fs.c: cv_fs_write_atomic, the one temp-then-rename writer: content
 * and mode, replacement, a link at the target replaced rather than written
 * through, and no temporary left behind on failure. */
#include "base/base.h"
#include "tap.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static int
entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d != NULL && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			n++;
	if (d != NULL)
		closedir(d);
	return n;
}

static int
holds(const char *path, const char *want)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return strcmp(buf, want) == 0;
}

int
main(void)
{
	struct cv_err err = CV_ERR_INIT;
	char path[128], victim[128], cmd[160];
	struct stat sb;

	snprintf(dir, sizeof dir, "/tmp/cv-test-fs.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof path, "%s/file", dir);
	CHECK(cv_fs_write_atomic(path, "one\n", 4, 0644, &err) == 0);
	CHECK(holds(path, "one\n"));
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0644);
	/* replaced whole, with the new mode, and nothing else left */
	CHECK(cv_fs_write_atomic(path, "two", 3, 0755, &err) == 0);
	CHECK(holds(path, "two"));
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0755);
	CHECK(entries() == 1);
	/* a link at the target is replaced, never written through */
	snprintf(victim, sizeof victim, "%s/victim", dir);
	CHECK(cv_fs_write_atomic(victim, "keep", 4, 0644, &err) == 0);
	unlink(path);
	CHECK(symlink(victim, path) == 0);
	CHECK(cv_fs_write_atomic(path, "new", 3, 0644, &err) == 0);
	CHECK(lstat(path, &sb) == 0 && S_ISREG(sb.st_mode));
	CHECK(holds(victim, "keep") && holds(path, "new"));
	CHECK(entries() == 2);
	/* a target that is a folder: the error names it, no temporary stays */
	snprintf(path, sizeof path, "%s/sub", dir);
	CHECK(mkdir(path, 0755) == 0);
	CHECK(cv_fs_write_atomic(path, "x", 1, 0644, &err) < 0);
	CHECK(strstr(err.msg, path) != NULL);
	CHECK(entries() == 3);
	/* a missing folder: not found */
	snprintf(path, sizeof path, "%s/none/file", dir);
	CHECK(cv_fs_write_atomic(path, "x", 1, 0644, &err) == CV_ENOTFOUND);
	CHECK(entries() == 3);

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	return TEST_DONE();
}
