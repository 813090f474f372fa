/* version.c: the strict spec grammar, numeric comparison and matching.
 * Every user string is checked here before it reaches a path, a URL, a lock
 * name or an env script. */
#include "base/base_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copy a hostile string into a message without control bytes. */
static void
printable(char *out, size_t n, const char *s)
{
	size_t i = 0;

	for (; *s && i + 4 < n; s++) {
		unsigned char c = (unsigned char)*s;
		out[i++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (*s && i + 4 >= n) {
		memcpy(out + i, "...", 3);
		i += 3;
	}
	out[i] = '\0';
}

static int
bad_spec(struct cv_err *err, const char *s, const char *why)
{
	char shown[64];

	printable(shown, sizeof shown, s);
	return cv_err_set(
		err, CV_EUSAGE,
		"invalid version '%s': %s (expected e.g. 9, 9.13, 9.13.0.50, 9.13-cuda12 or latest)",
		shown, why);
}

/* Read up to `maxdigits` ASCII digits; no leading zero unless "0". */
static int
read_number(const char **p, int maxdigits, unsigned long *out)
{
	const char *s = *p;
	unsigned long v = 0;
	int n = 0;

	while (*s >= '0' && *s <= '9') {
		if (++n > maxdigits)
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
		s++;
	}
	if (n == 0 || (n > 1 && **p == '0'))
		return -1;
	*out = v;
	*p = s;
	return 0;
}

/* The end of spec `s` at p: nothing, or "-cudaN" (N > 0) into out->cuda. */
static int
cuda_suffix(struct cv_version *out, const char *p, const char *s,
	    struct cv_err *err)
{
	unsigned long cuda;

	if (strncmp(p, "-cuda", 5) == 0) {
		p += 5;
		if (read_number(&p, 3, &cuda) < 0 || cuda == 0)
			return bad_spec(err, s, "bad CUDA major");
		out->cuda = (int)cuda;
	}
	if (*p != '\0')
		return bad_spec(err, s, "unexpected characters");
	return 0;
}

int
cv_version_parse(struct cv_version *out, const char *s, struct cv_err *err)
{
	const char *p = s;

	memset(out, 0, sizeof *out);
	if (s == NULL || *s == '\0')
		return bad_spec(err, "", "empty");
	if (strlen(s) > 40)
		return bad_spec(err, s, "too long");
	if (read_number(&p, 3, &out->part[0]) < 0)
		return bad_spec(err, s, "not a version number");
	out->nparts = 1;
	while (*p == '.') {
		p++;
		if (out->nparts == CV_VERSION_MAXPARTS)
			return bad_spec(err, s, "more than 4 parts");
		if (read_number(&p, 5, &out->part[out->nparts]) < 0)
			return bad_spec(err, s, "not a version number");
		out->nparts++;
	}
	return cuda_suffix(out, p, s, err);
}

int
cv_spec_parse(struct cv_version *out, const char *s, struct cv_err *err)
{
	if (s == NULL || strncmp(s, "latest", 6) != 0)
		return cv_version_parse(out, s, err);
	memset(out, 0, sizeof *out);
	return cuda_suffix(out, s + 6, s, err);
}

int
cv_install_id_parse(struct cv_version *out, const char *s, struct cv_err *err)
{
	int r = cv_version_parse(out, s, err);

	if (r < 0)
		return r;
	if (out->nparts != 4 || out->cuda == 0)
		return bad_spec(err, s, "an install id has 4 parts and -cudaN");
	return 0;
}

int
cv_version_cmp(const struct cv_version *a, const struct cv_version *b)
{
	int n = a->nparts > b->nparts ? a->nparts : b->nparts;

	for (int i = 0; i < n; i++) {
		unsigned long x = i < a->nparts ? a->part[i] : 0;
		unsigned long y = i < b->nparts ? b->part[i] : 0;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return (a->nparts > b->nparts) - (a->nparts < b->nparts);
}

int
cv_version_matches(const struct cv_version *spec, const struct cv_version *v)
{
	if (spec->nparts > v->nparts)
		return 0;
	for (int i = 0; i < spec->nparts; i++)
		if (spec->part[i] != v->part[i])
			return 0;
	return spec->cuda == 0 || spec->cuda == v->cuda;
}

void
cv_version_format(const struct cv_version *v, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	if (v->nparts == 0) {
		snprintf(buf, n, "latest");
		return;
	}
	for (int i = 0; i < v->nparts && len < n; i++) {
		int w = snprintf(buf + len, n - len, i ? ".%lu" : "%lu",
				 v->part[i]);
		if (w < 0)
			return;
		len += (size_t)w;
	}
}

void
cv_version_format_id(const struct cv_version *v, char *buf, size_t n)
{
	size_t len;

	cv_version_format(v, buf, n);
	len = strlen(buf);
	if (v->cuda && len < n)
		snprintf(buf + len, n - len, "-cuda%d", v->cuda);
}

long
cv_version_cudnn_number(const struct cv_version *v)
{
	long major = (long)v->part[0], minor = (long)v->part[1];
	long patch = (long)v->part[2];

	if (major >= 9)
		return major * 10000 + minor * 100 + patch;
	return major * 1000 + minor * 100 + patch;
}

int
cv_cuda_major_parse(const char *s, int *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (*s < '1' || *s > '9' || *end != '\0' || errno || n > 999)
		return -1;
	*out = (int)n;
	return 0;
}

int
cv_spec_with_cuda(struct cv_version *spec, const char *cuda_arg,
		  struct cv_err *err)
{
	int cuda;

	if (cuda_arg == NULL)
		return 0;
	if (cv_cuda_major_parse(cuda_arg, &cuda) < 0)
		return cv_err_set(err, CV_EUSAGE,
				  "--cuda needs a CUDA major such as 12, not "
				  "'%.20s'",
				  cuda_arg);
	if (spec->cuda != 0 && spec->cuda != cuda)
		return cv_err_set(err, CV_EUSAGE,
				  "the spec says cuda%d and --cuda %d: they "
				  "disagree",
				  spec->cuda, cuda);
	spec->cuda = cuda;
	return 0;
}

int
cv_version_dotted(const char *v)
{
	if (v[0] < '0' || v[0] > '9')
		return 0;
	for (; *v; v++)
		if (!((*v >= '0' && *v <= '9') ||
		      (*v == '.' && v[1] >= '0' && v[1] <= '9')))
			return 0;
	return 1;
}
