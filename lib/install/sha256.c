/* sha256.c: what SHA-256 needs beyond the hash itself, on every platform
 * (the hash: sha256_openssl.c, or sha256_bcrypt.c on Windows). */
#include "base/base.h"
#include "install/backend_int.h"
#include "install/install.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int
cv_sha256_valid_hex(const char *s)
{
	size_t i;

	if (s == NULL)
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (i >= 64 || !((s[i] >= '0' && s[i] <= '9') ||
				 (s[i] >= 'a' && s[i] <= 'f') ||
				 (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	return i == 64;
}

int
cv_sha256_file(const char *path, char hex[65], struct cv_err *err)
{
	struct cv_sha256 *h;
	char *buf;
	long n;
	int fd = cv_os_open(path, CV_OPEN_READ, 0);

	if (fd < 0)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot open '%s'", path);
	h = cv_sha256_new();
	buf = xmalloc(1 << 20);
	while ((n = cv_os_read(fd, buf, 1 << 20)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			cv_err_errno(err, CV_EIO, "cannot read '%s'", path);
			break;
		}
		cv_sha256_update(h, buf, (size_t)n);
	}
	if (n == 0)
		cv_sha256_final(h, hex);
	cv_sha256_free(h);
	free(buf);
	cv_os_close(fd);
	return n == 0 ? 0 : CV_EIO;
}
