/* export_oci.c: an installed version as an OCI image layout (oci-layout,
 * index.json, blobs/sha256/), one layer holding <CV_CTR_ROOT>/<id> and its
 * dependency folders beside it, for `podman run --mount type=image`, a
 * Kubernetes image volume or any registry.
 *
 * The same build must give the same digests on every machine, so the
 * layer is a function of the files' bytes only: entries in bytewise
 * order, uid/gid 0, modes 0755/0644, every time 0, no user names, a gzip
 * header without time or name (gzip -n), and the version's cudnnvm.json
 * with its machine-local fields (when, from which mirror) fixed. The tar
 * is written by one libarchive writer into a second that only gzips (the
 * raw format), each hashed as it streams: the uncompressed digest is the
 * config's diff_id, the compressed one the layer's name, and no file is
 * ever held whole in memory. */
#include "activate/activate.h"
#include "install/install_int.h"
#include "python/python.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MT_INDEX    "application/vnd.oci.image.index.v1+json"
#define MT_MANIFEST "application/vnd.oci.image.manifest.v1+json"
#define MT_CONFIG   "application/vnd.oci.image.config.v1+json"
#define MT_LAYER    "application/vnd.oci.image.layer.v1.tar+gzip"
#define REF_NAME    "org.opencontainers.image.ref.name"
/* what a reproducible build's clock says */
#define FIXED_TIME "1970-01-01T00:00:00Z"

struct layer {
	struct archive *tar; /* the entries, into gz */
	struct archive *gz;  /* gzip only, into out */
	struct cv_sha256 *diff, *digest;
	struct cv_fs_stream *out;
	uint64_t size;
	struct cv_err *err;
	int failed;               /* err is set: a callback failed */
	const char *prefix;       /* the entry names' folder for the walk */
	const char *version_root; /* the version's own folder (its json) */
};

int
cv_oci_ref_valid(const char *s)
{
	/* [A-Za-z0-9_][A-Za-z0-9._-]{0,127}: a tag, as registries take */
	size_t n = strlen(s);

	if (n == 0 || n > 128)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' ||
			 (i > 0 && (c == '.' || c == '-'));
		if (!ok)
			return 0;
	}
	return 1;
}

static la_ssize_t
gz_write(struct archive *a, void *p, const void *buf, size_t len)
{
	struct layer *l = p;

	(void)a;
	if (l->failed)
		return -1;
	cv_sha256_update(l->digest, buf, len);
	l->size += len;
	if (cv_fs_stream_write(l->out, buf, len, l->err) < 0) {
		l->failed = 1;
		return -1;
	}
	return (la_ssize_t)len;
}

static la_ssize_t
tar_write(struct archive *a, void *p, const void *buf, size_t len)
{
	struct layer *l = p;
	la_ssize_t n;

	(void)a;
	if (l->failed)
		return -1;
	cv_sha256_update(l->diff, buf, len);
	n = archive_write_data(l->gz, buf, len);
	return n < 0 ? -1 : (la_ssize_t)len;
}

static int
archive_failed(struct layer *l, struct archive *a, const char *what)
{
	if (l->failed)
		return l->err->code;
	l->failed = 1;
	return cv_err_set(l->err, CV_EIO, "cannot write the layer (%s): %s",
			  what,
			  archive_error_string(a) ? archive_error_string(a)
						  : "unknown error");
}

static int
layer_open(struct layer *l, const char *tmp_path, struct cv_err *err)
{
	struct archive_entry *e;
	int r;

	memset(l, 0, sizeof *l);
	l->err = err;
	if ((r = cv_fs_stream_open(tmp_path, 0644, &l->out, err)) < 0)
		return r;
	l->diff = cv_sha256_new();
	l->digest = cv_sha256_new();
	l->gz = archive_write_new();
	l->tar = archive_write_new();
	if (l->gz == NULL || l->tar == NULL)
		abort();
	/* no padding after the gzip trailer: registries' readers refuse it */
	archive_write_set_bytes_in_last_block(l->gz, 1);
	if (archive_write_add_filter_gzip(l->gz) != ARCHIVE_OK ||
	    archive_write_set_filter_option(l->gz, "gzip", "timestamp", NULL) !=
		    ARCHIVE_OK ||
	    archive_write_set_format_raw(l->gz) != ARCHIVE_OK ||
	    archive_write_open(l->gz, l, NULL, gz_write, NULL) != ARCHIVE_OK)
		return archive_failed(l, l->gz, "gzip");
	e = archive_entry_new();
	archive_entry_set_pathname(e, "layer.tar");
	archive_entry_set_filetype(e, AE_IFREG);
	r = archive_write_header(l->gz, e);
	archive_entry_free(e);
	if (r != ARCHIVE_OK)
		return archive_failed(l, l->gz, "gzip");
	if (archive_write_set_format_pax_restricted(l->tar) != ARCHIVE_OK ||
	    archive_write_open(l->tar, l, NULL, tar_write, NULL) != ARCHIVE_OK)
		return archive_failed(l, l->tar, "tar");
	return 0;
}

#if defined(CV_GLIBC_COMPAT)
/* The release helper links libarchive's static archive (pkg/dist.sh), and
 * in libarchive 3.4 (the old build root's) the tar writer's one reference
 * outside itself, this helper, lives in the object holding the table of
 * every writer: linking that object pulls in the xar writer and with it
 * libxml2, whose libm calls need glibc 2.29. The layer only ever holds
 * files, folders and links, so this is never called; defined here, the
 * table stays out. */
void __archive_write_entry_filetype_unsupported(struct archive *a,
						struct archive_entry *entry,
						const char *format);
void
__archive_write_entry_filetype_unsupported(struct archive *a,
					   struct archive_entry *entry,
					   const char *format)
{
	archive_set_error(a, EINVAL, "%s: a file type %s cannot hold",
			  archive_entry_pathname(entry), format);
}
#endif

/* Finish both writers; the digests into out. */
static int
layer_close(struct layer *l, struct cv_oci_result *out)
{
	char hex[65];

	if (archive_write_close(l->tar) != ARCHIVE_OK)
		return archive_failed(l, l->tar, "tar");
	if (archive_write_close(l->gz) != ARCHIVE_OK)
		return archive_failed(l, l->gz, "gzip");
	cv_sha256_final(l->diff, hex);
	snprintf(out->diff_id, sizeof out->diff_id, "sha256:%s", hex);
	cv_sha256_final(l->digest, hex);
	snprintf(out->layer, sizeof out->layer, "sha256:%s", hex);
	out->layer_size = l->size;
	return 0;
}

static void
layer_free(struct layer *l)
{
	if (l->tar != NULL)
		archive_write_free(l->tar);
	if (l->gz != NULL)
		archive_write_free(l->gz);
	cv_sha256_free(l->diff);
	cv_sha256_free(l->digest);
	cv_fs_stream_abort(l->out);
	l->tar = l->gz = NULL;
	l->diff = l->digest = NULL;
	l->out = NULL;
}

/* One header, the same for every machine but for the name, kind, size
 * and link target. */
static int
put_header(struct layer *l, const char *name, mode_t type, mode_t perm,
	   int64_t size, const char *target)
{
	struct archive_entry *e = archive_entry_new();
	int r;

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_mtime(e, 0, 0);
	if (type == AE_IFREG)
		archive_entry_set_size(e, size);
	if (target != NULL)
		archive_entry_set_symlink(e, target);
	r = archive_write_header(l->tar, e);
	archive_entry_free(e);
	return r == ARCHIVE_OK ? 0 : archive_failed(l, l->tar, name);
}

static int
put_data(const void *data, size_t len, void *p, struct cv_err *err)
{
	struct layer *l = p;

	(void)err;
	if (archive_write_data(l->tar, data, len) != (la_ssize_t)len)
		return archive_failed(l, l->tar, "data");
	return 0;
}

/* The version's cudnnvm.json without what differs between two machines
 * that installed the same bytes: when, and from which mirror (the
 * archive's name stays). */
static char *
fixed_meta(const char *path, struct cv_err *err)
{
	struct cv_json_error je;
	struct cv_json *o =
		cv_json_load_file(path, CV_JSON_REJECT_DUPLICATES, &je);
	const char *src, *base;
	char *text = NULL, *out;

	if (!cv_json_is_object(o)) {
		cv_json_decref(o);
		cv_err_set(err, CV_EDATA, "cannot read '%s': %s", path,
			   je.text);
		return NULL;
	}
	src = cv_json_string_value(cv_json_object_get(o, "source"));
	base = src ? strrchr(src, '/') : NULL;
	cv_json_object_set_new(o, "source",
			       cv_json_string(base  ? base + 1
					      : src ? src
						    : ""));
	cv_json_object_set_new(o, "installed_at", cv_json_string(FIXED_TIME));
	text = cv_json_dumps(o, CV_JSON_INDENT(2));
	cv_json_decref(o);
	if (text == NULL) {
		cv_err_set(err, CV_ERROR, "cannot encode '%s'", path);
		return NULL;
	}
	out = xasprintf("%s\n", text);
	free(text);
	return out;
}

static int
visit(const char *rel, const char *full, const struct cv_stat *sb, void *p,
      struct cv_err *err)
{
	struct layer *l = p;
	char *name = xasprintf("%s/%s", l->prefix, rel);
	char target[4096];
	int r;

	if (sb->kind == CV_KIND_DIR) {
		r = put_header(l, name, AE_IFDIR, 0755, 0, NULL);
	} else if (sb->kind == CV_KIND_LINK) {
		r = cv_fs_readlink(full, target, sizeof target, err);
		if (r == 0)
			r = put_header(l, name, AE_IFLNK, 0777, 0, target);
	} else if (sb->kind == CV_KIND_FILE && l->version_root != NULL &&
		   strcmp(rel, "cudnnvm.json") == 0) {
		char *meta = fixed_meta(full, err);
		if (meta == NULL) {
			r = err->code < 0 ? err->code : CV_ERROR;
		} else {
			r = put_header(l, name, AE_IFREG, 0644,
				       (int64_t)strlen(meta), NULL);
			if (r == 0)
				r = put_data(meta, strlen(meta), l, err);
		}
		free(meta);
	} else if (sb->kind == CV_KIND_FILE) {
		r = put_header(l, name, AE_IFREG,
			       (sb->perm & 0111) ? 0755 : 0644,
			       (int64_t)sb->size, NULL);
		if (r == 0)
			r = cv_fs_read_each(full, put_data, l, err);
	} else {
		r = cv_err_set(err, CV_EDATA,
			       "'%s' is neither a file, a folder nor a link: "
			       "an image cannot carry it",
			       full);
	}
	free(name);
	return r;
}

static int
cmp_mount(const void *a, const void *b)
{
	return strcmp(((const struct cv_ctr_mount *)a)->ctr,
		      ((const struct cv_ctr_mount *)b)->ctr);
}

/* The layer's entries: the folders above each mount once, then each
 * mount's tree, all in bytewise order of their names. */
static int
layer_fill(struct layer *l, const struct cv_ctr_view *v, struct cv_err *err)
{
	struct cv_ctr_mount m[1 + CV_MAX_DEPS];
	char last_parent[4096] = "";
	int r = 0;

	memcpy(m, v->m, v->nm * sizeof m[0]);
	qsort(m, v->nm, sizeof m[0], cmp_mount);
	r = put_header(l, "opt", AE_IFDIR, 0755, 0, NULL);
	if (r == 0)
		r = put_header(l, "opt/cudnn", AE_IFDIR, 0755, 0, NULL);
	for (size_t i = 0; i < v->nm && r == 0; i++) {
		const char *rel = m[i].ctr + 1; /* without the leading / */
		const char *slash = strrchr(rel, '/');
		char parent[4096];
		snprintf(parent, sizeof parent, "%.*s", (int)(slash - rel),
			 rel);
		/* opt/cudnn/deps, once before the first dependency */
		if (strcmp(parent, "opt/cudnn") != 0 &&
		    strcmp(parent, last_parent) != 0) {
			r = put_header(l, parent, AE_IFDIR, 0755, 0, NULL);
			snprintf(last_parent, sizeof last_parent, "%s", parent);
		}
		if (r == 0)
			r = put_header(l, rel, AE_IFDIR, 0755, 0, NULL);
		l->prefix = rel;
		l->version_root =
			strcmp(m[i].ctr, v->m[0].ctr) == 0 ? rel : NULL;
		if (r == 0)
			r = cv_fs_walk_sorted(m[i].host, visit, l, err);
	}
	return r;
}

/* A blob from memory: blobs/sha256/<hex>, its digest into digest. */
static int
put_blob(const char *dir, const char *text, char digest[72], struct cv_err *err)
{
	struct cv_sha256 *h = cv_sha256_new();
	char hex[65], *path;
	int r;

	cv_sha256_update(h, text, strlen(text));
	cv_sha256_final(h, hex);
	cv_sha256_free(h);
	snprintf(digest, 72, "sha256:%s", hex);
	path = xasprintf("%s/blobs/sha256/%s", dir, hex);
	r = cv_fs_write_atomic(path, text, strlen(text), 0644, err);
	free(path);
	return r;
}

static const char *
oci_arch(const char *platform)
{
	if (strcmp(platform, "linux-x86_64") == 0)
		return "amd64";
	return "arm64"; /* linux-sbsa, linux-aarch64 */
}

/* Compact JSON with sorted keys: one text for one object, anywhere. */
static char *
dump(struct cv_json *o)
{
	char *s = cv_json_dumps(o, CV_JSON_COMPACT | CV_JSON_SORT_KEYS);

	cv_json_decref(o);
	if (s == NULL)
		abort(); /* out of memory, as xmalloc */
	return s;
}

static int
write_config_manifest(const char *dir, const struct cv_ctr_view *v,
		      struct cv_oci_result *res, size_t *msize,
		      struct cv_err *err)
{
	struct cv_json *env = cv_json_array();
	char cdigest[72], *config, *manifest;
	size_t csize;
	int r;

	for (size_t i = 0; i < v->env.n; i++) {
		char *kv =
			xasprintf("%s=%s", v->env.v[i].name, v->env.v[i].value);
		cv_json_array_append_new(env, cv_json_string(kv));
		free(kv);
	}
	config = dump(cv_json_pack(
		"{s:s, s:s, s:s, s:{s:o, s:{s:s, s:s}}, s:{s:s, s:[s]}}",
		"architecture", oci_arch(v->platform), "os", "linux", "created",
		FIXED_TIME, "config", "Env", env, "Labels", "dev.cudnnvm.id",
		v->id, "dev.cudnnvm.sha256", v->sha256, "rootfs", "type",
		"layers", "diff_ids", res->diff_id));
	csize = strlen(config);
	r = put_blob(dir, config, cdigest, err);
	free(config);
	if (r < 0)
		return r;
	manifest = dump(cv_json_pack(
		"{s:i, s:s, s:{s:s, s:s, s:I}, s:[{s:s, s:s, s:I}], "
		"s:{s:s}}",
		"schemaVersion", 2, "mediaType", MT_MANIFEST, "config",
		"mediaType", MT_CONFIG, "digest", cdigest, "size",
		(int64_t)csize, "layers", "mediaType", MT_LAYER, "digest",
		res->layer, "size", (int64_t)res->layer_size, "annotations",
		"org.opencontainers.image.title", v->id));
	*msize = strlen(manifest);
	r = put_blob(dir, manifest, res->manifest, err);
	free(manifest);
	return r;
}

static int
first_entry(const char *rel, const char *full, const struct cv_stat *sb,
	    void *p, struct cv_err *err)
{
	(void)rel, (void)full, (void)sb, (void)p, (void)err;
	return 1;
}

/* 1: dir is an OCI layout to add to; 0: missing or empty, made now;
 * CV_EUSAGE: something else is there. */
static int
check_dir(const char *dir, struct cv_err *err)
{
	char *path = xasprintf("%s/oci-layout", dir), buf[256];
	ssize_t n = cv_fs_read_head(CV_AT_CWD, path, 1, buf, sizeof buf);
	struct cv_stat sb;
	int r;

	free(path);
	if (n > 0 && strstr(buf, "\"imageLayoutVersion\"") != NULL)
		return 1;
	if (cv_os_stat(dir, &sb) != 0)
		return errno == ENOENT
			       ? 0
			       : cv_err_errno(err, cv_code_from_errno(errno),
					      "cannot read '%s'", dir);
	if (sb.kind == CV_KIND_DIR &&
	    (r = cv_fs_walk_sorted(dir, first_entry, NULL, err)) <= 0)
		return r;
	cv_err_set(err, CV_EUSAGE,
		   "'%s' is not an OCI image layout (no oci-layout file) and "
		   "not empty: not writing an image into it",
		   dir);
	return cv_err_hint(err, "cudnnvm export oci %s.oci", dir);
}

/* index.json: the layout's other images, one named ref replaced by
 * this one, in order of their names. */
static int
write_index(const char *dir, int existing, const char *ref,
	    const struct cv_oci_result *res, size_t msize, struct cv_err *err)
{
	char *path = xasprintf("%s/index.json", dir), *text;
	struct cv_json *old =
		existing ? cv_json_load_file(path, 0, NULL) : NULL;
	struct cv_json *list = cv_json_array(), *m, *keep;
	size_t i;
	int r;

	keep = cv_json_object_get(old, "manifests");
	cv_json_array_foreach(keep, i, m)
	{
		const char *name = cv_json_string_value(cv_json_object_get(
			cv_json_object_get(m, "annotations"), REF_NAME));
		if (name == NULL || strcmp(name, ref) != 0)
			cv_json_array_append(list, m);
	}
	cv_json_decref(old);
	cv_json_array_append_new(
		list,
		cv_json_pack("{s:s, s:s, s:I, s:{s:s}}", "mediaType",
			     MT_MANIFEST, "digest", res->manifest, "size",
			     (int64_t)msize, "annotations", REF_NAME, ref));
	text = dump(cv_json_pack("{s:i, s:s, s:o}", "schemaVersion", 2,
				 "mediaType", MT_INDEX, "manifests", list));
	r = cv_fs_write_atomic(path, text, strlen(text), 0644, err);
	free(text);
	free(path);
	return r;
}

static int
write_layer(const char *dir, const struct cv_ctr_view *v,
	    struct cv_oci_result *out, struct cv_err *err)
{
	struct layer l;
	char *tmp = xasprintf("%s/blobs/sha256/layer", dir), *final;
	int r = layer_open(&l, tmp, err);

	if (r == 0)
		r = layer_fill(&l, v, err);
	if (r == 0)
		r = layer_close(&l, out);
	if (r == 0) {
		final = xasprintf("%s/blobs/sha256/%s", dir, out->layer + 7);
		r = cv_fs_stream_commit(l.out, final, err);
		l.out = NULL;
		free(final);
	}
	layer_free(&l);
	free(tmp);
	return r;
}

int
cv_oci_export(const struct cv_ctr_view *v, const char *dir, const char *ref,
	      struct cv_oci_result *out, struct cv_err *err)
{
	char *blobs = xasprintf("%s/blobs/sha256", dir);
	static const char layout[] = "{\"imageLayoutVersion\":\"1.0.0\"}";
	size_t msize = 0;
	int existing, r;

	memset(out, 0, sizeof *out);
	if (!cv_oci_ref_valid(ref)) {
		free(blobs);
		cv_err_set(err, CV_EUSAGE,
			   "'%s' is no image tag: letters, digits, '_', '.' "
			   "and '-', at most 128, not starting with '.' or "
			   "'-'",
			   ref);
		return cv_err_hint(err, "cudnnvm export oci %s --tag %s", dir,
				   v->id);
	}
	snprintf(out->ref, sizeof out->ref, "%s", ref);
	if ((r = existing = check_dir(dir, err)) < 0 ||
	    (r = cv_fs_mkdirs(blobs, 0755, err)) < 0 ||
	    (r = write_layer(dir, v, out, err)) < 0 ||
	    (r = write_config_manifest(dir, v, out, &msize, err)) < 0 ||
	    (r = write_index(dir, existing, ref, out, msize, err)) < 0) {
		free(blobs);
		return r;
	}
	free(blobs);
	{
		char *path = xasprintf("%s/oci-layout", dir);
		r = cv_fs_write_atomic(path, layout, sizeof layout - 1, 0644,
				       err);
		free(path);
	}
	return r;
}

/* The pin's lock: *path gets where it is. */
static int
find_lock(const struct cv_store *st, struct cv_lock *lk, char path[4096],
	  struct cv_err *err)
{
	struct cv_err ignored = CV_ERR_INIT;
	struct cv_active a;
	int r;

	(void)cv_active_resolve(st, NULL, &a, NULL, NULL, &ignored);
	if (a.origin != CV_ORIGIN_FILE && a.origin != CV_ORIGIN_LOCK) {
		cv_err_set(err, CV_EUSAGE,
			   "which version? no pin file here (.cudnn-version "
			   "or .tool-versions cudnn line) and its "
			   "cudnnvm.lock name one");
		return cv_err_hint(err, "cudnnvm export oci DIR 9.13");
	}
	if (a.origin == CV_ORIGIN_LOCK)
		snprintf(path, 4096, "%s", a.lock);
	else
		cv_lock_path(a.file, path);
	r = cv_lock_read(path, lk, err);
	if (r == CV_ENOTFOUND) {
		cv_err_set(err, CV_ENOTFOUND, "no %s beside %s", CV_LOCK_FILE,
			   a.file);
		return cv_err_hint(err, "cudnnvm lock");
	}
	return r;
}

/* 1 when the version carries exactly the dependency releases the lock's
 * entry names (the same bytes), so the image is the lock's on every
 * machine; else 0 with the first difference in why. */
static int
same_deps(const struct cv_installed *inst, const struct cv_lock_entry *e,
	  char *why, size_t n)
{
	int have = 0;

	for (int i = 0; i < inst->ndeps; i++)
		have += inst->deps[i].in_store;
	if ((size_t)have != e->ndeps) {
		snprintf(why, n,
			 "it has %d dependency folders, the lock names %zu",
			 have, e->ndeps);
		return 0;
	}
	for (size_t k = 0; k < e->ndeps; k++) {
		int found = 0;
		for (int i = 0; i < inst->ndeps && !found; i++)
			found = inst->deps[i].in_store &&
				strcmp(inst->deps[i].name, e->deps[k].name) ==
					0 &&
				strcmp(inst->deps[i].version,
				       e->deps[k].version) == 0 &&
				strcmp(inst->deps[i].sha256,
				       e->deps[k].sha256) == 0;
		if (!found) {
			snprintf(why, n, "it has no %s %s of the lock's bytes",
				 e->deps[k].name, e->deps[k].version);
			return 0;
		}
	}
	return 1;
}

int
cv_oci_locked_id(const struct cv_store *st, char id[64], char lock[4096],
		 struct cv_err *err)
{
	char why[256];
	const struct cv_lock_entry *e;
	struct cv_installed inst;
	struct cv_lock lk;
	int r;

	if ((r = find_lock(st, &lk, lock, err)) < 0)
		return r;
	if (!cv_store_has(st, lk.id)) {
		cv_err_set(err, CV_ENOTFOUND,
			   "cuDNN %s, which %s locks, is not installed", lk.id,
			   lock);
		return cv_err_hint(err, "cudnnvm install --frozen");
	}
	if ((r = cv_store_get(st, lk.id, &inst, err)) < 0)
		return r;
	e = cv_lock_entry(&lk, inst.platform);
	if (e == NULL || strcmp(e->sha256, inst.sha256) != 0) {
		cv_err_set(err, CV_EDATA,
			   "the installed cuDNN %s (%s) is not the build %s "
			   "locks for %s",
			   lk.id, inst.sha256, lock, inst.platform);
		if (e == NULL)
			return cv_err_hint(err, "cudnnvm lock --platform %s",
					   inst.platform);
		return cv_err_hint(err, "cudnnvm install --frozen --force");
	}
	if (!same_deps(&inst, e, why, sizeof why)) {
		cv_err_set(err, CV_EDATA,
			   "the installed cuDNN %s is not what %s locks: %s",
			   lk.id, lock, why);
		return cv_err_hint(err, "cudnnvm install --frozen --force "
					"--deps always");
	}
	snprintf(id, 64, "%s", lk.id);
	return 0;
}
