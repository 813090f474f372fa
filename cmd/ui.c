/* ui.c: error lines, notes, colour and the progress bar. */
#include "ui.h"
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

#define RED    "\033[31m"
#define YELLOW "\033[33m"
#define GREEN  "\033[32m"
#define CYAN   "\033[36m"
#define BOLD   "\033[1m"
#define RESET  "\033[0m"

static int
env_set(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0';
}

int
ui_color(FILE *f)
{
	const char *term = getenv("TERM"), *force = getenv("CLICOLOR_FORCE");

	/* no-color.org: a user's NO_COLOR outranks a program's
	 * CLICOLOR_FORCE */
	if (!cmd_g.color || env_set("NO_COLOR"))
		return 0;
	if (force != NULL && *force != '\0' && strcmp(force, "0") != 0)
		return 1;
	return cv_os_term_colors(fileno(f)) &&
	       !(term != NULL && strcmp(term, "dumb") == 0);
}

/* text between esc and RESET when f is coloured, in one of a few
 * buffers that each thread reuses in turn */
static const char *
paint_as(FILE *f, const char *text, const char *esc)
{
	static _Thread_local char ring[8][64];
	static _Thread_local unsigned next;
	char *out;

	if (esc == NULL || !ui_color(f) ||
	    strlen(text) + strlen(esc) + sizeof RESET > sizeof ring[0])
		return text;
	out = ring[next++ % 8];
	snprintf(out, sizeof ring[0], "%s%s%s", esc, text, RESET);
	return out;
}

const char *
ui_paint(FILE *f, const char *word)
{
	static const struct {
		const char *word, *esc;
	} paints[] = {
		{ "error", BOLD RED }, { "fail", RED },   { "warning", YELLOW },
		{ "skip", YELLOW },    { "pass", GREEN }, { "ok", GREEN },
		{ "info", CYAN },      { "hint", CYAN },  { "*", BOLD GREEN },
		{ ">", BOLD GREEN },
	};
	size_t len = strcspn(word, ":");

	/* "warning:" is painted as "warning" */
	for (size_t i = 0; i < sizeof paints / sizeof *paints; i++)
		if (strncmp(word, paints[i].word, len) == 0 &&
		    paints[i].word[len] == '\0')
			return paint_as(f, word, paints[i].esc);
	return word;
}

static void
vline_to(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	char *text;

	fputs(prefix, f);
	/* base's, as vasprintf is GNU's (not in mingw's C library) */
	text = xvasprintf(fmt, ap);
	ui_put_escaped(f, text);
	free(text);
	fputc('\n', f);
}

static void
vline(const char *prefix, const char *fmt, va_list ap)
{
	vline_to(stderr, prefix, fmt, ap);
}

void
ui_print(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline_to(f, "", fmt, ap);
	va_end(ap);
}

void
ui_error(const char *fmt, ...)
{
	va_list ap;
	char prefix[64];

	snprintf(prefix, sizeof prefix, "%s ",
		 paint_as(stderr, "cudnnvm:", BOLD RED));
	va_start(ap, fmt);
	vline(prefix, fmt, ap);
	va_end(ap);
}

void
ui_hints(const struct cv_err *err)
{
	const char *p = err->hint;

	/* each on a line of its own, so that it can be copied whole */
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[CV_ERR_HINTSIZE];

		snprintf(line, sizeof line, "%.*s", (int)len, p);
		ui_hint_line(line);
		p += len + (nl != NULL);
	}
}

void
ui_hint_line(const char *text)
{
	fputs(ui_paint(stderr, "hint:"), stderr);
	fputc(' ', stderr);
	ui_put_escaped(stderr, text);
	fputc('\n', stderr);
}

int
cmd_fail(const struct cv_err *err)
{
	ui_error("%s", err->msg[0] ? err->msg : "unknown error");
	ui_hints(err);
	return cv_exit_status(err->code) ? cv_exit_status(err->code) : 1;
}

int
cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	const struct cmd_spec *spec = cmd_find(cmd);
	char *text;
	va_list ap;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
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

int
ui_verdict(int r, const struct cv_err *err, const struct cv_verdict *v)
{
	if (r < 0)
		return cmd_fail(err);
	for (int i = 0; i < v->n; i++) {
		const char *text = v->line[i].text;
		if (v->line[i].say == CV_SAY_NOTE)
			ui_note("%s", text);
		else if (v->line[i].say == CV_SAY_WARN)
			ui_warn("%s", text);
		else if (v->line[i].say == CV_SAY_HINT)
			ui_hint_line(text);
		else
			ui_error("%s", text);
	}
	return v->refused;
}

void
ui_warn(const char *fmt, ...)
{
	va_list ap;
	char prefix[96];

	snprintf(prefix, sizeof prefix, "cudnnvm: %s ",
		 ui_paint(stderr, "warning:"));
	va_start(ap, fmt);
	vnote(prefix, fmt, ap);
	va_end(ap);
}

static char *held[8];
static size_t nheld;

void
ui_warn_later(void *payload, const char *msg)
{
	char *copy = strdup(msg);

	if (copy != NULL && nheld < sizeof held / sizeof *held)
		held[nheld++] = copy;
	else
		free(copy);
}

void
ui_warnings_flush(void)
{
	for (size_t i = 0; i < nheld; i++) {
		ui_warn("%s", held[i]);
		free(held[i]);
	}
	nheld = 0;
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
	return cv_os_isatty(2);
}

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The progress line. The rate is measured over the last RATE_WINDOW
 * seconds (a ring of samples), so it follows the network and is not
 * "0 B/s" until a first big buffer arrives. ui_progress is called by the
 * install's reading thread, the watch thread redraws on its own clock:
 * the mutex keeps them to one line at a time. */
#define RATE_WINDOW 5.0
#define SAMPLES     64
#define TICK_NS     200000000L

static struct {
	pthread_mutex_t mu;
	double start, last;
	int drawn;
	uint64_t done, total;
	double t[SAMPLES];
	uint64_t bytes[SAMPLES];
	int head, n;
	/* the watch */
	pthread_t th;
	int watching;
	atomic_int stop;
	uint64_t (*count)(void *);
	void *arg;
	/* whom it waits for while no byte has come (see draw) */
	char from[128];
	uint64_t first;
} pg = { .mu = PTHREAD_MUTEX_INITIALIZER };

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

/* Record (t, done) and return the rate over the window; < 0 while there
 * is not yet a span of time to measure. */
static double
sample_rate(double t, uint64_t done)
{
	int oldest;

	pg.t[pg.head] = t;
	pg.bytes[pg.head] = done;
	pg.head = (pg.head + 1) % SAMPLES;
	if (pg.n < SAMPLES)
		pg.n++;
	oldest = (pg.head - pg.n + SAMPLES) % SAMPLES;
	while (pg.n > 2 && t - pg.t[oldest] > RATE_WINDOW) {
		oldest = (oldest + 1) % SAMPLES;
		pg.n--;
	}
	if (t - pg.t[oldest] < 0.5)
		return -1;
	return (double)(done - pg.bytes[oldest]) / (t - pg.t[oldest]);
}

/* Draw with pg.mu held. */
static void
draw(double t)
{
	double rate = sample_rate(t, pg.done);
	char d[32], tot[32], r[32], eta[16];

	/* a host that accepted and sends nothing would leave a still 0 %
	 * bar until the timeout: after a second, say whom it waits for */
	if (pg.from[0] && pg.done == pg.first && t - pg.start >= 1.0) {
		fprintf(stderr, "\rwaiting for %s to answer (%d s) \033[K",
			pg.from, (int)(t - pg.start));
		pg.drawn = 1;
		pg.last = t;
		return;
	}
	human(d, sizeof d, (double)pg.done);
	if (rate >= 0) {
		human(r, sizeof r, rate);
		strcat(r, "/s");
	} else
		snprintf(r, sizeof r, "-- B/s");
	if (pg.total) {
		int pct = (int)(pg.done * 100 / pg.total), width = 30;
		int fill = pct * width / 100;
		double left =
			rate > 0 ? (double)(pg.total - pg.done) / rate : -1;
		human(tot, sizeof tot, (double)pg.total);
		if (left >= 0 && left < 100 * 3600)
			snprintf(eta, sizeof eta, "%02d:%02d", (int)left / 60,
				 (int)left % 60);
		else
			snprintf(eta, sizeof eta, "--:--");
		fprintf(stderr, "\r[%.*s%*s] %3d%% %s / %s  %s  ETA %s \033[K",
			fill, "##############################", width - fill,
			"", pct, d, tot, r, eta);
	} else {
		fprintf(stderr, "\r%s  %s \033[K", d, r);
	}
	pg.drawn = 1;
	pg.last = t;
}

void
ui_progress(void *payload, uint64_t done, uint64_t total)
{
	double t = now_seconds();

	(void)payload;
	if (cmd_g.quiet || !ui_is_tty())
		return;
	pthread_mutex_lock(&pg.mu);
	if (pg.start == 0)
		pg.start = t;
	pg.total = total;
	if (done > pg.done)
		pg.done = done;
	/* the watch draws on its own clock; else at most 10 times a second */
	if (!pg.watching && (t - pg.last >= 0.1 || done == total))
		draw(t);
	pthread_mutex_unlock(&pg.mu);
}

static void *
watch_thread(void *unused)
{
	struct timespec tick = { 0, TICK_NS };

	(void)unused;
	while (!atomic_load(&pg.stop)) {
		uint64_t got = pg.count(pg.arg);
		pthread_mutex_lock(&pg.mu);
		if (got > pg.done && (pg.total == 0 || got <= pg.total))
			pg.done = got;
		draw(now_seconds());
		pthread_mutex_unlock(&pg.mu);
		nanosleep(&tick, NULL);
	}
	return NULL;
}

void
ui_progress_watch(uint64_t (*count)(void *), void *arg, uint64_t total,
		  const char *from)
{
	if (cmd_g.quiet || !ui_is_tty() || pg.watching)
		return;
	pg.count = count;
	pg.arg = arg;
	pg.total = total;
	pg.start = now_seconds();
	pg.first = pg.done = count(arg);
	snprintf(pg.from, sizeof pg.from, "%s", from ? from : "");
	atomic_store(&pg.stop, 0);
	if (pthread_create(&pg.th, NULL, watch_thread, NULL) == 0)
		pg.watching = 1;
}

void
ui_progress_done(void)
{
	pthread_mutex_lock(&pg.mu);
	if (pg.watching) {
		uint64_t got;
		atomic_store(&pg.stop, 1);
		pthread_mutex_unlock(&pg.mu);
		pthread_join(pg.th, NULL);
		pthread_mutex_lock(&pg.mu);
		pg.watching = 0;
		/* the last frame: where it ended (100% when it completed) */
		got = pg.count(pg.arg);
		if (got > pg.done && (pg.total == 0 || got <= pg.total))
			pg.done = got;
		draw(now_seconds());
	}
	if (pg.drawn)
		fputs("\n", stderr);
	pg.drawn = 0;
	pg.start = pg.last = 0;
	pg.done = pg.total = pg.first = 0;
	pg.head = pg.n = 0;
	pg.from[0] = '\0';
	pthread_mutex_unlock(&pg.mu);
}

void
ui_download_begin(const char *file, uint64_t size)
{
	char text[32];

	if (cmd_g.quiet || !ui_is_tty())
		return;
	if (size == 0) {
		ui_note("downloading %s", file);
		return;
	}
	human(text, sizeof text, (double)size);
	ui_note("downloading %s (%s)", file, text);
}

/* ---- a wait with nothing to show -------------------------------------- */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	int running, ended;
	char what[256];
} wt = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static void *
wait_thread(void *unused)
{
	struct timespec until;

	(void)unused;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	pthread_mutex_lock(&wt.mu);
	while (!wt.ended && pthread_cond_timedwait(&wt.cv, &wt.mu, &until) == 0)
		;
	if (!wt.ended)
		ui_note("cudnnvm: waiting for %s", wt.what);
	pthread_mutex_unlock(&wt.mu);
	return NULL;
}

void
ui_wait_begin(const char *fmt, ...)
{
	va_list ap;

	if (cmd_g.quiet || !ui_is_tty() || wt.running)
		return;
	va_start(ap, fmt);
	vsnprintf(wt.what, sizeof wt.what, fmt, ap);
	va_end(ap);
	wt.ended = 0;
	wt.running = pthread_create(&wt.th, NULL, wait_thread, NULL) == 0;
}

void
ui_wait_end(void)
{
	if (!wt.running)
		return;
	pthread_mutex_lock(&wt.mu);
	wt.ended = 1;
	pthread_cond_signal(&wt.cv);
	pthread_mutex_unlock(&wt.mu);
	pthread_join(wt.th, NULL);
	wt.running = 0;
}

void
ui_size(char *out, size_t n, uint64_t bytes)
{
	human(out, n, (double)bytes);
}

static void
say(void *payload, int kind, const char *text)
{
	(void)payload;
	if (kind == CV_SAY_WARN)
		ui_warn("%s", text);
	else if (kind == CV_SAY_HINT)
		ui_hint_line(text);
	else
		ui_note("%s", text);
}

static void
wait_begin(void *payload, const char *host)
{
	(void)payload;
	ui_wait_begin("%s to answer (the release listing and manifest)", host);
}

static void
wait_end(void *payload)
{
	(void)payload;
	ui_wait_end();
}

static void
download(void *payload, const char *file, uint64_t size)
{
	(void)payload;
	ui_download_begin(file, size);
}

static void
watch(void *payload, uint64_t (*received)(void *), void *ctx, uint64_t total,
      const char *host)
{
	(void)payload;
	ui_progress_watch(received, ctx, total, host);
}

static void
progress_done(void *payload)
{
	(void)payload;
	ui_progress_done();
}

void
ui_of(struct cv_ui *ui)
{
	int tty = ui_is_tty() && !cmd_g.quiet;

	memset(ui, 0, sizeof *ui);
	ui->say = say;
	ui->waiting = ui_waiting;
	ui->wait_begin = wait_begin;
	ui->wait_end = wait_end;
	/* a download's progress and what it fetches on a terminal only */
	ui->download = tty ? download : NULL;
	ui->watch = tty ? watch : NULL;
	ui->progress = tty ? ui_progress : NULL;
	ui->progress_done = progress_done;
	ui->size = ui_size;
}
