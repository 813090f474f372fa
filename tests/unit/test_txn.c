/* test_txn.c: the store's one publish (txn.c): commit publishes, abort
 * leaves nothing, abort after commit touches nothing published, a second
 * begin of a name in use meets its lock, a dependency folder publishes
 * under deps/, and a run killed mid-transaction is swept. */
#include "base/base_int.h"
#include "store/store_int.h"
#include "tap.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[] = "/tmp/cvtxn.XXXXXX";
static char path[512];
static struct cv_err err;

static const char *
P(const char *rel)
{
	snprintf(path, sizeof path, "%s/s/%s", root, rel);
	return path;
}

static int
open_store(struct cv_store **st)
{
	struct cv_config cfg;
	char s[512];
	int r;

	cv_config_init(&cfg);
	snprintf(s, sizeof s, "%s/s", root);
	err = (struct cv_err)CV_ERR_INIT;
	r = cv_store_open(st, &cfg, s, 1, &err);
	cv_config_release(&cfg);
	return r;
}

static void
record(struct cv_installed *inst, const char *id)
{
	memset(inst, 0, sizeof *inst);
	snprintf(inst->id, sizeof inst->id, "%s", id);
	cv_install_id_parse(&inst->version, id, NULL);
	strcpy(inst->platform, "linux-x86_64");
	memset(inst->sha256, 'a', 64);
	inst->size = 42;
	strcpy(inst->source, "/x/y.tar.xz");
	strcpy(inst->installed_at, "2026-01-01T00:00:00Z");
}

/* Put lib/marker holding `text` into the transaction's staging folder. */
static int
fill(const struct cv_store_txn *txn, const char *text)
{
	char *lib = cv_path_join(cv_store_txn_path(txn), "lib");
	char *file = cv_path_join(lib, "marker");
	int r = mkdir(lib, 0755) == 0
			? cv_fs_write_atomic(file, text, strlen(text), 0644,
					     NULL)
			: -1;

	free(lib);
	free(file);
	return r;
}

static int
marker_is(const char *id, const char *text)
{
	char rel[128], buf[64] = "";
	FILE *f;
	size_t n;

	snprintf(rel, sizeof rel, "%s/lib/marker", id);
	if ((f = fopen(P(rel), "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strcmp(buf, text) == 0;
}

/* Entries of .staging (none once every transaction has ended). */
static int
staging_entries(void)
{
	DIR *d = opendir(P(".staging"));
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 &&
		     strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void
note_waiting(void *payload, const char *what)
{
	(void)what;
	if (write(*(int *)payload, "w", 1) != 1)
		_exit(3);
}

int
main(void)
{
	const struct cv_store_txn_wait nowait = { 1, NULL, NULL };
	const char *id = "9.1.0.70-cuda12";
	struct cv_store *st;
	struct cv_store_txn *txn, *two;
	struct cv_installed inst;
	struct cv_store_record rec = { &inst, NULL };
	int status, pfd[2], go[2];
	pid_t pid;

	CHECK(mkdtemp(root) != NULL);
	CHECK(open_store(&st) == 0);

	/* a second process that will begin the same name, waiting; forked
	 * before the lock is taken so that it holds no copy of it */
	if (pipe(pfd) != 0 || pipe(go) != 0)
		return 1;
	if ((pid = fork()) == 0) {
		struct cv_store *st2;
		struct cv_store_txn_wait w = { 0, note_waiting, &pfd[1] };
		char c;
		close(pfd[0]);
		close(go[1]);
		if (read(go[0], &c, 1) != 1 || open_store(&st2) != 0)
			_exit(2);
		if (cv_store_txn_begin(st2, CV_STORE_TXN_VERSION, id, 0, &w,
				       &two, &err) != 0)
			_exit(1);
		cv_store_txn_abort(two);
		cv_store_free(st2);
		_exit(0);
	}
	close(pfd[1]);
	close(go[0]);

	/* begin takes the version's lock; nothing is staged until asked */
	CHECK(cv_store_txn_begin(st, CV_STORE_TXN_VERSION, id, 0, &nowait, &txn,
				 &err) == 0);
	CHECK(cv_store_txn_path(txn) == NULL);
	CHECK(access(P(".locks/9.1.0.70-cuda12.lock"), F_OK) == 0);
	CHECK(cv_store_txn_commit(txn, &rec, &err) < 0);

	/* a second begin of that name meets the lock as cv_store_lock does:
	 * CV_ELOCKED with --no-wait, naming what the holder does */
	err = (struct cv_err)CV_ERR_INIT;
	CHECK(cv_store_txn_begin(st, CV_STORE_TXN_VERSION, id, 0, &nowait, &two,
				 &err) == CV_ELOCKED &&
	      two == NULL);
	CHECK(strstr(err.msg, "installing or removing 9.1.0.70-cuda12") !=
	      NULL);

	/* ... and, waiting, says so once and gets it when the first ends */
	{
		char c = 0;
		CHECK(write(go[1], "g", 1) == 1);
		CHECK(read(pfd[0], &c, 1) == 1 && c == 'w');
		close(go[1]);
	}

	/* commit publishes the staged files with their record */
	CHECK(cv_store_txn_stage(txn, 0, &err) == 0);
	CHECK(cv_store_txn_path(txn) != NULL &&
	      strstr(cv_store_txn_path(txn), "/.staging/9.1.0.70-cuda12.") !=
		      NULL);
	CHECK(fill(txn, "one") == 0);
	record(&inst, id);
	CHECK(!cv_store_has(st, id));
	CHECK(cv_store_txn_commit(txn, &rec, &err) == 0);
	CHECK(cv_store_has(st, id) && marker_is(id, "one"));
	CHECK(access(P("9.1.0.70-cuda12/cudnnvm.json"), F_OK) == 0);
	/* abort after commit: the version stays, the lock is released (the
	 * waiting child gets it), only the staging lock file goes */
	cv_store_txn_abort(txn);
	CHECK(cv_store_has(st, id) && marker_is(id, "one"));
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	close(pfd[0]);
	CHECK(staging_entries() == 0);
	cv_store_txn_abort(NULL);

	/* abort leaves nothing: not the version, not its staging */
	CHECK(cv_store_txn_begin(st, CV_STORE_TXN_VERSION, "9.2.0.82-cuda12", 0,
				 &nowait, &txn, &err) == 0);
	CHECK(cv_store_txn_stage(txn, 0, &err) == 0);
	CHECK(fill(txn, "two") == 0);
	CHECK(staging_entries() == 2); /* the folder and its owner lock */
	cv_store_txn_abort(txn);
	CHECK(staging_entries() == 0);
	CHECK(!cv_store_has(st, "9.2.0.82-cuda12"));
	CHECK(access(P("9.2.0.82-cuda12"), F_OK) != 0);
	CHECK(cv_store_txn_begin(st, CV_STORE_TXN_VERSION, "9.2.0.82-cuda12", 0,
				 &nowait, &txn, &err) == 0);
	cv_store_txn_abort(txn);

	/* a version already there: a plain commit fails and leaves it, a
	 * replacing one exchanges it and abort drops the old files */
	CHECK(cv_store_txn_begin(st, CV_STORE_TXN_VERSION, id, 0, &nowait, &txn,
				 &err) == 0);
	CHECK(cv_store_txn_stage(txn, 0, &err) == 0);
	CHECK(fill(txn, "three") == 0);
	err = (struct cv_err)CV_ERR_INIT;
	CHECK(cv_store_txn_commit(txn, &rec, &err) < 0 &&
	      strstr(err.msg, "cannot publish") != NULL);
	cv_store_txn_abort(txn);
	CHECK(marker_is(id, "one") && staging_entries() == 0);
	CHECK(cv_store_txn_begin(st, CV_STORE_TXN_VERSION, id, 0, &nowait, &txn,
				 &err) == 0);
	CHECK(cv_store_txn_stage(txn, 1, &err) == 0);
	CHECK(fill(txn, "four") == 0);
	CHECK(cv_store_txn_commit(txn, &rec, &err) == 0);
	cv_store_txn_abort(txn);
	CHECK(marker_is(id, "four") && staging_entries() == 0);

	/* a dependency: its own install lock, published under deps/ with a
	 * record cv_store_dep_find reads back */
	{
		struct cv_dep dep, got;
		memset(&dep, 0, sizeof dep);
		strcpy(dep.name, "libcublas");
		strcpy(dep.version, "12.9.1.4");
		dep.cuda = 12;
		strcpy(dep.dir, "deps/libcublas-12.9.1.4");
		dep.in_store = 1;
		memset(dep.sha256, 'b', 64);
		dep.size = 7;
		CHECK(cv_store_txn_begin(st, CV_STORE_TXN_DEP, "libcublas", 12,
					 &nowait, &txn, &err) == 0);
		CHECK(access(P(".locks/deps-libcublas-12-install.lock"),
			     F_OK) == 0);
		CHECK(cv_store_txn_begin(st, CV_STORE_TXN_DEP, "libcublas", 12,
					 &nowait, &two, &err) == CV_ELOCKED);
		/* another CUDA major's copy is another lock */
		CHECK(cv_store_txn_begin(st, CV_STORE_TXN_DEP, "libcublas", 13,
					 &nowait, &two, &err) == 0);
		cv_store_txn_abort(two);
		CHECK(cv_store_txn_stage(txn, 0, &err) == 0);
		CHECK(access(P("deps"), F_OK) == 0);
		CHECK(!cv_store_dep_find(st, "libcublas", 12, &got));
		rec.version = NULL;
		rec.dep = &dep;
		CHECK(cv_store_txn_commit(txn, &rec, &err) == 0);
		cv_store_txn_abort(txn);
		CHECK(access(P("deps/libcublas-12.9.1.4/cudnnvm-dep.json"),
			     F_OK) == 0);
		CHECK(cv_store_dep_find(st, "libcublas", 12, &got) &&
		      strcmp(got.version, "12.9.1.4") == 0);
		CHECK(staging_entries() == 0);
	}

	/* a run killed mid-transaction (its locks die with it) leaves a
	 * staging folder the next writable open sweeps, and no version */
	if ((pid = fork()) == 0) {
		struct cv_store *st2;
		if (open_store(&st2) != 0 ||
		    cv_store_txn_begin(st2, CV_STORE_TXN_VERSION,
				       "9.3.0.75-cuda12", 0, NULL, &two,
				       &err) != 0 ||
		    cv_store_txn_stage(two, 0, &err) != 0 ||
		    fill(two, "x") != 0)
			_exit(1);
		_exit(0); /* no abort: as SIGKILL would leave it */
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	CHECK(staging_entries() == 2);
	cv_store_free(st);
	CHECK(open_store(&st) == 0);
	CHECK(staging_entries() == 0);
	CHECK(!cv_store_has(st, "9.3.0.75-cuda12"));
	CHECK(access(P("9.3.0.75-cuda12"), F_OK) != 0);
	/* ... and its name's lock is free again */
	CHECK(cv_store_txn_begin(st, CV_STORE_TXN_VERSION, "9.3.0.75-cuda12", 0,
				 &nowait, &txn, &err) == 0);
	cv_store_txn_abort(txn);
	cv_store_free(st);

	{
		char cmd[600];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
		CHECK(system(cmd) == 0);
	}
	return TEST_DONE();
}
