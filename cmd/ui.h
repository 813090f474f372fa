/* ui.h: the only place where errors become output and exit statuses. */
#ifndef CUDNNVM_UI_H
#define CUDNNVM_UI_H

#include "base/base.h"
#include "python/python.h"

#include <stdint.h>
#include <stdio.h>

/* Colour: whether output to f is coloured, the one place that decides.
 * Never with --no-color or a non-empty NO_COLOR; else always with a
 * non-empty CLICOLOR_FORCE other than "0"; else when f is a terminal whose
 * TERM is not "dumb". */
int ui_color(FILE *f);
/* `word` as it is written to f: painted by what it says when f is
 * coloured ("error", "fail" red; "warning", "skip" yellow; "pass", "ok"
 * green; "info", "hint" cyan; the list marks "*" and ">" bold green),
 * else as it is. The text stays valid until the 8th next call. */
const char *ui_paint(FILE *f, const char *word);
/* Write text with control characters and non-UTF-8 bytes as \xNN. */
void ui_put_escaped(FILE *f, const char *text);
/* Print one line on f, formatted and escaped (a newline in the text is
 * \x0a): for report lines that carry names read from files. */
void ui_print(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print "cudnnvm: <formatted>" on stderr, escaped, even with -q. */
void ui_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "cudnnvm: <msg>" on stderr, then a "hint: <command>" line for each
 * of its hints; return the exit status for err. */
int cmd_fail(const struct cv_err *err);
/* Just the "hint: " lines of err. */
void ui_hints(const struct cv_err *err);
/* One "hint: " line (escaped). */
void ui_hint_line(const char *text);
/* Print "cudnnvm: <cmd>: <what>; usage: ..." and return 64. */
int cmd_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Non-fatal notes on stderr, silenced by -q. */
void ui_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ui_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* lib/'s warnings (cv_warn) are held until the command is known to have
 * succeeded: a failure stays one error line and its hints. */
void ui_warn_later(void *payload, const char *msg);
/* Print the held warnings (at a successful end, or before exec). */
void ui_warnings_flush(void);
/* Say what a gate (lib/python/python.h) returned: r < 0 is err (cmd_fail); else
 * the verdict's notes and warnings (silenced by -q), then its refusal.
 * The exit status: 0 when the version may become active. */
int ui_verdict(int r, const struct cv_err *err, const struct cv_verdict *v);
/* A lock's waiting callback: "cudnnvm: waiting for another cudnnvm <what>"
 * once on stderr (silenced by -q). */
void ui_waiting(void *payload, const char *what);
/* 1 when stderr is a terminal (progress bars go there only). */
int ui_is_tty(void);
/* Draw a progress line on a terminal: size, rate (over the last seconds),
 * ETA. total may be 0. Nothing when stderr is not a terminal or -q. */
void ui_progress(void *payload, uint64_t done, uint64_t total);
/* Redraw it 5 times a second until ui_progress_done, polling count(arg)
 * for the bytes so far (a slow download delivers them in big buffers).
 * While none has come after a second, the line says it waits for `from`
 * (a host; NULL: nothing to name). */
void ui_progress_watch(uint64_t (*count)(void *), void *arg, uint64_t total,
		       const char *from);
void ui_progress_done(void);
/* "downloading <file> (<size>)" on a terminal, above the bar; size 0:
 * unknown. */
void ui_download_begin(const char *file, uint64_t size);
/* Around a step that shows nothing while it waits on the network (reading
 * the index): when it has not ended after a second, on a terminal,
 * "cudnnvm: waiting for <formatted>" once. */
void ui_wait_begin(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ui_wait_end(void);
/* A size as people read it: "812.4 MiB". */
void ui_size(char *out, size_t n, uint64_t bytes);

/* What use, global and shell are asked: the options each declares in
 * cmd/table.c (keys 'u' --unset, 'e' --eval, 'f' --force, 'n'
 * --no-validate, 's' --system, 'i' --no-install, 'c' --cuda) and the gate
 * a version passes before it becomes active (lib/python/python.h). Defined in
 * cmd/opts.c. */
struct cmd_activation {
	int unset;
	int no_install; /* use --no-install (key 'i') */
	int system;     /* global --system */
	const char *eval;
	const char *cuda;         /* --cuda N (key 'c'): the spec's -cudaN */
	struct cv_gate_opts gate; /* force, no_validate; frameworks on */
	int ind;                  /* argv[ind..argc) are the operands */
};
/* Parse argv[0]'s options into *a; 0, or a usage error's exit status. */
int cmd_activation_opts(int argc, char **argv, struct cmd_activation *a);
/* The spec operand `text` with --cuda applied, into *spec; 0, or prints
 * why not and returns the exit status. */
int cmd_activation_spec(const struct cmd_activation *a, const char *text,
			struct cv_version *spec);

/* Once per shell, on a terminal: the shell that ran us has not loaded
 * the integration, so the version `id` it reports or pins is not applied
 * there; says how to load it. Defined in cmd/opts.c. */
void cmd_hook_note(const char *id);

/* What lib's long work (struct cv_ui) shows, through the functions above:
 * notes, warnings, hints, waits, and progress on a terminal. */
void ui_of(struct cv_ui *ui);

#endif
