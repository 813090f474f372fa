/* doctor.h: the face of the doctor wing, the whole machine at once: doctor's
 * findings and fixes, and implode. Only what cmd/ and the wings above call;
 * the rest is in doctor_int.h. */
#ifndef CUDNNVM_DOCTOR_DOCTOR_H
#define CUDNNVM_DOCTOR_DOCTOR_H

#include "base/base.h"
#include "validate/validate.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cv_store;

/* ---- implode.c: remove everything cudnnvm wrote for this user -------- */

struct cv_implode {
	/* what goes, by inventory (cv_inventory_add); what stays, and why */
	struct cv_inventory *inv;
	struct cv_strv venvs;   /* environments whose blocks come out */
	struct cv_strv startup; /* "file:line: text" lines that load it */
	int sysmode;            /* root: system mode names this store */
};

/* What implode would remove: of the writable store (when this user owns
 * it), the cache, $XDG_DATA_HOME/cudnnvm (shims, the venv list),
 * $XDG_CONFIG_HOME/cudnnvm and the hook's stamps, only what cudnnvm wrote
 * there (cv_inventory_add); the venv blocks, system mode's loader file
 * (root); and the startup-file lines to edit. */
void cv_implode_plan(const struct cv_store *st, struct cv_implode *p);

/* Do it; each failure's message is appended to failed (CV_ERROR). */
int cv_implode(const struct cv_implode *p, struct cv_strv *failed);

void cv_implode_release(struct cv_implode *p);

/* ---- validate.c / doctor.c: proof that a version works ----------------- */

/* doctor.c: findings about the store and the environment. */
enum cv_level { CV_LEVEL_OK, CV_LEVEL_WARN, CV_LEVEL_ERROR };

/* Collect findings (xmalloc'd array). Never fails: an unreadable thing is
 * itself a finding. */
void cv_doctor_run(const struct cv_doctor_ctx *ctx, struct cv_finding **out,
		   size_t *n);

void cv_findings_free(struct cv_finding *f, size_t n);

/* The cause of a pasted error message and the fix, built from what st
 * (may be NULL) holds and this machine needs; 0 when no entry matches. */
int cv_doctor_explain(const struct cv_store *st, const char *msg,
		      struct cv_explanation *out);

void cv_explanation_release(struct cv_explanation *e);

/* ---- windows.c: the seed's hand install on Windows -------------------- */

/* What doctor looks at on Windows: %CUDA_PATH% (or NULL), %PATH%, the
 * active version's bin folder and major (NULL, 0: none active), and
 * whether that version loads zlibwapi.dll (8.3 to 9.1). */
struct cv_doctor_win {
	const char *cuda_path, *path, *store_bin;
	int major, needs_zlibwapi;
};

/* The findings (xmalloc'd array, cv_findings_free): cuDNN copied into
 * %CUDA_PATH%\bin (one per major, the fix a del of its DLLs, headers and
 * import libraries), PATH finding cudnn64_<major>.dll first outside
 * store_bin, zlibwapi.dll missing. Returns how many. */
size_t cv_doctor_win_check(const struct cv_doctor_win *w,
			   struct cv_finding **out);

/* `where NAME` over a ';' PATH list: each folder's NAME that exists, in
 * PATH order, appended to out; returns how many. */
int cv_doctor_where(const char *path_list, const char *name,
		    struct cv_strv *out);

#endif
