/* index_cached.c: the release versions of the mirror listings already in
 * the cache, for shell completion: a Tab must never wait on the network,
 * so this reads <cache>/manifests/<key>/listing files only and links
 * nothing but libc (index.c, which fetches, needs libcurl). */
#include "base/base.h"
#include "release/release_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CACHED 2048

struct cached {
	char *name;
	struct cv_version ver;
};

static int
newest_first(const void *a, const void *b)
{
	const struct cached *x = a, *y = b;
	return cv_version_cmp(&y->ver, &x->ver);
}

const char *
cv_listing_next(const char *p, char buf[32], struct cv_version *ver)
{
	while ((p = strstr(p, "redistrib_")) != NULL) {
		const char *v = p + 10;
		size_t len = strspn(v, "0123456789.");

		p = v;
		if (len > 0 && v[len - 1] == '.')
			len--; /* the dot of ".json" */
		if (len == 0 || len >= 32 || strncmp(v + len, ".json", 5) != 0)
			continue;
		memcpy(buf, v, len);
		buf[len] = '\0';
		if (cv_version_parse(ver, buf, NULL) == 0 && ver->nparts >= 2)
			return p;
	}
	return NULL;
}

/* Add the redistrib_<version>.json names of one listing file. */
static void
scan_file(const char *path, struct cached *out, size_t *n)
{
	FILE *f = fopen(path, "r");
	char line[4096];

	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		char buf[32];
		struct cv_version ver;

		for (const char *p = line;
		     *n < MAX_CACHED &&
		     (p = cv_listing_next(p, buf, &ver)) != NULL;) {
			int dup = 0;

			for (size_t i = 0; i < *n && !dup; i++)
				dup = strcmp(out[i].name, buf) == 0;
			if (!dup) {
				out[*n].name = xstrdup(buf);
				out[*n].ver = ver;
				(*n)++;
			}
		}
	}
	if (f != NULL)
		fclose(f);
}

size_t
cv_index_cached_versions(const char *cache_dir, char ***names)
{
	char *base = cv_path_join(cache_dir, "manifests");
	struct cached *all = xcalloc(MAX_CACHED, sizeof *all);
	struct cv_dir *d = cv_dir_open(base);
	const char *e;
	size_t n = 0;

	while (d != NULL && (e = cv_dir_next(d, NULL)) != NULL) {
		char *dir, *listing;
		if (e[0] == '.')
			continue;
		dir = cv_path_join(base, e);
		listing = cv_path_join(dir, "listing");
		scan_file(listing, all, &n);
		free(listing);
		free(dir);
	}
	cv_dir_close(d);
	qsort(all, n, sizeof *all, newest_first);
	*names = xcalloc(n ? n : 1, sizeof **names);
	for (size_t i = 0; i < n; i++)
		(*names)[i] = all[i].name;
	free(all);
	free(base);
	return n;
}
