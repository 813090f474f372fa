/* child_posix.c: how child.c's program starts and ends on POSIX: with
 * posix_spawn (a failed exec is an error here, not an exit status 127
 * from a forked copy), its output read with poll, waited for with a
 * deadline. */
#include "base/base_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct run {
	struct cv_child *c;
	pid_t pid;
	int fd[2]; /* read ends of stdout and stderr, -1 when closed */
	double deadline;
	int stopped, status;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
	p[0] = p[1] = -1;
}

/* The pipes and redirections the child starts with. */
static int
plan(const struct cv_child *c, posix_spawn_file_actions_t *fa, int out[2],
     int errp[2], struct cv_err *err)
{
	if ((c->out != NULL || c->on_out != NULL) && pipe2(out, O_CLOEXEC) < 0)
		return cv_err_errno(err, CV_ERROR, "cannot start '%s': pipe",
				    c->argv[0]);
	if (c->err != NULL && pipe2(errp, O_CLOEXEC) < 0) {
		close_pair(out);
		return cv_err_errno(err, CV_ERROR, "cannot start '%s': pipe",
				    c->argv[0]);
	}
	posix_spawn_file_actions_init(fa);
	if (c->flags & CV_CHILD_STDIN_NULL)
		posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY,
						 0);
	if (out[1] >= 0)
		posix_spawn_file_actions_adddup2(fa, out[1], 1);
	if (errp[1] >= 0)
		posix_spawn_file_actions_adddup2(fa, errp[1], 2);
	else if (c->flags & CV_CHILD_STDERR_NULL)
		posix_spawn_file_actions_addopen(fa, 2, "/dev/null", O_WRONLY,
						 0);
	return 0;
}

/* Read what is ready on stream i; 1 when on_out asked to stop. */
static int
drain(struct run *r, int i)
{
	char buf[8192];
	ssize_t n = read(r->fd[i], buf, sizeof buf);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		close(r->fd[i]);
		r->fd[i] = -1;
		return 0;
	}
	return cv_child_take(r->c, i, buf, (size_t)n);
}

/* Milliseconds to wait for the next event; -1: no limit. */
static int
wait_ms(const struct run *r, int cap)
{
	double left;

	if (r->c->timeout_s == 0)
		return cap;
	left = r->deadline - now_s();
	if (left <= 0)
		return 0;
	if (cap >= 0 && left * 1000 > cap)
		return cap;
	return (int)(left * 1000) + 1;
}

/* Read both streams until they close, the deadline passes or *stop. 1
 * when on_out stopped the reading. */
static int
pump(struct run *r)
{
	while (r->fd[0] >= 0 || r->fd[1] >= 0) {
		struct pollfd pf[2] = { { r->fd[0], POLLIN, 0 },
					{ r->fd[1], POLLIN, 0 } };
		int pr;

		if (r->c->stop != NULL && *r->c->stop)
			return 0;
		if (r->c->timeout_s && now_s() >= r->deadline)
			return 0;
		pr = poll(pf, 2, wait_ms(r, -1));
		if (pr < 0 && errno != EINTR)
			return 0;
		for (int i = 0; pr > 0 && i < 2; i++)
			if (pf[i].fd >= 0 &&
			    (pf[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
			    drain(r, i))
				return 1;
	}
	return 0;
}

/* Wait for the exit; kill the child on the deadline or *stop. */
static int
reap(struct run *r, struct cv_err *err)
{
	int timed = r->c->timeout_s != 0 || r->c->stop != NULL;

	for (;;) {
		pid_t w;

		if (r->c->stop != NULL && *r->c->stop && !r->stopped) {
			r->stopped = 1;
			kill(r->pid, SIGKILL);
		} else if (r->c->timeout_s && !r->c->timed_out &&
			   now_s() >= r->deadline) {
			r->c->timed_out = 1;
			kill(r->pid, SIGKILL);
		}
		w = waitpid(r->pid, &r->status, timed ? WNOHANG : 0);
		if (w == r->pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return cv_err_errno(err, CV_ERROR,
					    "cannot wait for '%s'",
					    r->c->argv[0]);
		if (w == 0) {
			int ms = wait_ms(r, 20);
			struct timespec ts = { 0, (long)(ms < 0 ? 20 : ms) *
							  1000000L };
			nanosleep(&ts, NULL);
		}
	}
}

/* Start c's program, feed what it writes to cv_child_take, wait with
 * c's deadline and stop flag: 0 and *end, or <0 (err) when it could not
 * start or be waited for. */
static int
run_child(struct cv_child *c, struct cv_child_end *end, struct cv_err *err)
{
	posix_spawn_file_actions_t fa;
	struct run r = { c, -1, { -1, -1 }, 0, 0, 0 };
	int out[2] = { -1, -1 }, errp[2] = { -1, -1 }, e;

	const char *path = c->path != NULL ? c->path : c->argv[0];

	if (plan(c, &fa, out, errp, err) < 0)
		return err != NULL ? err->code : CV_ERROR;
	e = (c->flags & CV_CHILD_SEARCH_PATH ? posix_spawnp : posix_spawn)(
		&r.pid, path, &fa, NULL, (char *const *)c->argv,
		c->envp != NULL ? c->envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	r.fd[0] = out[0];
	r.fd[1] = errp[0];
	if (out[1] >= 0)
		close(out[1]);
	if (errp[1] >= 0)
		close(errp[1]);
	if (e != 0) {
		close_pair(r.fd);
		errno = e;
		return cv_err_errno(err, e == ENOENT ? CV_ENOTFOUND : CV_ERROR,
				    "cannot run '%s'", path);
	}
	r.deadline = now_s() + c->timeout_s;
	if (pump(&r)) {
		/* said all it had to say: not waited for */
		close_pair(r.fd);
		c->left = waitpid(r.pid, &r.status, WNOHANG) != r.pid;
		end->left = 1;
		return 0;
	}
	close_pair(r.fd);
	if (reap(&r, err) < 0)
		return err != NULL ? err->code : CV_ERROR;
	end->stopped = r.stopped;
	if (WIFSIGNALED(r.status))
		end->signal = WTERMSIG(r.status);
	else
		end->code = WEXITSTATUS(r.status);
	return 0;
}

int
cv_child_run(struct cv_child *c, struct cv_err *err)
{
	struct cv_child_end end = { 0, 0, 0, 0 };
	int r;

	c->timed_out = c->left = c->signal = 0;
	if ((r = run_child(c, &end, err)) < 0)
		return r;
	return cv_child_end_code(c, &end, err);
}
