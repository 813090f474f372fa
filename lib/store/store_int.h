/* store_int.h: what the files of the store wing (and their unit tests)
 * share; no other wing includes it. */
#ifndef CUDNNVM_STORE_STORE_INT_H
#define CUDNNVM_STORE_STORE_INT_H

#include "base/base.h"
#include "store/store.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cv_store;

/* ---- store.c: the store, locks, staging, publish ----------------------- */

/* The kind of that store (enum cv_store_kind). */
int cv_store_kind(const struct cv_store *st);

/* The staging and publish steps txn.c puts together; no other wing
 * calls them. */
/* A fresh staging folder <root>/.staging/<tag>.<pid>.<rand> (0755) owned
 * by this process (its lock held in *lockfd). *name: xmalloc'd base name. */
int cv_store_staging_new(struct cv_store *st, const char *tag, char **name,
			 int *lockfd, struct cv_err *err);

/* Delete a staging folder and release its lock. */
void cv_store_staging_drop(struct cv_store *st, const char *name, int lockfd);

/* Absolute path of staging folder `name` (xmalloc'd). */
char *cv_store_staging_path(const struct cv_store *st, const char *name);

/* Publish staging folder `name` as <root>/<id>: fsync each of its files
 * and folders, then one renameat2 under the store lock (replace: exchange
 * with the installed one, which is left in staging to be dropped), then
 * fsync the store folder. */
int cv_store_publish(struct cv_store *st, const char *name, const char *id,
		     int replace, struct cv_err *err);

/* Write <dir>/cudnnvm.json for `inst` (fsync'd). */
int cv_store_write_meta(const char *dir, const struct cv_installed *inst,
			struct cv_err *err);

/* Make <root>/deps (0755) for a dependency's publish. */
int cv_store_deps_mkdir(struct cv_store *st, struct cv_err *err);

/* Write <dir>/cudnnvm-dep.json for a dependency folder about to be
 * published (its record, read back by cv_store_dep_find). */
int cv_store_dep_write_meta(const char *dir, const struct cv_dep *dep,
			    struct cv_err *err);

/* ---- sysmode.c: system mode (ld.so.conf.d + ldconfig) ----------------- */

/* Write the ld.so.conf.d file for `id` as current (when it differs): the
 * store's current/lib and the folders of the dependencies `id` keeps in the
 * store, which follow it. */
int cv_sysmode_write_conf(const struct cv_store *st, const char *id,
			  struct cv_err *err);

/* CV_ESTORE unless every ELF file of `libdir` is a libcudnn by the SONAME
 * the loader cache would file it under (and no glibc-hwcaps/ is there). */
int cv_sysmode_check_libdir(const char *libdir, struct cv_err *err);

/* Rebuild the loader cache (ldconfig -X: no links made). */
int cv_sysmode_reload(struct cv_err *err);

/* store.c internals shared with install.c and link.c; the struct itself
 * stays private to store.c. */
/* O_DIRECTORY descriptor on the root, -1 when the store does not exist. */
int cv_store_dirfd(const struct cv_store *st);

/* link.c: the error for a `current` that is not a symbolic link, with the
 * hint that moves it out of the way. Returns CV_ESTORE. */
int cv_store_current_not_link(struct cv_err *err, const char *root);

/* Add the hint that moves a `current` cudnnvm did not make out of the way
 * (nothing is deleted); returns code. */
int cv_store_current_moved_hint(struct cv_err *err, const char *root, int code);

/* sysmode.c: the refusals `global --system` (link.c) shares with the
 * conf file's owner: a store another user could change, a conf file
 * cudnnvm did not write. */
int cv_sysmode_root_only(const char *path, struct cv_err *err);

int cv_sysmode_refuse_foreign(struct cv_err *err);

#endif
