/* ui.c: error lines, notes and the progress bar. */
#include "ui.h"
#include "cmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Length of the well-formed UTF-8 sequence at s that is not a C1 control
 * (U+0080-U+009F, which terminals obey like ESC), or 0. */
static size_t
printable_utf8(const unsigned char *s)
{
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xc2 && s[1] < 0xa0)
		return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Everything that reaches the terminal passes here: folder names, pin
 * files, CUDNNVM_VERSION and archive entries can hold escapes that would
 * retitle the terminal or forge a second line, so control characters
 * (C0, DEL, C1) and bytes that are not UTF-8 are shown as \xNN. */
void
ui_put_escaped(FILE *f, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;

	while (*s) {
		size_t n;
		if (*s >= 0x20 && *s < 0x7f) {
			fputc(*s++, f);
		} else if (*s >= 0x80 && (n = printable_utf8(s)) > 0) {
			fwrite(s, 1, n, f);
			s += n;
		} else {
			fprintf(f, "\\x%02x", *s++);
		}
	}
}

static void
vline(const char *prefix, const char *fmt, va_list ap)
{
	char *text = NULL;

	fputs(prefix, stderr);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	ui_put_escaped(stderr, text ? text : "(out of memory)");
	free(text);
	fputc('\n', stderr);
}

void
ui_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("cudnnvm: ", fmt, ap);
	va_end(ap);
}

int
cmd_fail(const struct cv_err *err)
{
	ui_error("%s", err->msg[0] ? err->msg : "unknown error");
	return cv_exit_status(err->code) ? cv_exit_status(err->code) : 1;
}

int
cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	const struct cmd_spec *spec = cmd_find(cmd);
	char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (spec != NULL && strchr(spec->usage, '\n') != NULL)
		/* one line, always: a command with several forms points to
		 * its help instead */
		ui_error("%s: %s; see 'cudnnvm %s --help'", cmd,
			 text ? text : "", spec->name);
	else if (spec != NULL)
		ui_error("%s: %s; usage: cudnnvm %s", cmd, text ? text : "",
			 spec->usage);
	else if (cmd != NULL)
		ui_error("%s: %s; see 'cudnnvm help'", cmd, text ? text : "");
	else
		ui_error("%s; see 'cudnnvm help'", text ? text : "");
	free(text);
	return 64;
}

static void
vnote(const char *prefix, const char *fmt, va_list ap)
{
	if (cmd_g.quiet)
		return;
	vline(prefix, fmt, ap);
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

void
ui_waiting(void *payload, const char *what)
{
	(void)payload;
	ui_note("cudnnvm: waiting for another cudnnvm %s", what);
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
