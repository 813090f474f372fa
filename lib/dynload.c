/* dynload.c: load libcurl, libarchive and libcrypto on first use.
 *
 * Linking them costs every start of cudnnvm about 10 ms (libcurl and
 * libarchive pull in some 40 shared objects), and env, which, current and
 * the prompt hook must start like a tiny C program. So the binary links
 * none of the three; this file defines each function cudnnvm calls with the
 * library's own prototype and forwards it to the real one, resolved with
 * dlsym when the library is first needed. A missing library is reported as
 * an error value by cv_dyn_require(); a call that skips that check and
 * finds no library aborts, as an out-of-memory would. */
#include "internal.h"

/* curl.h wraps these two in type-checking macros; we define them. */
#define CURL_DISABLE_TYPECHECK
#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <dlfcn.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every symbol used, per library: X(return type, name, parameters). */
#define CURL_SYMBOLS(X)                                               \
	X(CURLcode, curl_global_init, (long flags))                   \
	X(CURL *, curl_easy_init, (void))                             \
	X(void, curl_easy_cleanup, (CURL * h))                        \
	X(void, curl_easy_reset, (CURL * h))                          \
	X(CURLcode, curl_easy_perform, (CURL * h))                    \
	X(const char *, curl_easy_strerror, (CURLcode c))             \
	X(CURLcode, curl_easy_setopt, (CURL * h, CURLoption o, ...))  \
	X(CURLcode, curl_easy_getinfo, (CURL * h, CURLINFO i, ...))   \
	X(CURLM *, curl_multi_init, (void))                           \
	X(CURLMcode, curl_multi_cleanup, (CURLM * m))                 \
	X(CURLMcode, curl_multi_add_handle, (CURLM * m, CURL * h))    \
	X(CURLMcode, curl_multi_remove_handle, (CURLM * m, CURL * h)) \
	X(CURLMcode, curl_multi_perform, (CURLM * m, int *running))   \
	X(CURLMcode, curl_multi_poll,                                 \
	  (CURLM * m, struct curl_waitfd * fds, unsigned int n,       \
	   int timeout_ms, int *numfds))                              \
	X(CURLMsg *, curl_multi_info_read, (CURLM * m, int *left))    \
	X(CURLMcode, curl_multi_setopt, (CURLM * m, CURLMoption o, ...)) \
	X(struct curl_slist *, curl_slist_append,                        \
	  (struct curl_slist * l, const char *s))                        \
	X(void, curl_slist_free_all, (struct curl_slist * l))            \
	X(CURLU *, curl_url, (void))                                     \
	X(void, curl_url_cleanup, (CURLU * u))                           \
	X(CURLUcode, curl_url_set,                                       \
	  (CURLU * u, CURLUPart p, const char *s, unsigned int f))       \
	X(CURLUcode, curl_url_get,                                       \
	  (CURLU * u, CURLUPart p, char **s, unsigned int f))       \
	X(void, curl_free, (void *p))

#define ARCHIVE_SYMBOLS(X)                                                  \
	X(struct archive *, archive_read_new, (void))                       \
	X(int, archive_read_support_filter_bzip2, (struct archive * a))     \
	X(int, archive_read_support_filter_gzip, (struct archive * a))      \
	X(int, archive_read_support_filter_xz, (struct archive * a))        \
	X(int, archive_read_support_format_raw, (struct archive * a))       \
	X(int, archive_read_support_format_tar, (struct archive * a))       \
	X(int, archive_read_support_format_zip, (struct archive * a))       \
	X(int, archive_read_open,                                           \
	  (struct archive * a, void *d, archive_open_callback *o,           \
	   archive_read_callback *r, archive_close_callback *c))            \
	X(int, archive_read_next_header,                                    \
	  (struct archive * a, struct archive_entry * *e))                  \
	X(la_ssize_t, archive_read_data,                                    \
	  (struct archive * a, void *b, size_t n))                          \
	X(int, archive_read_data_block,                                     \
	  (struct archive * a, const void **b, size_t *n, la_int64_t *o))   \
	X(int, archive_read_free, (struct archive * a))                     \
	X(struct archive *, archive_write_disk_new, (void))                 \
	X(int, archive_write_disk_set_options, (struct archive * a, int f)) \
	X(int, archive_write_header,                                        \
	  (struct archive * a, struct archive_entry * e))                   \
	X(la_ssize_t, archive_write_data_block,                             \
	  (struct archive * a, const void *b, size_t n, la_int64_t o))      \
	X(int, archive_write_finish_entry, (struct archive * a))            \
	X(int, archive_write_close, (struct archive * a))                   \
	X(int, archive_write_free, (struct archive * a))                    \
	X(int, archive_errno, (struct archive * a))                         \
	X(const char *, archive_error_string, (struct archive * a))         \
	X(int, archive_format, (struct archive * a))                        \
	X(void, archive_set_error,                                          \
	  (struct archive * a, int e, const char *fmt, ...))                \
	X(__LA_MODE_T, archive_entry_filetype, (struct archive_entry * e))  \
	X(const char *, archive_entry_hardlink, (struct archive_entry * e)) \
	X(const char *, archive_entry_pathname, (struct archive_entry * e)) \
	X(const char *, archive_entry_symlink, (struct archive_entry * e))  \
	X(la_int64_t, archive_entry_size, (struct archive_entry * e))       \
	X(int, archive_entry_size_is_set, (struct archive_entry * e))       \
	X(void, archive_entry_set_gid,                                      \
	  (struct archive_entry * e, la_int64_t g))                         \
	X(void, archive_entry_set_uid,                                      \
	  (struct archive_entry * e, la_int64_t u))                         \
	X(void, archive_entry_set_gname,                                    \
	  (struct archive_entry * e, const char *n))                        \
	X(void, archive_entry_set_uname,                                    \
	  (struct archive_entry * e, const char *n))                        \
	X(void, archive_entry_set_pathname,                                 \
	  (struct archive_entry * e, const char *n))                        \
	X(void, archive_entry_set_perm,                                     \
	  (struct archive_entry * e, __LA_MODE_T m))

#define CRYPTO_SYMBOLS(X)                                                   \
	X(const EVP_MD *, EVP_sha256, (void))                               \
	X(EVP_MD_CTX *, EVP_MD_CTX_new, (void))                             \
	X(void, EVP_MD_CTX_free, (EVP_MD_CTX * c))                          \
	X(int, EVP_DigestInit_ex,                                           \
	  (EVP_MD_CTX * c, const EVP_MD *t, ENGINE *e))                     \
	X(int, EVP_DigestUpdate, (EVP_MD_CTX * c, const void *d, size_t n)) \
	X(int, EVP_DigestFinal_ex,                                          \
	  (EVP_MD_CTX * c, unsigned char *md, unsigned int *n))

/* The table of resolved pointers: real_<name>. */
#define DECLARE_POINTER(ret, name, params) static ret(*real_##name) params;
CURL_SYMBOLS(DECLARE_POINTER)
ARCHIVE_SYMBOLS(DECLARE_POINTER)
CRYPTO_SYMBOLS(DECLARE_POINTER)

struct dyn_library {
	const char *what;       /* for messages */
	const char *sonames[3]; /* tried in order */
	pthread_once_t once;
	int loaded;
	char error[512];
	void (*resolve)(void *handle, struct dyn_library *lib);
};

static void
resolve_one(void *handle, struct dyn_library *lib, const char *name,
	    void **slot)
{
	*slot = dlsym(handle, name);
	if (*slot == NULL && lib->error[0] == '\0')
		snprintf(lib->error, sizeof lib->error, "%s has no symbol '%s'",
			 lib->what, name);
}

#define RESOLVE(ret, name, params) \
	resolve_one(handle, lib, #name, (void **)&real_##name);

static void
resolve_curl(void *handle, struct dyn_library *lib)
{
	CURL_SYMBOLS(RESOLVE)
}

static void
resolve_archive(void *handle, struct dyn_library *lib)
{
	ARCHIVE_SYMBOLS(RESOLVE)
}

static void
resolve_crypto(void *handle, struct dyn_library *lib)
{
	CRYPTO_SYMBOLS(RESOLVE)
}

static struct dyn_library libraries[] = {
	[CV_DYN_CURL] = { "libcurl",
			  { "libcurl.so.4", "libcurl.so", NULL },
			  PTHREAD_ONCE_INIT,
			  0,
			  "",
			  resolve_curl },
	[CV_DYN_ARCHIVE] = { "libarchive",
			     { "libarchive.so.13", "libarchive.so", NULL },
			     PTHREAD_ONCE_INIT,
			     0,
			     "",
			     resolve_archive },
	[CV_DYN_CRYPTO] = { "OpenSSL libcrypto",
			    { "libcrypto.so.3", "libcrypto.so", NULL },
			    PTHREAD_ONCE_INIT,
			    0,
			    "",
			    resolve_crypto },
};

static struct dyn_library *loading;

static void
load(void)
{
	struct dyn_library *lib = loading;
	void *handle = NULL;

	for (int i = 0; lib->sonames[i] && handle == NULL; i++)
		handle = dlopen(lib->sonames[i], RTLD_NOW | RTLD_LOCAL);
	if (handle == NULL) {
		snprintf(lib->error, sizeof lib->error,
			 "cannot load %s (%s): %s", lib->what, lib->sonames[0],
			 dlerror());
		return;
	}
	lib->resolve(handle, lib);
	lib->loaded = lib->error[0] == '\0';
}

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

int
cv_dyn_require(enum cv_dyn_lib which, struct cv_err *err)
{
	struct dyn_library *lib = &libraries[which];

	/* One mutex serialises the `loading` hand-over to pthread_once. */
	pthread_mutex_lock(&load_lock);
	loading = lib;
	pthread_once(&lib->once, load);
	pthread_mutex_unlock(&load_lock);
	if (!lib->loaded)
		return cv_err_set(err, CV_ERROR,
				  "%s; install it (Debian: apt-get install "
				  "libcurl4 libarchive13 libssl3)",
				  lib->error);
	return 0;
}

static void
require_or_abort(enum cv_dyn_lib which)
{
	struct cv_err err = CV_ERR_INIT;
	ssize_t r;

	if (cv_dyn_require(which, &err) == 0)
		return;
	/* A caller skipped cv_dyn_require(): a bug, like running out of
	 * memory, with no error value to return through. */
	r = write(2, "cudnnvm: ", 9);
	r = write(2, err.msg, strlen(err.msg));
	r = write(2, "\n", 1);
	(void)r;
	abort();
}

/* Forwarders for the fixed-argument functions. */
#define FORWARD(lib, ret, name, params, args)  \
	ret name params                        \
	{                                      \
		if (real_##name == NULL)       \
			require_or_abort(lib); \
		return real_##name args;       \
	}

/* clang-format off */
FORWARD(CV_DYN_CURL, CURLcode, curl_global_init, (long flags), (flags))
FORWARD(CV_DYN_CURL, CURL *, curl_easy_init, (void), ())
FORWARD(CV_DYN_CURL, void, curl_easy_cleanup, (CURL *h), (h))
FORWARD(CV_DYN_CURL, void, curl_easy_reset, (CURL *h), (h))
FORWARD(CV_DYN_CURL, CURLcode, curl_easy_perform, (CURL *h), (h))
FORWARD(CV_DYN_CURL, const char *, curl_easy_strerror, (CURLcode c), (c))
FORWARD(CV_DYN_CURL, CURLM *, curl_multi_init, (void), ())
FORWARD(CV_DYN_CURL, CURLMcode, curl_multi_cleanup, (CURLM *m), (m))
FORWARD(CV_DYN_CURL, CURLMcode, curl_multi_add_handle, (CURLM *m, CURL *h), (m, h))
FORWARD(CV_DYN_CURL, CURLMcode, curl_multi_remove_handle, (CURLM *m, CURL *h), (m, h))
FORWARD(CV_DYN_CURL, CURLMcode, curl_multi_perform, (CURLM *m, int *running), (m, running))
FORWARD(CV_DYN_CURL, CURLMcode, curl_multi_poll,
	(CURLM *m, struct curl_waitfd *fds, unsigned int n, int timeout_ms, int *numfds),
	(m, fds, n, timeout_ms, numfds))
FORWARD(CV_DYN_CURL, CURLMsg *, curl_multi_info_read, (CURLM *m, int *left), (m, left))
FORWARD(CV_DYN_CURL, struct curl_slist *, curl_slist_append, (struct curl_slist *l, const char *s), (l, s))
FORWARD(CV_DYN_CURL, void, curl_slist_free_all, (struct curl_slist *l), (l))
FORWARD(CV_DYN_CURL, CURLU *, curl_url, (void), ())
FORWARD(CV_DYN_CURL, void, curl_url_cleanup, (CURLU *u), (u))
FORWARD(CV_DYN_CURL, CURLUcode, curl_url_set, (CURLU *u, CURLUPart p, const char *s, unsigned int f), (u, p, s, f))
FORWARD(CV_DYN_CURL, CURLUcode, curl_url_get, (CURLU *u, CURLUPart p, char **s, unsigned int f), (u, p, s, f))
FORWARD(CV_DYN_CURL, void, curl_free, (void *p), (p))

FORWARD(CV_DYN_ARCHIVE, struct archive *, archive_read_new, (void), ())
FORWARD(CV_DYN_ARCHIVE, int, archive_read_support_filter_bzip2, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, int, archive_read_support_filter_gzip, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, int, archive_read_support_filter_xz, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, int, archive_read_support_format_raw, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, int, archive_read_support_format_tar, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, int, archive_read_support_format_zip, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, int, archive_read_open,
	(struct archive *a, void *d, archive_open_callback *o,
	 archive_read_callback *r, archive_close_callback *c),
	(a, d, o, r, c))
FORWARD(CV_DYN_ARCHIVE, int, archive_read_next_header,
	(struct archive *a, struct archive_entry **e), (a, e))
FORWARD(CV_DYN_ARCHIVE, la_ssize_t, archive_read_data,
	(struct archive *a, void *b, size_t n), (a, b, n))
FORWARD(CV_DYN_ARCHIVE, int, archive_read_data_block,
	(struct archive *a, const void **b, size_t *n, la_int64_t *o),
	(a, b, n, o))
FORWARD(CV_DYN_ARCHIVE, int, archive_read_free, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, struct archive *, archive_write_disk_new, (void), ())
FORWARD(CV_DYN_ARCHIVE, int, archive_write_disk_set_options,
	(struct archive *a, int f), (a, f))
FORWARD(CV_DYN_ARCHIVE, int, archive_write_header,
	(struct archive *a, struct archive_entry *e), (a, e))
FORWARD(CV_DYN_ARCHIVE, la_ssize_t, archive_write_data_block,
	(struct archive *a, const void *b, size_t n, la_int64_t o),
	(a, b, n, o))
FORWARD(CV_DYN_ARCHIVE, int, archive_write_finish_entry, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, int, archive_write_close, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, int, archive_write_free, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, int, archive_errno, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, const char *, archive_error_string, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, int, archive_format, (struct archive *a), (a))
FORWARD(CV_DYN_ARCHIVE, __LA_MODE_T, archive_entry_filetype, (struct archive_entry *e), (e))
FORWARD(CV_DYN_ARCHIVE, const char *, archive_entry_hardlink, (struct archive_entry *e), (e))
FORWARD(CV_DYN_ARCHIVE, const char *, archive_entry_pathname, (struct archive_entry *e), (e))
FORWARD(CV_DYN_ARCHIVE, const char *, archive_entry_symlink, (struct archive_entry *e), (e))
FORWARD(CV_DYN_ARCHIVE, la_int64_t, archive_entry_size, (struct archive_entry *e), (e))
FORWARD(CV_DYN_ARCHIVE, int, archive_entry_size_is_set, (struct archive_entry *e), (e))
FORWARD(CV_DYN_ARCHIVE, void, archive_entry_set_gid, (struct archive_entry *e, la_int64_t g), (e, g))
FORWARD(CV_DYN_ARCHIVE, void, archive_entry_set_uid, (struct archive_entry *e, la_int64_t u), (e, u))
FORWARD(CV_DYN_ARCHIVE, void, archive_entry_set_gname, (struct archive_entry *e, const char *n), (e, n))
FORWARD(CV_DYN_ARCHIVE, void, archive_entry_set_uname, (struct archive_entry *e, const char *n), (e, n))
FORWARD(CV_DYN_ARCHIVE, void, archive_entry_set_pathname, (struct archive_entry *e, const char *n), (e, n))
FORWARD(CV_DYN_ARCHIVE, void, archive_entry_set_perm, (struct archive_entry *e, __LA_MODE_T m), (e, m))

FORWARD(CV_DYN_CRYPTO, const EVP_MD *, EVP_sha256, (void), ())
FORWARD(CV_DYN_CRYPTO, EVP_MD_CTX *, EVP_MD_CTX_new, (void), ())
FORWARD(CV_DYN_CRYPTO, void, EVP_MD_CTX_free, (EVP_MD_CTX *c), (c))
FORWARD(CV_DYN_CRYPTO, int, EVP_DigestInit_ex, (EVP_MD_CTX *c, const EVP_MD *t, ENGINE *e), (c, t, e))
FORWARD(CV_DYN_CRYPTO, int, EVP_DigestUpdate, (EVP_MD_CTX *c, const void *d, size_t n), (c, d, n))
FORWARD(CV_DYN_CRYPTO, int, EVP_DigestFinal_ex, (EVP_MD_CTX *c, unsigned char *md, unsigned int *n), (c, md, n))
/* clang-format on */

/* The variadic ones read their one argument with the type the library
 * itself reads (curl: by option number range; see curl_easy_setopt(3)). */
CURLcode
curl_easy_setopt(CURL *h, CURLoption o, ...)
{
	va_list ap;
	CURLcode r;

	if (real_curl_easy_setopt == NULL)
		require_or_abort(CV_DYN_CURL);
	va_start(ap, o);
	if (o < CURLOPTTYPE_OBJECTPOINT)
		r = real_curl_easy_setopt(h, o, va_arg(ap, long));
	else if (o < CURLOPTTYPE_FUNCTIONPOINT)
		r = real_curl_easy_setopt(h, o, va_arg(ap, void *));
	else if (o < CURLOPTTYPE_OFF_T)
		r = real_curl_easy_setopt(h, o, va_arg(ap, void (*)(void)));
	else if (o < CURLOPTTYPE_BLOB)
		r = real_curl_easy_setopt(h, o, va_arg(ap, curl_off_t));
	else
		r = real_curl_easy_setopt(h, o, va_arg(ap, void *));
	va_end(ap);
	return r;
}

CURLMcode
curl_multi_setopt(CURLM *m, CURLMoption o, ...)
{
	va_list ap;
	CURLMcode r;

	if (real_curl_multi_setopt == NULL)
		require_or_abort(CV_DYN_CURL);
	va_start(ap, o);
	if (o < CURLOPTTYPE_OBJECTPOINT)
		r = real_curl_multi_setopt(m, o, va_arg(ap, long));
	else
		r = real_curl_multi_setopt(m, o, va_arg(ap, void *));
	va_end(ap);
	return r;
}

CURLcode
curl_easy_getinfo(CURL *h, CURLINFO i, ...)
{
	va_list ap;
	CURLcode r;

	if (real_curl_easy_getinfo == NULL)
		require_or_abort(CV_DYN_CURL);
	va_start(ap, i);
	r = real_curl_easy_getinfo(h, i, va_arg(ap, void *));
	va_end(ap);
	return r;
}

void
archive_set_error(struct archive *a, int e, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (real_archive_set_error == NULL)
		require_or_abort(CV_DYN_ARCHIVE);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	real_archive_set_error(a, e, "%s", msg);
}
