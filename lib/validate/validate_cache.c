/* validate_cache.c: validation results kept per install id, driver, GPU
 * and the identity of every lib/libcudnn* file, so that repeating an
 * activation costs a few stat(2) calls. The key is the plain text of all
 * that; a result is used only when its stored key is byte-identical. */
#include "base/base.h"
#include "store/store.h"
#include "validate/validate_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
cv_validate_key_identity(struct cv_buf *b, const char *label, const char *path)
{
	/* the type bits of st_mode as every Unix numbers them, so that the
	 * keys of caches written before read the same */
	static const unsigned type_bits[] = {
		[CV_KIND_FILE] = 0100000,
		[CV_KIND_DIR] = 0040000,
		[CV_KIND_LINK] = 0120000,
	};
	struct cv_stat st;

	if (path == NULL || cv_os_stat(path, &st) < 0) {
		cv_buf_addf(b, "%s=none\n", label);
		return;
	}
	cv_buf_addf(b, "%s=%s:%lu:%lu:%lld:%lld.%09ld:%o\n", label, path,
		    (unsigned long)st.dev, (unsigned long)st.ino,
		    (long long)st.size, (long long)st.mtime, st.mtime_ns,
		    (st.kind < CV_KIND_OTHER ? type_bits[st.kind] : 0) |
			    st.perm);
}

static void
add_file(struct cv_buf *b, const char *label, const char *path, size_t max)
{
	char buf[4096];
	int fd = cv_os_open(path, CV_OPEN_READ, 0);
	long n = fd >= 0 ? cv_os_read(fd, buf,
				      max < sizeof buf ? max : sizeof buf)
			 : -1;

	if (fd >= 0)
		cv_os_close(fd);
	if (n < 0)
		n = 0;
	cv_buf_addf(b, "%s=%.*s\n", label, (int)n, buf);
}

char *
cv_validate_cache_key(const char *dir, const char *id, int no_gpu,
		      const char *cublaslt)
{
	struct cv_buf b = CV_BUF_INIT;
	char *libdir = cv_path_join(dir, "lib"), **names = NULL;
	const char *vis = getenv("CUDA_VISIBLE_DEVICES");
	const char *test = getenv("CUDNNVM_TEST_CUDA_LIBDIRS");
	size_t n = 0, cap = 0;
	struct cv_strv g = CV_STRV_INIT;
	struct cv_dir *d;
	const char *e;

	cv_buf_addf(&b, "v1\nid=%s\ndir=%s\nno_gpu=%d\n", id, dir, no_gpu);
	/* The driver and the GPUs, as the kernel module reports them. */
	add_file(&b, "driver", "/proc/driver/nvidia/version", 4096);
	if (cv_os_glob("/proc/driver/nvidia/gpus/*/information", &g) > 0) {
		for (size_t i = 0; i < g.n; i++)
			add_file(&b, "gpu", g.v[i], 4096);
		cv_strv_release(&g);
	}
	cv_buf_addf(&b, "visible=%s\n", vis ? vis : "(unset)");
	cv_validate_key_identity(&b, "cublaslt", cublaslt);
	if (test != NULL) {
		char *libcuda = xasprintf("%s/libcuda.so.1", test);
		cv_buf_addf(&b, "testdirs=%s\n", test);
		cv_validate_key_identity(&b, "libcuda", libcuda);
		free(libcuda);
	}
	cv_validate_key_identity(&b, "libdir", libdir);
	d = cv_dir_open(libdir);
	while (d != NULL && (e = cv_dir_next(d, NULL)) != NULL) {
		if (strncmp(e, "libcudnn", 8) != 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			names = xrealloc(names, cap * sizeof *names);
		}
		names[n++] = cv_path_join(libdir, e);
	}
	cv_dir_close(d);
	if (n > 1)
		qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n; i++) {
		struct cv_stat st;
		/* lstat too: a link re-pointed elsewhere changes the key */
		if (cv_os_lstat(names[i], &st) == 0 &&
		    st.kind == CV_KIND_LINK) {
			char target[4096];
			if (cv_os_readlink(names[i], target, sizeof target) < 0)
				target[0] = '\0';
			cv_buf_addf(&b, "link=%s->%s\n", names[i], target);
		} else
			cv_validate_key_identity(&b, "lib", names[i]);
		free(names[i]);
	}
	free(names);
	free(libdir);
	return cv_buf_detach(&b);
}

static char *
cache_file(const char *cache_dir, const char *key, const char *kind)
{
	const char *id = strstr(key, "id=");
	size_t len = id ? strcspn(id + 3, "\n") : 0;

	/* install ids are checked by the version grammar: no slash */
	if (id == NULL || len == 0 || memchr(id + 3, '/', len) != NULL ||
	    id[3] == '.')
		return NULL;
	return xasprintf("%s/validate/%.*s%s.json", cache_dir, (int)len, id + 3,
			 kind);
}

struct cv_json *
cv_validate_cache_get_json(const char *cache_dir, const char *key,
			   const char *kind)
{
	char *path = cache_file(cache_dir, key, kind);
	struct cv_json *o, *res = NULL;
	const char *k;

	if (path == NULL)
		return NULL;
	o = cv_json_load_file(path, 0, NULL);
	free(path);
	k = cv_json_string_value(cv_json_object_get(o, "key"));
	if (k != NULL && strcmp(k, key) == 0 &&
	    cv_json_is_object(cv_json_object_get(o, "result")))
		res = cv_json_incref(cv_json_object_get(o, "result"));
	cv_json_decref(o);
	return res;
}

void
cv_validate_cache_put_json(const char *cache_dir, const char *key,
			   const char *kind, struct cv_json *result)
{
	char *path = cache_file(cache_dir, key, kind), *dir, *dump;
	struct cv_json *o;

	if (path == NULL)
		return;
	dir = xasprintf("%s/validate", cache_dir);
	/* a user who only uses the system store's versions may have no
	 * cache folder, nor even ~/.cache, yet */
	if (cv_fs_mkdirs(dir, 0755, NULL) < 0)
		goto out;
	o = cv_json_pack("{s:s,s:O}", "key", key, "result", result);
	/* A cache that cannot be written only costs time: ignore errors. */
	dump = o != NULL ? cv_json_dumps(o, CV_JSON_COMPACT) : NULL;
	if (dump != NULL)
		cv_fs_write_atomic(path, dump, strlen(dump), 0644, NULL);
	free(dump);
	cv_json_decref(o);
out:
	free(dir);
	free(path);
}

int
cv_validate_cache_get(const char *cache_dir, const char *key,
		      struct cv_validation *out)
{
	struct cv_json *res = cv_validate_cache_get_json(cache_dir, key, "");
	char *text = res ? cv_json_dumps(res, CV_JSON_COMPACT) : NULL;
	int r = -1;

	if (text != NULL && cv_validation_from_json(text, out) == 0) {
		out->cached = 1;
		r = 0;
	}
	free(text);
	cv_json_decref(res);
	return r;
}

void
cv_validate_cache_put(const char *cache_dir, const char *key,
		      const struct cv_validation *v)
{
	char *text = cv_validation_json(v);
	struct cv_json *res = cv_json_loads(text, 0, NULL);

	free(text);
	if (res != NULL)
		cv_validate_cache_put_json(cache_dir, key, "", res);
	cv_json_decref(res);
}
