/* local_archive.c: what a local archive or wheel handed to `install
 * --archive` is: its platform when nothing says, its size and real path,
 * checked that it is a file. */
#include "local_archive.h"
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The platform a name that says none is built for. */
static void
guess_platform(const char *base, char platform[32])
{
	size_t n = strlen(base);

	snprintf(platform, 32, "%s",
		 n > 4 && strcmp(base + n - 4, ".zip") == 0 ? "windows-x86_64"
							    : "linux-x86_64");
}

int
cv_local_archive(const char *path, const struct cv_version *version,
		 const char *platform, const struct cv_artifact *named,
		 const char *sha256, struct cv_artifact *art,
		 struct cv_err *err)
{
	const char *base = strrchr(path, '/');
	char real[PATH_MAX], plat[32];
	struct stat sb;
	uint64_t size = 0;
	int r;

	base = base ? base + 1 : path;
	if (platform != NULL)
		snprintf(plat, sizeof plat, "%s", platform);
	else if (named->platform[0] != '\0')
		snprintf(plat, sizeof plat, "%s", named->platform);
	else
		guess_platform(base, plat);
	if (stat(path, &sb) != 0)
		return cv_err_errno(err,
				    errno == ENOENT ? CV_ENOTFOUND
						    : cv_code_from_errno(errno),
				    "cannot read the archive '%s'", path);
	if (S_ISDIR(sb.st_mode))
		return cv_err_set(err, CV_EUSAGE,
				  "'%s' is a folder, not an archive", path);
	if (S_ISREG(sb.st_mode))
		size = (uint64_t)sb.st_size;
	if (realpath(path, real) == NULL || strlen(real) >= sizeof art->source)
		return cv_err_set(
			err, CV_EUSAGE,
			"cannot resolve the archive path '%s' (too long?)",
			path);
	if ((r = cv_artifact_init(art, version, plat, sha256, size, base, real,
				  err)) < 0)
		return r;
	art->wheel = named->wheel;
	return 0;
}
