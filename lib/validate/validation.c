/* validation.c: the record of a validation (struct cv_validation): the
 * names of its steps and verdicts and its JSON, both ways. The cache
 * (validate_cache.c), `validate --json` and the bench read and write the
 * record through here, so the format has one owner. */
#include "base/base.h"
#include "store/store.h"
#include "validate/validate_int.h"

#include <jansson.h>
#include <string.h>

static const char *const step_names[CV_NSTEPS] = {
	"files", "version", "provenance", "driver", "gpu",
};

const char *
cv_step_name(int step)
{
	return step >= 0 && step < CV_NSTEPS ? step_names[step] : "?";
}

const char *
cv_check_name(int status)
{
	switch (status) {
	case CV_CHECK_PASS:
		return "pass";
	case CV_CHECK_FAIL:
		return "fail";
	case CV_CHECK_SKIP:
		return "skip";
	default:
		return "none";
	}
}

int
cv_check_from_name(const char *s)
{
	if (s == NULL)
		return CV_CHECK_NONE;
	if (strcmp(s, "pass") == 0)
		return CV_CHECK_PASS;
	if (strcmp(s, "fail") == 0)
		return CV_CHECK_FAIL;
	if (strcmp(s, "skip") == 0)
		return CV_CHECK_SKIP;
	return CV_CHECK_NONE;
}

int
cv_validation_failed(const struct cv_validation *v)
{
	for (int i = 0; i < CV_NSTEPS; i++)
		if (v->step[i].status == CV_CHECK_FAIL)
			return i;
	return -1;
}

char *
cv_validation_json(const struct cv_validation *v)
{
	json_t *steps = json_array(), *o;
	char *s, *out;

	for (int i = 0; i < CV_NSTEPS; i++)
		json_array_append_new(
			steps,
			json_pack("{s:s,s:s,s:s}", "name", cv_step_name(i),
				  "status", cv_check_name(v->step[i].status),
				  "reason", v->step[i].reason));
	o = json_pack("{s:s,s:b,s:b,s:o,s:I,s:I,s:i,s:s,s:i,s:i,s:f}", "id",
		      v->id, "ok", cv_validation_failed(v) < 0, "cached",
		      v->cached, "steps", steps, "cudnn_version",
		      (json_int_t)v->cudnn_version, "cudart_version",
		      (json_int_t)v->cudart_version, "driver_version",
		      v->driver_version, "gpu", v->gpu, "cc_major", v->cc_major,
		      "cc_minor", v->cc_minor, "max_err", v->max_err);
	s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	out = xstrdup(s ? s : "{}");
	free(s);
	return out;
}

static void
copy_str(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

static void
fill_from_json(struct cv_validation *v, json_t *o)
{
	json_t *steps = json_object_get(o, "steps"), *e;
	size_t i;

	copy_str(v->id, sizeof v->id,
		 json_string_value(json_object_get(o, "id")));
	json_array_foreach(steps, i, e)
	{
		if (i >= CV_NSTEPS)
			break;
		v->step[i].status = cv_check_from_name(
			json_string_value(json_object_get(e, "status")));
		copy_str(v->step[i].reason, sizeof v->step[i].reason,
			 json_string_value(json_object_get(e, "reason")));
	}
	v->cudnn_version =
		(long)json_integer_value(json_object_get(o, "cudnn_version"));
	v->cudart_version =
		(long)json_integer_value(json_object_get(o, "cudart_version"));
	v->driver_version =
		(int)json_integer_value(json_object_get(o, "driver_version"));
	copy_str(v->gpu, sizeof v->gpu,
		 json_string_value(json_object_get(o, "gpu")));
	v->cc_major = (int)json_integer_value(json_object_get(o, "cc_major"));
	v->cc_minor = (int)json_integer_value(json_object_get(o, "cc_minor"));
	v->max_err = json_real_value(json_object_get(o, "max_err"));
}

int
cv_validation_from_json(const char *text, struct cv_validation *out)
{
	json_t *o = json_loads(text, 0, NULL);

	if (!json_is_object(o) || !json_is_array(json_object_get(o, "steps"))) {
		json_decref(o);
		return -1;
	}
	memset(out, 0, sizeof *out);
	fill_from_json(out, o);
	json_decref(o);
	for (int i = 0; i < CV_NSTEPS; i++)
		if (out->step[i].status == CV_CHECK_NONE)
			return -1;
	return 0;
}
