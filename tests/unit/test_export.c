/* test_export.c: the names CDI and OCI take, and each engine's mount
 * string for paths with spaces, colons and commas (doc/reliability.md E5,
 * E6): refused where the engine would split them, quoted where it can
 * carry them, never split. */
#include "activate/activate.h"
#include "base/base.h"
#include "install/install.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static struct cv_ctr_view
view(const char *host)
{
	struct cv_ctr_view v;

	memset(&v, 0, sizeof v);
	strcpy(v.id, "9.13.0.50-cuda12");
	strcpy(v.platform, "linux-x86_64");
	v.m[0].host = strdup(host);
	v.m[0].ctr = strdup("/opt/cudnn/9.13.0.50-cuda12");
	v.nm = 1;
	v.env.v = calloc(2, sizeof *v.env.v);
	v.env.v[0].name = strdup("CUDNN_PATH");
	v.env.v[0].value = strdup("/opt/cudnn/9.13.0.50-cuda12");
	v.env.n = v.env.alloc = 1;
	return v;
}

/* What engine prints for host, or NULL with *code set. */
static char *
emit(int engine, const char *host, int *code)
{
	struct cv_ctr_view v = view(host);
	struct cv_err err = CV_ERR_INIT;
	struct cv_buf *b = cv_text_new();
	char *out = NULL;

	*code = cv_engine_emit(b, engine, &v, "cudnn:x", &err);
	if (*code == 0)
		out = strdup(cv_text_str(b));
	else if (cv_text_str(b)[0] != '\0')
		out = strdup("<partial output>");
	cv_text_free(b);
	cv_env_container_release(&v);
	return out;
}

static int
refused(int engine, const char *host)
{
	int code;
	char *out = emit(engine, host, &code);
	int ok = out == NULL && code == CV_EUSAGE;

	free(out);
	return ok;
}

static int
prints(int engine, const char *host, const char *want)
{
	int code;
	char *out = emit(engine, host, &code);
	int ok = out != NULL && strcmp(out, want) == 0;

	if (!ok)
		printf("# got: %s\n", out ? out : "(refused)");
	free(out);
	return ok;
}

int
main(void)
{
	int e;
	char *spec = NULL;
	struct cv_ctr_view v = view("/s/9.13.0.50-cuda12");
	struct cv_err err = CV_ERR_INIT;

	CHECK(cv_cdi_name_valid("9.13.0.50-cuda12"));
	CHECK(cv_cdi_name_valid("site-9.13.0.50-cuda12"));
	CHECK(cv_cdi_name_valid("a:b_c.d"));
	CHECK(!cv_cdi_name_valid(""));
	CHECK(!cv_cdi_name_valid("-9.13"));
	CHECK(!cv_cdi_name_valid("9.13-"));
	CHECK(!cv_cdi_name_valid("a/b"));
	CHECK(!cv_cdi_name_valid("a b"));
	CHECK(!cv_cdi_name_valid("a=b"));

	CHECK(cv_oci_ref_valid("9.13.0.50-cuda12"));
	CHECK(cv_oci_ref_valid("latest"));
	CHECK(!cv_oci_ref_valid(".hidden"));
	CHECK(!cv_oci_ref_valid("-x"));
	CHECK(!cv_oci_ref_valid("a b"));
	CHECK(!cv_oci_ref_valid("a/b"));
	CHECK(!cv_oci_ref_valid("a:b"));

	CHECK(cv_engine_parse("pyxis", &e, &err) == 0 && e == CV_ENGINE_PYXIS);
	CHECK(cv_engine_parse("k8s", &e, &err) == 0 && e == CV_ENGINE_K8S);
	CHECK(cv_engine_parse("docker", &e, &err) == CV_EUSAGE);

	CHECK(prints(CV_ENGINE_PYXIS, "/s/9.13.0.50-cuda12",
		     "--container-mounts=/s/9.13.0.50-cuda12:/opt/cudnn/"
		     "9.13.0.50-cuda12:ro --export=ALL,CUDNN_PATH=/opt/cudnn/"
		     "9.13.0.50-cuda12 --container-env=CUDNN_PATH\n"));
	CHECK(refused(CV_ENGINE_PYXIS, "/my store/9.13.0.50-cuda12"));
	CHECK(refused(CV_ENGINE_PYXIS, "/a:b/9.13.0.50-cuda12"));
	CHECK(refused(CV_ENGINE_PYXIS, "/a,b/9.13.0.50-cuda12"));
	CHECK(refused(CV_ENGINE_PYXIS, "/a\tb/9.13.0.50-cuda12"));
	CHECK(refused(CV_ENGINE_PYXIS, "/a*b/9.13.0.50-cuda12"));
	CHECK(refused(CV_ENGINE_PYXIS, "/a$(x)/9.13.0.50-cuda12"));
	CHECK(prints(CV_ENGINE_APPTAINER, "/my store/9.13.0.50-cuda12",
		     "--bind '/my store/9.13.0.50-cuda12:/opt/cudnn/"
		     "9.13.0.50-cuda12:ro' --env "
		     "'CUDNN_PATH=/opt/cudnn/9.13.0.50-cuda12'\n"));
	CHECK(prints(CV_ENGINE_APPTAINER, "/it's/9.13.0.50-cuda12",
		     "--bind '/it'\\''s/9.13.0.50-cuda12:/opt/cudnn/"
		     "9.13.0.50-cuda12:ro' --env "
		     "'CUDNN_PATH=/opt/cudnn/9.13.0.50-cuda12'\n"));
	CHECK(refused(CV_ENGINE_APPTAINER, "/a:b/9.13.0.50-cuda12"));
	CHECK(refused(CV_ENGINE_APPTAINER, "/a,b/9.13.0.50-cuda12"));
	CHECK(refused(CV_ENGINE_APPTAINER, "/a\nb/9.13.0.50-cuda12"));
	/* the Pod names no host path at all */
	CHECK(prints(CV_ENGINE_K8S, "/a:b, c/9.13.0.50-cuda12",
		     "# cuDNN 9.13.0.50-cuda12 from an image 'cudnnvm export "
		     "oci' wrote\nvolumes:\n  - name: cudnn\n    image:\n"
		     "      reference: \"cudnn:x\"\n      pullPolicy: "
		     "IfNotPresent\nvolumeMounts:\n  - name: cudnn\n"
		     "    mountPath: /opt/cudnn\n    subPath: opt/cudnn\n"
		     "    readOnly: true\nenv:\n  - name: CUDNN_PATH\n"
		     "    value: \"/opt/cudnn/9.13.0.50-cuda12\"\n"));

	CHECK(cv_cdi_spec(&v, 1, "bad/", &spec, &err) == CV_EUSAGE &&
	      spec == NULL);
	err = (struct cv_err)CV_ERR_INIT;
	CHECK(cv_cdi_spec(&v, 1, "site-", &spec, &err) == 0 && spec != NULL &&
	      strstr(spec, "\"name\": \"site-9.13.0.50-cuda12\"") != NULL &&
	      strstr(spec, "\"kind\": \"cudnnvm.dev/cudnn\"") != NULL);
	free(spec);
	cv_env_container_release(&v);
	return TEST_DONE();
}
