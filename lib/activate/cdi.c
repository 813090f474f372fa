/* cdi.c: a Container Device Interface spec (kind cudnnvm.dev/cudnn) with
 * one device per installed version, so that `podman run --device
 * cudnnvm.dev/cudnn=9.13.0.50-cuda12` (or containerd, CRI-O, Apptainer)
 * mounts the version and its dependencies read-only at the place every
 * other engine puts them and sets its paths, with nothing in the image. */
#include "activate/activate_int.h"

#include <stdlib.h>
#include <string.h>

/* CDI 0.5.0 is the newest podman 4.3's parser takes; it has everything
 * a device of mounts and variables needs. */
#define CDI_VERSION "0.5.0"

static int
alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

int
cv_cdi_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || !alnum((unsigned char)s[0]) ||
	    !alnum((unsigned char)s[n - 1]))
		return 0;
	for (; *s; s++)
		if (!alnum((unsigned char)*s) && !strchr("-_.:", *s))
			return 0;
	return 1;
}

static struct cv_json *
device(const struct cv_ctr_view *v, const char *name)
{
	struct cv_json *mounts = cv_json_array(), *env = cv_json_array();

	for (size_t i = 0; i < v->nm; i++)
		cv_json_array_append_new(
			mounts,
			cv_json_pack("{s:s, s:s, s:s, s:[s,s,s,s]}", "hostPath",
				     v->m[i].host, "containerPath", v->m[i].ctr,
				     "type", "bind", "options", "ro", "nosuid",
				     "nodev", "rbind"));
	for (size_t i = 0; i < v->env.n; i++) {
		char *kv =
			xasprintf("%s=%s", v->env.v[i].name, v->env.v[i].value);
		cv_json_array_append_new(env, cv_json_string(kv));
		free(kv);
	}
	return cv_json_pack("{s:s, s:{s:o, s:o}}", "name", name,
			    "containerEdits", "env", env, "mounts", mounts);
}

int
cv_cdi_spec(const struct cv_ctr_view *views, size_t n, const char *prefix,
	    char **out, struct cv_err *err)
{
	struct cv_json *devs = cv_json_array(), *spec;
	int r = 0;

	*out = NULL;
	for (size_t i = 0; i < n && r == 0; i++) {
		char *name =
			xasprintf("%s%s", prefix ? prefix : "", views[i].id);
		if (!cv_cdi_name_valid(name)) {
			cv_err_set(err, CV_EUSAGE,
				   "'%s' is no CDI device name: letters, "
				   "digits, '-', '_', '.' and ':' only, "
				   "starting and ending with a letter or "
				   "digit",
				   name);
			r = cv_err_hint(err, "cudnnvm cdi --prefix site-");
		} else
			cv_json_array_append_new(devs, device(&views[i], name));
		free(name);
	}
	if (r < 0) {
		cv_json_decref(devs);
		return r;
	}
	spec = cv_json_pack("{s:s, s:s, s:o}", "cdiVersion", CDI_VERSION,
			    "kind", CV_CDI_KIND, "devices", devs);
	*out = spec ? cv_json_dumps(spec, CV_JSON_INDENT(2)) : NULL;
	cv_json_decref(spec);
	if (*out == NULL)
		return cv_err_set(err, CV_ERROR, "cannot encode the CDI spec");
	return 0;
}
