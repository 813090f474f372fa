/* dir.c: a folder's listing opened by name, on every platform: the
 * folder opened through base's face (a handle, never through a link with
 * nofollow), then handed to cv_dir_adopt of file_posix.c or
 * file_win32.c. */
#include "base/base_int.h"

#include <errno.h>

struct cv_dir *
cv_dir_open_at(int dir, const char *name, int nofollow)
{
	int fd = cv_os_open_at(dir, name,
			       CV_OPEN_READ | CV_OPEN_DIR |
				       (nofollow ? CV_OPEN_NOFOLLOW : 0),
			       0);
	struct cv_dir *d;
	int e;

	if (fd < 0)
		return NULL;
	if ((d = cv_dir_adopt(fd)) == NULL) {
		e = errno;
		cv_os_close(fd);
		errno = e;
	}
	return d;
}

struct cv_dir *
cv_dir_open(const char *path)
{
	return cv_dir_open_at(CV_AT_CWD, path, 0);
}
