/* buildinfo_posix.c: the libraries `cudnnvm version` names on POSIX, the
 * versions their headers say (both binaries are built
 * from the same headers; the front binary links only inih and the JSON
 * backend, but names all seven, so that it answers without the helper). */
#include "base/base_int.h"

#include <archive.h>
#include <curl/curlver.h>
#include <libdeflate.h>
#include <lzma.h>
#include <openssl/opensslv.h>
#include <stdio.h>

/* the Makefile passes pkg-config's inih version, as inih's header carries
 * none */
#ifndef CV_INIH_VERSION
#define CV_INIH_VERSION ""
#endif
#ifdef OPENSSL_VERSION_STR
#define OPENSSL_SAYS "OpenSSL/" OPENSSL_VERSION_STR
#else
#define OPENSSL_SAYS OPENSSL_VERSION_TEXT
#endif

const char *
cv_build_libraries(void)
{
	/* name/version, as curl -V writes them: "libdeflate 1.14" would read
	 * to a scanner (lintian's embedded-library check) as zlib's own
	 * "deflate 1.x" banner */
	static char s[256];

	/* the JSON backend says its own name (only its file includes it) */
	snprintf(s, sizeof s, "%s%s%s", "inih/" CV_INIH_VERSION ", ",
		 cv_json_library(),
		 ", libcurl/" LIBCURL_VERSION
		 ", libarchive/" ARCHIVE_VERSION_ONLY_STRING ", " OPENSSL_SAYS
		 ", liblzma/" LZMA_VERSION_STRING
		 ", libdeflate/" LIBDEFLATE_VERSION_STRING);
	return s;
}
