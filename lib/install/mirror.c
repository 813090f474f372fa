/* mirror.c: an offline copy of the redist tree for air-gapped sites. The
 * manifests of the chosen releases and their archives are copied into
 * <dir> at the paths the manifests name, so the folder works as
 * `mirror = file:///dir` or behind any web server. Archives arrive in the
 * download cache under <dir>/.cudnnvm-partial (resumed by a later run) and
 * take their final name only once size and sha256 match: a run killed
 * midway leaves nothing under a final name. An archive already there is
 * kept only when it hashes to the manifest's sha256, never by its name. */
#include "base/base.h"
#include "install/install_int.h"
#include "release/release.h"
#include "store/store.h"
#include "validate/validate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARTIAL_DIR ".cudnnvm-partial"

/* The folder part of a path, created (0755). */
static int
make_parent(const char *path, struct cv_err *err)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int r = 0;

	if (slash != NULL && slash != dir) {
		*slash = '\0';
		r = cv_fs_mkdirs(dir, 0755, err);
	}
	free(dir);
	return r;
}

/* 1 when the file at `path` (itself, not a link) has `size` bytes and
 * hashes to `sha`. */
static int
file_matches(const char *path, uint64_t size, const char *sha,
	     struct cv_err *err)
{
	struct cv_stat sb;
	char hex[65];

	if (cv_os_lstat(path, &sb) != 0 || sb.kind != CV_KIND_FILE ||
	    sb.size != size)
		return 0;
	if (cv_sha256_file(path, hex, err) < 0)
		return err ? err->code : CV_EIO;
	return strcasecmp(hex, sha) == 0;
}

/* Fetch one archive through the download cache, verify it, publish it.
 * *cached: the bytes came (at least in part) from the cache. */
static int
fetch_once(struct cv_remote *r, const char *dir, const struct cv_manifest *m,
	   const struct cv_release_file *f, const struct cv_mirror_opts *o,
	   int *from_cache, struct cv_err *err)
{
	struct cv_artifact art;
	struct cv_download *d = NULL;
	struct cv_fetcher fetch;
	struct cv_source src = { NULL, NULL };
	struct cv_sha256 *h = NULL;
	char *url = cv_manifest_url(cv_remote_mirror(r), f->relative_path);
	char *dest = cv_path_join(dir, f->relative_path);
	char *cache = cv_path_join(dir, PARTIAL_DIR);
	char *cached = NULL, hex[65];
	uint64_t got = 0;
	int rc, opened = 0, ok = 0, chunks = 0;

	memset(&art, 0, sizeof art);
	art.version = m->version;
	art.version.cuda = f->cuda;
	snprintf(art.platform, sizeof art.platform, "%s", f->platform);
	memcpy(art.sha256, f->sha256, sizeof art.sha256);
	art.size = f->size;
	if ((rc = make_parent(dest, err)) < 0)
		goto out;
	if ((rc = cv_download_new(&d, r, &art, url, cache, 1, err)) < 0)
		goto out;
	cv_download_fetcher(d, &fetch);
	rc = fetch.open(fetch.arg, &src, err);
	*from_cache = cv_download_used_cache(d);
	if (rc < 0)
		goto out;
	opened = 1;
	h = cv_sha256_new();
	for (;;) {
		const void *buf;
		ssize_t n = src.read(src.ctx, &buf, err);
		if (n < 0) {
			rc = (int)n;
			goto out;
		}
		if (n == 0)
			break;
		cv_sha256_update(h, buf, (size_t)n);
		got += (uint64_t)n;
		if (++chunks == 2)
			cv_checkpoint("mirror-midway");
		if (got > f->size) {
			rc = cv_err_set(
				err, CV_EDATA,
				"%s: more bytes than the manifest's %llu", url,
				(unsigned long long)f->size);
			goto out;
		}
	}
	cv_sha256_final(h, hex);
	if (got != f->size) {
		rc = cv_err_set(err, CV_EDATA,
				"%s: %llu bytes, the manifest says %llu", url,
				(unsigned long long)got,
				(unsigned long long)f->size);
		goto out;
	}
	if (strcasecmp(hex, f->sha256) != 0) {
		rc = cv_err_set(err, CV_EDATA,
				"%s: sha256 %s, the manifest says %s", url, hex,
				f->sha256);
		goto out;
	}
	ok = 1;
out:
	if (opened)
		fetch.close(fetch.arg, ok);
	*from_cache = *from_cache || cv_download_used_cache(d);
	if (rc == CV_EDATA && *from_cache)
		cv_download_discard(d);
	if (ok) {
		/* the verified bytes sit in the cache as <sha>.archive */
		char lower[65];
		for (int i = 0; i < 65; i++)
			lower[i] = (char)(f->sha256[i] >= 'A' &&
							  f->sha256[i] <= 'F'
						  ? f->sha256[i] - 'A' + 'a'
						  : f->sha256[i]);
		cached = xasprintf("%s/downloads/%s.archive", cache, lower);
		if (cv_os_rename_at(CV_AT_CWD, cached, CV_AT_CWD, dest) != 0)
			rc = cv_err_errno(err, cv_code_from_errno(errno),
					  "cannot move the archive to '%s'",
					  dest);
		else if (o->progress != NULL)
			o->progress(o->payload, "fetched", f->relative_path);
	}
	if (h != NULL)
		cv_sha256_free(h);
	cv_download_free(d);
	free(cached);
	free(cache);
	free(dest);
	free(url);
	return rc;
}

/* A damaged partial download (or a kept archive that no longer matches)
 * is dropped and the archive fetched once more from the start, as
 * `install` does. */
static int
fetch_archive(struct cv_remote *r, const char *dir, const struct cv_manifest *m,
	      const struct cv_release_file *f, const struct cv_mirror_opts *o,
	      struct cv_err *err)
{
	int from_cache = 0;
	int rc = fetch_once(r, dir, m, f, o, &from_cache, err);

	if (rc == CV_EDATA && from_cache) {
		if (o->progress != NULL)
			o->progress(o->payload, "retry", f->relative_path);
		if (err != NULL)
			*err = (struct cv_err)CV_ERR_INIT;
		rc = fetch_once(r, dir, m, f, o, &from_cache, err);
	}
	return rc;
}

/* Why entry `f` of manifest `m` cannot be copied, or NULL: a field the
 * manifest parser refused, or a path that would overwrite the manifest
 * itself, another manifest or the download cache of the copy. */
static const char *
entry_refused(const struct cv_manifest *m, const struct cv_release_file *f)
{
	const char *p = f->relative_path;
	size_t n = strlen(p);

	if (f->bad[0])
		return f->bad;
	if (strcmp(p, m->name) == 0)
		return "relative_path: the manifest's own name";
	if (strchr(p, '/') == NULL && strncmp(p, "redistrib_", 10) == 0 &&
	    n > 5 && strcmp(p + n - 5, ".json") == 0)
		return "relative_path: the name of a manifest";
	if (strncmp(p, PARTIAL_DIR "/", sizeof PARTIAL_DIR) == 0)
		return "relative_path: inside the copy's download cache";
	return NULL;
}

/* The archive at `dest` is kept only when its bytes are the entry's:
 * 1 kept, 0 fetched anew, <0 failed. */
static int
keep_or_fetch(struct cv_remote *r, const char *dir, const struct cv_manifest *m,
	      const struct cv_release_file *f, const char *dest,
	      const struct cv_mirror_opts *o, struct cv_err *err)
{
	struct cv_stat sb;
	int ok = 0, exists = cv_os_lstat(dest, &sb) == 0;

	if (exists && (ok = file_matches(dest, f->size, f->sha256, err)) < 0)
		return ok;
	if (ok) {
		if (o->progress != NULL)
			o->progress(o->payload, "present", f->relative_path);
		return 1;
	}
	/* not the entry's bytes: replaced by a verified copy */
	if (exists && o->progress != NULL)
		o->progress(o->payload, "BAD", f->relative_path);
	return fetch_archive(r, dir, m, f, o, err);
}

/* The release a spec names: the newest listed release whose manifest
 * version matches. */
static int
find_release(struct cv_index *ix, const struct cv_version *spec,
	     struct cv_manifest *m, size_t *idx, struct cv_err *err)
{
	struct cv_version s = *spec;
	char want[64];

	s.cuda = 0;
	for (size_t i = 0; i < cv_index_count(ix); i++) {
		const struct cv_version *lv = cv_index_version(ix, i);
		int rc;
		/* the listing name may be shorter or longer than the spec */
		if (!cv_version_matches(&s, lv) && !cv_version_matches(lv, &s))
			continue;
		if ((rc = cv_index_manifest(ix, i, m, err)) < 0)
			return rc;
		if (cv_version_matches(&s, &m->version)) {
			*idx = i;
			return 0;
		}
		cv_manifest_release(m);
	}
	cv_version_format(spec, want, sizeof want);
	return cv_err_set(
		err, CV_ENOTFOUND,
		"the mirror has no release matching %s; see 'cudnnvm list-remote'",
		want);
}

/* An empty download cache is no part of the tree. */
static void
drop_empty_cache(const char *dir)
{
	char *c = cv_path_join(dir, PARTIAL_DIR "/downloads");

	if (cv_os_rmdir(c) == 0) {
		free(c);
		c = cv_path_join(dir, PARTIAL_DIR);
		cv_os_rmdir(c);
	}
	free(c);
}

int
cv_mirror_specs(struct cv_index *ix, const char *dir,
		const struct cv_version *specs, size_t nspecs,
		const struct cv_mirror_opts *o, struct cv_err *err)
{
	struct cv_remote *r = cv_index_remote(ix);
	char platform[32];
	int rc = 0;

	if (o->platform != NULL)
		snprintf(platform, sizeof platform, "%s", o->platform);
	else if ((rc = cv_platform_detect(platform, err)) < 0)
		return rc;
	if ((rc = cv_fs_mkdirs(dir, 0755, err)) < 0)
		return rc;
	for (size_t s = 0; s < nspecs && rc == 0; s++) {
		struct cv_manifest m;
		struct cv_buf raw = CV_BUF_INIT;
		size_t idx = 0, taken = 0;
		int cuda = specs[s].cuda ? specs[s].cuda : o->cuda;
		char refused[400] = "";
		char *url, *path;

		memset(&m, 0, sizeof m);
		if ((rc = find_release(ix, &specs[s], &m, &idx, err)) < 0)
			break;
		/* the manifest itself, byte for byte (pins checked) */
		url = cv_manifest_url(cv_remote_mirror(r), m.name);
		path = cv_path_join(dir, m.name);
		rc = cv_remote_get(r, url, CV_MANIFEST_MAX_BYTES, &raw, err);
		if (rc == 0 && cv_remote_verify_pins(r))
			rc = cv_pins_check(m.name, raw.buf, raw.len, err);
		if (rc == 0)
			rc = cv_fs_write_atomic(path, raw.buf, raw.len, 0644,
						err);
		free(url);
		free(path);
		cv_buf_release(&raw);
		for (size_t i = 0; i < m.nfiles && rc == 0; i++) {
			const struct cv_release_file *f = &m.files[i];
			const char *why;
			char *dest;
			if (strcmp(f->platform, platform) != 0 ||
			    (cuda && f->cuda != cuda))
				continue;
			if ((why = entry_refused(&m, f)) != NULL) {
				char line[sizeof refused];
				snprintf(line, sizeof line, "%s: %s", m.name,
					 why);
				if (o->progress != NULL)
					o->progress(o->payload, "refused",
						    line);
				memcpy(refused, line, sizeof refused);
				continue;
			}
			taken++;
			dest = cv_path_join(dir, f->relative_path);
			rc = keep_or_fetch(r, dir, &m, f, dest, o, err);
			if (rc > 0)
				rc = 0;
			free(dest);
		}
		if (rc == 0 && taken == 0 && refused[0]) {
			rc = cv_err_set(err, CV_EDATA,
					"release %s has no usable %s build: "
					"%s",
					m.label, platform, refused);
		} else if (rc == 0 && taken == 0) {
			char variants[128];
			char want[48] = "";
			cv_manifest_variants(&m, platform, variants,
					     sizeof variants);
			if (cuda)
				snprintf(want, sizeof want, " for CUDA %d",
					 cuda);
			rc = cv_err_set(
				err, CV_ENOTFOUND,
				"release %s has no %s build%s (it has: %s)",
				m.label, platform, want,
				variants[0] ? variants : "none");
		}
		cv_manifest_release(&m);
	}
	drop_empty_cache(dir);
	return rc;
}

/* The manifest a lock names, fetched and held to the lock's sha256, then
 * written into dir byte for byte. */
static int
lock_manifest(struct cv_remote *r, const char *dir, const struct cv_lock *lk,
	      struct cv_manifest *m, struct cv_err *err)
{
	struct cv_buf raw = CV_BUF_INIT;
	struct cv_sha256 *h;
	char *url = cv_manifest_url(cv_remote_mirror(r), lk->manifest_url);
	char *path = cv_path_join(dir, lk->manifest_url), hex[65];
	int rc = cv_remote_get(r, url, CV_MANIFEST_MAX_BYTES, &raw, err);

	if (rc == 0) {
		h = cv_sha256_new();
		cv_sha256_update(h, raw.buf, raw.len);
		cv_sha256_final(h, hex);
		cv_sha256_free(h);
		if (strcmp(hex, lk->manifest_sha256) != 0)
			rc = cv_err_set(err, CV_EDATA,
					"%s: sha256 %s, the lock says %s", url,
					hex, lk->manifest_sha256);
	}
	if (rc == 0 && cv_remote_verify_pins(r))
		rc = cv_pins_check(lk->manifest_url, raw.buf, raw.len, err);
	if (rc == 0)
		rc = cv_manifest_parse(m, lk->manifest_url, raw.buf, raw.len,
				       err);
	if (rc == 0 &&
	    (rc = cv_fs_write_atomic(path, raw.buf, raw.len, 0644, err)) < 0)
		cv_manifest_release(m);
	free(url);
	free(path);
	cv_buf_release(&raw);
	return rc;
}

int
cv_mirror_lock(struct cv_remote *r, const char *dir, const struct cv_lock *lk,
	       const struct cv_mirror_opts *o, struct cv_err *err)
{
	struct cv_manifest m;
	int rc;

	if ((rc = cv_fs_mkdirs(dir, 0755, err)) < 0 ||
	    (rc = lock_manifest(r, dir, lk, &m, err)) < 0)
		return rc;
	for (size_t i = 0; i < lk->n && rc == 0; i++) {
		const struct cv_lock_entry *e = &lk->entries[i];
		const struct cv_release_file *f = NULL;
		const char *why;
		char *dest;

		/* the lock's entry must be the manifest's, byte for byte */
		for (size_t k = 0; k < m.nfiles && f == NULL; k++)
			if (strcmp(m.files[k].platform, e->platform) == 0 &&
			    strcmp(m.files[k].relative_path, e->url) == 0)
				f = &m.files[k];
		if (f == NULL || strcmp(f->sha256, e->sha256) != 0 ||
		    f->size != e->size) {
			rc = cv_err_set(err, CV_EDATA,
					"%s: the %s archive %s is not the "
					"lock's",
					m.name, e->platform, e->url);
			break;
		}
		if ((why = entry_refused(&m, f)) != NULL) {
			rc = cv_err_set(err, CV_EDATA, "%s: %s", m.name, why);
			break;
		}
		dest = cv_path_join(dir, f->relative_path);
		rc = keep_or_fetch(r, dir, &m, f, dest, o, err);
		if (rc > 0)
			rc = 0;
		free(dest);
	}
	cv_manifest_release(&m);
	drop_empty_cache(dir);
	return rc;
}

int
cv_mirror_verify(const char *dir, const struct cv_mirror_opts *o, size_t *bad,
		 struct cv_err *err)
{
	struct cv_dir *d = cv_dir_open(dir);
	const char *name;
	int rc = 0;

	*bad = 0;
	if (d == NULL)
		return cv_err_errno(err, cv_code_from_errno(errno),
				    "cannot read the mirror folder '%s'", dir);
	while (rc == 0 && (name = cv_dir_next(d, NULL)) != NULL) {
		struct cv_manifest m;
		struct cv_buf raw = CV_BUF_INIT;
		char *path;
		size_t len = strlen(name);
		int fd;

		if (strncmp(name, "redistrib_", 10) != 0 || len < 6 ||
		    strcmp(name + len - 5, ".json") != 0)
			continue;
		path = cv_path_join(dir, name);
		fd = cv_os_open(path, CV_OPEN_READ | CV_OPEN_NOFOLLOW, 0);
		raw.max = CV_MANIFEST_MAX_BYTES;
		if (fd >= 0) {
			char tmp[65536];
			long n;
			while ((n = cv_os_read(fd, tmp, sizeof tmp)) > 0)
				if (cv_buf_add(&raw, tmp, (size_t)n) < 0)
					break;
			cv_os_close(fd);
		}
		free(path);
		if (cv_manifest_parse(&m, name, raw.buf, raw.len, err) < 0) {
			rc = err ? err->code : CV_EDATA;
			cv_buf_release(&raw);
			break;
		}
		cv_buf_release(&raw);
		for (size_t i = 0; i < m.nfiles && rc == 0; i++) {
			const struct cv_release_file *f = &m.files[i];
			char *p;
			int ok;
			if (f->bad[0])
				continue;
			p = cv_path_join(dir, f->relative_path);
			if (cv_os_access(p, CV_ACCESS_EXISTS) == 0) {
				ok = file_matches(p, f->size, f->sha256, err);
				if (ok < 0)
					rc = ok;
				else if (o->progress != NULL)
					o->progress(o->payload,
						    ok ? "ok" : "BAD",
						    f->relative_path);
				if (ok == 0)
					(*bad)++;
			}
			free(p);
		}
		cv_manifest_release(&m);
	}
	cv_dir_close(d);
	return rc;
}

/* ---- the dependencies of what is copied (cuBLAS, nvrtc) ----------------- */

/* One dependency archive to copy: from a lock's entry or as chosen for a
 * build; manifest: the tree's manifest to copy with it, or NULL. */
struct dep_copy {
	const char *name, *version, *url, *sha256, *channel, *manifest;
	const char *platform;
	uint64_t size;
	int cuda;
};

/* Where dependency d's channel is (*src, from cfg and the cuDNN mirror) and
 * where its copy goes (*dst: beside dir, as NVIDIA's trees sit). */
static int
dep_trees(const struct cv_config *cfg, const char *cudnn_mirror,
	  const char *dir, const struct dep_copy *d, char **src, char **dst,
	  struct cv_err *err)
{
	int cublas = strcmp(d->channel, CV_CHANNEL_CUBLAS) == 0;

	*src = cublas ? cv_deps_cublas_mirror(cfg, cudnn_mirror, err)
		      : cv_deps_cuda_mirror(cfg, cudnn_mirror, err);
	if (*src == NULL)
		return err->code;
	*dst = cv_deps_sibling_dir(dir, cublas ? "cublas" : "cuda");
	if (*dst == NULL) {
		free(*src);
		*src = NULL;
		return cv_err_set(err, CV_EUSAGE,
				  "the lock names dependencies (%s), whose "
				  "copies go beside the cuDNN tree as NVIDIA "
				  "lays them out: give a folder ending in "
				  "cudnn/redist",
				  d->name);
	}
	return 0;
}

/* The tree's manifest `name`, byte for byte, into dst. */
static int
copy_manifest(struct cv_remote *r, const char *dst, const char *name,
	      const struct cv_mirror_opts *o, struct cv_err *err)
{
	struct cv_buf raw = CV_BUF_INIT;
	char *url = cv_manifest_url(cv_remote_mirror(r), name);
	char *path = cv_path_join(dst, name);
	int rc = cv_remote_get(r, url, CV_MANIFEST_MAX_BYTES, &raw, err);

	if (rc == 0)
		rc = cv_fs_write_atomic(path, raw.buf, raw.len, 0644, err);
	if (rc == 0 && o->progress != NULL)
		o->progress(o->payload, "fetched", name);
	cv_buf_release(&raw);
	free(path);
	free(url);
	return rc;
}

/* One dependency archive, held to d's sha256 and size, into its tree
 * beside dir (and its manifest, when d names one). */
static int
copy_dep(const struct cv_config *cfg, const char *cudnn_mirror, const char *dir,
	 const struct dep_copy *d, const struct cv_mirror_opts *o,
	 struct cv_err *err)
{
	struct cv_manifest m;
	struct cv_release_file f;
	struct cv_remote *r = NULL;
	char *src = NULL, *dst = NULL, *dest;
	int rc;

	memset(&m, 0, sizeof m);
	memset(&f, 0, sizeof f);
	if (cv_version_parse(&m.version, d->version, NULL) < 0)
		return cv_err_set(err, CV_EDATA, "%s: bad version %s", d->name,
				  d->version);
	snprintf(f.platform, sizeof f.platform, "%s", d->platform);
	f.cuda = d->cuda;
	snprintf(f.relative_path, sizeof f.relative_path, "%s", d->url);
	snprintf(f.sha256, sizeof f.sha256, "%s", d->sha256);
	f.size = d->size;
	if ((rc = dep_trees(cfg, cudnn_mirror, dir, d, &src, &dst, err)) < 0)
		return rc;
	if ((rc = cv_remote_new(&r, cfg, src, err)) == 0 &&
	    (rc = cv_fs_mkdirs(dst, 0755, err)) == 0 &&
	    (d->manifest == NULL ||
	     (rc = copy_manifest(r, dst, d->manifest, o, err)) == 0)) {
		dest = cv_path_join(dst, f.relative_path);
		rc = keep_or_fetch(r, dst, &m, &f, dest, o, err);
		rc = rc > 0 ? 0 : rc;
		free(dest);
		drop_empty_cache(dst);
	}
	cv_remote_free(r);
	free(src);
	free(dst);
	return rc;
}

static void
lock_dep_copy(const struct cv_lock *lk, const struct cv_lock_entry *e,
	      const struct cv_lock_dep *ld, struct dep_copy *d)
{
	d->name = ld->name;
	d->version = ld->version;
	d->url = ld->url;
	d->sha256 = ld->sha256;
	d->channel = ld->channel[0] ? ld->channel : CV_CHANNEL_CUDA;
	d->manifest = NULL; /* install --frozen reads none */
	d->platform = e->platform;
	d->size = ld->size;
	d->cuda = lk->id_v.cuda;
}

int
cv_mirror_lock_deps(const struct cv_config *cfg, const char *cudnn_mirror,
		    const char *dir, const struct cv_lock *lk,
		    const struct cv_mirror_opts *o, struct cv_err *err)
{
	int rc = 0;

	/* every destination known before a byte is copied */
	for (size_t i = 0; i < lk->n && rc == 0; i++)
		for (size_t k = 0; k < lk->entries[i].ndeps && rc == 0; k++) {
			struct dep_copy d;
			char *src = NULL, *dst = NULL;
			lock_dep_copy(lk, &lk->entries[i],
				      &lk->entries[i].deps[k], &d);
			rc = dep_trees(cfg, cudnn_mirror, dir, &d, &src, &dst,
				       err);
			free(src);
			free(dst);
		}
	for (size_t i = 0; i < lk->n && rc == 0; i++)
		for (size_t k = 0; k < lk->entries[i].ndeps && rc == 0; k++) {
			struct dep_copy d;
			lock_dep_copy(lk, &lk->entries[i],
				      &lk->entries[i].deps[k], &d);
			rc = copy_dep(cfg, cudnn_mirror, dir, &d, o, err);
		}
	return rc;
}

/* The dependencies of build v (platform) as install would choose them,
 * copied beside dir with their trees' manifests. */
static int
build_deps(const struct cv_deps_req *tmpl, const struct cv_version *v,
	   const char *platform, const char *dir,
	   const struct cv_mirror_opts *o, struct cv_err *err)
{
	struct cv_deps_req req = *tmpl;
	struct cv_dep_file f[CV_MAX_DEPS];
	struct cv_err why = CV_ERR_INIT;
	int n = 0, rc;

	req.version = v;
	req.platform = platform;
	req.mode = CV_DEPS_ALWAYS;
	if ((rc = cv_deps_resolve(&req, f, &n, &why)) < 0) {
		if (rc != CV_ENETWORK && rc != CV_ENOTFOUND &&
		    rc != CV_ECONFIG) {
			*err = why;
			return rc;
		}
		/* a copy of the cuDNN tree is still worth having */
		if (o->progress != NULL)
			o->progress(o->payload, "skipped", why.msg);
		return 0;
	}
	for (int i = 0; i < n && rc == 0; i++) {
		struct dep_copy d = { f[i].name,   f[i].version, f[i].url,
				      f[i].sha256, f[i].channel, f[i].manifest,
				      platform,    f[i].size,    v->cuda };
		rc = copy_dep(tmpl->cfg, tmpl->cudnn_mirror, dir, &d, o, err);
	}
	return rc;
}

int
cv_mirror_specs_deps(const struct cv_deps_req *tmpl, struct cv_index *ix,
		     const char *dir, const struct cv_version *specs,
		     size_t nspecs, const struct cv_mirror_opts *o,
		     struct cv_err *err)
{
	char platform[32], *beside = cv_deps_sibling_dir(dir, "cuda");
	int rc = 0;

	if (beside == NULL)
		return 0; /* no place for them as NVIDIA lays the trees out */
	free(beside);
	if (o->platform != NULL)
		snprintf(platform, sizeof platform, "%s", o->platform);
	else if ((rc = cv_platform_detect(platform, err)) < 0)
		return rc;
	for (size_t s = 0; s < nspecs && rc == 0; s++) {
		struct cv_manifest m;
		size_t idx = 0;
		int cuda = specs[s].cuda ? specs[s].cuda : o->cuda;

		memset(&m, 0, sizeof m);
		if ((rc = find_release(ix, &specs[s], &m, &idx, err)) < 0)
			break;
		for (size_t i = 0; i < m.nfiles && rc == 0; i++) {
			const struct cv_release_file *f = &m.files[i];
			struct cv_version v = m.version;
			if (strcmp(f->platform, platform) != 0 ||
			    (cuda && f->cuda != cuda) ||
			    entry_refused(&m, f) != NULL)
				continue;
			v.cuda = f->cuda;
			rc = build_deps(tmpl, &v, platform, dir, o, err);
		}
		cv_manifest_release(&m);
	}
	return rc;
}
