/* fw_probe.h: `validate --frameworks`: each framework of the Python
 * environment in play runs its own convolution under the version, and
 * what it bound to is judged (lib/fw_probe.c says how). */
#ifndef CUDNNVM_FW_PROBE_H
#define CUDNNVM_FW_PROBE_H

#include <limits.h>
#include <stddef.h>

struct cv_err;
struct cv_store;

#define CV_FW_PROBE_MAX 16
struct cv_fw_verdict {
	char fw[32];    /* torch, tensorflow, jax */
	int unreadable; /* the line was not JSON: a failure, nothing to say */
	int pass;
	long version;   /* the cuDNN the framework reports (0: none) */
	long build;     /* the one it was built against (0: not said) */
	int subs;       /* sub-libraries mapped from the version's folder */
	char why[1024]; /* when it failed */
};
struct cv_fw_probe {
	size_t nfw; /* frameworks probed; 0: none to probe */
	size_t n;   /* verdicts read (fewer: it ended early) */
	struct cv_fw_verdict v[CV_FW_PROBE_MAX];
	char libdir[PATH_MAX]; /* the version's lib folder, resolved */
	int status;            /* the probe's exit status (128+N: signal) */
	int cached;            /* read from the validation cache */
};

/* Probe install `id` of st, started as self (the cudnnvm binary and this
 * run's global flags, NULL-ended): 0 with the verdicts in *out, or <0 with
 * err when the environment cannot be read or the probe cannot start. */
int cv_fw_probe_run(const struct cv_store *st, const char *id,
		    const char *const *self, struct cv_fw_probe *out,
		    struct cv_err *err);

/* The verdicts as a JSON object (`validate --frameworks --json`, the
 * cache): ok, skipped, cached, libdir, status and one object per
 * framework. */
struct json_t;
struct json_t *cv_fw_probe_json(const struct cv_fw_probe *p);

#endif
