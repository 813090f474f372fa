/* test_gate.c: lib/python/gate.c, what a version passes before it becomes
 * active: the frameworks of a Python environment (laid out in a temporary
 * folder as tests/fixtures/mkpyenv.py lays them out) and the validation, and
 * the verdicts they give (refusal, --force's warning, nothing to say). */
#include "base/base.h"
#include "python/python_int.h"
#include "store/store.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[64];

/* Write text to <top>/<rel>, making its folders. */
static void
put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", top, rel);
	for (char *s = p + strlen(top) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	if (f == NULL)
		abort();
	fputs(text, f);
	fclose(f);
}

/* An install in the store as the store writes it: <id>/lib and
 * cudnnvm.json. */
static void
mkver(const char *id)
{
	char rel[128], json[512], ver[64];

	snprintf(ver, sizeof ver, "%s", id);
	*strstr(ver, "-cuda") = '\0';
	snprintf(json, sizeof json,
		 "{\"id\": \"%s\", \"version\": \"%s\", \"cuda\": %s, "
		 "\"platform\": \"linux-x86_64\", \"sha256\": \"%064d\", "
		 "\"size\": 1, \"source\": \"test\", "
		 "\"installed_at\": \"2026-01-01T00:00:00Z\"}\n",
		 id, ver, strstr(id, "-cuda") + 5, 0);
	snprintf(rel, sizeof rel, "store/%s/cudnnvm.json", id);
	put(rel, json);
	snprintf(rel, sizeof rel, "store/%s/lib/.keep", id);
	put(rel, "");
}

/* A virtualenv <top>/<name> whose site-packages holds one distribution
 * with this METADATA. */
static const char *
mkenv(const char *name, const char *dist, const char *metadata)
{
	static char prefix[256];
	char rel[256];

	snprintf(rel, sizeof rel, "%s/pyvenv.cfg", name);
	put(rel, "home = /usr/bin\ninclude-system-site-packages = false\n");
	snprintf(rel, sizeof rel,
		 "%s/lib/python3.11/site-packages/%s.dist-info/METADATA", name,
		 dist);
	put(rel, metadata);
	snprintf(prefix, sizeof prefix, "%s/%s", top, name);
	return prefix;
}

/* torch 2.11.0 as published: built with cuDNN 9.19 for CUDA 13 */
static const char torch_meta[] =
	"Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0\n"
	"Requires-Dist: nvidia-cudnn-cu13==9.19.0.56; platform_system == "
	"\"Linux\"\n\n";
static const char other_meta[] =
	"Metadata-Version: 2.1\nName: requests\nVersion: 2.32.0\n"
	"Requires-Dist: urllib3\n\n";

static const char *const low = "9.14.0.64-cuda13", *const fit =
							   "9.19.0.56-cuda13";

static void
frameworks_tests(struct cv_store *st, const char *torch, const char *plain)
{
	struct cv_err why = CV_ERR_INIT;
	int uses = -1;

	/* a version below the one torch was built with is refused: the need
	 * on one line, the installed build that fits as the hint */
	CHECK(cv_gate_frameworks(st, low, torch, NULL, &uses, &why) == 1);
	CHECK(uses == 1);
	CHECK(strstr(why.msg, "torch 2.11.0") != NULL);
	CHECK(strstr(why.msg,
		     "needs cuDNN 9.x \u2265 9.19 built for CUDA 13") != NULL);
	CHECK(strchr(why.msg, '\n') == NULL);
	CHECK(strcmp(why.hint, "cudnnvm use 9.19\n") == 0);
	/* the one it was built with fits */
	uses = -1;
	CHECK(cv_gate_frameworks(st, fit, torch, NULL, &uses, &why) == 0);
	CHECK(uses == 1);
	/* another CUDA major does not */
	CHECK(cv_gate_frameworks(st, "9.19.0.56-cuda12", torch, NULL, NULL,
				 &why) == 1);
	/* a distribution that is no framework passes and loads no cuDNN */
	uses = -1;
	CHECK(cv_gate_frameworks(st, low, plain, NULL, &uses, &why) == 0);
	CHECK(uses == 0);
}

/* The verdict of cv_gate_check on id with frameworks checked, validation
 * off (it needs a probe child; validation_tests covers it). */
static struct cv_verdict
check(struct cv_store *st, const char *id, const char *prefix, int force)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_gate_opts o = CV_GATE_OPTS_INIT;
	struct cv_verdict v;

	o.frameworks = 1;
	o.no_validate = 1;
	o.force = force;
	o.prefix = prefix;
	if (cv_gate_check(NULL, st, id, &o, &v, &err) != 0)
		abort();
	return v;
}

static void
verdict_tests(struct cv_store *st, const char *torch, const char *plain)
{
	struct cv_verdict v;

	v = check(st, low, torch, 0);
	CHECK(v.refused == 1 && v.n == 3);
	CHECK(v.line[0].say == CV_SAY_ERROR);
	CHECK(strncmp(v.line[0].text, "not activating 9.14.0.64-cuda13: torch",
		      38) == 0);
	/* the fit first, then the same command with --force */
	CHECK(v.line[1].say == CV_SAY_HINT);
	CHECK(strcmp(v.line[1].text, "cudnnvm use 9.19") == 0);
	CHECK(v.line[2].say == CV_SAY_HINT);
	CHECK(strcmp(v.line[2].text, "cudnnvm use --force 9.14") == 0);
	CHECK(v.uses_cudnn == 1);
	/* --force: the refusal becomes a warning and the version passes */
	v = check(st, low, torch, 1);
	CHECK(v.refused == 0 && v.n == 1);
	CHECK(v.line[0].say == CV_SAY_WARN);
	CHECK(strstr(v.line[0].text, "anyway (--force)") != NULL);
	/* a fitting version: nothing to say */
	v = check(st, fit, torch, 0);
	CHECK(v.refused == 0 && v.n == 0 && v.uses_cudnn == 1);
	/* no framework in the environment: no verdict at all */
	v = check(st, low, plain, 0);
	CHECK(v.refused == 0 && v.n == 0 && v.uses_cudnn == 0);
}

static void
off_tests(struct cv_store *st, const char *torch)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_gate_opts o = CV_GATE_OPTS_INIT;
	struct cv_config cfg;
	struct cv_verdict v;
	char empty[128];

	/* frameworks not asked for (install, import): no refusal */
	o.no_validate = 1;
	o.prefix = torch;
	CHECK(cv_gate_check(NULL, st, low, &o, &v, &err) == 0);
	CHECK(v.refused == 0 && v.n == 0);
	/* a folder with no Python in it is nothing to refuse */
	snprintf(empty, sizeof empty, "%s/nopython", top);
	mkdir(empty, 0755);
	o.frameworks = 1;
	o.prefix = empty;
	CHECK(cv_gate_check(NULL, st, low, &o, &v, &err) == 0);
	CHECK(v.refused == 0 && v.n == 0);
	/* [install] validate = no skips validation as --no-validate does:
	 * the probe named here would fail if it ran */
	cv_config_init(&cfg);
	cfg.validate = 0;
	o.no_validate = 0;
	o.probe_exe = "/nonexistent/cudnnvm";
	CHECK(cv_gate_check(&cfg, st, fit, &o, &v, &err) == 0);
	CHECK(v.refused == 0 && v.n == 0);
	cv_config_release(&cfg);
}

/* A validation that fails (here its first step: the probe child it runs
 * is missing): a refusal, a warning with --force, and after install or
 * import the version stays installed. */
static void
validation_tests(struct cv_store *st)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_gate_opts o = CV_GATE_OPTS_INIT;
	struct cv_config cfg;
	struct cv_verdict v;

	cv_config_init(&cfg);
	cfg.validate = 1;
	o.probe_exe = "/nonexistent/cudnnvm";
	CHECK(cv_gate_check(&cfg, st, fit, &o, &v, &err) == 0);
	CHECK(v.refused == 1 && v.n == 1 && v.line[0].say == CV_SAY_ERROR);
	CHECK(strstr(v.line[0].text,
		     "not activating 9.19.0.56-cuda13: "
		     "validation failed (step 1, files)") != NULL);
	CHECK(strstr(v.line[0].text, "/nonexistent/cudnnvm") != NULL);
	o.installed = 1;
	CHECK(cv_gate_check(&cfg, st, fit, &o, &v, &err) == 0);
	CHECK(v.refused == 1 && v.n == 1);
	CHECK(strncmp(v.line[0].text,
		      "installed 9.19.0.56-cuda13, but it failed validation",
		      52) == 0);
	o.force = 1;
	CHECK(cv_gate_check(&cfg, st, fit, &o, &v, &err) == 0);
	CHECK(v.refused == 0 && v.n == 1 && v.line[0].say == CV_SAY_WARN);
	CHECK(strstr(v.line[0].text,
		     "activating it anyway because of --force") != NULL);
	/* a failed result is not cached: without force it is refused again */
	o.force = o.installed = 0;
	CHECK(cv_gate_check(&cfg, st, fit, &o, &v, &err) == 0);
	CHECK(v.refused == 1);
	cv_config_release(&cfg);
}

/* cv_gate_choose: the spec's installed build, then the same gate. */
static void
choose_tests(struct cv_store *st, const char *torch)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_gate_opts o = CV_GATE_OPTS_INIT;
	struct cv_version spec;
	struct cv_verdict v;
	char id[64] = "";

	o.frameworks = 1;
	o.no_validate = 1;
	o.prefix = torch;
	CHECK(cv_spec_parse(&spec, "9.14", NULL) == 0);
	CHECK(cv_gate_choose(NULL, st, &spec, &o, id, &v, &err) == 0);
	CHECK(strcmp(id, low) == 0 && v.refused == 1);
	CHECK(cv_spec_parse(&spec, "9.19-cuda13", NULL) == 0);
	CHECK(cv_gate_choose(NULL, st, &spec, &o, id, &v, &err) == 0);
	CHECK(strcmp(id, fit) == 0 && v.refused == 0 && v.n == 0);
	/* a version not installed: an error, and no verdict to say */
	CHECK(cv_spec_parse(&spec, "8.9", NULL) == 0);
	CHECK(cv_gate_choose(NULL, st, &spec, &o, id, &v, &err) ==
	      CV_ENOTFOUND);
	CHECK(v.n == 0 && v.refused == 0);
}

/* tensorflow 2.15.0 as published: built with cuDNN 8.9 for CUDA 12 */
static const char tf_meta[] =
	"Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.15.0\n"
	"Requires-Dist: nvidia-cudnn-cu12 (==8.9.4.25) ; extra == "
	"'and-cuda'\n\n";

/* Two pins of different majors (cudnnvm venv 9.19 8.9): each framework is
 * checked against the pin of the major it needs, and a refusal names the
 * pin that does not fit and the builds of its major that do. */
static void
beside_tests(struct cv_store *st)
{
	static const char *const v8 = "8.9.7.29-cuda12",
				 *const v85 = "8.5.0.96-cuda11";
	struct cv_err err = CV_ERR_INIT;
	struct cv_gate_opts o = CV_GATE_OPTS_INIT;
	struct cv_verdict v;
	const char *both;

	mkver(v8);
	mkver(v85);
	both = mkenv("bothenv", "torch-2.11.0", torch_meta);
	put("bothenv/lib/python3.11/site-packages/tensorflow-2.15.0.dist-info/"
	    "METADATA",
	    tf_meta);
	o.frameworks = 1;
	o.no_validate = 1;
	o.prefix = both;
	/* one version alone cannot serve both */
	CHECK(cv_gate_check(NULL, st, fit, &o, &v, &err) == 0);
	CHECK(v.refused == 1 &&
	      strstr(v.line[0].text, "tensorflow 2.15.0") != NULL);
	CHECK(cv_gate_check(NULL, st, v8, &o, &v, &err) == 0);
	CHECK(v.refused == 1 && strstr(v.line[0].text, "torch 2.11.0") != NULL);
	/* with the other major beside it, each passes */
	o.beside = v8;
	CHECK(cv_gate_check(NULL, st, fit, &o, &v, &err) == 0);
	CHECK(v.refused == 0 && v.n == 0);
	o.beside = fit;
	CHECK(cv_gate_check(NULL, st, v8, &o, &v, &err) == 0);
	CHECK(v.refused == 0 && v.n == 0);
	/* a cuDNN 8 that tensorflow cannot load: its own check refuses it,
	 * naming the 8.x that fits; 9.19's check leaves tensorflow to it */
	o.beside = fit;
	CHECK(cv_gate_check(NULL, st, v85, &o, &v, &err) == 0);
	CHECK(v.refused == 1);
	CHECK(strncmp(v.line[0].text,
		      "not activating 8.5.0.96-cuda11: tensorflow 2.15.0",
		      49) == 0);
	/* the hint names the installed 8.x that fits, beside 9.19 */
	CHECK(v.n >= 2 && v.line[1].say == CV_SAY_HINT &&
	      strncmp(v.line[1].text, "cudnnvm use 8.9", 15) == 0);
	o.beside = v85;
	CHECK(cv_gate_check(NULL, st, fit, &o, &v, &err) == 0);
	CHECK(v.refused == 0);
}

int
main(void)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_config cfg;
	struct cv_store *st = NULL;
	const char *torch, *plain;
	char root[128], torch_dir[256];

	snprintf(top, sizeof top, "/tmp/cv-test-gate.XXXXXX");
	if (mkdtemp(top) == NULL)
		return 1;
	/* the machine's own CUDA must not choose between builds, and the
	 * validation cache is this test's own */
	setenv("CUDNNVM_OVERRIDE_CUDA", "13.0", 1);
	{
		char cache[128];
		snprintf(cache, sizeof cache, "%s/cache", top);
		setenv("XDG_CACHE_HOME", cache, 1);
	}
	mkver(low);
	mkver(fit);
	snprintf(root, sizeof root, "%s/store", top);
	cv_config_init(&cfg);
	CHECK(cv_store_open(&st, &cfg, root, 0, &err) == 0);
	if (st == NULL)
		return TEST_DONE();
	torch = mkenv("torchenv", "torch-2.11.0", torch_meta);
	snprintf(torch_dir, sizeof torch_dir, "%s", torch);
	torch = torch_dir;
	plain = mkenv("plainenv", "requests-2.32.0", other_meta);
	frameworks_tests(st, torch, plain);
	verdict_tests(st, torch, plain);
	off_tests(st, torch);
	validation_tests(st);
	choose_tests(st, torch);
	beside_tests(st);
	cv_store_free(st);
	cv_config_release(&cfg);
	{
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", top);
	}
	return TEST_DONE();
}
