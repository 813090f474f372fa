/* base_int.h: what the files of the base wing (and their unit tests) share;
 * no other wing includes it. */
#ifndef CUDNNVM_BASE_BASE_INT_H
#define CUDNNVM_BASE_BASE_INT_H

#include "base/base.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

/* ---- config.c: INI files with inih (see doc/SPEC.md) ------------------- */

/* Parse one INI buffer over cfg (later wins). `name` is used in messages. */
int cv_config_parse_buffer(struct cv_config *cfg, const char *name,
			   const char *data, size_t len, struct cv_err *err);

/* The INI reader under config.c, the platform's: inih on POSIX
 * (config_posix.c), which takes the text line by line from line(str,
 * num, user) as ini_parse_stream does; the Win32 profile API on Windows
 * (config_win32.c), which reads data (len bytes) whole and never calls
 * line. key(user, section, name, value) is called for each key in file
 * order, and a zero return stops the reading. 0, the line of the first
 * syntax error (inih), CV_INI_NOT_KEY for a line that is no key (the
 * profile API, which does not say where), or -1. */
#define CV_INI_NOT_KEY (-2)
int cv_ini_read(const char *data, size_t len,
		char *(*line)(char *str, int num, void *user),
		int (*key)(void *user, const char *section, const char *name,
			   const char *value),
		void *user);

/* Take an exclusive flock on `path` (created 0644, O_CLOEXEC). Busy lock:
 * with nowait CV_ELOCKED, else call waiting(payload, what) once and block.
 * *fd gets the descriptor to pass to cv_fs_unlock. */
int cv_fs_lock(const char *path, int nowait,
	       void (*waiting)(void *payload, const char *what), void *payload,
	       const char *what, int *fd, struct cv_err *err);

/* Non-blocking try: 1 acquired, 0 busy, <0 error. */
int cv_fs_trylock(const char *path, int *fd, struct cv_err *err);

/* The pid holding a flock on the file open at fd, 0 when unknown. */
long cv_fs_lock_holder(int fd);

/* ---- json_error.c: what both JSON backends share ---------------------- */

/* error's line, column and position for the byte at off of the len at
 * buf, as jansson counts them (the byte counted, a character a column) */
void cv_json_error_at(struct cv_json_error *error, const char *buf, size_t len,
		      size_t off);

/* ---- child.c and its platform's half (child_posix.c, child_win32.c) -- */

/* How a child ended: its exit code, or the signal that killed it, or
 * stopped (c->stop was set and it was killed), or left running (on_out
 * stopped the reading). */
struct cv_child_end {
	int code, signal, stopped, left;
};
/* What cv_child_run returns for a child that ended so (c->signal set):
 * its exit code, 128 + its signal, CV_EINTR when stopped, 0 when left. */
int cv_child_end_code(struct cv_child *c, const struct cv_child_end *end,
		      struct cv_err *err);
/* n bytes the child wrote on stream 0 (stdout) or 1 (stderr), to c's
 * buffers or on_out: 1 when on_out asks to stop reading. */
int cv_child_take(struct cv_child *c, int stream, const char *data, size_t n);

#ifdef _WIN32
#include <wchar.h>
/* file_win32.c: UTF-8 to UTF-16 for the wide Win32 calls, xmalloc'd;
 * NULL with EINVAL for bytes that are not UTF-8 (refused, never replaced:
 * a changed name is another file). The *_win32.c files share it. */
wchar_t *cv_win_widen(const char *s);
#endif

#endif
