/* hook.h: the prompt hook's stamp file (`hook-env`). */
#ifndef CUDNNVM_HOOK_H
#define CUDNNVM_HOOK_H

#include <limits.h>
#include <stddef.h>
#include <time.h>

struct cv_store;
struct cv_strv;

struct cv_hook_stamp {
	char path[PATH_MAX + 64]; /* empty: no stamp could be made */
	struct timespec start;    /* when this run began */
};

/* Touch the stamp `given` (the shell's, when it is one of ours: a regular
 * file of this user in the stamp folder), else make a new one; either way
 * its time is one second before now, so that a change in the same clock
 * tick still tests newer at the next prompt. */
void cv_hook_stamp_touch(struct cv_hook_stamp *s, const char *given);
/* Move the stamp up to the newest of the watched paths, but keep it 10 ms
 * before this run started. */
void cv_hook_stamp_settle(const struct cv_hook_stamp *s, char *const *watched,
			  size_t n);

/* 1 when the shell that started this process loaded the integration:
 * `cudnnvm init` exports CUDNNVM_HOOK as that shell's pid, so a shell
 * started from it without init (or a script) does not count. */
int cv_hook_loaded(void);
/* The folder of the hook's stamps and notes. */
void cv_hook_dir(char *out, size_t n);
/* 1 the first time it is asked for the shell that started this process
 * (a file in the stamp folder, swept with the stamps), then 0: a note
 * about that shell is said once. */
int cv_hook_first_note(void);

/* Push what the store adds to the watch list: its root, the system
 * store's, and the folder a store not made yet will be made in. */
void cv_hook_watch_store(const struct cv_store *st, struct cv_strv *w);

#endif
