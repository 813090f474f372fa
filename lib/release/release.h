/* release.h: the face of the release wing, what NVIDIA publishes and what a
 * project locks, as data: the redistrib manifests, the lock file, the cached
 * listing; no network. Only what cmd/ and the wings above call; the rest is
 * in release_int.h. */
#ifndef CUDNNVM_RELEASE_RELEASE_H
#define CUDNNVM_RELEASE_RELEASE_H

#include "base/base.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* ---- cache.c: the download cache ------------------------------------ */

/* What is being installed. */
struct cv_artifact {
	struct cv_version version; /* 4 parts and cuda */
	char platform[32];         /* linux-x86_64, windows-x86_64, ... */
	char sha256[65];           /* expected, lower-case hex */
	uint64_t size;             /* expected bytes, 0 = unknown */
	char filename[256];        /* the archive's base name */
	char source[1024];         /* url or path, recorded in cudnnvm.json */
	/* 1: one of NVIDIA's nvidia-cudnn-cuN wheels, unpacked from
	 * nvidia/cudnn/ into the archive layout (cv_extract_limits.wheel) */
	int wheel;
};

/* ---- manifest.c / remote.c / resolve.c: NVIDIA's mirror ---------------- */

#define CV_MANIFEST_MAX_BYTES (16u << 20)   /* a manifest or listing */
#define CV_ARCHIVE_MAX_BYTES  (64ULL << 30) /* a manifest `size` */

#define CV_DEFAULT_MIRROR \
	"https://developer.download.nvidia.com/compute/cudnn/redist/"

/* One cudnn archive of a manifest: (platform, cudaN) -> file. */
struct cv_release_file {
	char platform[32];
	int cuda;                /* CUDA major */
	char relative_path[512]; /* validated, relative to the mirror */
	char sha256[65];         /* lower-case hex */
	uint64_t size;
	char bad[256]; /* non-empty: why the entry is unusable (field path) */
};

/* A parsed redistrib_<version>.json (only the "cudnn" product). */
struct cv_manifest {
	char name[64];  /* redistrib_9.13.0.json */
	char label[32]; /* release_label, e.g. 9.13.0 */
	char release_date[16];
	struct cv_version version; /* cudnn.version, 4 parts */
	struct cv_release_file *files;
	size_t nfiles;
	char sha256[65]; /* of the bytes read (set by cv_index_manifest) */
};

/* Parse manifest bytes (both NVIDIA shapes). CV_EDATA with the byte offset
 * for bad JSON, or with the field path for a bad required field. Odd
 * entries are kept with `bad` set rather than failing the whole file. */
int cv_manifest_parse(struct cv_manifest *m, const char *name, const char *data,
		      size_t len, struct cv_err *err);

void cv_manifest_release(struct cv_manifest *m);

/* The entry for (platform, cuda), or NULL. */
const struct cv_release_file *cv_manifest_find(const struct cv_manifest *m,
					       const char *platform, int cuda);

/* "cuda12, cuda13": the variants the release has for `platform`. */
void cv_manifest_variants(const struct cv_manifest *m, const char *platform,
			  char *buf, size_t n);

/* From the CUDA redistrib manifest `name` (redistrib_13.0.2.json: one
 * object per component, no cuda_variant level; or cuBLAS's own channel's,
 * whose platform object holds one cuda<N> object per CUDA major), `component`'s
 * file for `platform` (cuda: the release's CUDA major) and its version.
 * CV_ENOTFOUND when the release has none, CV_EDATA for bad JSON or a bad field.
 */
int cv_manifest_component(const char *name, const char *data, size_t len,
			  const char *component, const char *platform, int cuda,
			  struct cv_release_file *out, char version[32],
			  struct cv_err *err);

/* mirror base + relative path, with exactly one '/' between (xmalloc'd). */
char *cv_manifest_url(const char *mirror, const char *rel);

/* The same with another parser (a CUDA redistrib manifest's): the bytes
 * are cached only once parse() took them. */
typedef int (*cv_manifest_parse_fn)(void *arg, const char *name,
				    const char *data, size_t len,
				    struct cv_err *err);

struct cv_resolved {
	struct cv_artifact art; /* version, platform, sha256, size, ... */
	char *url;              /* xmalloc'd */
	char label[32];         /* release label, e.g. 9.13.0 */
	/* where it came from: the archive's path on the mirror, the
	 * manifest's name and the sha256 of the manifest's bytes (NVIDIA
	 * only; empty for a wheel) */
	char relative_path[512];
	char manifest[64];
	char manifest_sha256[65];
};

/* ---- validate.c / doctor.c: proof that a version works ----------------- */

/* index_cached.c: the release versions ("9.13.0") of the mirror listings
 * cached under cache_dir, newest first, without the network: an
 * xmalloc'd array of xmalloc'd names; returns their number. */
size_t cv_index_cached_versions(const char *cache_dir, char ***names);

#define CV_LOCK_FILE "cudnnvm.lock"

#define CV_LOCK_MAX_PLATFORMS 8

/* Where a dependency comes from: NVIDIA's CUDA redist tree ([remote]
 * cuda_mirror) or cuBLAS's own channel ([remote] cublas_mirror). */
#define CV_CHANNEL_CUDA   "cuda"
#define CV_CHANNEL_CUBLAS "cublas"

/* One dependency archive of a platform (cuBLAS, nvrtc): NVIDIA's
 * component, its version, its path relative to its channel's tree,
 * sha256 and size, from that tree's manifest, and the channel. */
struct cv_lock_dep {
	char name[32];
	char version[32];
	char url[512];
	char sha256[65];
	uint64_t size;
	char channel[8]; /* CV_CHANNEL_*; "cuda" when the lock has none */
};

/* A channel files a component's archive as <name>/<platform>/<name>-
 * <platform>-<version>-archive.<ext> (the CUDA tree; channel_cuda 0) or
 * ..-<version>_cuda<N>-archive.<ext> (cuBLAS's channel, N = channel_cuda):
 * 1 when url is that file. A lock or a manifest naming another file could
 * install one archive under another component's or release's name. */
int cv_dep_url_ok(const char *name, const char *platform, const char *version,
		  int channel_cuda, const char *url);

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

/* path.c */
/* index_cached.c: the next redistrib_<version>.json name of a mirror
 * listing at or after p: the version's text in buf and parsed in *ver (at
 * least major.minor); returns where to go on from, NULL when none is left.
 * index.c (a fetched listing) and the cached-listing reader share it. */
const char *cv_listing_next(const char *p, char buf[32],
			    struct cv_version *ver);

#endif
