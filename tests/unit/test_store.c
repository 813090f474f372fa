/* test_store.c: store location, private folders, hostile layouts, sweep,
 * locks, metadata and listing. */
#include "base/base_int.h"
#include "store/store_int.h"
#include "tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[] = "/tmp/cvstore.XXXXXX";
static char path[512];
static struct cv_err err;

static const char *
P(const char *rel)
{
	snprintf(path, sizeof path, "%s/s/%s", root, rel);
	return path;
}

static int
open_store(struct cv_store **st, int w)
{
	struct cv_config cfg;
	char s[512];
	int r;

	cv_config_init(&cfg);
	snprintf(s, sizeof s, "%s/s", root);
	err = (struct cv_err)CV_ERR_INIT;
	r = cv_store_open(st, &cfg, s, w, &err);
	cv_config_release(&cfg);
	return r;
}

static void
fake_install(const char *id)
{
	struct cv_installed inst;

	memset(&inst, 0, sizeof inst);
	snprintf(inst.id, sizeof inst.id, "%s", id);
	cv_install_id_parse(&inst.version, id, NULL);
	strcpy(inst.platform, "linux-x86_64");
	memset(inst.sha256, 'a', 64);
	inst.size = 42;
	strcpy(inst.source, "/x/y.tar.xz");
	strcpy(inst.installed_at, "2026-01-01T00:00:00Z");
	mkdir(P(id), 0755);
	cv_store_write_meta(P(id), &inst, NULL);
}

int
main(void)
{
	struct cv_store *st;
	struct cv_installed *all, one;
	struct cv_config cfg;
	struct cv_version spec;
	size_t n;
	char cmd[600], id[64];
	int fd, fd2;

	CHECK(mkdtemp(root) != NULL);
	/* read-only open of a missing store: empty, nothing created */
	CHECK(open_store(&st, 0) == 0);
	CHECK(cv_store_list(st, &all, &n, &err) == 0 && n == 0);
	free(all);
	cv_store_free(st);
	CHECK(access(P(""), F_OK) != 0);
	/* open for write creates the private folders */
	CHECK(open_store(&st, 1) == 0);
	CHECK(access(P(".staging"), F_OK) == 0 &&
	      access(P(".locks"), F_OK) == 0);
	CHECK(strncmp(cv_store_root(st), root, strlen(root)) == 0);
	cv_store_free(st);

	/* metadata round trip, listing order, find */
	fake_install("9.1.0.70-cuda12");
	fake_install("9.10.0.1-cuda12");
	fake_install("9.9.0.1-cuda11");
	fake_install("8.9.7.29-cuda12");
	mkdir(P("9.2.0.1-cuda12"), 0755);  /* no cudnnvm.json: not installed */
	mkdir(P("9.11.0.1-cuda12"), 0755); /* newest name, not installed */
	CHECK(open_store(&st, 0) == 0);
	CHECK(cv_store_list(st, &all, &n, &err) == 0);
	CHECK(n == 4);
	CHECK(n == 4 && strcmp(all[0].id, "9.10.0.1-cuda12") == 0 &&
	      strcmp(all[1].id, "9.9.0.1-cuda11") == 0 &&
	      strcmp(all[3].id, "8.9.7.29-cuda12") == 0);
	CHECK(n == 4 && all[0].size == 42 && all[0].version.cuda == 12);
	free(all);
	CHECK(cv_store_get(st, "9.1.0.70-cuda12", &one, &err) == 0);
	CHECK(strcmp(one.source, "/x/y.tar.xz") == 0);
	CHECK(cv_store_get(st, "9.2.0.1-cuda12", &one, &err) == CV_ENOTFOUND);
	cv_version_parse(&spec, "9", NULL);
	CHECK(cv_store_find(st, &spec, id, &err) == 0 &&
	      strcmp(id, "9.10.0.1-cuda12") == 0);
	cv_version_parse(&spec, "9-cuda11", NULL);
	CHECK(cv_store_find(st, &spec, id, &err) == 0 &&
	      strcmp(id, "9.9.0.1-cuda11") == 0);
	/* a matching folder without its marker is not installed */
	cv_version_parse(&spec, "9.2", NULL);
	CHECK(cv_store_find(st, &spec, id, &err) == CV_ENOTFOUND);
	/* a full id is looked up directly */
	cv_version_parse(&spec, "8.9.7.29-cuda12", NULL);
	CHECK(cv_store_find(st, &spec, id, &err) == 0 &&
	      strcmp(id, "8.9.7.29-cuda12") == 0);
	cv_version_parse(&spec, "9.2.0.1-cuda12", NULL);
	CHECK(cv_store_find(st, &spec, id, &err) == CV_ENOTFOUND);
	CHECK(strcmp(err.hint, "cudnnvm install 9.2.0.1-cuda12\n") == 0);
	cv_version_parse(&spec, "7", NULL);
	CHECK(cv_store_find(st, &spec, id, &err) == CV_ENOTFOUND);
	CHECK(strcmp(err.hint, "cudnnvm install 7\n") == 0);
	cv_version_parse(&spec, "7.6-cuda10", NULL);
	CHECK(cv_store_find(st, &spec, id, &err) == CV_ENOTFOUND);
	CHECK(strstr(err.msg, "matches '7.6-cuda10'") != NULL);
	CHECK(strcmp(err.hint, "cudnnvm install 7.6-cuda10\n") == 0);
	/* a new error starts with no hints */
	cv_err_set(&err, CV_ERROR, "other");
	CHECK(err.hint[0] == '\0');
	/* hints keep their order; one with a newline or too long to fit
	 * whole is left out, never cut into another command */
	{
		char big[CV_ERR_HINTSIZE + 8];
		memset(big, 'x', sizeof big - 1);
		big[sizeof big - 1] = '\0';
		CHECK(cv_err_hint(&err, "a %d", 1) == CV_ERROR);
		cv_err_hint(&err, "b\nrm -rf /");
		cv_err_hint(&err, "%s", big);
		cv_err_hint(&err, "c");
		CHECK(strcmp(err.hint, "a 1\nc\n") == 0);
	}
	cv_store_free(st);
	/* a damaged cudnnvm.json is reported, and skipped by list */
	snprintf(cmd, sizeof cmd, "echo '{bad' > '%s'",
		 P("8.9.7.29-cuda12/cudnnvm.json"));
	CHECK(system(cmd) == 0);
	CHECK(open_store(&st, 0) == 0);
	CHECK(cv_store_get(st, "8.9.7.29-cuda12", &one, &err) == CV_ESTORE);
	CHECK(cv_store_list(st, &all, &n, &err) == 0 && n == 3);
	free(all);
	cv_store_free(st);

	/* uninstall */
	CHECK(open_store(&st, 1) == 0);
	CHECK(cv_store_uninstall(st, "9.9.0.1-cuda11", &err) == 0);
	CHECK(access(P("9.9.0.1-cuda11"), F_OK) != 0);
	CHECK(cv_store_uninstall(st, "9.9.0.1-cuda11", &err) == CV_ENOTFOUND);
	cv_store_free(st);

	/* sweep: abandoned staging (no lock, or a free lock) goes; a live one
	 * (lock held) stays */
	mkdir(P(".staging/dead.1.1"), 0755);
	mkdir(P(".staging/dead.1.1/sub"), 0755);
	mkdir(P(".staging/live.2.2"), 0755);
	CHECK(cv_fs_lock(P(".staging/live.2.2.lock"), 1, NULL, NULL, "x", &fd,
			 &err) == 0);
	fd2 = open(P(".staging/orphan.lock"), O_CREAT | O_WRONLY, 0644);
	close(fd2);
	CHECK(open_store(&st, 1) == 0);
	CHECK(access(P(".staging/dead.1.1"), F_OK) != 0);
	CHECK(access(P(".staging/live.2.2"), F_OK) == 0);
	CHECK(access(P(".staging/orphan.lock"), F_OK) != 0);
	cv_store_free(st);
	cv_fs_unlock(fd);
	CHECK(open_store(&st, 0) == 0); /* a reader sweeps too */
	CHECK(access(P(".staging/live.2.2"), F_OK) != 0);
	cv_store_free(st);

	/* locks: busy + nowait is CV_ELOCKED, naming the version */
	CHECK(open_store(&st, 1) == 0);
	CHECK(cv_store_lock(st, "9.1.0.70-cuda12", 1, NULL, NULL, &fd, &err) ==
	      0);
	CHECK(cv_store_lock(st, "9.1.0.70-cuda12", 1, NULL, NULL, &fd2, &err) ==
	      CV_ELOCKED);
	CHECK(strstr(err.msg, "9.1.0.70-cuda12") != NULL);
	cv_fs_unlock(fd);
	CHECK(cv_store_lock(st, "9.1.0.70-cuda12", 1, NULL, NULL, &fd2, &err) ==
	      0);
	cv_fs_unlock(fd2);
	cv_store_free(st);

	/* hostile layouts: CV_ESTORE, nothing touched */
	CHECK(symlink("9.1.0.70-cuda12", P("9.0.0.1-cuda12")) == 0);
	CHECK(open_store(&st, 1) == CV_ESTORE &&
	      strstr(err.msg, "9.0.0.1-cuda12"));
	unlink(P("9.0.0.1-cuda12"));
	CHECK(mkdir(P("current"), 0755) == 0);
	CHECK(open_store(&st, 1) == CV_ESTORE && strstr(err.msg, "current"));
	rmdir(P("current"));
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && ln -s /etc '%s'",
		 P(".staging"), P(".staging"));
	CHECK(system(cmd) == 0);
	CHECK(open_store(&st, 1) == CV_ESTORE && strstr(err.msg, ".staging"));
	unlink(P(".staging"));
	CHECK(open_store(&st, 1) == 0);
	cv_store_free(st);

	/* location: CUDNNVM_STORE through the config, relative --store */
	cv_config_init(&cfg);
	cfg.store_path = strdup(P("fromcfg"));
	CHECK(cv_store_open(&st, &cfg, NULL, 0, &err) == 0);
	CHECK(strcmp(cv_store_root(st), P("fromcfg")) == 0);
	CHECK(cv_store_kind(st) == CV_STORE_USER);
	cv_store_free(st);
	/* a user's store and the system store: one view, the system
	 * store's copy of an id first, writes to the user's */
	cfg.system_store_path = strdup(P("sys"));
	CHECK(mkdir(P("sys"), 0755) == 0 &&
	      mkdir(P("sys/9.1.0.70-cuda12"), 0755) == 0);
	{
		FILE *f = fopen(P("sys/9.1.0.70-cuda12/cudnnvm.json"), "w");
		CHECK(f != NULL);
		if (f != NULL)
			fclose(f);
	}
	CHECK(cv_store_open(&st, &cfg, NULL, 0, &err) == 0);
	CHECK(strcmp(cv_store_system_root(st), P("sys")) == 0);
	CHECK(cv_store_has(st, "9.1.0.70-cuda12") &&
	      cv_store_in_system(st, "9.1.0.70-cuda12") &&
	      !cv_store_has_own(st, "9.1.0.70-cuda12"));
	{
		char *d = cv_store_dir(st, "9.1.0.70-cuda12");
		CHECK(strcmp(d, P("sys/9.1.0.70-cuda12")) == 0);
		free(d);
	}
	cv_store_free(st);
	/* --store is exactly one store */
	CHECK(cv_store_open(&st, &cfg, P("fromcfg"), 0, &err) == 0);
	CHECK(cv_store_system_root(st) == NULL &&
	      !cv_store_has(st, "9.1.0.70-cuda12"));
	cv_store_free(st);
	CHECK(chdir(root) == 0);
	CHECK(cv_store_open(&st, &cfg, "rel", 0, &err) == 0);
	CHECK(cv_store_root(st)[0] == '/' && strstr(cv_store_root(st), "/rel"));
	cv_store_free(st);
	cfg.cache_path = strdup(P("mycache"));
	CHECK(cv_store_open(&st, &cfg, NULL, 1, &err) == 0);
	CHECK(strcmp(cv_store_cache_dir(st), P("mycache")) == 0);
	CHECK(access(P("mycache"), F_OK) == 0);
	cv_store_free(st);
	cv_config_release(&cfg);
	/* fs helpers */
	CHECK(cv_fs_mkdirs(P("a/b/c/d"), 0755, &err) == 0);
	CHECK(symlink("/etc", P("a/b/c/etc")) == 0);
	CHECK(cv_fs_rmtree(P("a"), &err) == 0);
	CHECK(access(P("a"), F_OK) != 0 && access("/etc/passwd", F_OK) == 0);

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
	return TEST_DONE();
}
