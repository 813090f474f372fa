/* artifact.c: what is being installed (struct cv_artifact), checked once
 * where it is made: from one of NVIDIA's archive names, or from what a
 * manifest, a lock or a package index says of it. */
#include "base/base.h"
#include "install/install_int.h"
#include "release/release.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A platform name is [a-z0-9_-]* (it becomes part of a path). */
static int
platform_name_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_'))
			return 0;
	return 1;
}

/* 7.x and 8.0-8.2 names: cudnn-<cuda M.m>-<os>-v<version>.<ext>, e.g.
 * cudnn-10.2-linux-x64-v7.6.5.32.tgz or cudnn-11.3-windows10-x64-
 * v8.2.1.32.zip. Web downloads sometimes arrive as .solitairetheme8 (a MIME
 * mix-up); the format itself is told by its magic bytes. */
static int
from_legacy_name(struct cv_artifact *art, const char *base)
{
	static const struct {
		const char *os, *platform;
	} oses[] = {
		{ "-linux-x64-v", "linux-x86_64" },
		{ "-linux-ppc64le-v", "linux-ppc64le" },
		{ "-linux-aarch64sbsa-v", "linux-sbsa" },
		{ "-windows10-x64-v", "windows-x86_64" },
		{ "-windows11-x64-v", "windows-x86_64" },
		{ "-windows7-x64-v", "windows-x86_64" },
		{ "-windows-x64-v", "windows-x86_64" },
	};
	static const char *const exts[] = { ".tgz", ".tar.gz", ".zip",
					    ".solitairetheme8" };
	const char *p = base + 6, *os = NULL, *ver = NULL;
	char vbuf[64];
	size_t vlen = 0, len = strlen(base);
	unsigned long cuda;
	char *end;
	size_t i;

	if (*p < '1' || *p > '9')
		return -1;
	cuda = strtoul(p, &end, 10);
	if (cuda == 0 || cuda > 999 || *end != '.' || end[1] < '0' ||
	    end[1] > '9')
		return -1;
	p = end + 1;
	while (*p >= '0' && *p <= '9')
		p++;
	for (i = 0; i < sizeof oses / sizeof oses[0]; i++)
		if (strncmp(p, oses[i].os, strlen(oses[i].os)) == 0) {
			os = oses[i].platform;
			ver = p + strlen(oses[i].os);
			break;
		}
	if (os == NULL)
		return -1;
	for (i = 0; i < sizeof exts / sizeof exts[0]; i++) {
		size_t el = strlen(exts[i]);
		if (len > el && strcmp(base + len - el, exts[i]) == 0) {
			vlen = (size_t)(base + len - el - ver);
			break;
		}
	}
	if (vlen == 0 || vlen >= sizeof vbuf)
		return -1;
	memcpy(vbuf, ver, vlen);
	vbuf[vlen] = '\0';
	if (cv_version_parse(&art->version, vbuf, NULL) < 0 ||
	    art->version.nparts != 4 || art->version.cuda != 0)
		return -1;
	art->version.cuda = (int)cuda;
	snprintf(art->platform, sizeof art->platform, "%s", os);
	return 0;
}

int
cv_artifact_from_filename(struct cv_artifact *art, const char *filename,
			  struct cv_err *err)
{
	static const char *const sfx[] = { "-archive.tar.xz", "-archive.zip",
					   NULL };
	const char *base = cv_path_base(filename);
	char name[256], *cuda, *dash;
	size_t len, digits;
	long n;
	int s;

	len = strlen(base);
	if (len >= sizeof name || strncmp(base, "cudnn-", 6) != 0)
		goto bad;
	for (s = 0; sfx[s]; s++)
		if (len > strlen(sfx[s]) &&
		    strcmp(base + len - strlen(sfx[s]), sfx[s]) == 0)
			break;
	if (sfx[s] == NULL)
		goto legacy;
	memcpy(name, base + 6, len - 6 - strlen(sfx[s]));
	name[len - 6 - strlen(sfx[s])] = '\0';
	/* name = <platform>-<version>_cuda<N>, where 8.3/8.4 and some later
	 * Windows builds say _cuda<N>.<m> (11.5, 13.4): the variant is N. */
	cuda = strrchr(name, '_');
	if (cuda == NULL || strncmp(cuda, "_cuda", 5) != 0 || cuda[5] < '1' ||
	    cuda[5] > '9')
		goto bad;
	digits = strspn(cuda + 5, "0123456789");
	if (digits > 3 ||
	    (cuda[5 + digits] != '\0' &&
	     (cuda[5 + digits] != '.' || cuda[6 + digits] == '\0' ||
	      strspn(cuda + 6 + digits, "0123456789") !=
		      strlen(cuda + 6 + digits) ||
	      strlen(cuda + 6 + digits) > 3)))
		goto bad;
	n = strtol(cuda + 5, NULL, 10);
	*cuda = '\0';
	dash = strrchr(name, '-');
	if (dash == NULL || dash == name)
		goto bad;
	*dash = '\0';
	if (!platform_name_ok(name))
		goto bad;
	len = strlen(name);
	if (len >= sizeof art->platform)
		goto bad;
	if (cv_version_parse(&art->version, dash + 1, NULL) < 0 ||
	    art->version.nparts != 4 || art->version.cuda != 0)
		goto bad;
	art->version.cuda = (int)n;
	memcpy(art->platform, name, len + 1);
	snprintf(art->filename, sizeof art->filename, "%s", base);
	return 0;
legacy:
	if (from_legacy_name(art, base) == 0) {
		snprintf(art->filename, sizeof art->filename, "%s", base);
		return 0;
	}
bad:
	return cv_err_set(
		err, CV_EUSAGE,
		"cannot tell the version from the file name (expected cudnn-<platform>-<version>_cuda<N>-archive.tar.xz or .zip, or cudnn-<cuda>-linux-x64-v<version>.tgz); pass --version V --cuda N");
}

/* What cv_store_install relies on; id gets the install id, formatted
 * here once and passed on. */
int
cv_artifact_check(const struct cv_artifact *art, char id[64],
		  struct cv_err *err)
{
	/* the bounds of the spec grammar, so the id formatted below is one
	 * that parses back to this version */
	int ok = art->version.nparts == 4 && art->version.cuda > 0 &&
		 art->version.cuda <= 999 && art->version.part[0] <= 999;

	for (int i = 1; i < 4; i++)
		ok = ok && art->version.part[i] <= 99999;
	if (!ok)
		return cv_err_set(
			err, CV_EUSAGE,
			"an install needs a full version (4 parts) and a CUDA major");
	if (!cv_sha256_valid_hex(art->sha256))
		return cv_err_set(err, CV_EUSAGE,
				  "the expected sha256 must be 64 hex digits");
	if (!platform_name_ok(art->platform))
		return cv_err_set(err, CV_EUSAGE, "bad platform name");
	cv_version_format_id(&art->version, id, 64);
	return 0;
}

int
cv_artifact_init(struct cv_artifact *art, const struct cv_version *version,
		 const char *platform, const char *sha256, uint64_t size,
		 const char *filename, const char *source, struct cv_err *err)
{
	char id[64];

	memset(art, 0, sizeof *art);
	art->version = *version;
	art->size = size;
	if (strlen(platform) >= sizeof art->platform ||
	    strlen(sha256) >= sizeof art->sha256 ||
	    strlen(filename) >= sizeof art->filename ||
	    strlen(source) >= sizeof art->source)
		return cv_err_set(
			err, CV_EUSAGE,
			"the archive's name, path or platform is too long");
	strcpy(art->platform, platform);
	strcpy(art->filename, filename);
	strcpy(art->source, source);
	/* hex is compared as lower case from here on: lower it once */
	for (size_t i = 0; sha256[i]; i++)
		art->sha256[i] = (char)((sha256[i] >= 'A' && sha256[i] <= 'F')
						? sha256[i] - 'A' + 'a'
						: sha256[i]);
	return cv_artifact_check(art, id, err);
}
