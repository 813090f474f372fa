/* release_int.h: what the files of the release wing (and their unit tests)
 * share; no other wing includes it. */
#ifndef CUDNNVM_RELEASE_RELEASE_INT_H
#define CUDNNVM_RELEASE_RELEASE_INT_H

#include "base/base.h"
#include "release/release.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* ---- manifest.c / remote.c / resolve.c: NVIDIA's mirror ---------------- */

/* Check a relative_path: no scheme, host, "..", '%', '\\', '?', '#',
 * control bytes or leading '/'. */
int cv_manifest_check_path(const char *rel, struct cv_err *err);

#define CV_LOCK_FORMAT 1 /* the "format" this cudnnvm writes */

/* Parse lock bytes (`name` prefixes every message). Anything but the
 * format exactly (unknown or missing keys, a bad field, an id that is no
 * build of the spec, a newer format) is CV_EDATA naming the field. */
int cv_lock_parse(struct cv_lock *lk, const char *name, const char *data,
		  size_t len, struct cv_err *err);

#endif
