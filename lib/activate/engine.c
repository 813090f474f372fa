/* engine.c: the flags a container engine takes to give a container the
 * view of a version (cv_env_container): Pyxis's mount string, Apptainer's
 * --bind and --env words, a Kubernetes Pod's image volume. */
#include "activate/activate_int.h"
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
cv_engine_parse(const char *s, int *out, struct cv_err *err)
{
	static const char *const names[] = { "pyxis", "apptainer", "k8s" };

	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	cv_err_set(err, CV_EUSAGE, "unknown format '%s'", s);
	return cv_err_hint(err, "cudnnvm env <spec> --format pyxis");
}

/* Pyxis's mount string is split at ',' and ':', and enroot writes each
 * mount as a line of an fstab, split at white space; $(...) splits the
 * words again and globs them: only plain path characters survive all of
 * these. Apptainer splits --bind at ':' and ','. */
static int
engine_path_ok(int engine, const char *p, const char **bad)
{
	for (; *p; p++) {
		int c = (unsigned char)*p;
		int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || strchr("._/+@=~-", c);
		if (c == ':' || c == ',' || c < 0x20 || c == 0x7f ||
		    (engine == CV_ENGINE_PYXIS && !plain)) {
			*bad = p;
			return 0;
		}
	}
	return 1;
}

static int
engine_refuse(int engine, const char *path, const char *bad, struct cv_err *err)
{
	static const char *const names[] = { "Pyxis", "Apptainer" };
	char what[16];

	if (*bad == ' ')
		snprintf(what, sizeof what, "a space");
	else if ((unsigned char)*bad < 0x20 || *bad == 0x7f)
		snprintf(what, sizeof what, "a control character");
	else
		snprintf(what, sizeof what, "'%c'", *bad);
	cv_err_set(err, CV_EUSAGE,
		   "%s splits mount strings where '%s' has %s: the mount "
		   "would break",
		   names[engine], path, what);
	/* a CDI device names each path in JSON: any path passes */
	return cv_err_hint(err, "cudnnvm cdi --output /etc/cdi/cudnnvm.json");
}

static int
emit_pyxis(struct cv_buf *b, const struct cv_ctr_view *v)
{
	cv_buf_adds(b, "--container-mounts=");
	for (size_t i = 0; i < v->nm; i++)
		cv_buf_addf(b, "%s%s:%s:ro", i ? "," : "", v->m[i].host,
			    v->m[i].ctr);
	/* the image's own LD_LIBRARY_PATH would win over srun's without
	 * --container-env */
	cv_buf_adds(b, " --export=ALL");
	for (size_t i = 0; i < v->env.n; i++)
		cv_buf_addf(b, ",%s=%s", v->env.v[i].name, v->env.v[i].value);
	cv_buf_adds(b, " --container-env=");
	for (size_t i = 0; i < v->env.n; i++)
		cv_buf_addf(b, "%s%s", i ? "," : "", v->env.v[i].name);
	return cv_buf_adds(b, "\n");
}

static int
emit_apptainer(struct cv_buf *b, const struct cv_ctr_view *v,
	       struct cv_err *err)
{
	int r = 0;

	for (size_t i = 0; i < v->nm && r == 0; i++) {
		char *bind = xasprintf("%s:%s:ro", v->m[i].host, v->m[i].ctr);
		cv_buf_adds(b, i ? " --bind " : "--bind ");
		r = cv_shell_quote(b, CV_SHELL_SH, bind, err);
		free(bind);
	}
	for (size_t i = 0; i < v->env.n && r == 0; i++) {
		char *kv =
			xasprintf("%s=%s", v->env.v[i].name, v->env.v[i].value);
		cv_buf_adds(b, " --env ");
		r = cv_shell_quote(b, CV_SHELL_SH, kv, err);
		free(kv);
	}
	return r < 0 ? r : cv_buf_adds(b, "\n");
}

/* A YAML double-quoted scalar (JSON's escapes, which YAML shares). */
static void
yaml_str(struct cv_buf *b, const char *s)
{
	cv_buf_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			cv_buf_addf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			cv_buf_addf(b, "\\x%02x", c);
		else
			cv_buf_add(b, s, 1);
	}
	cv_buf_add(b, "\"", 1);
}

/* The image volume (Kubernetes 1.31+, on by default from 1.33, which
 * also takes its subPath) mounts the image read-only: the layer's
 * opt/cudnn is the container's /opt/cudnn, as in every other engine. */
static int
emit_k8s(struct cv_buf *b, const struct cv_ctr_view *v, const char *image)
{
	cv_buf_addf(b, "# cuDNN %s from an image 'cudnnvm export oci' wrote\n",
		    v->id);
	cv_buf_adds(b, "volumes:\n  - name: cudnn\n    image:\n"
		       "      reference: ");
	yaml_str(b, image);
	cv_buf_adds(b, "\n      pullPolicy: IfNotPresent\n"
		       "volumeMounts:\n  - name: cudnn\n"
		       "    mountPath: " CV_CTR_ROOT "\n"
		       "    subPath: opt/cudnn\n    readOnly: true\nenv:\n");
	for (size_t i = 0; i < v->env.n; i++) {
		cv_buf_adds(b, "  - name: ");
		cv_buf_adds(b, v->env.v[i].name);
		cv_buf_adds(b, "\n    value: ");
		yaml_str(b, v->env.v[i].value);
		cv_buf_adds(b, "\n");
	}
	return 0;
}

int
cv_engine_emit(struct cv_buf *b, int engine, const struct cv_ctr_view *v,
	       const char *image, struct cv_err *err)
{
	const char *bad = NULL;

	if (engine == CV_ENGINE_K8S)
		return emit_k8s(b, v, image);
	for (size_t i = 0; i < v->nm; i++)
		if (!engine_path_ok(engine, v->m[i].host, &bad))
			return engine_refuse(engine, v->m[i].host, bad, err);
	return engine == CV_ENGINE_PYXIS ? emit_pyxis(b, v)
					 : emit_apptainer(b, v, err);
}
