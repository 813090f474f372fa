/* test_frameworks.c: the Python environment's frameworks as files say
 * them: the requirement grammar of METADATA and conda records, a conda
 * record read by its top-level members only (decoys inside its file list
 * ignored), and the scan's budget: a FIFO or an oversized record is never
 * read, and the scan says it is incomplete. */
#include "base/base.h"
#include "python/python_int.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static int
need_is(const struct cv_fw_need *n, const char *min, const char *max, int incl,
	int cuda)
{
	char a[64], b[64];

	cv_version_format(&n->min, a, sizeof a);
	cv_version_format(&n->max, b, sizeof b);
	return n->have && strcmp(a, min) == 0 && strcmp(b, max) == 0 &&
	       n->max_incl == incl && n->cuda == cuda;
}

static void
test_grammar(void)
{
	struct cv_fw_need n;
	struct cv_version v = { 4, { 9, 1, 0, 70 }, 12 };

	memset(&n, 0, sizeof n);
	CHECK(cv_fw_requires_dist(
		      &n,
		      "nvidia-cudnn-cu12==9.1.0.70; platform_system == \"Linux\"",
		      "M") == 1);
	CHECK(need_is(&n, "9.1.0.70", "latest", 0, 12));
	CHECK(strcmp(n.source, "M") == 0);
	memset(&n, 0, sizeof n);
	CHECK(cv_fw_requires_dist(&n, "Nvidia.Cudnn.Cu13 (>=9.3,<10,!=9.5.1)",
				  "M") == 1);
	CHECK(need_is(&n, "9.3", "10", 0, 13));
	CHECK(n.nexclude == 1);
	memset(&n, 0, sizeof n);
	CHECK(cv_fw_requires_dist(&n, "nvidia-cudnn-cu12~=9.5", "M") == 1);
	CHECK(need_is(&n, "9.5", "10", 0, 12));
	/* a long line is read whole: "<10" past 255 bytes is not "<1" */
	{
		char line[400];
		memset(&n, 0, sizeof n);
		snprintf(line, sizeof line, "nvidia-cudnn-cu12%253s<10", "");
		CHECK(cv_fw_requires_dist(&n, line, "M") == 1);
		CHECK(need_is(&n, "latest", "10", 0, 12));
	}
	/* not a cuDNN wheel, or for another system: nothing at all */
	memset(&n, 0, sizeof n);
	CHECK(cv_fw_requires_dist(&n, "nvidia-cudnn-cuda12==9", "M") == 0);
	CHECK(cv_fw_requires_dist(&n, "numpy>=1.22", "M") == 0);
	CHECK(cv_fw_requires_dist(
		      &n, "nvidia-cudnn-cu12==9.1; sys_platform == \"win32\"",
		      "M") == 0);
	CHECK(!n.have && n.min.nparts == 0 && n.cuda == 0);
	/* conda: cudnn names the bounds, cuda-version the CUDA major */
	memset(&n, 0, sizeof n);
	CHECK(cv_fw_conda_depend(&n, "cuda-version >=12.0,<13", "R") == 0);
	CHECK(cv_fw_conda_depend(&n, "cudnn >=9.3.0.75,<10.0a0", "R") == 1);
	CHECK(cv_fw_conda_depend(&n, "cudnn-jit >=1", "R") == 0);
	CHECK(need_is(&n, "9.3.0.75", "10.0", 0, 12));
	{
		struct cv_framework f;
		memset(&f, 0, sizeof f);
		f.need = n;
		v.part[1] = 3;
		CHECK(cv_framework_fits(&f, &v));
		v.part[1] = 1;
		CHECK(!cv_framework_fits(&f, &v));
	}
}

static void
put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/conda-meta/%s", dir, name);
	f = fopen(path, "w");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

static const struct cv_framework *
find(const struct cv_fw_env *e, const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (strcmp(e->fw[i].name, name) == 0)
			return &e->fw[i];
	return NULL;
}

static void
test_conda_records(void)
{
	char path[256];
	struct cv_fw_env e;
	const struct cv_framework *f;
	FILE *big;

	snprintf(path, sizeof path, "%s/conda-meta", dir);
	mkdir(path, 0755);
	/* decoys: a nested "version" and "depends" before the real ones */
	put("pytorch-2.4.1-cuda120_0.json",
	    "{\"a\": {\"version\": \"0.1\", \"depends\": [\"cudnn >=7\"]},\n"
	    " \"b\": \"\\\"version\\\": \\\"0.2\\\"\", \"c\": [{\"x\": [1]}],\n"
	    " \"depends\" : [\"cuda-version >=12.0,<13\",\n"
	    "   \"cudnn >=9.3.0.75,<10.0a0\"],\n"
	    " \"version\": \"2.4.1\"}\n");
	CHECK(cv_frameworks_find(&e, dir, NULL) == 0);
	f = find(&e, "pytorch");
	CHECK(f != NULL && strcmp(f->version, "2.4.1") == 0);
	CHECK(f != NULL && need_is(&f->need, "9.3.0.75", "10.0", 0, 12));
	CHECK(!e.incomplete);
	cv_fw_env_release(&e);

	/* a FIFO where a record should be: not opened for long, not read */
	snprintf(path, sizeof path, "%s/conda-meta/jaxlib-0.4-cuda12_0.json",
		 dir);
	CHECK(mkfifo(path, 0644) == 0);
	alarm(10); /* a hang fails the test instead of blocking it */
	CHECK(cv_frameworks_find(&e, dir, NULL) == 0);
	alarm(0);
	CHECK(find(&e, "pytorch") != NULL && find(&e, "jaxlib") == NULL);
	CHECK(e.incomplete);
	cv_fw_env_release(&e);
	unlink(path);

	/* over the cap: refused before it is parsed */
	snprintf(path, sizeof path, "%s/conda-meta/cupy-13.0-cuda12_0.json",
		 dir);
	big = fopen(path, "w");
	if (big != NULL) {
		fputs("{\"depends\": [\"cudnn >=8\"], \"files\": [", big);
		for (int i = 0; i < 300000; i++)
			fprintf(big, "\"lib/f%026d.so\",", i);
		fputs("\"x\"], \"version\": \"13.0\"}", big);
		fclose(big);
	}
	CHECK(cv_frameworks_find(&e, dir, NULL) == 0);
	CHECK(find(&e, "cupy") == NULL && e.incomplete);
	cv_fw_env_release(&e);
	unlink(path);
}

int
main(void)
{
	char cmd[128];

	snprintf(dir, sizeof dir, "/tmp/cudnnvm-test-fw.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;
	test_grammar();
	test_conda_records();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return TEST_DONE();
}
