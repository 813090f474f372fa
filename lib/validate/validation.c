/* validation.c: the record of a validation (struct cv_validation): the
 * names of its steps and verdicts and its JSON, both ways. The cache
 * (validate_cache.c), `validate --json` and the bench read and write the
 * record through here, so the format has one owner. */
#include "base/base.h"
#include "store/store.h"
#include "validate/validate_int.h"

#include <stdio.h>
#include <stdlib.h>
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
	struct cv_json *steps = cv_json_array(), *o;
	char *s, *out;

	for (int i = 0; i < CV_NSTEPS; i++)
		cv_json_array_append_new(
			steps,
			cv_json_pack("{s:s,s:s,s:s}", "name", cv_step_name(i),
				     "status", cv_check_name(v->step[i].status),
				     "reason", v->step[i].reason));
	o = cv_json_pack(
		"{s:s,s:b,s:b,s:o,s:I,s:I,s:i,s:s,s:i,s:i,s:f}", "id", v->id,
		"ok", cv_validation_failed(v) < 0, "cached", v->cached, "steps",
		steps, "cudnn_version", (int64_t)v->cudnn_version,
		"cudart_version", (int64_t)v->cudart_version, "driver_version",
		v->driver_version, "gpu", v->gpu, "cc_major", v->cc_major,
		"cc_minor", v->cc_minor, "max_err", v->max_err);
	s = o ? cv_json_dumps(o, CV_JSON_COMPACT) : NULL;
	cv_json_decref(o);
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
fill_from_json(struct cv_validation *v, struct cv_json *o)
{
	struct cv_json *steps = cv_json_object_get(o, "steps"), *e;
	size_t i;

	copy_str(v->id, sizeof v->id,
		 cv_json_string_value(cv_json_object_get(o, "id")));
	cv_json_array_foreach(steps, i, e)
	{
		if (i >= CV_NSTEPS)
			break;
		v->step[i].status = cv_check_from_name(
			cv_json_string_value(cv_json_object_get(e, "status")));
		copy_str(v->step[i].reason, sizeof v->step[i].reason,
			 cv_json_string_value(cv_json_object_get(e, "reason")));
	}
	v->cudnn_version = (long)cv_json_integer_value(
		cv_json_object_get(o, "cudnn_version"));
	v->cudart_version = (long)cv_json_integer_value(
		cv_json_object_get(o, "cudart_version"));
	v->driver_version = (int)cv_json_integer_value(
		cv_json_object_get(o, "driver_version"));
	copy_str(v->gpu, sizeof v->gpu,
		 cv_json_string_value(cv_json_object_get(o, "gpu")));
	v->cc_major =
		(int)cv_json_integer_value(cv_json_object_get(o, "cc_major"));
	v->cc_minor =
		(int)cv_json_integer_value(cv_json_object_get(o, "cc_minor"));
	v->max_err = cv_json_real_value(cv_json_object_get(o, "max_err"));
}

int
cv_validation_from_json(const char *text, struct cv_validation *out)
{
	struct cv_json *o = cv_json_loads(text, 0, NULL);

	if (!cv_json_is_object(o) ||
	    !cv_json_is_array(cv_json_object_get(o, "steps"))) {
		cv_json_decref(o);
		return -1;
	}
	memset(out, 0, sizeof *out);
	fill_from_json(out, o);
	cv_json_decref(o);
	for (int i = 0; i < CV_NSTEPS; i++)
		if (out->step[i].status == CV_CHECK_NONE)
			return -1;
	return 0;
}
