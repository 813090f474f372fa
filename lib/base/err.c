/* err.c: error values and their mapping to documented exit statuses. */
#include "base/base_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the Windows C runtime has neither; nothing there inherits by exec */
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

static void
vset(struct cv_err *err, int code, const char *suffix, const char *fmt,
     va_list ap)
{
	char raw[CV_ERR_MSGSIZE];
	size_t len, j = 0;

	err->code = code;
	err->hint[0] = '\0';
	vsnprintf(raw, sizeof raw, fmt, ap);
	if (suffix != NULL) {
		len = strlen(raw);
		snprintf(raw + len, sizeof raw - len, ": %s", suffix);
	}
	/* One line, always: a newline from a hostile name must not split the
	 * message a user or script reads. It is shown as \x0a, the way the
	 * front end shows every other control character. */
	for (const char *p = raw; *p && j + 5 < sizeof err->msg; p++) {
		if (*p == '\n' || *p == '\r')
			j += (size_t)snprintf(err->msg + j, sizeof err->msg - j,
					      "\\x%02x", (unsigned char)*p);
		else
			err->msg[j++] = *p;
	}
	err->msg[j] = '\0';
}

int
cv_err_set(struct cv_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	va_start(ap, fmt);
	vset(err, code, NULL, fmt, ap);
	va_end(ap);
	return code;
}

int
cv_err_errno(struct cv_err *err, int code, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (err == NULL)
		return code;
	va_start(ap, fmt);
	vset(err, code, strerror(saved), fmt, ap);
	va_end(ap);
	errno = saved;
	return code;
}

int
cv_err_hint(struct cv_err *err, const char *fmt, ...)
{
	char line[CV_ERR_HINTSIZE];
	size_t used, len;
	va_list ap;
	int n;

	if (err == NULL)
		return CV_ERROR;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	used = strlen(err->hint);
	len = n < 0 ? 0 : (size_t)n;
	/* a cut command would run as something else: all of it or none */
	if (len == 0 || len >= sizeof line || strchr(line, '\n') != NULL ||
	    used + len + 2 > sizeof err->hint)
		return err->code;
	memcpy(err->hint + used, line, len);
	err->hint[used + len] = '\n';
	err->hint[used + len + 1] = '\0';
	return err->code;
}

int
cv_err_prefix(struct cv_err *err, const char *fmt, ...)
{
	char old[CV_ERR_MSGSIZE];
	va_list ap;
	size_t len;

	if (err == NULL)
		return CV_ERROR;
	memcpy(old, err->msg, sizeof old);
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof err->msg - len, "%s", old);
	return err->code;
}

int
cv_code_from_errno(int errnum)
{
	switch (errnum) {
	case ENOSPC:
#ifdef EDQUOT /* Windows has no quotas errno */
	case EDQUOT:
#endif
	case EIO:
	case EFBIG:
		return CV_EIO;
	case EACCES:
	case EPERM:
		return CV_EPERM;
	case EROFS:
		return CV_ESTORE;
	case ENOENT:
		return CV_ENOTFOUND;
	case EINTR:
		return CV_EINTR;
	default:
		return CV_ERROR;
	}
}

int
cv_exit_status(int code)
{
	switch (code) {
	case CV_OK:
		return 0;
	case CV_EUSAGE:
		return 64;
	case CV_EDATA:
		return 65;
	case CV_ENETWORK:
		return 69;
	case CV_ESTORE:
		return 73;
	case CV_EIO:
		return 74;
	case CV_ELOCKED:
		return 75;
	case CV_EPERM:
		return 77;
	case CV_ECONFIG:
		return 78;
	case CV_EINTR:
		return 130;
	default:
		return 1;
	}
}

void
cv_checkpoint(const char *name)
{
	const char *want = getenv("CUDNNVM_TEST_CHECKPOINT");
	const char *file;
	int fd;

	if (want == NULL || strcmp(want, name) != 0)
		return;
	file = getenv("CUDNNVM_TEST_CHECKPOINT_FILE");
	if (file != NULL) {
		fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	/* a test that must let the process go on past the point (a race
	 * made deterministic) names a FIFO: opening it waits for the test
	 * to open its end, and its end closed lets the process go on */
	file = getenv("CUDNNVM_TEST_CHECKPOINT_RESUME");
	if (file != NULL && (fd = open(file, O_RDONLY | O_CLOEXEC)) >= 0) {
		char buf[64];
		while (read(fd, buf, sizeof buf) > 0)
			;
		close(fd);
		return;
	}
	for (;;)
		sleep(3600); /* pause() is POSIX only */
}

/* Warnings: lib/ never prints, so a warning that must reach the user
 * while the work goes on (a build of another CUDA variant taken) goes to
 * the sink the front end installed. The same text is passed on once per
 * process however often the decision is made. */
static void (*warn_sink)(void *payload, const char *msg);
static void *warn_payload;
static unsigned long warned[16];
static size_t nwarned;

void
cv_warn_sink(void (*sink)(void *payload, const char *msg), void *payload)
{
	warn_sink = sink;
	warn_payload = payload;
}

int
cv_warn_enabled(void)
{
	return warn_sink != NULL;
}

void
cv_warn(const char *fmt, ...)
{
	struct cv_err e;
	unsigned long h = 5381;
	va_list ap;

	if (warn_sink == NULL)
		return;
	va_start(ap, fmt);
	vset(&e, CV_OK, NULL, fmt, ap);
	va_end(ap);
	for (const char *p = e.msg; *p; p++)
		h = h * 33 + (unsigned char)*p;
	for (size_t i = 0; i < nwarned; i++)
		if (warned[i] == h)
			return;
	if (nwarned < sizeof warned / sizeof *warned)
		warned[nwarned++] = h;
	warn_sink(warn_payload, e.msg);
}
