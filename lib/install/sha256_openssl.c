/* sha256_openssl.c: streaming SHA-256 with OpenSSL's EVP interface (the
 * Windows build has sha256_bcrypt.c in its place). */
#include "base/base.h"
#include "install/backend_int.h"

#include <openssl/evp.h>
#include <stdlib.h>

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
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (EVP_DigestFinal_ex(h->ctx, md, &n) != 1 || n != 32)
		abort();
	cv_sha256_hex(md, hex);
}

void
cv_sha256_free(struct cv_sha256 *h)
{
	if (h == NULL)
		return;
	EVP_MD_CTX_free(h->ctx);
	free(h);
}
