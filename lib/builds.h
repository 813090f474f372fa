/* builds.h: the builds a source offers (list-remote): NVIDIA's redist
 * mirror, release by release, or the wheels of a simple index, newest
 * first, each marked when it is installed. */
#ifndef CUDNNVM_BUILDS_H
#define CUDNNVM_BUILDS_H

#include <stdint.h>

struct cv_err;
struct cv_config;
struct cv_store;
struct cv_version;

struct cv_build {
	char id[64];         /* 9.13.0.50-cuda12 */
	char version[48];    /* 9.13.0.50 */
	const char *release; /* the mirror's release label; NULL for a wheel */
	int cuda;
	const char *platform;
	uint64_t size; /* 0: not known */
	const char *sha256, *url;
	int installed; /* in st */
	int fits;      /* cv_machine_fits: 1, 0, or -1 when nothing is known */
	char fit_reason[512];
	int needs_arch; /* the compute capability (75: 7.5) the GPU lacks, 0 */
};

struct cv_builds_req {
	const struct cv_version *spec; /* NULL: every release */
	int cuda;                      /* 0: every CUDA major */
	const char *platform;
	int refresh; /* re-read the mirror's listing now */
	/* --mirror (cv_builds_nvidia) or --index (cv_builds_pypi); NULL:
	 * the configuration's */
	const char *from;
	/* each build, valid during the call; nonzero ends the walk */
	int (*build)(void *arg, const struct cv_build *b);
	/* a release whose manifest cannot be read (the walk goes on) */
	void (*skipped)(void *arg, const struct cv_err *why);
	void *arg;
};

/* The builds of NVIDIA's mirror ([remote] mirror) that match req. A spec
 * of no release of a cached listing re-reads it once (a release may be
 * published since); `latest` stops after the newest release with a build.
 * Returns how many builds were shown, or <0 with err. *bad gets the code
 * of a skipped manifest (CV_EDATA first), 0 when none was. */
int cv_builds_nvidia(const struct cv_config *cfg, const struct cv_store *st,
		     const struct cv_builds_req *req, int *bad,
		     struct cv_err *err);
/* The same for the wheels of the simple index ([remote] index). */
int cv_builds_pypi(const struct cv_config *cfg, const struct cv_store *st,
		   const struct cv_builds_req *req, struct cv_err *err);

#endif
