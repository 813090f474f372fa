/* sha256_bcrypt.c: streaming SHA-256 with Windows' BCrypt (CNG), in the
 * place of sha256_openssl.c on Windows: no OpenSSL to ship there. */
#include "base/base.h"
#include "install/backend_int.h"

#include <windows.h>

#include <bcrypt.h>
#include <stdlib.h>

struct cv_sha256 {
	BCRYPT_HASH_HANDLE hash;
};

/* The algorithm provider is opened once per process and kept: opening it
 * is the costly step, and a hash object may share it across threads. */
static BCRYPT_ALG_HANDLE
provider(void)
{
	static BCRYPT_ALG_HANDLE alg;
	static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
	BOOL pending;

	if (!InitOnceBeginInitialize(&once, 0, &pending, NULL))
		abort();
	if (pending) {
		if (!BCRYPT_SUCCESS(BCryptOpenAlgorithmProvider(
			    &alg, BCRYPT_SHA256_ALGORITHM, NULL, 0)))
			abort(); /* no SHA-256 in the OS: nothing to fall back
				    on */
		InitOnceComplete(&once, 0, NULL);
	}
	return alg;
}

struct cv_sha256 *
cv_sha256_new(void)
{
	struct cv_sha256 *h = xmalloc(sizeof *h);

	/* NULL, 0: BCrypt allocates the hash object itself (Windows 7+) */
	if (!BCRYPT_SUCCESS(BCryptCreateHash(provider(), &h->hash, NULL, 0,
					     NULL, 0, 0)))
		abort(); /* out of memory, as xmalloc */
	return h;
}

void
cv_sha256_update(struct cv_sha256 *h, const void *data, size_t len)
{
	const unsigned char *p = data;

	/* BCryptHashData takes a ULONG length: feed huge blocks in pieces */
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;

		if (!BCRYPT_SUCCESS(BCryptHashData(h->hash, (PUCHAR)p, n, 0)))
			abort();
		p += n;
		len -= n;
	}
}

void
cv_sha256_final(struct cv_sha256 *h, char hex[65])
{
	unsigned char md[32];

	if (!BCRYPT_SUCCESS(BCryptFinishHash(h->hash, md, sizeof md, 0)))
		abort();
	cv_sha256_hex(md, hex);
}

void
cv_sha256_free(struct cv_sha256 *h)
{
	if (h == NULL)
		return;
	BCryptDestroyHash(h->hash);
	free(h);
}
