/* ui.c: error lines, notes and the progress bar. */
#include "ui.h"
#include "cmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int
cmd_fail(const struct cv_err *err)
{
	fprintf(stderr, "cudnnvm: %s\n",
		err->msg[0] ? err->msg : "unknown error");
	return cv_exit_status(err->code) ? cv_exit_status(err->code) : 1;
}

int
cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	const struct cmd_spec *spec = cmd_find(cmd);
	va_list ap;

	fputs("cudnnvm: ", stderr);
	if (cmd != NULL)
		fprintf(stderr, "%s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (spec != NULL && strchr(spec->usage, '\n') != NULL)
		/* one line, always: a command with several forms points to
		 * its help instead */
		fprintf(stderr, "; see 'cudnnvm %s --help'\n", spec->name);
	else if (spec != NULL)
		fprintf(stderr, "; usage: cudnnvm %s\n", spec->usage);
	else
		fputs("; see 'cudnnvm help'\n", stderr);
	return 64;
}

static void
vnote(const char *prefix, const char *fmt, va_list ap)
{
	if (cmd_g.quiet)
		return;
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
ui_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote("cudnnvm: warning: ", fmt, ap);
	va_end(ap);
}

void
ui_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote("", fmt, ap);
	va_end(ap);
}

int
ui_is_tty(void)
{
	return isatty(2);
}

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double progress_start, progress_last;
static int progress_drawn;

static void
human(char *out, size_t n, double bytes)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	snprintf(out, n, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

void
ui_progress(void *payload, uint64_t done, uint64_t total)
{
	double t = now_seconds(), rate, eta;
	char d[32], tot[32], r[32];

	(void)payload;
	if (cmd_g.quiet || !ui_is_tty())
		return;
	if (progress_start == 0)
		progress_start = t;
	if (t - progress_last < 0.1 && done != total)
		return;
	progress_last = t;
	rate = t > progress_start ? (double)done / (t - progress_start) : 0;
	human(d, sizeof d, (double)done);
	human(r, sizeof r, rate);
	if (total) {
		int pct = (int)(done * 100 / total), width = 30;
		int fill = pct * width / 100;
		human(tot, sizeof tot, (double)total);
		eta = rate > 0 ? (double)(total - done) / rate : 0;
		fprintf(stderr,
			"\r[%.*s%*s] %3d%% %s / %s  %s/s  ETA %02d:%02d ", fill,
			"##############################", width - fill, "", pct,
			d, tot, r, (int)eta / 60, (int)eta % 60);
	} else {
		fprintf(stderr, "\r%s  %s/s ", d, r);
	}
	progress_drawn = 1;
}

void
ui_progress_done(void)
{
	if (progress_drawn)
		fputs("\n", stderr);
	progress_drawn = 0;
	progress_start = progress_last = 0;
}
