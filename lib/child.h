/* child.h: the one way cudnnvm starts another program and waits for it
 * (the install `use` runs, the framework probe, validation's probe child,
 * ldconfig, python3). Public: cmd/ starts children through it too. */
#ifndef CUDNNVM_CHILD_H
#define CUDNNVM_CHILD_H

#include <signal.h>
#include <stddef.h>

struct cv_err;
struct cv_buf;

#define CV_CHILD_SEARCH_PATH 0x1 /* argv[0] without a slash: look in PATH */
#define CV_CHILD_STDIN_NULL  0x2 /* stdin from /dev/null */
#define CV_CHILD_STDERR_NULL 0x4 /* stderr to /dev/null (when not kept) */

struct cv_child {
	const char *const *argv; /* argv[0] is the program, unless path */
	const char *path;        /* NULL: argv[0] */
	char *const *envp;       /* NULL: this process's environment */
	unsigned flags;          /* CV_CHILD_* */
	unsigned timeout_s;      /* 0: none; else SIGKILL once it passes */
	/* stdout and stderr kept here (NULL: inherited). A buffer with a
	 * max that fills starts over, so it holds the tail. */
	struct cv_buf *out, *err;
	/* Or stdout handed over as it arrives: a nonzero return stops the
	 * reading there and the child is left to finish on its own (reaped
	 * when it is already gone). */
	int (*on_out)(void *arg, const char *data, size_t n);
	void *arg;
	/* Polled while waiting: once set, the child is killed (CV_EINTR). */
	volatile sig_atomic_t *stop;
	/* Set by cv_child_run. */
	int timed_out; /* killed because timeout_s passed */
	int signal;    /* the signal that ended it, 0 when it exited */
	int left;      /* on_out stopped the reading; not waited for */
};
#define CV_CHILD_INIT \
	{             \
		0     \
	}

/* This executable's path (PATH_MAX bytes), for a child that must be the
 * same cudnnvm; CV_ERROR when /proc/self/exe cannot be read. */
int cv_child_self(char *buf, struct cv_err *err);

/* Start c->argv and wait for it. Returns its exit status (0..255), 128+N
 * when signal N ended it (a timeout is 128+SIGKILL with timed_out set),
 * 0 when on_out stopped early; or a negative cv_code with err set when it
 * could not be started (its exec failing included), CV_EINTR on *stop. */
int cv_child_run(struct cv_child *c, struct cv_err *err);

#endif
