/* fuzz_manifest.c: NVIDIA's redistrib JSON (both shapes) on any bytes.
 *
 * Oracles: no memory error or leak; an accepted manifest has a 4-part
 * version, and every usable entry has a relative path that
 * cv_manifest_check_path accepts (no "..", scheme, '%' ...), a lower-case
 * sha256, a size within the cap and a known CUDA major; lookups agree. */
#include "fuzz.h"
#include "release/release.h"
#include "release/release_int.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cv_manifest m;
	struct cv_err err = CV_ERR_INIT;
	char variants[256];
	int rc;

	rc = cv_manifest_parse(&m, "redistrib_9.13.0.json", (const char *)data,
			       size, &err);
	fuzz_check_err(rc, &err);
	if (rc == 0) {
		FUZZ_CHECK(m.version.nparts == 4 && m.version.cuda == 0,
			   "version with %d parts", m.version.nparts);
		FUZZ_CHECK(cv_version_parse(&(struct cv_version){ 0 }, m.label,
					    NULL) == 0,
			   "label '%s'", m.label);
		for (size_t i = 0; i < m.nfiles; i++) {
			const struct cv_release_file *f = &m.files[i];
			char *url;
			if (f->bad[0] != '\0')
				continue;
			FUZZ_CHECK(cv_manifest_check_path(f->relative_path,
							  NULL) == 0,
				   "unsafe path '%s'", f->relative_path);
			FUZZ_CHECK(fuzz_lower_hex64(f->sha256), "sha256 '%s'",
				   f->sha256);
			FUZZ_CHECK(f->size > 0 &&
					   f->size <= CV_ARCHIVE_MAX_BYTES,
				   "size %llu", (unsigned long long)f->size);
			FUZZ_CHECK(f->cuda >= 0 && f->cuda < 1000, "cuda %d",
				   f->cuda);
			FUZZ_CHECK(cv_manifest_find(&m, f->platform, f->cuda) !=
					   NULL,
				   "entry %zu not found by lookup", i);
			url = cv_manifest_url("https://mirror.example/redist/",
					      f->relative_path);
			FUZZ_CHECK(strncmp(url,
					   "https://mirror.example/redist/",
					   30) == 0 &&
					   url[30] != '/',
				   "url '%s'", url);
			free(url);
			cv_manifest_variants(&m, f->platform, variants,
					     sizeof variants);
		}
		cv_manifest_release(&m);
	}
	/* The path check alone, on the raw bytes as one string. */
	if (size < 1024 && memchr(data, '\0', size) == NULL) {
		char *s = fuzz_cstr(data, size);
		if (cv_manifest_check_path(s, &err) == 0) {
			FUZZ_CHECK(s[0] != '/', "absolute path '%s' accepted",
				   s);
			for (const char *seg = s; *seg;) {
				size_t n = strcspn(seg, "/");
				FUZZ_CHECK(!(n == 2 && seg[0] == '.' &&
					     seg[1] == '.'),
					   "'..' segment accepted in '%s'", s);
				seg += n + (seg[n] == '/');
			}
			FUZZ_CHECK(strpbrk(s, "%\\?#:@") == NULL,
				   "'%s' accepted", s);
		}
		free(s);
	}
	return 0;
}
