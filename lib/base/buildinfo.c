/* buildinfo.c: what `cudnnvm version` says for a bug report: the commit
 * the binaries were built from, and (buildinfo_posix.c, buildinfo_win32.c)
 * the versions of the libraries they were built against, as those
 * libraries' headers say. */
#include "base/base_int.h"

/* the Makefile passes it (git's commit) */
#ifndef CV_COMMIT
#define CV_COMMIT ""
#endif

const char *
cv_build_commit(void)
{
	return *CV_COMMIT ? CV_COMMIT : "unknown";
}
