/* lock.h: cudnnvm.lock, the exact build a project's pin resolved to (lock.c
 * reads and writes it; lock_resolve.c, linked into the helper only, fills
 * one from the mirror's manifests and turns an entry into a download). */
#ifndef CUDNNVM_LOCK_H
#define CUDNNVM_LOCK_H

#include <stddef.h>
#include <stdint.h>

#define CV_LOCK_FILE          "cudnnvm.lock"
#define CV_LOCK_FORMAT        1 /* the "format" this cudnnvm writes */
#define CV_LOCK_MAX_PLATFORMS 8

/* One platform's archive: its path relative to the mirror (so any copy of
 * the redist tree serves it), sha256 and size, from the manifest. */
struct cv_lock_entry {
	char platform[32];
	char url[512];
	char sha256[65]; /* lower-case hex */
	uint64_t size;
};

struct cv_lock {
	char spec[64]; /* the pin it locks, as cv_version_format_id */
	struct cv_version spec_v;
	char id[64]; /* the install id the pin resolved to */
	struct cv_version id_v;
	char source[16];        /* "nvidia": NVIDIA's redist manifests */
	char manifest_url[128]; /* redistrib_<version>.json, on the mirror */
	char manifest_sha256[65];
	size_t n;
	struct cv_lock_entry entries[CV_LOCK_MAX_PLATFORMS];
};

/* Parse lock bytes (`name` prefixes every message). Anything but the
 * format exactly (unknown or missing keys, a bad field, an id that is no
 * build of the spec, a newer format) is CV_EDATA naming the field. */
int cv_lock_parse(struct cv_lock *lk, const char *name, const char *data,
		  size_t len, struct cv_err *err);
/* cv_lock_parse of the file at `path`; CV_ENOTFOUND when there is none. */
int cv_lock_read(const char *path, struct cv_lock *lk, struct cv_err *err);
/* The file's text: sorted keys, two-space indent, final newline
 * (xmalloc'd). */
char *cv_lock_text(const struct cv_lock *lk);
/* Write it with cv_fs_write_atomic. */
int cv_lock_write(const char *path, const struct cv_lock *lk,
		  struct cv_err *err);
/* The lock of a pin file: cudnnvm.lock in the pin's folder. */
void cv_lock_path(const char *pin_file, char out[4096]);
/* 1 when the lock locks this pin: the same spec, and its id a build of
 * it; 0 when it is stale. */
int cv_lock_matches(const struct cv_lock *lk, const struct cv_version *pin);
/* The entry for `platform`, or NULL. */
const struct cv_lock_entry *cv_lock_entry(const struct cv_lock *lk,
					  const char *platform);
/* Add or replace the entry of e->platform; -1 when full. */
int cv_lock_add(struct cv_lock *lk, const struct cv_lock_entry *e);
/* "linux-sbsa, linux-x86_64": the platforms it names. */
void cv_lock_platforms(const struct cv_lock *lk, char *buf, size_t n);

/* ---- lock_resolve.c (helper only) --------------------------------------- */

struct cv_index;
struct cv_resolve_req;
struct cv_resolved;

/* Resolve req (this machine's platform) through cv_resolve_fresh, then
 * the same build for every platform of `platforms`, into *out, locking
 * `spec`. Each platform must have that build: CV_ENOTFOUND names the
 * one that lacks it. */
int cv_lock_resolve(struct cv_index **ix, const struct cv_resolve_req *req,
		    const struct cv_version *spec, const char *const *platforms,
		    size_t nplatforms, struct cv_lock *out, struct cv_err *err);
/* The download of the lock's `platform` entry from `mirror`, as cv_resolve
 * gives one. CV_ENOTFOUND (hint: lock --platform) when the lock has no
 * entry for it; CV_EDATA when the archive's name disagrees with the id. */
int cv_lock_artifact(const struct cv_lock *lk, const char *platform,
		     const char *mirror, struct cv_resolved *out,
		     struct cv_err *err);
/* 1 when both locks name the same build with the same bytes on every
 * platform they share (and the same manifest); else 0, with the first
 * difference in why. */
int cv_lock_same_build(const struct cv_lock *a, const struct cv_lock *b,
		       char *why, size_t n);

#endif
