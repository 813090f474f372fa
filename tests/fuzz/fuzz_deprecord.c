/* fuzz_deprecord.c: dependency records on any bytes: a version's "deps"
 * array (cv_store_deps_parse, what cv_store_read_meta reads), a
 * dependency folder's cudnnvm-dep.json (cv_store_dep_record_parse) and the
 * "deps" entries of a lock (cv_lock_parse). The first byte picks which;
 * for a folder's record the input's first line is the folder's name.
 *
 * Oracles, checked on the accepted fields by code of the target's own
 * (no JSON reader): every record names libcublas or cuda_nvrtc with a
 * dotted version (or none, for a folder found on the machine) and a CUDA
 * major of 1 to 99; a store folder is exactly
 * deps/<name>-<version> (the record's folder for cudnnvm-dep.json) with a
 * lower-case sha256 and a size within the archive cap; a folder found on
 * the machine is absolute, printable, without ':' or ';' (either would
 * split LD_LIBRARY_PATH into entries relative to the working folder) and
 * without "." or ".." segments; a lock's dependency url is the CUDA
 * tree's archive of that very name, platform and version; each accepted
 * string is in the input as a JSON string when the input escapes
 * nothing. And what is accepted is written back (cv_store_deps_json) to a
 * text that reads to the same records. */
#include "fuzz.h"
#include "release/release.h"
#include "release/release_int.h"
#include "store/store.h"

static int
dotted(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n >= 32 || v[0] == '.' || v[n - 1] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((v[i] >= '0' && v[i] <= '9') ||
		      (v[i] == '.' && v[i + 1] != '.')))
			return 0;
	return 1;
}

static int
found_ok(const char *p)
{
	size_t n = strlen(p);

	if (n == 0 || p[0] != '/')
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c < 0x20 || c == 0x7f || c == ':' || c == ';')
			return 0;
		/* a "." or ".." segment: after a slash, up to a slash or
		 * the end */
		if (p[i] == '/' && p[i + 1] == '.' &&
		    (p[i + 2] == '/' || p[i + 2] == '\0' ||
		     (p[i + 2] == '.' &&
		      (p[i + 3] == '/' || p[i + 3] == '\0'))))
			return 0;
	}
	return 1;
}

/* "s" appears in the input when the input has no backslash */
static void
quoted_in(const char *in, int plain, const char *s, const char *what)
{
	char *q;

	if (!plain)
		return;
	q = malloc(strlen(s) + 3);
	if (q == NULL)
		abort();
	sprintf(q, "\"%s\"", s);
	FUZZ_CHECK(strstr(in, q) != NULL, "%s %s is not in the input", what, q);
	free(q);
}

static void
check_dep(const struct cv_dep *d, const char *in, int plain)
{
	char want[96];

	FUZZ_CHECK(strcmp(d->name, "libcublas") == 0 ||
			   strcmp(d->name, "cuda_nvrtc") == 0,
		   "component %s", d->name);
	/* a folder found on the machine has no release of its own */
	FUZZ_CHECK(dotted(d->version) ||
			   (!d->in_store && d->version[0] == '\0'),
		   "version %s", d->version);
	FUZZ_CHECK(d->cuda >= 1 && d->cuda <= 99, "cuda %d", d->cuda);
	quoted_in(in, plain, d->name, "name");
	quoted_in(in, plain, d->version, "version");
	quoted_in(in, plain, d->dir, "folder");
	if (d->in_store) {
		snprintf(want, sizeof want, "deps/%s-%s", d->name, d->version);
		FUZZ_CHECK(strcmp(d->dir, want) == 0, "dir %s", d->dir);
		FUZZ_CHECK(fuzz_lower_hex64(d->sha256), "sha256 %s", d->sha256);
		FUZZ_CHECK(d->size <= (64ULL << 30), "size %llu",
			   (unsigned long long)d->size);
		quoted_in(in, plain, d->sha256, "sha256");
	} else {
		FUZZ_CHECK(found_ok(d->dir), "found %s", d->dir);
		FUZZ_CHECK(d->sha256[0] == '\0' && d->size == 0,
			   "a found folder with an archive");
	}
}

static int
same_dep(const struct cv_dep *a, const struct cv_dep *b)
{
	return strcmp(a->name, b->name) == 0 &&
	       strcmp(a->version, b->version) == 0 && a->cuda == b->cuda &&
	       strcmp(a->dir, b->dir) == 0 && a->in_store == b->in_store &&
	       strcmp(a->sha256, b->sha256) == 0 && a->size == b->size;
}

/* write back, read again: the same records */
static void
round_trip(const struct cv_installed *inst)
{
	struct cv_json *a = cv_store_deps_json(inst);
	char *text = cv_json_dumps(a, CV_JSON_COMPACT);
	struct cv_installed back;

	FUZZ_CHECK(text != NULL, "cannot write the records back");
	FUZZ_CHECK(cv_store_deps_parse(text, strlen(text), &back) == 0,
		   "written back, refused: %s", text);
	FUZZ_CHECK(back.ndeps == inst->ndeps, "%d records, then %d",
		   inst->ndeps, back.ndeps);
	for (int i = 0; i < inst->ndeps; i++)
		FUZZ_CHECK(same_dep(&inst->deps[i], &back.deps[i]),
			   "record %d changed: %s", i, text);
	free(text);
	cv_json_decref(a);
}

static void
deps_array(const char *in, size_t n, int plain)
{
	struct cv_installed inst;

	if (cv_store_deps_parse(in, n, &inst) < 0)
		return;
	FUZZ_CHECK(inst.ndeps <= CV_MAX_DEPS, "%d records", inst.ndeps);
	for (int i = 0; i < inst.ndeps; i++)
		check_dep(&inst.deps[i], in, plain);
	round_trip(&inst);
}

static void
dep_record(const char *in, size_t n, int plain)
{
	const char *nl = memchr(in, '\n', n);
	char folder[256];
	struct cv_installed inst;
	size_t fl;

	if (nl == NULL || (fl = (size_t)(nl - in)) >= sizeof folder)
		return;
	memcpy(folder, in, fl);
	folder[fl] = '\0';
	memset(&inst, 0, sizeof inst);
	if (cv_store_dep_record_parse(nl + 1, n - fl - 1, folder,
				      &inst.deps[0]) < 0)
		return;
	inst.ndeps = 1;
	check_dep(&inst.deps[0], nl + 1, plain);
	FUZZ_CHECK(inst.deps[0].in_store, "a record of a found folder");
	FUZZ_CHECK(strcmp(inst.deps[0].dir + 5, folder) == 0,
		   "the record of %s names %s", folder, inst.deps[0].dir);
	round_trip(&inst);
}

static void
lock_deps(const char *in, size_t n, int plain)
{
	static struct cv_lock lk;
	struct cv_err err = CV_ERR_INIT;
	int rc = cv_lock_parse(&lk, "cudnnvm.lock", in, n, &err);

	fuzz_check_err(rc, &err);
	if (rc < 0)
		return;
	for (size_t i = 0; i < lk.n; i++) {
		const struct cv_lock_entry *e = &lk.entries[i];
		FUZZ_CHECK(e->ndeps <= CV_LOCK_MAX_DEPS, "%zu deps", e->ndeps);
		for (size_t k = 0; k < e->ndeps; k++) {
			const struct cv_lock_dep *d = &e->deps[k];
			char want[600];
			int ok = 0;
			FUZZ_CHECK(strcmp(d->name, "libcublas") == 0 ||
					   strcmp(d->name, "cuda_nvrtc") == 0,
				   "component %s", d->name);
			FUZZ_CHECK(dotted(d->version), "version %s",
				   d->version);
			/* cuBLAS's channel names the lock's CUDA major */
			int cublas = strcmp(d->channel, "cublas") == 0;
			char tail[24] = "";
			FUZZ_CHECK(cublas || strcmp(d->channel, "cuda") == 0,
				   "channel %s", d->channel);
			FUZZ_CHECK(!cublas || strcmp(d->name, "libcublas") == 0,
				   "%s from the cublas channel", d->name);
			if (cublas)
				snprintf(tail, sizeof tail, "_cuda%d",
					 lk.id_v.cuda);
			for (int x = 0; x < 3 && !ok; x++) {
				static const char *const ext[] = { "tar.xz",
								   "tar.gz",
								   "zip" };
				snprintf(want, sizeof want,
					 "%s/%s/%s-%s-%s%s-archive.%s", d->name,
					 e->platform, d->name, e->platform,
					 d->version, tail, ext[x]);
				ok = strcmp(d->url, want) == 0;
			}
			FUZZ_CHECK(ok, "url %s for %s %s on %s", d->url,
				   d->name, d->version, e->platform);
			FUZZ_CHECK(fuzz_lower_hex64(d->sha256), "sha256 %s",
				   d->sha256);
			FUZZ_CHECK(d->size >= 1 && d->size <= (64ULL << 30),
				   "size %llu", (unsigned long long)d->size);
			quoted_in(in, plain, d->url, "url");
			quoted_in(in, plain, d->sha256, "sha256");
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in;
	int plain;

	if (size < 1 || size > 64 * 1024)
		return 0;
	in = fuzz_cstr(data + 1, size - 1);
	/* a NUL ends the text for strstr: only whole inputs are "plain" */
	plain = memchr(in, '\\', size - 1) == NULL &&
		memchr(in, '\0', size - 1) == NULL;
	switch (data[0] % 3) {
	case 0:
		deps_array(in, size - 1, plain);
		break;
	case 1:
		dep_record(in, size - 1, plain);
		break;
	default:
		lock_deps(in, size - 1, plain);
		break;
	}
	free(in);
	return 0;
}
