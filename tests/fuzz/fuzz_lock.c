/* fuzz_lock.c: cudnnvm.lock (cv_lock_parse) on any bytes.
 *
 * Oracles: errors are one line with code CV_EDATA; the reader accepts
 * exactly what a second reading of the format, written here from
 * doc/SPEC.md and doc/cudnnvm.lock.schema.json with jansson alone, accepts;
 * and what it accepts is written back (cv_lock_text) to a text that parses
 * to the same lock and is written the same way again. */
#include "fuzz.h"
#include "release/release.h"
#include "release/release_int.h"

#include <jansson.h>

static const char *const top_keys[] = { "format",    "id",     "manifest",
					"platforms", "source", "spec" };
static const char *const entry_keys[] = { "deps", "sha256", "size", "url" };
static const char *const platform_names[] = { "linux-x86_64", "linux-sbsa",
					      "linux-aarch64",
					      "windows-x86_64" };

/* Exactly these keys. */
static int
has_keys(json_t *o, const char *const *keys, size_t n)
{
	if (!json_is_object(o) || json_object_size(o) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (json_object_get(o, keys[i]) == NULL)
			return 0;
	return 1;
}

/* A string without NUL shorter than cap, or NULL. */
static const char *
str(json_t *o, const char *key, size_t cap)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v) || json_string_length(v) >= cap ||
	    memchr(json_string_value(v), '\0', json_string_length(v)) != NULL)
		return NULL;
	return json_string_value(v);
}

/* The path rule of the schema: relative, printable ASCII without
 * %\?#:@, no empty, "." or ".." segment. */
static int
rel_path(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= 512 || s[0] == '/' || s[n - 1] == '/')
		return 0;
	for (const char *p = s; *p; p++)
		if (*p < 0x20 || *p > 0x7e || strchr("%\\?#:@", *p) != NULL)
			return 0;
	for (const char *seg = s; seg != NULL;) {
		const char *end = strchr(seg, '/');
		size_t len = end ? (size_t)(end - seg) : strlen(seg);
		if (len == 0 || (len == 1 && seg[0] == '.') ||
		    (len == 2 && seg[0] == '.' && seg[1] == '.'))
			return 0;
		seg = end ? end + 1 : NULL;
	}
	return 1;
}

static const char *const dep_keys[] = { "name", "sha256",  "size",
					"url",  "version", "channel" };

/* A dependency's version: digits and dots, not empty, no dot first,
 * last or twice in a row. */
static int
dep_version(const char *v)
{
	size_t n = v ? strlen(v) : 0;

	return n > 0 && strspn(v, "0123456789.") == n && v[0] != '.' &&
	       v[n - 1] != '.' && strstr(v, "..") == NULL;
}

/* The channel's file of that component, platform and release:
 * <name>/<platform>/<name>-<platform>-<version>-archive.{tar.xz,tar.gz,zip}
 * on the CUDA tree, ...-<version>_cuda<N>-archive.<ext> on cuBLAS's
 * channel (N: the id's CUDA major, `cuda` > 0), checked by cutting the
 * url at its slashes and dashes. */
static int
dep_url(const char *url, const char *name, const char *ver, const char *plat,
	int cuda)
{
	char tail[32] = "-archive.";
	size_t tl;
	size_t nl = strlen(name), pl = strlen(plat), vl = strlen(ver);
	const char *p = url, *ext;

	if (strncmp(p, name, nl) != 0 || p[nl] != '/')
		return 0;
	p += nl + 1;
	if (strncmp(p, plat, pl) != 0 || p[pl] != '/')
		return 0;
	p += pl + 1;
	if (strncmp(p, name, nl) != 0 || p[nl] != '-')
		return 0;
	p += nl + 1;
	if (strncmp(p, plat, pl) != 0 || p[pl] != '-')
		return 0;
	p += pl + 1;
	if (cuda > 0)
		snprintf(tail, sizeof tail, "_cuda%d-archive.", cuda);
	tl = strlen(tail);
	if (strncmp(p, ver, vl) != 0 || strncmp(p + vl, tail, tl) != 0)
		return 0;
	ext = p + vl + tl;
	return strcmp(ext, "tar.xz") == 0 || strcmp(ext, "tar.gz") == 0 ||
	       strcmp(ext, "zip") == 0;
}

/* "channel": absent (a lock written before it), "cuda", or "cublas"
 * for libcublas only: 1 for cublas, 0 for cuda, -1 for anything else. */
static int
dep_channel(json_t *d, const char *name)
{
	json_t *c = json_object_get(d, "channel");
	const char *s = str(d, "channel", 8);

	if (c == NULL)
		return 0;
	if (s == NULL)
		return -1;
	if (strcmp(s, "cuda") == 0)
		return 0;
	return strcmp(s, "cublas") == 0 && name != NULL &&
			       strcmp(name, "libcublas") == 0
		       ? 1
		       : -1;
}

/* At most two {name, version, url, sha256, size[, channel]}, name
 * libcublas or cuda_nvrtc, url its channel's archive of it. */
static int
deps_ok(json_t *deps, const char *plat, int cuda)
{
	size_t i;
	json_t *d;

	if (!json_is_array(deps) || json_array_size(deps) > 2)
		return 0;
	json_array_foreach(deps, i, d)
	{
		const char *name = str(d, "name", 32),
			   *url = str(d, "url", 512),
			   *sha = str(d, "sha256", 65);
		json_t *size = json_object_get(d, "size");
		int ch = dep_channel(d, name);
		if (ch < 0 ||
		    !has_keys(d, dep_keys,
			      json_object_get(d, "channel") != NULL ? 6 : 5) ||
		    name == NULL ||
		    (strcmp(name, "libcublas") != 0 &&
		     strcmp(name, "cuda_nvrtc") != 0) ||
		    !dep_version(str(d, "version", 32)) || url == NULL ||
		    !rel_path(url) ||
		    !dep_url(url, name, str(d, "version", 32), plat,
			     ch ? cuda : 0) ||
		    sha == NULL || !fuzz_lower_hex64(sha) ||
		    !json_is_integer(size) || json_integer_value(size) < 1 ||
		    json_integer_value(size) > (json_int_t)(64LL << 30))
			return 0;
	}
	return 1;
}

static int
entry_ok(json_t *e, const char *plat, int cuda)
{
	const char *url = str(e, "url", 512), *sha = str(e, "sha256", 65);
	json_t *size = json_object_get(e, "size"),
	       *deps = json_object_get(e, "deps");

	return has_keys(e, entry_keys, 4) && url != NULL && rel_path(url) &&
	       sha != NULL && fuzz_lower_hex64(sha) && json_is_integer(size) &&
	       json_integer_value(size) >= 1 &&
	       json_integer_value(size) <= (json_int_t)(64LL << 30) &&
	       deps_ok(deps, plat, cuda);
}

static int
platforms_ok(json_t *p, int cuda)
{
	const char *key;
	json_t *v;

	if (!json_is_object(p) || json_object_size(p) == 0)
		return 0;
	json_object_foreach(p, key, v)
	{
		int known = 0;
		for (size_t i = 0; i < 4; i++)
			known |= strcmp(key, platform_names[i]) == 0;
		if (!known || !entry_ok(v, key, cuda))
			return 0;
	}
	return 1;
}

static int
manifest_ok(json_t *m)
{
	const char *url = str(m, "url", 128), *sha = str(m, "sha256", 65);
	size_t n = url ? strlen(url) : 0;

	return has_keys(m, (const char *const[]){ "sha256", "url" }, 2) &&
	       url != NULL && sha != NULL && fuzz_lower_hex64(sha) &&
	       rel_path(url) && strchr(url, '/') == NULL && n >= 16 &&
	       strncmp(url, "redistrib_", 10) == 0 &&
	       strcmp(url + n - 5, ".json") == 0;
}

static int
oracle(const uint8_t *data, size_t size)
{
	json_t *root = json_loadb((const char *)data, size,
				  JSON_REJECT_DUPLICATES, NULL);
	struct cv_version spec, id;
	const char *s, *i, *src;
	int ok;

	if (root == NULL)
		return 0;
	s = str(root, "spec", 64);
	i = str(root, "id", 64);
	src = str(root, "source", 16);
	ok = size <= (64u << 10) && has_keys(root, top_keys, 6) &&
	     json_is_integer(json_object_get(root, "format")) &&
	     json_integer_value(json_object_get(root, "format")) == 1 &&
	     s != NULL && i != NULL && src != NULL &&
	     strcmp(src, "nvidia") == 0 &&
	     cv_version_parse(&spec, s, NULL) == 0 &&
	     cv_install_id_parse(&id, i, NULL) == 0 &&
	     cv_version_matches(&spec, &id) &&
	     manifest_ok(json_object_get(root, "manifest")) &&
	     platforms_ok(json_object_get(root, "platforms"), id.cuda);
	json_decref(root);
	return ok;
}

static void
same_lock(const struct cv_lock *a, const struct cv_lock *b)
{
	FUZZ_CHECK(strcmp(a->spec, b->spec) == 0 && strcmp(a->id, b->id) == 0 &&
			   strcmp(a->source, b->source) == 0 &&
			   strcmp(a->manifest_url, b->manifest_url) == 0 &&
			   strcmp(a->manifest_sha256, b->manifest_sha256) ==
				   0 &&
			   a->n == b->n,
		   "round trip changed %s / %s", a->id, b->id);
	for (size_t k = 0; k < a->n; k++) {
		const struct cv_lock_entry *x = &a->entries[k],
					   *y = cv_lock_entry(b, x->platform);
		FUZZ_CHECK(y != NULL && strcmp(x->url, y->url) == 0 &&
				   strcmp(x->sha256, y->sha256) == 0 &&
				   x->size == y->size && x->ndeps == y->ndeps,
			   "round trip changed %s", x->platform);
		for (size_t d = 0; d < x->ndeps; d++)
			FUZZ_CHECK(strcmp(x->deps[d].channel,
					  y->deps[d].channel) == 0 &&
					   strcmp(x->deps[d].url,
						  y->deps[d].url) == 0,
				   "round trip changed %s's deps", x->platform);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_lock lk, again;
	char *text, *text2;
	int rc = cv_lock_parse(&lk, "cudnnvm.lock", (const char *)data, size,
			       &err);
	int want = oracle(data, size);

	fuzz_check_err(rc, &err);
	FUZZ_CHECK(rc == 0 || rc == CV_EDATA, "returned %d (%s)", rc, err.msg);
	FUZZ_CHECK((rc == 0) == want, "reader %s, the format %s (%s)",
		   rc == 0 ? "accepts" : "refuses",
		   want ? "allows it" : "does not", err.msg);
	if (rc != 0)
		return 0;
	text = cv_lock_text(&lk);
	FUZZ_CHECK(cv_lock_parse(&again, "again", text, strlen(text), &err) ==
			   0,
		   "its own text is refused: %s", err.msg);
	same_lock(&lk, &again);
	text2 = cv_lock_text(&again);
	FUZZ_CHECK(strcmp(text, text2) == 0, "written differently twice");
	FUZZ_CHECK(text[strlen(text) - 1] == '\n' &&
			   strncmp(text, "{\n  \"format\": 1,\n", 17) == 0,
		   "not sorted, indented and newline-terminated: %s", text);
	free(text);
	free(text2);
	return 0;
}
