/* local_archive.c: what a local archive or wheel handed to `install
 * --archive` is: its platform when nothing says, its size and real path,
 * checked that it is a file. */
#include "base/base.h"
#include "install/install_int.h"
#include "release/release.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	const char *base = cv_path_base(path);
	char real[PATH_MAX], plat[32];
	struct cv_stat sb;
	uint64_t size = 0;
	int r;

	if (platform != NULL)
		snprintf(plat, sizeof plat, "%s", platform);
	else if (named->platform[0] != '\0')
		snprintf(plat, sizeof plat, "%s", named->platform);
	else
		guess_platform(base, plat);
	if (cv_os_stat(path, &sb) != 0)
		return cv_err_errno(err,
				    errno == ENOENT ? CV_ENOTFOUND
						    : cv_code_from_errno(errno),
				    "cannot read the archive '%s'", path);
	if (sb.kind == CV_KIND_DIR)
		return cv_err_set(err, CV_EUSAGE,
				  "'%s' is a folder, not an archive", path);
	if (sb.kind == CV_KIND_FILE)
		size = sb.size;
	if (cv_os_realpath(path, real, sizeof real) == NULL ||
	    strlen(real) >= sizeof art->source)
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

/* Whether the manifest file `path` lists `base` for (platform, cuda): its
 * sha256 into sha when it does. */
static int
lists_file(const char *path, const struct cv_artifact *named, const char *base,
	   char sha[65])
{
	struct cv_manifest m;
	const struct cv_release_file *e;
	struct cv_json_error je;
	struct cv_json *root = cv_json_load_file(path, 0, &je);
	char *text = root ? cv_json_dumps(root, CV_JSON_COMPACT) : NULL;
	const char *slash;
	int found = 0;

	cv_json_decref(root);
	if (text == NULL ||
	    cv_manifest_parse(&m, "cached", text, strlen(text), NULL) < 0) {
		free(text);
		return 0;
	}
	free(text);
	e = cv_manifest_find(&m, named->platform, named->version.cuda);
	if (e != NULL && !e->bad[0]) {
		slash = strrchr(e->relative_path, '/');
		if (strcmp(slash ? slash + 1 : e->relative_path, base) == 0 &&
		    cv_version_cmp(&m.version, &named->version) == 0) {
			memcpy(sha, e->sha256, 65);
			found = 1;
		}
	}
	cv_manifest_release(&m);
	return found;
}

int
cv_manifest_cached_sha256(const char *cache_dir, const char *file, char sha[65],
			  char from[4096])
{
	struct cv_artifact named;
	const char *base = cv_path_base(file);
	char *top = cv_path_join(cache_dir, "manifests");
	struct cv_dir *d = cv_dir_open(top);
	const char *de;
	int found = 0;

	memset(&named, 0, sizeof named);
	if (cv_artifact_from_filename(&named, file, NULL) < 0 ||
	    named.version.nparts != 4 || named.version.cuda == 0) {
		cv_dir_close(d);
		free(top);
		return 0;
	}
	/* each mirror's cached redistrib_<major.minor.patch>.json */
	while (!found && d != NULL && (de = cv_dir_next(d, NULL)) != NULL) {
		char *path;
		struct cv_stat sb;

		if (de[0] == '.')
			continue;
		path = xasprintf("%s/%s/redistrib_%lu.%lu.%lu.json", top, de,
				 named.version.part[0], named.version.part[1],
				 named.version.part[2]);
		if (cv_os_lstat(path, &sb) == 0 && sb.kind == CV_KIND_FILE &&
		    sb.size <= (uint64_t)CV_MANIFEST_MAX_BYTES &&
		    lists_file(path, &named, base, sha)) {
			snprintf(from, 4096, "%s", path);
			found = 1;
		}
		free(path);
	}
	cv_dir_close(d);
	free(top);
	return found;
}
