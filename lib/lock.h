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

/* One dependency archive of a platform (cuBLAS, nvrtc): NVIDIA's
 * component, its version, its path relative to the CUDA redist tree
 * ([remote] cuda_mirror), sha256 and size, from that tree's manifest. */
struct cv_lock_dep {
	char name[32];
	char version[32];
	char url[512];
	char sha256[65];
	uint64_t size;
};
#define CV_LOCK_MAX_DEPS 2

/* One platform's archive: its path relative to the mirror (so any copy of
 * the redist tree serves it), sha256 and size, from the manifest; and the
 * dependencies installed beside it. */
struct cv_lock_entry {
	char platform[32];
	char url[512];
	char sha256[65]; /* lower-case hex */
	uint64_t size;
	struct cv_lock_dep deps[CV_LOCK_MAX_DEPS];
	size_t ndeps;
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
/* Hold the lock at `path` against other writers (its folder's flock)
 * from reading it until it is written back: two `lock --platform` at once
 * then both land. cv_lock_release(fd) lets go. */
int cv_lock_hold(const char *path, int *fd, struct cv_err *err);
void cv_lock_release(int fd);
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
struct cv_deps_req;
struct cv_dep_file;
/* Fill each platform's deps: the old lock's when it locked the same
 * build there, else what cv_deps_resolve chooses from the CUDA redist tree
 * with `tmpl` (st, cfg, mirror, mode; version and platform are set here).
 * Under deps = auto a platform it cannot resolve keeps none, and the
 * first such error goes to *skipped; under always it fails. */
int cv_lock_resolve_deps(struct cv_lock *lk, const struct cv_lock *old,
			 const struct cv_deps_req *tmpl, struct cv_err *skipped,
			 struct cv_err *err);
/* An entry's dependencies as install takes them (cv_deps_req.locked). */
void cv_lock_deps_files(const struct cv_lock_entry *e, struct cv_dep_file *out,
			int *n);
/* 1 when both locks name the same build with the same bytes on every
 * platform they share (and the same manifest); else 0, with the first
 * difference in why. */
int cv_lock_same_build(const struct cv_lock *a, const struct cv_lock *b,
		       char *why, size_t n);

#endif
