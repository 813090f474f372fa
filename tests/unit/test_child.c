/* test_child.c: the one way a program is started: exit statuses, signals,
 * kept output, a timeout, an early stop by the reader, and a program that
 * cannot start being an error rather than a status. */
#include "base/base.h"
#include "tap.h"

#include <signal.h>
#include <string.h>
#include <time.h>

static int
sh(const char *script, struct cv_child *c, struct cv_err *err)
{
	static const char *argv[4];

	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = NULL;
	c->argv = argv;
	return cv_child_run(c, err);
}

static int
stop_at_done(void *arg, const char *data, size_t n)
{
	struct cv_buf *seen = arg;

	cv_buf_add(seen, data, n);
	return strstr(seen->buf, "done") != NULL;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(void)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_buf out = CV_BUF_INIT, errb = CV_BUF_INIT;
	struct cv_child c = CV_CHILD_INIT;
	const char *nothing[] = { "/nonexistent/cudnnvm-test", NULL };
	const char *env_argv[] = { "sh", "-c", "printf %s \"$X\"", NULL };
	char *const envp[] = { (char *)"X=from-envp", NULL };
	volatile sig_atomic_t stop = 1;
	double t0;

	CHECK(sh("exit 0", &c, &err) == 0);
	CHECK(sh("exit 7", &c, &err) == 7);
	CHECK(sh("kill -TERM $$", &c, &err) == 128 + SIGTERM);
	CHECK(c.signal == SIGTERM);

	c.out = &out;
	c.err = &errb;
	CHECK(sh("echo one; echo two >&2", &c, &err) == 0);
	CHECK(strcmp(out.buf, "one\n") == 0);
	CHECK(strcmp(errb.buf, "two\n") == 0);

	/* a bounded buffer keeps the tail */
	cv_buf_reset(&errb);
	errb.max = 8;
	CHECK(sh("printf 0123456789 >&2; printf tail >&2", &c, &err) == 0);
	CHECK(errb.len <= 8);

	memset(&c, 0, sizeof c);
	cv_buf_reset(&out);
	c.out = &out;
	c.timeout_s = 1;
	t0 = now();
	CHECK(sh("exec sleep 30", &c, &err) == 128 + SIGKILL);
	CHECK(c.timed_out == 1);
	CHECK(now() - t0 < 10);

	memset(&c, 0, sizeof c);
	cv_buf_reset(&out);
	c.on_out = stop_at_done;
	c.arg = &out;
	t0 = now();
	CHECK(sh("echo done; sleep 2", &c, &err) == 0);
	CHECK(now() - t0 < 1.5);

	memset(&c, 0, sizeof c);
	c.stop = &stop;
	CHECK(sh("exec sleep 30", &c, &err) == CV_EINTR);

	memset(&c, 0, sizeof c);
	c.argv = nothing;
	CHECK(cv_child_run(&c, &err) == CV_ENOTFOUND);
	CHECK(strstr(err.msg, "cannot run '/nonexistent/cudnnvm-test'") !=
	      NULL);

	memset(&c, 0, sizeof c);
	cv_buf_reset(&out);
	c.argv = env_argv;
	c.envp = envp;
	c.flags = CV_CHILD_SEARCH_PATH;
	c.out = &out;
	CHECK(cv_child_run(&c, &err) == 0);
	CHECK(strcmp(out.buf, "from-envp") == 0);

	cv_buf_release(&out);
	cv_buf_release(&errb);
	return TEST_DONE();
}
