/* shim.h: shims, small executables that run a program under the version
 * pinned for their working folder (`cudnnvm shim`). */
#ifndef CUDNNVM_SHIM_H
#define CUDNNVM_SHIM_H

#include <stddef.h>

struct cv_err;
struct cv_strv;

/* The shims folder: $XDG_DATA_HOME/cudnnvm/shims, else under ~/.local. */
void cv_shim_dir(char *out, size_t n);
/* 1 when `prog` can name a shim: letters, digits, . _ + -, no slash, not
 * starting with . or -, at most 128 bytes. */
int cv_shim_name_valid(const char *prog);
/* Write the shim of `prog` into dir (made when missing), running the
 * cudnnvm binary exe; a file there that is not our shim is refused. */
int cv_shim_add(const char *dir, const char *prog, const char *exe,
		struct cv_err *err);
/* Remove our shim of `prog` (CV_ENOTFOUND when there is none). */
int cv_shim_remove(const char *dir, const char *prog, struct cv_err *err);
/* Push the name of every shim of dir onto names (none when no folder). */
void cv_shim_list(const char *dir, struct cv_strv *names);
/* 1 when an executable `prog` is in a folder of PATH other than dir (the
 * program the shim will run). */
int cv_shim_target_on_path(const char *prog, const char *dir);

#endif
