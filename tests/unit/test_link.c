/* test_link.c: the atomic `current` link (doc/reliability.md §3, F9, F13, F14,
 * F21): set, get, unset, refusals, the sweep of stray links, and a reader
 * that never sees `current/lib` missing while it is switched 1000 times. */
#include "base/base.h"
#include "store/store.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[256];

static void
mkver(const char *id)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", root, id);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/%s/lib", root, id);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/%s/lib/libcudnn.so.9", root, id);
	f = fopen(p, "w");
	fputs("x", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/%s/cudnnvm.json", root, id);
	f = fopen(p, "w");
	fputs("{}", f);
	fclose(f);
}

static int
link_is(const char *want)
{
	char p[512], buf[128];
	ssize_t n;

	snprintf(p, sizeof p, "%s/current", root);
	n = readlink(p, buf, sizeof buf - 1);
	if (n < 0)
		return want == NULL;
	buf[n] = '\0';
	return want != NULL && strcmp(buf, want) == 0;
}

static int
count_strays(void)
{
	char cmd[600];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c '^\\.current\\.'",
		 root);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

int
main(void)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_config cfg;
	struct cv_store *st = NULL;
	char id[64], p[512];
	const char *a = "9.1.0.70-cuda12", *b = "9.13.0.50-cuda12";

	snprintf(root, sizeof root, "/tmp/cv-test-link.XXXXXX");
	if (mkdtemp(root) == NULL)
		return 1;
	mkver(a);
	mkver(b);
	cv_config_init(&cfg);
	cfg.store_path = strdup(root);
	/* for writing: switching takes the store's current lock */
	if (cv_store_open(&st, &cfg, NULL, 1, &err) < 0)
		return 1;

	CHECK(cv_store_global_get(st, id, &err) == CV_ENOTFOUND);
	CHECK(strstr(err.msg, "no global version is set") != NULL);
	CHECK(cv_store_global_set(st, a, &err) == 0);
	CHECK(link_is(a));
	CHECK(cv_store_global_get(st, id, &err) == 0 && strcmp(id, a) == 0);
	CHECK(cv_store_global_set(st, b, &err) == 0 && link_is(b));
	/* not installed: refused, link unchanged */
	CHECK(cv_store_global_set(st, "9.2.0.1-cuda12", &err) == CV_ENOTFOUND);
	CHECK(strcmp(err.hint, "cudnnvm install 9.2.0.1-cuda12\n") == 0);
	CHECK(link_is(b));
	/* not an install id: usage */
	CHECK(cv_store_global_set(st, "../etc", &err) == CV_EUSAGE);
	/* a folder without its cudnnvm.json is not installed */
	snprintf(p, sizeof p, "%s/9.3.0.1-cuda12", root);
	mkdir(p, 0755);
	CHECK(cv_store_global_set(st, "9.3.0.1-cuda12", &err) == CV_ENOTFOUND);
	/* a version that is a symlink is not installed either (F21) */
	snprintf(p, sizeof p, "%s/9.4.0.1-cuda12", root);
	CHECK(symlink("/etc", p) == 0);
	CHECK(cv_store_global_set(st, "9.4.0.1-cuda12", &err) == CV_ENOTFOUND);
	CHECK(link_is(b));

	/* stray links of a killed switch are swept by the next one (F9) */
	snprintf(p, sizeof p, "%s/.current.1234.deadbeef", root);
	CHECK(symlink(a, p) == 0);
	CHECK(count_strays() == 1);
	CHECK(cv_store_global_set(st, a, &err) == 0 && link_is(a));
	CHECK(count_strays() == 0);

	/* unset, twice */
	CHECK(cv_store_global_set(st, NULL, &err) == 0 && link_is(NULL));
	CHECK(cv_store_global_set(st, NULL, &err) == 0);

	/* a link to something that is not an id is reported, not followed */
	snprintf(p, sizeof p, "%s/current", root);
	CHECK(symlink("/etc", p) == 0);
	CHECK(cv_store_global_get(st, id, &err) == CV_ESTORE);
	unlink(p);

	/* current as a real folder: refused, untouched (F21) */
	CHECK(mkdir(p, 0755) == 0);
	CHECK(cv_store_global_set(st, a, &err) == CV_ESTORE);
	CHECK(strstr(err.msg, "not a symlink") != NULL);
	CHECK(cv_store_global_get(st, id, &err) == CV_ESTORE);
	{
		struct stat sb;
		CHECK(lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode));
	}
	rmdir(p);

	/* F14: a reader resolving current/lib/libcudnn.so.9 during 1000
	 * switches never sees it missing */
	{
		int pipefd[2], status, missing = -1, reads = 0;
		pid_t pid;
		char f[512];

		CHECK(cv_store_global_set(st, a, &err) == 0);
		snprintf(f, sizeof f, "%s/current/lib/libcudnn.so.9", root);
		CHECK(pipe(pipefd) == 0);
		pid = fork();
		if (pid == 0) {
			int miss = 0, n = 0;
			struct stat sb;
			close(pipefd[0]);
			for (;;) {
				n++;
				if (stat(f, &sb) < 0 && errno == ENOENT)
					miss++;
				if (n % 64 == 0 && access(root, F_OK) == 0) {
					/* parent signals the end by creating
					 * .done */
					char done[600];
					snprintf(done, sizeof done, "%s/.done",
						 root);
					if (access(done, F_OK) == 0)
						break;
				}
			}
			dprintf(pipefd[1], "%d %d\n", miss, n);
			_exit(0);
		}
		close(pipefd[1]);
		int fails = 0;
		for (int i = 0; i < 1000; i++)
			if (cv_store_global_set(st, i % 2 ? a : b, &err) < 0)
				fails++;
		snprintf(p, sizeof p, "%s/.done", root);
		close(open(p, O_CREAT | O_WRONLY, 0644));
		{
			char buf[64] = "";
			ssize_t n = read(pipefd[0], buf, sizeof buf - 1);
			if (n > 0)
				sscanf(buf, "%d %d", &missing, &reads);
		}
		waitpid(pid, &status, 0);
		printf("# 1000 switches, %d reads, %d missing\n", reads,
		       missing);
		CHECK(fails == 0);
		CHECK(missing == 0);
		CHECK(reads > 0);
	}

	cv_store_free(st);
	cv_config_release(&cfg);
	snprintf(p, sizeof p, "rm -rf '%s'", root);
	CHECK(system(p) == 0);
	return TEST_DONE();
}
