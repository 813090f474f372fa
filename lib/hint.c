/* hint.c: the `cudnnvm install ...` line an error about a missing version
 * prints. It must work as printed: a spec without -cudaN is installed for
 * the detected CUDA major, so when the release (as a manifest cached by an
 * earlier list-remote or install says) has no build for that major, the
 * hint names one it does have. Reads cached files only, never the network,
 * and only on the error path. */
#include "internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The newest release cached under <cache>/manifests/<mirror>/ that spec
 * matches, parsed into *m. 1 when found. */
static int
newest_cached(const char *cache_dir, const struct cv_version *spec,
	      struct cv_manifest *m)
{
	char *base = cv_path_join(cache_dir, "manifests");
	DIR *top = opendir(base);
	struct dirent *de;
	struct cv_version best = { 0 };
	char *best_path = NULL;
	int found = 0;

	while (top != NULL && (de = readdir(top)) != NULL) {
		char *dir;
		DIR *d;
		struct dirent *e;

		if (de->d_name[0] == '.')
			continue;
		dir = cv_path_join(base, de->d_name);
		d = opendir(dir);
		while (d != NULL && (e = readdir(d)) != NULL) {
			struct cv_version v;
			char ver[64];
			size_t len = strlen(e->d_name);

			if (strncmp(e->d_name, "redistrib_", 10) != 0 ||
			    len < 16 || len - 15 >= sizeof ver ||
			    strcmp(e->d_name + len - 5, ".json") != 0)
				continue;
			memcpy(ver, e->d_name + 10, len - 15);
			ver[len - 15] = '\0';
			if (cv_version_parse(&v, ver, NULL) < 0 ||
			    (!cv_version_matches(spec, &v) &&
			     !cv_version_matches(&v, spec)))
				continue;
			if (best_path == NULL ||
			    cv_version_cmp(&v, &best) > 0) {
				best = v;
				free(best_path);
				best_path = cv_path_join(dir, e->d_name);
			}
		}
		if (d != NULL)
			closedir(d);
		free(dir);
	}
	if (top != NULL)
		closedir(top);
	free(base);
	if (best_path != NULL) {
		struct cv_buf b = CV_BUF_INIT;
		char buf[65536];
		ssize_t n;
		int fd = open(best_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

		b.max = CV_MANIFEST_MAX_BYTES;
		while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
			if (cv_buf_add(&b, buf, (size_t)n) < 0)
				break;
		if (fd >= 0)
			close(fd);
		if (b.len > 0 &&
		    cv_manifest_parse(m, "cached", b.buf, b.len, NULL) == 0) {
			found = cv_version_matches(spec, &m->version);
			if (!found)
				cv_manifest_release(m);
		}
		cv_buf_release(&b);
		free(best_path);
	}
	return found;
}

void
cv_install_hint(const struct cv_store *st, const struct cv_version *spec,
		char *buf, size_t n)
{
	struct cv_manifest m;
	struct cv_version bare = *spec;
	char text[64], platform[32];
	int cuda, best = 0;

	cv_version_format_id(spec, text, sizeof text);
	snprintf(buf, n, "%s", text);
	if (spec->cuda != 0 || spec->nparts == 0 ||
	    !newest_cached(cv_store_cache_dir(st), &bare, &m))
		return;
	cuda = cv_machine_cuda(NULL, 0, NULL);
	if (cuda > 0 && cv_platform_detect(platform, NULL) == 0 &&
	    cv_manifest_find(&m, platform, cuda) == NULL) {
		for (size_t i = 0; i < m.nfiles; i++)
			if (!m.files[i].bad[0] && m.files[i].cuda > best &&
			    strcmp(m.files[i].platform, platform) == 0)
				best = m.files[i].cuda;
		if (best != 0)
			snprintf(buf, n, "%s --cuda %d", text, best);
	}
	cv_manifest_release(&m);
}
