/* index.c: the releases a mirror offers, read from its folder listing
 * (NVIDIA's is an HTML page with href links to redistrib_<version>.json),
 * and the manifests themselves. Both are cached per mirror in
 * <cache>/manifests/<hash of the mirror URL>/: a manifest never changes, the
 * listing is refreshed after a day or on request. */
#include "base/base.h"
#include "install/install_int.h"
#include "release/release.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LISTING_MAX_AGE (24 * 60 * 60)
#define MAX_RELEASES    1024

struct cv_index {
	struct cv_remote *r;
	char *dir;       /* cache folder of this mirror */
	char *cache_dir; /* as given to cv_index_open */
	int cached;      /* the listing was read from the cache */
	size_t n;
	char **names; /* "9.13.0" */
	struct cv_version *vers;
	/* manifests fetched ahead by cv_index_prefetch, each taken once */
	struct cv_buf *ahead;
	struct cv_err *ahead_err;
	unsigned char *ahead_state; /* AHEAD_* */
};

enum { AHEAD_NONE, AHEAD_BYTES, AHEAD_ERROR };

/* Read a whole file (at most max bytes). */
static int
slurp(const char *path, size_t max, struct cv_buf *out)
{
	int fd = cv_os_open(path, CV_OPEN_READ | CV_OPEN_NOFOLLOW, 0);
	char tmp[65536];
	long n;

	if (fd < 0)
		return -1;
	out->max = max;
	cv_buf_reset(out);
	while ((n = cv_os_read(fd, tmp, sizeof tmp)) > 0)
		if (cv_buf_add(out, tmp, (size_t)n) < 0) {
			n = -1;
			break;
		}
	cv_os_close(fd);
	return n < 0 ? -1 : 0;
}

/* Write a cache file atomically; failures only cost a later re-fetch. */
static void
spill(const char *path, const char *data, size_t len)
{
	cv_fs_write_atomic(path, data, len, 0644, NULL);
}

static int
cmp_desc(const void *a, const void *b, void *arg)
{
	const struct cv_version *v = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	return cv_version_cmp(&v[j], &v[i]);
}

/* Collect redistrib_<version>.json names from a listing (HTML or plain). */
static void
scan_listing(struct cv_index *ix, const char *text)
{
	const char *p = text;
	char **names = NULL;
	struct cv_version *vers = NULL;
	size_t n = 0, *order;

	char buf[32];
	struct cv_version ver;

	while (n < MAX_RELEASES &&
	       (p = cv_listing_next(p, buf, &ver)) != NULL) {
		int dup = 0;

		for (size_t i = 0; i < n && !dup; i++)
			dup = strcmp(names[i], buf) == 0;
		if (dup)
			continue;
		names = xrealloc(names, (n + 1) * sizeof *names);
		vers = xrealloc(vers, (n + 1) * sizeof *vers);
		names[n] = xstrdup(buf);
		vers[n] = ver;
		n++;
	}
	order = xcalloc(n ? n : 1, sizeof *order);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	/* newest first, by insertion: qsort_r is not in every C library
	 * (mingw's has none), and a listing is a few hundred names at most
	 * (the duplicate check above is quadratic already) */
	for (size_t i = 1; i < n; i++)
		for (size_t k = i;
		     k > 0 && cmp_desc(&order[k - 1], &order[k], vers) > 0;
		     k--) {
			size_t t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	ix->names = xcalloc(n ? n : 1, sizeof *ix->names);
	ix->vers = xcalloc(n ? n : 1, sizeof *ix->vers);
	for (size_t i = 0; i < n; i++) {
		ix->names[i] = names[order[i]];
		ix->vers[i] = vers[order[i]];
	}
	ix->n = n;
	free(order);
	free(names);
	free(vers);
}

/* A file:// mirror's listing is its folder. */
static int
list_folder(const char *url, struct cv_buf *out, struct cv_err *err)
{
	const char *path = url + 7;
	struct cv_dir *d;
	const char *e;

	if (strncmp(path, "localhost/", 10) == 0)
		path += 9;
	d = cv_dir_open(path);
	if (d == NULL)
		return cv_err_errno(err, CV_ENETWORK,
				    "cannot read the mirror folder %s", path);
	out->max = CV_MANIFEST_MAX_BYTES;
	while ((e = cv_dir_next(d, NULL)) != NULL)
		if (cv_buf_addf(out, "%s\n", e) < 0)
			break;
	cv_dir_close(d);
	return 0;
}

int
cv_index_open(struct cv_index **out, struct cv_remote *r, const char *cache_dir,
	      int refresh, struct cv_err *err)
{
	struct cv_index *ix;
	struct cv_buf buf = CV_BUF_INIT;
	struct cv_sha256 *h;
	char key[65], *listing;
	const char *mirror = cv_remote_mirror(r);
	struct cv_stat st;
	int fresh, rc = 0;

	h = cv_sha256_new();
	cv_sha256_update(h, mirror, strlen(mirror));
	cv_sha256_final(h, key);
	cv_sha256_free(h);
	key[16] = '\0';
	ix = xcalloc(1, sizeof *ix);
	ix->r = r;
	{
		char *base = cv_path_join(cache_dir, "manifests");
		ix->dir = cv_path_join(base, key);
		free(base);
	}
	if (cv_fs_mkdirs(ix->dir, 0755, NULL) < 0) {
		rc = cv_err_errno(err, cv_code_from_errno(errno),
				  "cannot create the cache folder %s", ix->dir);
		cv_index_free(ix);
		return rc;
	}
	listing = cv_path_join(ix->dir, "listing");
	fresh = !refresh && cv_os_stat(listing, &st) == 0 &&
		time(NULL) - st.mtime < LISTING_MAX_AGE &&
		time(NULL) >= st.mtime;
	ix->cache_dir = xstrdup(cache_dir);
	if (fresh && slurp(listing, CV_MANIFEST_MAX_BYTES, &buf) == 0) {
		scan_listing(ix, buf.buf);
		ix->cached = 1;
	} else {
		if (strncmp(mirror, "file://", 7) == 0)
			rc = list_folder(mirror, &buf, err);
		else
			rc = cv_remote_get(r, mirror, CV_MANIFEST_MAX_BYTES,
					   &buf, err);
		if (rc < 0) {
			/* offline: an old listing beats none */
			struct cv_buf old = CV_BUF_INIT;
			if (rc != CV_EINTR &&
			    slurp(listing, CV_MANIFEST_MAX_BYTES, &old) == 0) {
				scan_listing(ix, old.buf);
				ix->cached = 1;
				rc = 0;
			}
			cv_buf_release(&old);
		} else {
			scan_listing(ix, buf.buf);
			if (ix->n > 0)
				spill(listing, buf.buf, buf.len);
		}
	}
	free(listing);
	cv_buf_release(&buf);
	if (rc == 0 && ix->n == 0)
		rc = cv_err_set(
			err, CV_ENETWORK,
			"the mirror %s lists no redistrib_<version>.json "
			"manifests; check [remote] mirror",
			mirror);
	if (rc < 0) {
		cv_index_free(ix);
		return rc;
	}
	*out = ix;
	return 0;
}

int
cv_index_reread(struct cv_index **ix, struct cv_err *err)
{
	struct cv_index *again = NULL;
	struct cv_err ignored = CV_ERR_INIT;

	if (!(*ix)->cached)
		return 0;
	/* an error here (offline) leaves the listing that was read */
	if (cv_index_open(&again, (*ix)->r, (*ix)->cache_dir, 1, &ignored) <
	    0) {
		if (ignored.code == CV_EINTR) {
			*err = ignored;
			return CV_EINTR;
		}
		return 0;
	}
	if (again == NULL || again->cached) {
		/* the mirror did not answer: nothing new was read */
		cv_index_free(again);
		return 0;
	}
	cv_index_free(*ix);
	*ix = again;
	return 1;
}

void
cv_index_free(struct cv_index *ix)
{
	if (ix == NULL)
		return;
	free(ix->cache_dir);
	for (size_t i = 0; i < ix->n; i++) {
		free(ix->names[i]);
		if (ix->ahead != NULL)
			cv_buf_release(&ix->ahead[i]);
	}
	free(ix->ahead);
	free(ix->ahead_err);
	free(ix->ahead_state);
	free(ix->names);
	free(ix->vers);
	free(ix->dir);
	free(ix);
}

struct cv_remote *
cv_index_remote(const struct cv_index *ix)
{
	return ix->r;
}

size_t
cv_index_count(const struct cv_index *ix)
{
	return ix->n;
}

const char *
cv_index_name(const struct cv_index *ix, size_t i)
{
	return i < ix->n ? ix->names[i] : NULL;
}

const struct cv_version *
cv_index_version(const struct cv_index *ix, size_t i)
{
	return i < ix->n ? &ix->vers[i] : NULL;
}

static int
parse_cudnn(void *arg, const char *name, const char *data, size_t len,
	    struct cv_err *err)
{
	struct cv_manifest *m = arg;
	struct cv_sha256 *h;
	int rc = cv_manifest_parse(m, name, data, len, err);

	if (rc < 0)
		return rc;
	/* the bytes a lock file pins the manifest by */
	h = cv_sha256_new();
	cv_sha256_update(h, data, len);
	cv_sha256_final(h, m->sha256);
	cv_sha256_free(h);
	return 0;
}

int
cv_index_manifest(struct cv_index *ix, size_t i, struct cv_manifest *m,
		  struct cv_err *err)
{
	return cv_index_read(ix, i, parse_cudnn, m, err);
}

int
cv_index_read(struct cv_index *ix, size_t i, cv_manifest_parse_fn parse,
	      void *arg, struct cv_err *err)
{
	struct cv_buf buf = CV_BUF_INIT;
	char *name, *cached, *url;
	int rc, from_cache;

	if (i >= ix->n)
		return cv_err_set(err, CV_ENOTFOUND, "no such release");
	name = xasprintf("redistrib_%s.json", ix->names[i]);
	cached = cv_path_join(ix->dir, name);
	url = cv_manifest_url(cv_remote_mirror(ix->r), name);
	from_cache = slurp(cached, CV_MANIFEST_MAX_BYTES, &buf) == 0;
	if (!from_cache && ix->ahead_state != NULL &&
	    ix->ahead_state[i] != AHEAD_NONE) {
		int state = ix->ahead_state[i];
		ix->ahead_state[i] = AHEAD_NONE;
		cv_buf_release(&buf);
		buf = ix->ahead[i];
		ix->ahead[i] = (struct cv_buf)CV_BUF_INIT;
		if (state == AHEAD_ERROR) {
			rc = ix->ahead_err[i].code;
			if (err != NULL)
				*err = ix->ahead_err[i];
			goto out;
		}
	} else if (!from_cache) {
		cv_buf_reset(&buf);
		rc = cv_remote_get(ix->r, url, CV_MANIFEST_MAX_BYTES, &buf,
				   err);
		if (rc < 0)
			goto out;
	}
	rc = 0;
	/* a pin's refusal names the manifest already: one short line */
	if (cv_remote_verify_pins(ix->r) &&
	    (rc = cv_pins_check(name, buf.buf, buf.len, err)) < 0) {
		if (from_cache)
			cv_os_unlink(cached);
		goto out;
	}
	if ((rc = parse(arg, name, buf.buf, buf.len, err)) < 0) {
		if (from_cache)
			cv_os_unlink(cached); /* fetch it again next time */
		cv_err_prefix(err, "%s: ", url);
		goto out;
	}
	if (!from_cache)
		spill(cached, buf.buf, buf.len);
out:
	cv_buf_release(&buf);
	free(name);
	free(cached);
	free(url);
	return rc;
}

/* The listing name may be shorter or longer than the spec (9.13 lists as
 * 9.13.0; 8.9.7.29 as 8.9.7.29): either one may match the other. */
static int
wanted(const struct cv_version *spec, const struct cv_version *name)
{
	return spec == NULL || cv_version_matches(spec, name) ||
	       cv_version_matches(name, spec);
}

int
cv_index_prefetch(struct cv_index *ix, const struct cv_version *spec,
		  struct cv_err *err)
{
	char **urls = xcalloc(ix->n ? ix->n : 1, sizeof *urls);
	size_t *slot = xcalloc(ix->n ? ix->n : 1, sizeof *slot);
	struct cv_buf *bufs;
	struct cv_err *errs;
	size_t n = 0;
	int rc;

	for (size_t i = 0; i < ix->n; i++) {
		char *name, *cached;
		struct cv_stat st;
		if (!wanted(spec, &ix->vers[i]))
			continue;
		name = xasprintf("redistrib_%s.json", ix->names[i]);
		cached = cv_path_join(ix->dir, name);
		if (cv_os_lstat(cached, &st) != 0) {
			urls[n] =
				cv_manifest_url(cv_remote_mirror(ix->r), name);
			slot[n++] = i;
		}
		free(name);
		free(cached);
	}
	if (ix->ahead == NULL && n > 0) {
		ix->ahead = xcalloc(ix->n, sizeof *ix->ahead);
		ix->ahead_err = xcalloc(ix->n, sizeof *ix->ahead_err);
		ix->ahead_state = xcalloc(ix->n, 1);
		for (size_t i = 0; i < ix->n; i++)
			ix->ahead[i] = (struct cv_buf)CV_BUF_INIT;
	}
	bufs = xcalloc(n ? n : 1, sizeof *bufs);
	errs = xcalloc(n ? n : 1, sizeof *errs);
	for (size_t k = 0; k < n; k++)
		bufs[k] = (struct cv_buf)CV_BUF_INIT;
	/* a single manifest gains nothing from the multi handle */
	rc = n < 2 ? 0
		   : cv_remote_get_many(ix->r, urls, n, CV_MANIFEST_MAX_BYTES,
					bufs, errs);
	for (size_t k = 0; k < n; k++) {
		size_t i = slot[k];
		if (rc == 0 && n >= 2) {
			cv_buf_release(&ix->ahead[i]);
			ix->ahead[i] = bufs[k];
			ix->ahead_err[i] = errs[k];
			ix->ahead_state[i] =
				errs[k].code < 0 ? AHEAD_ERROR : AHEAD_BYTES;
		} else
			cv_buf_release(&bufs[k]);
		free(urls[k]);
	}
	free(urls);
	free(slot);
	free(bufs);
	free(errs);
	if (rc == CV_EINTR)
		return cv_err_set(err, CV_EINTR, "interrupted");
	return 0;
}
