/* child.c: the one way cudnnvm starts a program: what it writes kept in
 * buffers or handed to a callback, a deadline, an early stop, and what its
 * end means (an exit status, 128 + a signal, CV_EINTR when stopped). How
 * the program starts and is waited for is the platform's: cv_child_run
 * of child_posix.c (posix_spawn, poll, waitpid) and of child_win32.c
 * (CreateProcessW, reader threads, a job object), which hand what it
 * wrote and how it ended to the functions here. */
#include "base/base_int.h"

#include <limits.h>
#include <string.h>

/* Keep n bytes of a stream; a full bounded buffer starts over. */
static void
keep(struct cv_buf *b, const char *data, size_t n)
{
	if (cv_buf_add(b, data, n) < 0) {
		cv_buf_reset(b);
		cv_buf_add(b, data, n);
	}
}

int
cv_child_take(struct cv_child *c, int stream, const char *data, size_t n)
{
	if (stream == 1)
		keep(c->err, data, n);
	else if (c->out != NULL)
		keep(c->out, data, n);
	else if (c->on_out(c->arg, data, n))
		return 1;
	return 0;
}

int
cv_child_self(char *buf, struct cv_err *err)
{
	if (cv_os_self(buf, PATH_MAX) < 0)
		return cv_err_errno(err, CV_ERROR,
				    "cannot find the cudnnvm binary");
	return 0;
}

int
cv_child_end_code(struct cv_child *c, const struct cv_child_end *end,
		  struct cv_err *err)
{
	if (end->left)
		return 0;
	if (end->stopped)
		return cv_err_set(err, CV_EINTR, "interrupted");
	if (end->signal != 0) {
		c->signal = end->signal;
		return 128 + c->signal;
	}
	return end->code;
}
