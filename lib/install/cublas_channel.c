/* cublas_channel.c: cuBLAS from NVIDIA's own channel (compute/cublas/
 * redist/, beside cudnn/ and cuda/) before the CUDA toolkit tree: its
 * maintenance releases per CUDA minor (12.9.3, 13.1.2, ...) are newer than
 * any toolkit carries. Its manifests have the cuDNN shape (libcublas ->
 * <platform> -> cuda<N> -> file); deps_install.c chooses the release on
 * its listing as on the CUDA tree's. This file opens the channel and says
 * when the tree answers instead: a channel that cannot be had (no mirror
 * to derive it from, unreachable, no listing, no release that fits) is no
 * error, the CUDA tree answers, said once through req->fallback. A channel
 * that answers with bad data (a manifest that does not parse, an archive
 * that is not that component's) is an error, never a reason to fall back. */
#include "base/base.h"
#include "install/install_int.h"
#include "store/store.h"
#include "validate/validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
cv_cublas_fall_back(const struct cv_deps_req *req, const struct cv_err *why)
{
	char line[sizeof why->msg + 48];

	snprintf(line, sizeof line, "no cuBLAS from its own channel (%s)",
		 why->msg);
	if (req->fallback != NULL)
		req->fallback(req->payload, line);
	return 1;
}

int
cv_cublas_open(const struct cv_deps_req *req, int listing,
	       struct cv_remote **rem, struct cv_index **ix, struct cv_err *err)
{
	struct cv_err why = CV_ERR_INIT;
	char *mirror;
	int r;

	if (*rem == NULL) {
		mirror = cv_deps_cublas_mirror(req->cfg, req->cudnn_mirror,
					       &why);
		if (mirror == NULL && listing)
			return cv_cublas_fall_back(req, &why);
		if (mirror == NULL) {
			*err = why;
			return err->code;
		}
		r = cv_remote_new(rem, req->cfg, mirror, err);
		free(mirror);
		if (r < 0)
			return r;
	}
	if (!listing)
		return 0;
	r = cv_index_open(ix, *rem, cv_store_cache_dir(req->st), req->refresh,
			  &why);
	if (r == CV_ENETWORK || r == CV_ENOTFOUND)
		return cv_cublas_fall_back(req, &why);
	if (r < 0)
		*err = why;
	return r;
}
