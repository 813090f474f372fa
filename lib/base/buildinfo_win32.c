/* buildinfo_win32.c: the libraries `cudnnvm version` names on Windows,
 * where the system's own facilities replace the ones Debian builds no
 * Windows copy of: WinHTTP for libcurl, BCrypt for OpenSSL's SHA-256, the
 * Win32 profile API for inih, the project's zip reader over zlib for
 * libarchive, jsmn for jansson. jsmn's header carries no version. */
#ifdef _WIN32
#include "base/base_int.h"

#include <zlib.h>

const char *
cv_build_libraries(void)
{
	return "WinHTTP (system), BCrypt (system), Win32 profile API "
	       "(system), zlib/" ZLIB_VERSION ", jsmn";
}
#endif
