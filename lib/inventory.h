/* inventory.h: what cudnnvm may delete. Every removal of a folder that
 * a user could have pointed somewhere shared (the store, the cache, the
 * data and configuration folders) asks this module, which names only what
 * cudnnvm can prove it wrote and leaves the rest, saying why. */
#ifndef CUDNNVM_INVENTORY_H
#define CUDNNVM_INVENTORY_H

#include <stddef.h>

struct cv_err;
struct cv_strv;

/* What a folder is to cudnnvm; a root may be several at once (the
 * default store is also the data folder). */
enum {
	CV_INV_STORE = 1,  /* versions, deps/, .locks/, .staging/, current */
	CV_INV_CACHE = 2,  /* downloads/, manifests/, validate/ */
	CV_INV_DATA = 4,   /* shims/, the venv list */
	CV_INV_CONFIG = 8, /* config.ini */
	CV_INV_HOOK = 16,  /* the prompt hook's stamps */
	/* the root itself stays even when empty (cache clean) */
	CV_INV_KEEP_ROOT = 32,
};

enum cv_inv_how {
	CV_INV_TREE, /* a folder cudnnvm wrote whole: removed with its files */
	CV_INV_FILE, /* a file or link */
	CV_INV_DIR,  /* a folder of cudnnvm's entries: removed once empty */
};

struct cv_inv_item {
	char *path;
	int how;   /* enum cv_inv_how */
	int shown; /* 0 inside a folder that goes whole (said once) */
};

struct cv_inventory {
	struct cv_inv_item *v; /* children before their folder */
	size_t n, cap;
	char **left; /* "path: left in place (why)" */
	size_t nleft;
};

/* Add what of `root` (taken as `kinds`) cudnnvm may remove; what it may
 * not goes to inv->left with the reason. A root that is not this user's
 * or does not exist adds nothing. */
void cv_inventory_add(struct cv_inventory *inv, const char *root, int kinds);
/* Remove the items, in order: trees and files, then each folder only
 * while it is empty (something that appeared since is left and named in
 * `left`). Each failure's message goes to failed; CV_ERROR then. */
int cv_inventory_apply(struct cv_inventory *inv, struct cv_strv *failed);
void cv_inventory_release(struct cv_inventory *inv);

/* The proofs, one per kind of entry, for the callers that remove one
 * entry at a time (uninstall, the dependency collection, cache prune). */
/* name, in the folder dirfd, is an installed version: a real folder named
 * by an install id holding a regular cudnnvm.json. */
int cv_inventory_is_version(int dirfd, const char *name);
/* name, in <store>/deps, is a dependency folder: a real folder holding a
 * regular cudnnvm-dep.json. */
int cv_inventory_is_dep(int depsfd, const char *name);
/* name, in <cache>/downloads, is a download: <sha256>.archive or
 * <sha256>.partial. */
int cv_inventory_is_download(const char *name);

#endif
