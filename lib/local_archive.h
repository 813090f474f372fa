/* local_archive.h: `install --archive FILE`: the artifact a local
 * archive or wheel is, from its name and the file itself. */
#ifndef CUDNNVM_LOCAL_ARCHIVE_H
#define CUDNNVM_LOCAL_ARCHIVE_H

struct cv_err;
struct cv_artifact;
struct cv_version;

/* The artifact of the file at `path` with `version` (4 parts and the CUDA
 * major) and `sha256`. `named` is what its name said (zeroed when it said
 * nothing); the platform is `platform`, else the name's, else windows for
 * a .zip and linux-x86_64 otherwise. Errors: the file is missing or a
 * folder, its path does not resolve, or what makes cv_artifact_init fail. */
int cv_local_archive(const char *path, const struct cv_version *version,
		     const char *platform, const struct cv_artifact *named,
		     const char *sha256, struct cv_artifact *art,
		     struct cv_err *err);

/* The published sha256 of the NVIDIA archive `file` (by its name:
 * platform, version, CUDA major) from a manifest an earlier list-remote or
 * install cached under <cache_dir>/manifests/: 1 with sha and the
 * manifest's path in from, 0 when none lists that file. */
int cv_manifest_cached_sha256(const char *cache_dir, const char *file,
			      char sha[65], char from[4096]);

#endif
