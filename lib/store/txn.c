/* txn.c: one publish into the store, the way every writer of a version or
 * a dependency folder (install, a dependency's install, import) makes it:
 * the name's lock, a staging folder the inventory knows as cudnnvm's own,
 * the record written into it, then one rename under the store lock. A
 * transaction that is not committed leaves nothing behind but what a
 * killed run leaves: a staging folder whose owner lock nobody holds, which
 * the next writable open sweeps. */
#include "base/base.h"
#include "store/store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cv_store_txn {
	struct cv_store *st;
	enum cv_store_txn_kind kind;
	int lockfd;  /* the name's lock, held from begin to abort */
	char *name;  /* the staging folder's base name; NULL until staged */
	char *path;  /* its absolute path */
	int stagefd; /* its owner lock */
	int replace; /* commit exchanges with the installed folder */
	int committed;
	char tag[64]; /* what the staging folder's name starts with */
};

int
cv_store_txn_begin(struct cv_store *st, enum cv_store_txn_kind kind,
		   const char *name, int cuda,
		   const struct cv_store_txn_wait *wait,
		   struct cv_store_txn **out, struct cv_err *err)
{
	struct cv_store_txn *txn;
	char lockname[128];
	int r;

	*out = NULL;
	if (kind == CV_STORE_TXN_DEP) {
		/* one installer of this dependency at a time; the second
		 * finds the first one's copy */
		cv_store_dep_lockname(name, cuda, lockname, sizeof lockname);
		strncat(lockname, "-install",
			sizeof lockname - strlen(lockname) - 1);
	} else {
		snprintf(lockname, sizeof lockname, "%s", name);
	}
	txn = xcalloc(1, sizeof *txn);
	txn->st = st;
	txn->kind = kind;
	txn->lockfd = -1;
	txn->stagefd = -1;
	snprintf(txn->tag, sizeof txn->tag, "%s", name);
	if ((r = cv_store_lock(st, lockname, wait ? wait->nowait : 0,
			       wait ? wait->waiting : NULL,
			       wait ? wait->payload : NULL, &txn->lockfd,
			       err)) < 0) {
		free(txn);
		return r;
	}
	*out = txn;
	return 0;
}

int
cv_store_txn_stage(struct cv_store_txn *txn, int replace, struct cv_err *err)
{
	int r;

	if (txn->name != NULL)
		return 0;
	if (txn->kind == CV_STORE_TXN_DEP &&
	    (r = cv_store_deps_mkdir(txn->st, err)) < 0)
		return r;
	if ((r = cv_store_staging_new(txn->st, txn->tag, &txn->name,
				      &txn->stagefd, err)) < 0)
		return r;
	txn->path = cv_store_staging_path(txn->st, txn->name);
	txn->replace = replace;
	return 0;
}

const char *
cv_store_txn_path(const struct cv_store_txn *txn)
{
	return txn->path;
}

int
cv_store_txn_commit(struct cv_store_txn *txn, const struct cv_store_record *rec,
		    struct cv_err *err)
{
	const char *target;
	int r;

	if (txn->name == NULL || txn->committed)
		return cv_err_set(err, CV_ERROR,
				  "nothing staged to publish in the store");
	if (txn->kind == CV_STORE_TXN_DEP) {
		target = rec->dep->dir;
		r = cv_store_dep_write_meta(txn->path, rec->dep, err);
	} else {
		target = rec->version->id;
		r = cv_store_write_meta(txn->path, rec->version, err);
	}
	if (r < 0)
		return r;
	/* where the tests kill an install whose files are all in staging */
	if (txn->kind == CV_STORE_TXN_VERSION)
		cv_checkpoint("before-publish");
	if ((r = cv_store_publish(txn->st, txn->name, target, txn->replace,
				  err)) < 0)
		return r;
	txn->committed = 1;
	return 0;
}

void
cv_store_txn_abort(struct cv_store_txn *txn)
{
	if (txn == NULL)
		return;
	/* after an exchange the staging folder holds the replaced version;
	 * after a plain rename it is gone and only its lock is left */
	if (txn->name != NULL)
		cv_store_staging_drop(txn->st, txn->name, txn->stagefd);
	cv_fs_unlock(txn->lockfd);
	free(txn->name);
	free(txn->path);
	free(txn);
}
