/* sha256.c: streaming SHA-256 with OpenSSL's EVP interface. */
#include "base/base.h"
#include "install/install_int.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

struct cv_sha256 {
	EVP_MD_CTX *ctx;
};

struct cv_sha256 *
cv_sha256_new(void)
{
	struct cv_sha256 *h = xmalloc(sizeof *h);

	h->ctx = EVP_MD_CTX_new();
	if (h->ctx == NULL ||
	    EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1)
		abort(); /* out of memory, as xmalloc */
	return h;
}

void
cv_sha256_update(struct cv_sha256 *h, const void *data, size_t len)
{
	if (len > 0 && EVP_DigestUpdate(h->ctx, data, len) != 1)
		abort();
}

void
cv_sha256_final(struct cv_sha256 *h, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (EVP_DigestFinal_ex(h->ctx, md, &n) != 1 || n != 32)
		abort();
	for (unsigned int i = 0; i < n; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[64] = '\0';
}

void
cv_sha256_free(struct cv_sha256 *h)
{
	if (h == NULL)
		return;
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

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
