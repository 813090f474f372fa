/* manifest.c: NVIDIA's redistrib_<version>.json, both shapes, read with
 * cv_json. 8.x: cudnn.<platform> -> file; 9.x: cudnn.<platform>.cudaNN ->
 * file. Keys are looked up by name, unknown keys are ignored, odd entries
 * are kept with a reason instead of failing the whole manifest. */
#include "base/base.h"
#include "release/release_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 256

/* Strict decimal: digits only, no sign or space, at most `cap`. */
static int
parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0' || strlen(s) > 20)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (CV_ARCHIVE_MAX_BYTES - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v == 0)
		return -1;
	*out = v;
	return 0;
}

int
cv_manifest_check_path(const char *rel, struct cv_err *err)
{
	const char *p, *seg;

	if (rel == NULL || *rel == '\0')
		return cv_err_set(err, CV_EDATA, "empty path");
	if (strlen(rel) >= 512)
		return cv_err_set(err, CV_EDATA, "path too long");
	if (rel[0] == '/')
		return cv_err_set(err, CV_EDATA, "absolute path refused");
	for (p = rel; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c >= 0x7f)
			return cv_err_set(err, CV_EDATA,
					  "control or non-ASCII byte refused");
		if (strchr("%\\?#:@", c) != NULL)
			return cv_err_set(err, CV_EDATA,
					  "character '%c' refused", c);
	}
	for (seg = rel; *seg;) {
		size_t n = strcspn(seg, "/");
		if (n == 0)
			return cv_err_set(err, CV_EDATA, "empty path segment");
		if ((n == 1 && seg[0] == '.') ||
		    (n == 2 && seg[0] == '.' && seg[1] == '.'))
			return cv_err_set(err, CV_EDATA,
					  "'.' or '..' segment refused");
		seg += n;
		if (*seg == '/') {
			seg++;
			if (*seg == '\0')
				return cv_err_set(err, CV_EDATA,
						  "trailing '/' refused");
		}
	}
	return 0;
}

char *
cv_manifest_url(const char *mirror, const char *rel)
{
	size_t n = strlen(mirror);

	if (n && mirror[n - 1] == '/')
		return xasprintf("%s%s", mirror, rel);
	return xasprintf("%s/%s", mirror, rel);
}

/* CUDA major from an archive name: ..._cuda12-archive or _cuda11.6-... */
static int
cuda_from_name(const char *rel)
{
	const char *p = strstr(rel, "_cuda");
	long v;
	char *end;

	if (p == NULL)
		return 0;
	p += 5;
	if (!isdigit((unsigned char)*p))
		return 0;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || v <= 0 || v > 999 || (*end != '-' && *end != '.'))
		return 0;
	return (int)v;
}

static int
str_field(struct cv_json *obj, const char *key, const char **out,
	  const char *path, char *bad, size_t nbad)
{
	struct cv_json *v = cv_json_object_get(obj, key);

	if (v == NULL) {
		snprintf(bad, nbad, "%s.%s: missing", path, key);
		return -1;
	}
	if (!cv_json_is_string(v)) {
		snprintf(bad, nbad, "%s.%s: expected a string", path, key);
		return -1;
	}
	*out = cv_json_string_value(v);
	return 0;
}

/* Fill one entry from a file object; sets f->bad on a bad field. */
static void
parse_file(struct cv_release_file *f, struct cv_json *obj, const char *path,
	   int cuda)
{
	const char *rel = NULL, *sha = NULL, *size = NULL;
	struct cv_err e = CV_ERR_INIT;
	size_t i;

	f->cuda = cuda;
	if (str_field(obj, "relative_path", &rel, path, f->bad, sizeof f->bad) <
	    0)
		return;
	if (cv_manifest_check_path(rel, &e) < 0) {
		snprintf(f->bad, sizeof f->bad, "%s.relative_path: %s", path,
			 e.msg);
		return;
	}
	snprintf(f->relative_path, sizeof f->relative_path, "%s", rel);
	if (str_field(obj, "sha256", &sha, path, f->bad, sizeof f->bad) < 0)
		return;
	if (strlen(sha) != 64 || strspn(sha, "0123456789abcdefABCDEF") != 64) {
		snprintf(f->bad, sizeof f->bad,
			 "%s.sha256: expected 64 hex digits", path);
		return;
	}
	for (i = 0; i < 64; i++)
		f->sha256[i] = (char)tolower((unsigned char)sha[i]);
	f->sha256[64] = '\0';
	if (cv_json_object_get(obj, "size") == NULL) {
		snprintf(f->bad, sizeof f->bad, "%s.size: missing", path);
		return;
	}
	if (!cv_json_is_string(cv_json_object_get(obj, "size")) ||
	    (size = cv_json_string_value(cv_json_object_get(obj, "size")),
	     parse_size(size, &f->size) < 0)) {
		snprintf(f->bad, sizeof f->bad,
			 "%s.size: expected a decimal string (1 to %llu)", path,
			 (unsigned long long)CV_ARCHIVE_MAX_BYTES);
		return;
	}
	if (f->cuda == 0)
		f->cuda = cuda_from_name(rel);
	if (f->cuda == 0)
		snprintf(f->bad, sizeof f->bad,
			 "%s.relative_path: no CUDA variant in the name", path);
}

static struct cv_release_file *
add_file(struct cv_manifest *m, const char *platform)
{
	struct cv_release_file *f;

	if (m->nfiles >= MAX_FILES)
		return NULL;
	m->files = xrealloc(m->files, (m->nfiles + 1) * sizeof *m->files);
	f = &m->files[m->nfiles++];
	memset(f, 0, sizeof *f);
	snprintf(f->platform, sizeof f->platform, "%s", platform);
	return f;
}

/* "cuda12" -> 12, else 0. */
static int
variant_key(const char *k)
{
	char *end;
	long v;

	if (strncmp(k, "cuda", 4) != 0 || !isdigit((unsigned char)k[4]) ||
	    (k[4] == '0' && k[5] != '\0'))
		return 0;
	v = strtol(k + 4, &end, 10);
	if (*end != '\0' || v <= 0 || v > 999)
		return 0;
	return (int)v;
}

static int
known_platform_shape(const char *k)
{
	/* Platform keys look like os-arch; everything else in the product
	 * object (name, license, version, cuda_variant, ...) is ignored. */
	return strchr(k, '-') != NULL && strlen(k) < 32 &&
	       strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789-_") == strlen(k);
}

static void
parse_platform(struct cv_manifest *m, const char *platform, struct cv_json *pv)
{
	const char *key;
	struct cv_json *v;
	char path[128];
	int flat = 0;

	snprintf(path, sizeof path, "cudnn.%s", platform);
	if (!cv_json_is_object(pv)) {
		struct cv_release_file *f = add_file(m, platform);
		if (f)
			snprintf(f->bad, sizeof f->bad,
				 "%s: expected an object", path);
		return;
	}
	cv_json_object_foreach(pv, key, v)
	{
		int cuda = variant_key(key);
		char sub[160];
		struct cv_release_file *f;

		if (cuda == 0) {
			flat = 1;
			continue;
		}
		f = add_file(m, platform);
		if (f == NULL)
			return;
		snprintf(sub, sizeof sub, "%s.%s", path, key);
		if (!cv_json_is_object(v)) {
			f->cuda = cuda;
			snprintf(f->bad, sizeof f->bad,
				 "%s: expected an object", sub);
			continue;
		}
		parse_file(f, v, sub, cuda);
	}
	/* 8.x shape, or a flat entry mixed with variants (9.27
	 * windows-arm64): take it when it names a file, unless a nested
	 * entry for the same variant exists. */
	if (flat && cv_json_object_get(pv, "relative_path") != NULL) {
		struct cv_release_file tmp;
		memset(&tmp, 0, sizeof tmp);
		snprintf(tmp.platform, sizeof tmp.platform, "%s", platform);
		parse_file(&tmp, pv, path, 0);
		if (tmp.cuda == 0 ||
		    cv_manifest_find(m, platform, tmp.cuda) == NULL) {
			struct cv_release_file *f = add_file(m, platform);
			if (f)
				*f = tmp;
		}
	}
}

int
cv_manifest_parse(struct cv_manifest *m, const char *name, const char *data,
		  size_t len, struct cv_err *err)
{
	struct cv_json_error je;
	struct cv_json *root, *cudnn, *v;
	const char *key, *s;
	int r = 0;

	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "%s", name);
	if (len > CV_MANIFEST_MAX_BYTES)
		return cv_err_set(err, CV_EDATA,
				  "manifest %s is larger than %u bytes", name,
				  CV_MANIFEST_MAX_BYTES);
	if (len == 0)
		return cv_err_set(err, CV_EDATA, "manifest %s is empty", name);
	root = cv_json_loadb(data, len, CV_JSON_REJECT_DUPLICATES, &je);
	if (root == NULL)
		return cv_err_set(err, CV_EDATA,
				  "manifest %s: invalid JSON at byte %d "
				  "(line %d): %s",
				  name, je.position, je.line, je.text);
	if (!cv_json_is_object(root)) {
		r = cv_err_set(err, CV_EDATA,
			       "manifest %s: expected an object at the top",
			       name);
		goto out;
	}
	v = cv_json_object_get(root, "release_label");
	if (v != NULL && cv_json_is_string(v) &&
	    strlen(cv_json_string_value(v)) < sizeof m->label)
		snprintf(m->label, sizeof m->label, "%s",
			 cv_json_string_value(v));
	v = cv_json_object_get(root, "release_date");
	if (v != NULL && cv_json_is_string(v))
		snprintf(m->release_date, sizeof m->release_date, "%s",
			 cv_json_string_value(v));
	cudnn = cv_json_object_get(root, "cudnn");
	if (cudnn == NULL || !cv_json_is_object(cudnn)) {
		r = cv_err_set(err, CV_EDATA, "manifest %s: cudnn: %s", name,
			       cudnn ? "expected an object" : "missing");
		goto out;
	}
	v = cv_json_object_get(cudnn, "version");
	if (v == NULL || !cv_json_is_string(v)) {
		r = cv_err_set(err, CV_EDATA, "manifest %s: cudnn.version: %s",
			       name, v ? "expected a string" : "missing");
		goto out;
	}
	s = cv_json_string_value(v);
	if (cv_version_parse(&m->version, s, NULL) < 0 ||
	    m->version.cuda != 0 || m->version.nparts != 4) {
		r = cv_err_set(err, CV_EDATA,
			       "manifest %s: cudnn.version: expected a "
			       "4-part version like 9.13.0.50",
			       name);
		goto out;
	}
	if (m->label[0] == '\0' ||
	    cv_version_parse(&(struct cv_version){ 0 }, m->label, NULL) < 0)
		snprintf(m->label, sizeof m->label, "%lu.%lu.%lu",
			 m->version.part[0], m->version.part[1],
			 m->version.part[2]);
	cv_json_object_foreach(cudnn, key, v)
	{
		if (!known_platform_shape(key))
			continue;
		parse_platform(m, key, v);
	}
out:
	cv_json_decref(root);
	if (r < 0)
		cv_manifest_release(m);
	return r;
}

void
cv_manifest_release(struct cv_manifest *m)
{
	free(m->files);
	m->files = NULL;
	m->nfiles = 0;
}

const struct cv_release_file *
cv_manifest_find(const struct cv_manifest *m, const char *platform, int cuda)
{
	for (size_t i = 0; i < m->nfiles; i++)
		if (m->files[i].cuda == cuda &&
		    strcmp(m->files[i].platform, platform) == 0)
			return &m->files[i];
	return NULL;
}

void
cv_manifest_variants(const struct cv_manifest *m, const char *platform,
		     char *buf, size_t n)
{
	int seen[8] = { 0 }, ns = 0;
	size_t len = 0;

	if (n)
		buf[0] = '\0';
	/* ascending order, each once */
	for (int c = 1; c < 1000 && ns < 8; c++) {
		for (size_t i = 0; i < m->nfiles; i++) {
			if (m->files[i].cuda != c || m->files[i].bad[0] ||
			    strcmp(m->files[i].platform, platform) != 0)
				continue;
			seen[ns++] = c;
			break;
		}
	}
	for (int i = 0; i < ns && len < n; i++) {
		int w = snprintf(buf + len, n - len, "%scuda%d", i ? ", " : "",
				 seen[i]);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

/* ---- a CUDA redistrib manifest: one component ---------------------------- */

/* Whether a platform object has a cuda<N> key (the channel's shape). */
static int
has_variants(struct cv_json *pv)
{
	const char *key;
	struct cv_json *v;

	cv_json_object_foreach(pv, key, v)
	{
		if (variant_key(key) != 0)
			return 1;
	}
	return 0;
}

int
cv_manifest_component(const char *name, const char *data, size_t len,
		      const char *component, const char *platform, int cuda,
		      struct cv_release_file *out, char version[32],
		      struct cv_err *err)
{
	struct cv_json_error je;
	struct cv_json *root, *comp, *ver, *file;
	char path[96];
	int r = 0;

	memset(out, 0, sizeof *out);
	if (len == 0 || len > CV_MANIFEST_MAX_BYTES)
		return cv_err_set(err, CV_EDATA, "manifest %s is %s", name,
				  len ? "too large" : "empty");
	root = cv_json_loadb(data, len, CV_JSON_REJECT_DUPLICATES, &je);
	if (root == NULL)
		return cv_err_set(err, CV_EDATA,
				  "manifest %s: invalid JSON at byte %d "
				  "(line %d): %s",
				  name, je.position, je.line, je.text);
	comp = cv_json_object_get(root, component);
	ver = cv_json_object_get(comp, "version");
	file = cv_json_object_get(comp, platform);
	if (!cv_json_is_object(comp) || !cv_json_is_string(ver) ||
	    !cv_json_is_object(file)) {
		r = cv_err_set(err, CV_ENOTFOUND,
			       "manifest %s has no %s for %s", name, component,
			       platform);
		goto out;
	}
	/* the component's own version, which names its store folder: the
	 * spec grammar's characters and nothing else */
	if (strlen(cv_json_string_value(ver)) >= 32 ||
	    cv_version_parse(&(struct cv_version){ 0 },
			     cv_json_string_value(ver), NULL) < 0 ||
	    strspn(cv_json_string_value(ver), "0123456789.") !=
		    strlen(cv_json_string_value(ver))) {
		r = cv_err_set(err, CV_EDATA,
			       "manifest %s: %s.version: expected a version "
			       "like 13.0.2.14",
			       name, component);
		goto out;
	}
	/* cuBLAS's own channel files each CUDA major's archive a level
	 * deeper, as cuDNN's manifests do: <platform>.cuda<N> */
	if (cv_json_object_get(file, "relative_path") == NULL &&
	    has_variants(file)) {
		char key[16];
		snprintf(key, sizeof key, "cuda%d", cuda);
		file = cv_json_object_get(file, key);
		if (!cv_json_is_object(file)) {
			r = cv_err_set(err, CV_ENOTFOUND,
				       "manifest %s has no %s for %s and "
				       "CUDA %d",
				       name, component, platform, cuda);
			goto out;
		}
	}
	snprintf(version, 32, "%s", cv_json_string_value(ver));
	snprintf(out->platform, sizeof out->platform, "%s", platform);
	snprintf(path, sizeof path, "%s.%s", component, platform);
	parse_file(out, file, path, cuda);
	if (out->bad[0] != '\0')
		r = cv_err_set(err, CV_EDATA, "manifest %s: %s", name,
			       out->bad);
out:
	cv_json_decref(root);
	return r;
}
