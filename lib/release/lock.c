/* lock.c: cudnnvm.lock, the file beside a pin that names the exact build
 * the pin resolved to and, per platform, the archive's path on the mirror,
 * sha256 and size (doc/SPEC.md "The lock file"). JSON through cv_json,
 * written with sorted keys, two-space indent and a final newline so that
 * a refresh changes only the lines whose facts changed. The reader is
 * strict: a hand-edited lock that is not exactly this format is one
 * CV_EDATA line naming the field, never half-read. This module reads and
 * writes files only; lock_resolve.c fills a lock from the manifests. */
#include "base/base.h"
#include "release/release_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A lock of this size holds every platform many times over; a bigger file
 * is not one cudnnvm wrote. */
#define LOCK_MAX_BYTES (64u << 10)

static int
bad(struct cv_err *err, const char *name, const char *field, const char *what)
{
	return cv_err_set(err, CV_EDATA, "%s: %s%s%s", name, field,
			  *field ? ": " : "", what);
}

/* Only the keys of the format, each of them, and `optional` (NULL: none)
 * when there. */
static int
keys_optional(struct cv_json *obj, const char *const *keys,
	      const char *optional, const char *name, const char *where,
	      struct cv_err *err)
{
	const char *key;
	struct cv_json *v;
	char field[160];

	cv_json_object_foreach(obj, key, v)
	{
		size_t i;
		for (i = 0; keys[i] != NULL; i++)
			if (strcmp(keys[i], key) == 0)
				break;
		if (keys[i] == NULL &&
		    (optional == NULL || strcmp(key, optional) != 0)) {
			snprintf(field, sizeof field, "%s%s%.40s", where,
				 *where ? "." : "", key);
			return bad(err, name, field,
				   "not a key of the lock format");
		}
	}
	for (size_t i = 0; keys[i] != NULL; i++)
		if (cv_json_object_get(obj, keys[i]) == NULL) {
			snprintf(field, sizeof field, "%s%s%s", where,
				 *where ? "." : "", keys[i]);
			return bad(err, name, field, "missing");
		}
	return 0;
}

static int
keys_exactly(struct cv_json *obj, const char *const *keys, const char *name,
	     const char *where, struct cv_err *err)
{
	return keys_optional(obj, keys, NULL, name, where, err);
}

static int
get_string(struct cv_json *obj, const char *key, char *out, size_t n,
	   const char *name, const char *where, struct cv_err *err)
{
	struct cv_json *v = cv_json_object_get(obj, key);
	char field[160];

	snprintf(field, sizeof field, "%s%s%s", where, *where ? "." : "", key);
	if (!cv_json_is_string(v))
		return bad(err, name, field, "expected a string");
	if (cv_json_string_length(v) >= n ||
	    strlen(cv_json_string_value(v)) != cv_json_string_length(v))
		return bad(err, name, field, "too long");
	memcpy(out, cv_json_string_value(v), cv_json_string_length(v) + 1);
	return 0;
}

static int
sha256_ok(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

/* A path on the mirror: the manifest reader's own rule. */
static int
path_ok(const char *s, const char *name, const char *field, struct cv_err *err)
{
	struct cv_err why = CV_ERR_INIT;

	if (cv_manifest_check_path(s, &why) < 0)
		return bad(err, name, field, why.msg);
	return 0;
}

int
cv_dep_url_ok(const char *name, const char *platform, const char *version,
	      int channel_cuda, const char *url)
{
	char want[256], tail[24] = "-archive.";
	size_t n;
	const char *ext;

	/* the channel names its archives as cuDNN's: ..._cuda<N>-archive */
	if (channel_cuda > 0)
		snprintf(tail, sizeof tail, "_cuda%d-archive.", channel_cuda);
	n = (size_t)snprintf(want, sizeof want, "%s/%s/%s-%s-%s%s", name,
			     platform, name, platform, version, tail);
	ext = url + n;
	return n < sizeof want && strlen(url) > n &&
	       strncmp(url, want, n) == 0 &&
	       (strcmp(ext, "tar.xz") == 0 || strcmp(ext, "tar.gz") == 0 ||
		strcmp(ext, "zip") == 0);
}

/* A dependency's "channel": "cuda" (NVIDIA's CUDA redist tree, also what
 * a lock without the key means) or "cublas" (cuBLAS's own channel, which
 * serves libcublas only). */
static int
parse_channel(struct cv_lock_dep *d, struct cv_json *v, const char *name,
	      const char *at, struct cv_err *err)
{
	char field[160];
	int r;

	snprintf(d->channel, sizeof d->channel, "%s", CV_CHANNEL_CUDA);
	if (cv_json_object_get(v, "channel") == NULL)
		return 0;
	if ((r = get_string(v, "channel", d->channel, sizeof d->channel, name,
			    at, err)) < 0)
		return r;
	snprintf(field, sizeof field, "%s.channel", at);
	if (strcmp(d->channel, CV_CHANNEL_CUDA) != 0 &&
	    strcmp(d->channel, CV_CHANNEL_CUBLAS) != 0)
		return bad(err, name, field, "expected cuda or cublas");
	if (strcmp(d->channel, CV_CHANNEL_CUBLAS) == 0 &&
	    strcmp(d->name, "libcublas") != 0)
		return bad(err, name, field,
			   "the cublas channel serves libcublas only");
	return 0;
}

/* A platform's "deps": [{name, version, url, sha256, size, channel}],
 * each a component cuDNN loads (libcublas, cuda_nvrtc), its url relative
 * to its channel's tree and the very file of that component and release
 * (for the cublas channel, of the lock's CUDA major). */
static int
parse_deps(struct cv_lock_entry *e, struct cv_json *a, int cuda,
	   const char *name, const char *where, struct cv_err *err)
{
	static const char *const keys[] = { "name", "sha256",  "size",
					    "url",  "version", NULL };
	size_t i;
	struct cv_json *v;
	int r;

	if (!cv_json_is_array(a))
		return bad(err, name, where, "expected an array");
	if (cv_json_array_size(a) > CV_LOCK_MAX_DEPS)
		return bad(err, name, where, "more entries than cuDNN needs");
	cv_json_array_foreach(a, i, v)
	{
		struct cv_lock_dep *d = &e->deps[i];
		char at[128], field[160];
		struct cv_json *size;

		snprintf(at, sizeof at, "%s[%zu]", where, i);
		if (!cv_json_is_object(v))
			return bad(err, name, at, "expected an object");
		/* channel is optional: locks written before it still read */
		if ((r = keys_optional(v, keys, "channel", name, at, err)) <
			    0 ||
		    (r = get_string(v, "name", d->name, sizeof d->name, name,
				    at, err)) < 0 ||
		    (r = get_string(v, "version", d->version, sizeof d->version,
				    name, at, err)) < 0 ||
		    (r = get_string(v, "url", d->url, sizeof d->url, name, at,
				    err)) < 0 ||
		    (r = get_string(v, "sha256", d->sha256, sizeof d->sha256,
				    name, at, err)) < 0)
			return r;
		snprintf(field, sizeof field, "%s.name", at);
		if (strcmp(d->name, "libcublas") != 0 &&
		    strcmp(d->name, "cuda_nvrtc") != 0)
			return bad(err, name, field,
				   "expected libcublas or cuda_nvrtc");
		if ((r = parse_channel(d, v, name, at, err)) < 0)
			return r;
		snprintf(field, sizeof field, "%s.version", at);
		if (!cv_version_dotted(d->version))
			return bad(err, name, field,
				   "expected a version like 13.0.2.14");
		snprintf(field, sizeof field, "%s.url", at);
		if ((r = path_ok(d->url, name, field, err)) < 0)
			return r;
		if (!cv_dep_url_ok(d->name, e->platform, d->version,
				   strcmp(d->channel, CV_CHANNEL_CUBLAS) == 0
					   ? cuda
					   : 0,
				   d->url))
			return bad(err, name, field,
				   "expected the channel's archive of that "
				   "name, platform and version");
		snprintf(field, sizeof field, "%s.sha256", at);
		if (!sha256_ok(d->sha256))
			return bad(err, name, field,
				   "expected 64 lower-case hex digits");
		size = cv_json_object_get(v, "size");
		snprintf(field, sizeof field, "%s.size", at);
		if (!cv_json_is_integer(size) ||
		    cv_json_integer_value(size) <= 0 ||
		    (unsigned long long)cv_json_integer_value(size) >
			    CV_ARCHIVE_MAX_BYTES)
			return bad(err, name, field, "expected a byte count");
		d->size = (uint64_t)cv_json_integer_value(size);
		e->ndeps++;
	}
	return 0;
}

static int
parse_entry(struct cv_lock_entry *e, const char *platform, struct cv_json *v,
	    int cuda, const char *name, struct cv_err *err)
{
	static const char *const keys[] = { "deps", "sha256", "size", "url",
					    NULL };
	char where[64], field[96];
	struct cv_json *size;
	int r;

	snprintf(where, sizeof where, "platforms.%s", platform);
	if (!cv_json_is_object(v))
		return bad(err, name, where, "expected an object");
	if ((r = keys_exactly(v, keys, name, where, err)) < 0)
		return r;
	memset(e, 0, sizeof *e);
	snprintf(e->platform, sizeof e->platform, "%s", platform);
	if ((r = get_string(v, "url", e->url, sizeof e->url, name, where,
			    err)) < 0 ||
	    (r = get_string(v, "sha256", e->sha256, sizeof e->sha256, name,
			    where, err)) < 0)
		return r;
	snprintf(field, sizeof field, "%s.url", where);
	if ((r = path_ok(e->url, name, field, err)) < 0)
		return r;
	snprintf(field, sizeof field, "%s.sha256", where);
	if (!sha256_ok(e->sha256))
		return bad(err, name, field,
			   "expected 64 lower-case hex digits");
	size = cv_json_object_get(v, "size");
	snprintf(field, sizeof field, "%s.size", where);
	if (!cv_json_is_integer(size) || cv_json_integer_value(size) <= 0 ||
	    (unsigned long long)cv_json_integer_value(size) >
		    CV_ARCHIVE_MAX_BYTES)
		return bad(err, name, field, "expected a byte count");
	e->size = (uint64_t)cv_json_integer_value(size);
	snprintf(field, sizeof field, "%s.deps", where);
	return parse_deps(e, cv_json_object_get(v, "deps"), cuda, name, field,
			  err);
}

static int
parse_platforms(struct cv_lock *lk, struct cv_json *pv, const char *name,
		struct cv_err *err)
{
	const char *key;
	struct cv_json *v;
	int r;

	if (!cv_json_is_object(pv) || cv_json_object_size(pv) == 0)
		return bad(err, name, "platforms",
			   "expected an object with at least one platform");
	cv_json_object_foreach(pv, key, v)
	{
		char field[96];

		snprintf(field, sizeof field, "platforms.%.40s", key);
		if (!cv_platform_valid(key))
			return bad(err, name, field,
				   "not a platform (linux-x86_64, linux-sbsa, "
				   "linux-aarch64, windows-x86_64)");
		if (lk->n >= CV_LOCK_MAX_PLATFORMS)
			return bad(err, name, "platforms", "too many");
		if ((r = parse_entry(&lk->entries[lk->n], key, v, lk->id_v.cuda,
				     name, err)) < 0)
			return r;
		lk->n++;
	}
	return 0;
}

static int
parse_manifest(struct cv_lock *lk, struct cv_json *mv, const char *name,
	       struct cv_err *err)
{
	static const char *const keys[] = { "sha256", "url", NULL };
	size_t n;
	int r;

	if (!cv_json_is_object(mv))
		return bad(err, name, "manifest", "expected an object");
	if ((r = keys_exactly(mv, keys, name, "manifest", err)) < 0 ||
	    (r = get_string(mv, "url", lk->manifest_url,
			    sizeof lk->manifest_url, name, "manifest", err)) <
		    0 ||
	    (r = get_string(mv, "sha256", lk->manifest_sha256,
			    sizeof lk->manifest_sha256, name, "manifest",
			    err)) < 0)
		return r;
	n = strlen(lk->manifest_url);
	if ((r = path_ok(lk->manifest_url, name, "manifest.url", err)) < 0)
		return r;
	/* a manifest sits at the top of the tree, as NVIDIA's do */
	if (strchr(lk->manifest_url, '/') != NULL ||
	    strncmp(lk->manifest_url, "redistrib_", 10) != 0 || n < 16 ||
	    strcmp(lk->manifest_url + n - 5, ".json") != 0)
		return bad(err, name, "manifest.url",
			   "expected redistrib_<version>.json");
	if (!sha256_ok(lk->manifest_sha256))
		return bad(err, name, "manifest.sha256",
			   "expected 64 lower-case hex digits");
	return 0;
}

/* spec, id and source, and that the id is a build of the spec. */
static int
parse_names(struct cv_lock *lk, struct cv_json *root, const char *name,
	    struct cv_err *err)
{
	int r;

	if ((r = get_string(root, "spec", lk->spec, sizeof lk->spec, name, "",
			    err)) < 0 ||
	    (r = get_string(root, "id", lk->id, sizeof lk->id, name, "", err)) <
		    0 ||
	    (r = get_string(root, "source", lk->source, sizeof lk->source, name,
			    "", err)) < 0)
		return r;
	if (cv_version_parse(&lk->spec_v, lk->spec, NULL) < 0)
		return bad(err, name, "spec", "not a version spec");
	if (cv_install_id_parse(&lk->id_v, lk->id, NULL) < 0)
		return bad(err, name, "id",
			   "expected an install id like 9.13.0.50-cuda12");
	if (!cv_version_matches(&lk->spec_v, &lk->id_v))
		return bad(err, name, "id", "not a build of the locked spec");
	if (strcmp(lk->source, "nvidia") != 0)
		return bad(err, name, "source", "expected \"nvidia\"");
	return 0;
}

int
cv_lock_parse(struct cv_lock *lk, const char *name, const char *data,
	      size_t len, struct cv_err *err)
{
	static const char *const keys[] = { "format",    "id",     "manifest",
					    "platforms", "source", "spec",
					    NULL };
	struct cv_json_error je;
	struct cv_json *root, *fmt;
	int r;

	memset(lk, 0, sizeof *lk);
	if (len > LOCK_MAX_BYTES)
		return cv_err_set(err, CV_EDATA,
				  "%s: larger than %u bytes; not a lock file",
				  name, LOCK_MAX_BYTES);
	root = cv_json_loadb(data, len, CV_JSON_REJECT_DUPLICATES, &je);
	if (root == NULL)
		return cv_err_set(err, CV_EDATA,
				  "%s: invalid JSON at line %d: %s", name,
				  je.line, je.text);
	if (!cv_json_is_object(root)) {
		r = bad(err, name, "", "expected an object at the top");
		goto out;
	}
	fmt = cv_json_object_get(root, "format");
	if (cv_json_is_integer(fmt) &&
	    cv_json_integer_value(fmt) > CV_LOCK_FORMAT) {
		r = cv_err_set(err, CV_EDATA,
			       "%s: format %lld is newer than this cudnnvm "
			       "reads (%d); upgrade cudnnvm",
			       name, (long long)cv_json_integer_value(fmt),
			       CV_LOCK_FORMAT);
		goto out;
	}
	if ((r = keys_exactly(root, keys, name, "", err)) < 0)
		goto out;
	if (!cv_json_is_integer(fmt) ||
	    cv_json_integer_value(fmt) != CV_LOCK_FORMAT) {
		r = bad(err, name, "format", "expected 1");
		goto out;
	}
	if ((r = parse_names(lk, root, name, err)) < 0 ||
	    (r = parse_manifest(lk, cv_json_object_get(root, "manifest"), name,
				err)) < 0 ||
	    (r = parse_platforms(lk, cv_json_object_get(root, "platforms"),
				 name, err)) < 0)
		goto out;
	r = 0;
out:
	cv_json_decref(root);
	if (r < 0)
		memset(lk, 0, sizeof *lk);
	return r;
}

int
cv_lock_read(const char *path, struct cv_lock *lk, struct cv_err *err)
{
	char *buf = xmalloc(LOCK_MAX_BYTES + 2);
	ssize_t n =
		cv_fs_read_head(CV_AT_CWD, path, 1, buf, LOCK_MAX_BYTES + 2);
	int r;

	memset(lk, 0, sizeof *lk);
	if (n < 0) {
		int e = errno;
		free(buf);
		if (e == ENOENT)
			return cv_err_set(err, CV_ENOTFOUND, "no %s", path);
		errno = e;
		if (e == EINVAL || e == ELOOP)
			return cv_err_set(err, CV_EDATA,
					  "%s: not a regular file", path);
		return cv_err_errno(
			err, e == EACCES ? CV_EPERM : cv_code_from_errno(e),
			"cannot read %s", path);
	}
	r = cv_lock_parse(lk, path, buf, (size_t)n, err);
	free(buf);
	return r;
}

static struct cv_json *
entry_json(const struct cv_lock_entry *e)
{
	struct cv_json *deps = cv_json_array();

	for (size_t i = 0; i < e->ndeps; i++) {
		const struct cv_lock_dep *d = &e->deps[i];
		cv_json_array_append_new(
			deps, cv_json_pack("{s:s, s:s, s:s, s:I, s:s, s:s}",
					   "channel",
					   d->channel[0] ? d->channel
							 : CV_CHANNEL_CUDA,
					   "name", d->name, "sha256", d->sha256,
					   "size", (int64_t)d->size, "url",
					   d->url, "version", d->version));
	}
	return cv_json_pack("{s:o, s:s, s:I, s:s}", "deps", deps, "sha256",
			    e->sha256, "size", (int64_t)e->size, "url", e->url);
}

char *
cv_lock_text(const struct cv_lock *lk)
{
	struct cv_json *plats = cv_json_object(), *root;
	char *s, *out;

	for (size_t i = 0; i < lk->n; i++)
		cv_json_object_set_new(plats, lk->entries[i].platform,
				       entry_json(&lk->entries[i]));
	root = cv_json_pack("{s:i, s:s, s:{s:s, s:s}, s:o, s:s, s:s}", "format",
			    CV_LOCK_FORMAT, "id", lk->id, "manifest", "sha256",
			    lk->manifest_sha256, "url", lk->manifest_url,
			    "platforms", plats, "source", lk->source, "spec",
			    lk->spec);
	if (root == NULL)
		abort(); /* only out of memory: the fields are strings */
	s = cv_json_dumps(root, CV_JSON_INDENT(2) | CV_JSON_SORT_KEYS);
	cv_json_decref(root);
	if (s == NULL)
		abort();
	out = xasprintf("%s\n", s);
	free(s);
	return out;
}

int
cv_lock_write(const char *path, const struct cv_lock *lk, struct cv_err *err)
{
	char *text = cv_lock_text(lk);
	int r = cv_fs_write_atomic(path, text, strlen(text), 0644, err);

	free(text);
	return r;
}

void
cv_lock_path(const char *pin_file, char out[4096])
{
	/* the pin's folder, as the platform separates it, joined by base */
	const char *name = cv_path_base(pin_file);

	if (name == pin_file) {
		snprintf(out, 4096, "%s", CV_LOCK_FILE);
	} else {
		char dir[4096], *p;
		snprintf(dir, sizeof dir, "%.*s", (int)(name - 1 - pin_file),
			 pin_file);
		p = cv_path_join(dir, CV_LOCK_FILE);
		snprintf(out, 4096, "%s", p);
		free(p);
	}
}

int
cv_lock_matches(const struct cv_lock *lk, const struct cv_version *pin)
{
	char want[64];

	cv_version_format_id(pin, want, sizeof want);
	return strcmp(want, lk->spec) == 0 &&
	       cv_version_matches(pin, &lk->id_v);
}

const struct cv_lock_entry *
cv_lock_entry(const struct cv_lock *lk, const char *platform)
{
	for (size_t i = 0; i < lk->n; i++)
		if (strcmp(lk->entries[i].platform, platform) == 0)
			return &lk->entries[i];
	return NULL;
}

int
cv_lock_add(struct cv_lock *lk, const struct cv_lock_entry *e)
{
	struct cv_lock_entry *have =
		(struct cv_lock_entry *)cv_lock_entry(lk, e->platform);
	size_t at;

	if (have != NULL) {
		*have = *e;
		return 0;
	}
	if (lk->n >= CV_LOCK_MAX_PLATFORMS)
		return -1;
	/* in the file's order (sorted keys), so every listing agrees */
	for (at = lk->n;
	     at > 0 && strcmp(lk->entries[at - 1].platform, e->platform) > 0;
	     at--)
		lk->entries[at] = lk->entries[at - 1];
	lk->entries[at] = *e;
	lk->n++;
	return 0;
}

void
cv_lock_platforms(const struct cv_lock *lk, char *buf, size_t n)
{
	size_t len = 0;

	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < lk->n && len < n; i++) {
		int w = snprintf(buf + len, n - len, "%s%s", i ? ", " : "",
				 lk->entries[i].platform);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

int
cv_lock_hold(const char *path, int *fd, struct cv_err *err)
{
	const char *slash = cv_path_last_sep(path);
	char *dir = slash == NULL   ? xstrdup(".")
		    : slash == path ? xstrdup("/")
				    : xstrndup(path, (size_t)(slash - path));
	int r = cv_fs_lock_dir(dir, fd, err);

	free(dir);
	return r;
}

void
cv_lock_release(int fd)
{
	cv_fs_unlock(fd);
}
