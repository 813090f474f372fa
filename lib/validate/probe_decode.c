/* probe_decode.c: what the validation child (probe.c, and probe_win32.c
 * on Windows) and its parent share: cudnnGetVersion()'s number read the
 * same way, the driver a CUDA variant needs, and the child's JSON lines
 * (cv_probe_lines).
 * Kept apart from probe.c so that both probes share them. */
#include "validate/validate_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long
cv_probe_decode(long v, int *maj, int *min, int *patch)
{
	if (v >= 90000) {
		*maj = (int)(v / 10000);
		*min = (int)(v / 100 % 100);
	} else {
		*maj = (int)(v / 1000);
		*min = (int)(v / 100 % 10);
	}
	*patch = (int)(v % 100);
	return v;
}

int
cv_probe_min_driver(int cuda)
{
	/* cuDriverGetVersion() of the oldest driver that runs the variant
	 * (CUDA 11: r450.80.02, 12: r525.60.13, 13: r580.65.06). */
	if (cuda >= 10 && cuda <= 20)
		return cuda * 1000;
	return 0;
}

void
cv_probe_emit(int fd, struct cv_json *o)
{
	char *s = cv_json_dumps(o, CV_JSON_COMPACT);
	cv_json_decref(o);
	if (s == NULL)
		return;
	/* the line ends even after a short write, as the reader splits on it */
	cv_os_write_all(fd, s, strlen(s));
	cv_os_write_all(fd, "\n", 1);
	free(s);
}

/* `s` as JSON can carry it: cv_json refuses a string that is not UTF-8,
 * and a folder name needs not be (a store under a folder named in
 * Latin-1), nor a reason cut at its size in the middle of a character.
 * Such bytes become the text \xNN, as the front end shows them anyway.
 * xmalloc'd. */
static char *
utf8_text(const char *s)
{
	struct cv_buf b = CV_BUF_INIT;
	const unsigned char *u = (const unsigned char *)s;
	size_t n;

	for (; *u; u += n) {
		if ((n = cv_utf8_seq(u)) > 0) {
			cv_buf_add(&b, u, n);
		} else {
			cv_buf_addf(&b, "\\x%02x", *u);
			n = 1;
		}
	}
	return cv_buf_detach(&b);
}

static void
line_phase(void *payload, int step, const char *what)
{
	char *text = utf8_text(what);

	cv_probe_emit(*(int *)payload,
		      cv_json_pack("{s:s,s:i,s:s}", "k", "phase", "step", step,
				   "what", text));
	free(text);
}

static void
line_fact(void *payload, const char *name, long value)
{
	cv_probe_emit(*(int *)payload,
		      cv_json_pack("{s:s,s:s,s:I}", "k", "fact", "name", name,
				   "value", (int64_t)value));
}

static void
line_fact_text(void *payload, const char *name, const char *value)
{
	char *text = utf8_text(value);

	cv_probe_emit(*(int *)payload,
		      cv_json_pack("{s:s,s:s,s:s}", "k", "fact", "name", name,
				   "value", text));
	free(text);
}

static void
line_fact_real(void *payload, const char *name, double value)
{
	cv_probe_emit(*(int *)payload,
		      cv_json_pack("{s:s,s:s,s:f}", "k", "fact", "name", name,
				   "value", value));
}

static void
line_result(void *payload, int step, int status, const char *text)
{
	char *t = utf8_text(text);

	cv_probe_emit(*(int *)payload,
		      cv_json_pack("{s:s,s:i,s:s,s:s}", "k", "step", "step",
				   step, "status", cv_check_name(status),
				   "reason", t));
	free(t);
}

struct cv_probe_sink
cv_probe_lines(int *fd)
{
	struct cv_probe_sink s = {
		.phase = line_phase,
		.fact = line_fact,
		.result = line_result,
		.payload = fd,
		.fact_text = line_fact_text,
		.fact_real = line_fact_real,
	};
	return s;
}

void
cv_probe_say(const struct cv_probe_sink *s, int step, int status,
	     const char *fmt, ...)
{
	char text[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	s->result(s->payload, step, status, text);
}

void
cv_probe_phase(const struct cv_probe_sink *s, int step, const char *what)
{
	if (s->phase != NULL)
		s->phase(s->payload, step, what);
}
