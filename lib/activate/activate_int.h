/* activate_int.h: what the files of the activate wing (and their unit tests)
 * share; no other wing includes it. */
#ifndef CUDNNVM_ACTIVATE_ACTIVATE_INT_H
#define CUDNNVM_ACTIVATE_ACTIVATE_INT_H

#include "activate/activate.h"
#include "base/base.h"
#include "store/store.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cv_store;

/* ---- activation: link.c, activate.c, env.c, shell.c -------------------- */

/* activate.c: which version is active and why (doc/SPEC.md "Choosing the
 * active version"). Pin files are read safely: a regular file of at most
 * CV_PIN_MAX bytes holding one spec, never a path or URL. */
#define CV_PIN_MAX 4096

#define CV_PIN_FILE ".cudnn-version"

#define CV_TOOL_VERSIONS ".tool-versions"

/* Read one pin file (tool_versions: a .tool-versions, whose `cudnn` line is
 * taken). Returns 1 with spec set, 0 when a .tool-versions names no cudnn,
 * or CV_EDATA with a one-line reason (not a regular file, too big, a path,
 * a URL, not a spec). */
int cv_pin_read(const char *path, int tool_versions, char spec[64],
		struct cv_err *err);

/* Write <dir>/.cudnn-version holding `spec` atomically. */
int cv_pin_write(const char *dir, const struct cv_version *spec,
		 struct cv_err *err);

/* ---- modulefile.c: Lmod / Environment Modules files ------------------- */

/* Append the module file of install `inst` of the store at `root`: the
 * variables cv_env_build sets (lists prepended, scalars pushed so unload
 * restores them), CUDNNVM_VERSION, and `conflict cudnn`. */
int cv_modulefile_text(struct cv_buf *out, const struct cv_store *st,
		       const struct cv_installed *inst, int fmt,
		       struct cv_err *err);

/* The same from its parts: `env` as cv_env_build made it. Any value, id
 * or platform holding a character either language reads specially
 * (quotes, braces, brackets, $, backslash, control characters) or a name
 * that is not a variable's is refused with CV_EDATA, nothing appended
 * that could be read otherwise. */
int cv_modulefile_render(struct cv_buf *out, int fmt, const char *id, int cuda,
			 const char *platform, const struct cv_env *env,
			 struct cv_err *err);

/* Write <outdir>/cudnn/<id>[.lua] for each of list[0..n), a .version
 * naming default_id (NULL: none), and drop our files of other ids. A
 * folder or file cudnnvm did not write is refused (CV_ESTORE). */
int cv_modulefiles_write(const char *outdir, const struct cv_store *st,
			 const struct cv_installed *list, size_t n,
			 const char *default_id, int fmt, struct cv_err *err);

/* modulefile.c: a module's help text, %s the install id (the fuzz
 * oracle expects it too) */
#define CV_MODULE_HELP                                                      \
	"NVIDIA cuDNN %s from the cudnnvm store: sets LD_LIBRARY_PATH, "    \
	"CPATH, LIBRARY_PATH and CUDNN_HOME (and the other CUDNN_* paths) " \
	"for it, and CUDNNVM_VERSION, so cudnnvm's commands and its shell " \
	"hook agree. 'cudnnvm list' shows what is installed, 'cudnnvm "     \
	"validate' proves it loads.\n"

#endif
