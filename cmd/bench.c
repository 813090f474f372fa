/* bench.c: `cudnnvm bench [<spec>...] [--shapes SET|FILE] [--dtype D]
 * [--layout L] [--runs N] [--warmup N] [--json]`: which installed cuDNN
 * is fastest on this GPU for these layers. Each version is validated and
 * timed in its own child (lib/validate/bench.c); this file picks the versions
 * and prints one table, a column per version, a row per layer. */
#include "activate/activate.h"
#include "base/base.h"
#include "cmd.h"
#include "store/store.h"
#include "ui.h"
#include "validate/validate.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct bench_args {
	char *const *specs; /* in argv */
	int nspecs, json, runs, warmup;
	const char *shapes;
	unsigned dtypes, layouts;
};

/* "fp16,bf16" into a bit set through parse (cv_dtype_parse, ...). */
static int
parse_list(const char *s, unsigned *mask,
	   int (*parse)(const char *, int *, struct cv_err *))
{
	char *copy = strdup(s), *save = NULL;
	struct cv_err err = CV_ERR_INIT;
	int v, r = 0;

	if (copy == NULL)
		return -1;
	*mask = 0;
	for (char *t = strtok_r(copy, ",", &save); t && r == 0;
	     t = strtok_r(NULL, ",", &save))
		if ((r = parse(t, &v, &err)) == 0)
			*mask |= 1u << v;
	free(copy);
	if (r == 0 && *mask == 0)
		r = -1;
	return r;
}

static int
parse_count(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int
parse_args(int argc, char **argv, struct bench_args *a)
{
	struct cmd_opts o;
	const char *v;
	int c;

	cmd_opts_init(&o, argc, argv);
	/* bench_opts in cmd/table.c */
	while ((c = cmd_opts_next(&o)) > 0) {
		v = o.arg;
		if (c == 'j')
			a->json = 1;
		else if (c == 's')
			a->shapes = v;
		else if (c == 'd' &&
			 parse_list(v, &a->dtypes, cv_dtype_parse) < 0)
			return cmd_usage_error("bench",
					       "--dtype takes fp32, fp16 or "
					       "bf16 (or a comma list), not "
					       "'%.40s'",
					       v);
		else if (c == 'l' &&
			 parse_list(v, &a->layouts, cv_layout_parse) < 0)
			return cmd_usage_error(
				"bench",
				"--layout takes nchw or nhwc (or "
				"both: nchw,nhwc), not '%.40s'",
				v);
		else if (c == 'r' && parse_count(v, 3, 100000, &a->runs) < 0)
			return cmd_usage_error("bench",
					       "--runs takes a count from 3 "
					       "to 100000");
		else if (c == 'w' && parse_count(v, 0, 10000, &a->warmup) < 0)
			return cmd_usage_error("bench",
					       "--warmup takes a count from 0 "
					       "to 10000");
	}
	if (c < 0)
		return o.status;
	/* the specs, in their order */
	a->specs = argv + o.ind;
	a->nspecs = argc - o.ind;
	return 0;
}

/* The versions to run, oldest first: the specs given, else every one
 * installed. */
static int
select_versions(struct cv_store *st, const struct bench_args *a,
		struct cv_installed **out, size_t *n)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_installed *all = NULL, tmp;
	size_t nall = 0;

	if (a->nspecs == 0) {
		if (cv_store_list(st, &all, &nall, &err) < 0)
			return cmd_fail(&err);
		if (nall == 0) {
			free(all);
			fprintf(stderr, "cudnnvm: no cuDNN version is "
					"installed; run: cudnnvm install "
					"<version>\n");
			return 1;
		}
		for (size_t i = 0; i < nall / 2; i++) {
			tmp = all[i];
			all[i] = all[nall - 1 - i];
			all[nall - 1 - i] = tmp;
		}
		*out = all;
		*n = nall;
		return 0;
	}
	all = calloc((size_t)a->nspecs, sizeof *all);
	if (all == NULL)
		return cmd_fail(&err);
	for (int i = 0; i < a->nspecs; i++) {
		struct cv_version spec;
		char id[64];
		int dup = 0;
		if (cv_spec_parse(&spec, a->specs[i], &err) < 0 ||
		    cv_active_find(st, &spec, id, &err) < 0 ||
		    cv_store_get(st, id, &tmp, &err) < 0) {
			free(all);
			return cmd_fail(&err);
		}
		for (size_t j = 0; j < nall; j++)
			dup |= strcmp(all[j].id, id) == 0;
		if (!dup)
			all[nall++] = tmp;
	}
	*out = all;
	*n = nall;
	return 0;
}

/* ---- the table ---------------------------------------------------------- */

#define CELL 34

static void
cell_ok(char *buf, size_t n, const struct cv_bench_result *x, int fastest,
	double best_ms)
{
	double spread = x->ms > 0 ? (x->q3_ms - x->q1_ms) / x->ms * 100 : 0;
	char ratio[16] = "", pick[24];

	if (!fastest && best_ms > 0)
		snprintf(ratio, sizeof ratio, " %.2fx", x->ms / best_ms);
	if (strcmp(x->how, "engines") == 0)
		snprintf(pick, sizeof pick, "e%ld", x->engine);
	else
		snprintf(pick, sizeof pick, "a%d", x->algo);
	snprintf(buf, n, "%s%.3f ms ±%.0f%% %.1f TF %s%s", fastest ? "*" : "",
		 x->ms, spread, x->tflops, pick, ratio);
}

/* A column's text; every column but the last is padded to CELL. */
static void
print_cell(const char *s, int last)
{
	/* pad by characters, not bytes: "±" is two bytes */
	size_t chars = 0;

	for (const char *p = s; *p; p++)
		chars += ((unsigned char)*p & 0xc0) != 0x80;
	printf("  %s%*s", s, !last && chars < CELL ? (int)(CELL - chars) : 0,
	       "");
}

static void
print_header(const struct cv_bench_run *runs, size_t nruns,
	     const struct cv_bench_opts *o, int namew)
{
	const struct cv_bench_gpu *g = NULL;

	for (size_t i = 0; i < nruns && g == NULL; i++)
		if (runs[i].benched)
			g = &runs[i].gpu;
	if (g != NULL)
		printf("GPU: %s (sm_%d%d, %d SMs, SM clock %d MHz, memory "
		       "clock %d MHz), driver for CUDA %d.%d\n",
		       g->name, g->cc_major, g->cc_minor, g->sm_count,
		       g->sm_clock_khz / 1000, g->mem_clock_khz / 1000,
		       g->driver_version / 1000, g->driver_version % 1000 / 10);
	printf("median of %d timed runs after %d warm-up runs; ± the "
	       "interquartile spread; TF = TFLOP/s; eN = engine, aN = legacy algorithm; * "
	       "fastest; Nx = time over the fastest\n\n",
	       o->runs, o->warmup);
	printf("%-*s  %-5s %-6s", namew, "layer", "dtype", "layout");
	for (size_t i = 0; i < nruns; i++)
		print_cell(runs[i].v.id, i + 1 == nruns);
	printf("\n");
}

/* Per version: how often it was fastest, and what failed. */
static void
print_summary(const struct cv_layer *layers, size_t nl,
	      const struct cv_bench_run *runs, size_t nruns, const int *wins)
{
	for (size_t v = 0; v < nruns; v++) {
		const struct cv_bench_run *r = &runs[v];
		int failed = cv_validation_failed(&r->v);
		if (failed >= 0) {
			printf("%s: failed validation (step %d, %s): %s; not "
			       "benchmarked\n",
			       r->v.id, failed + 1, cv_step_name(failed),
			       r->v.step[failed].reason);
			continue;
		}
		printf("%s: fastest on %d of %zu layers (%.1f s)\n", r->v.id,
		       v < 64 ? wins[v] : 0, nl, r->seconds);
		for (size_t i = 0; i < nl; i++)
			if (r->res[i].status == CV_BENCH_UNSUPPORTED ||
			    r->res[i].status == CV_BENCH_WRONG)
				printf("  %s %s %s: %s: %s\n", layers[i].name,
				       cv_dtype_name(layers[i].dtype),
				       cv_layout_name(layers[i].layout),
				       cv_bench_status_name(r->res[i].status),
				       r->res[i].reason);
	}
}

static void
print_table(const struct cv_layer *layers, size_t nl,
	    const struct cv_bench_run *runs, size_t nruns,
	    const struct cv_bench_opts *o)
{
	int namew = 5, wins[64] = { 0 }, ntotal = 0;
	double *total = calloc(nruns ? nruns : 1, sizeof *total),
	       best_total = 0;
	char buf[128];

	if (total == NULL)
		return;
	for (size_t i = 0; i < nl; i++)
		if ((int)strlen(layers[i].name) > namew)
			namew = (int)strlen(layers[i].name);
	print_header(runs, nruns, o, namew);
	for (size_t i = 0; i < nl; i++) {
		int f = cv_bench_fastest(runs, nruns, i), all_ok = 1;
		double best = f >= 0 && runs[f].res ? runs[f].res[i].ms : 0;

		printf("%-*s  %-5s %-6s", namew, layers[i].name,
		       cv_dtype_name(layers[i].dtype),
		       cv_layout_name(layers[i].layout));
		for (size_t v = 0; v < nruns; v++) {
			const struct cv_bench_result *x = &runs[v].res[i];
			if (!runs[v].benched)
				snprintf(buf, sizeof buf, "-");
			else if (x->status == CV_BENCH_OK)
				cell_ok(buf, sizeof buf, x, (int)v == f, best);
			else {
				snprintf(buf, sizeof buf, "%s",
					 cv_bench_status_name(x->status));
				all_ok = 0;
			}
			print_cell(buf, v + 1 == nruns);
		}
		printf("\n");
		if (f >= 0 && f < 64)
			wins[f]++;
		if (!all_ok)
			continue;
		ntotal++;
		for (size_t v = 0; v < nruns; v++)
			total[v] += runs[v].res[i].ms;
	}
	for (size_t v = 0; v < nruns; v++)
		if (runs[v].benched &&
		    (best_total == 0 || total[v] < best_total))
			best_total = total[v];
	snprintf(buf, sizeof buf, "total (%d layers)", ntotal);
	printf("%-*s  %-12s", namew, buf, "");
	for (size_t v = 0; v < nruns; v++) {
		if (!runs[v].benched || ntotal == 0)
			snprintf(buf, sizeof buf, "-");
		else if (total[v] == best_total)
			snprintf(buf, sizeof buf, "*%.3f ms", total[v]);
		else
			snprintf(buf, sizeof buf, "%.3f ms %.2fx", total[v],
				 total[v] / best_total);
		print_cell(buf, v + 1 == nruns);
	}
	printf("\n\n");
	free(total);
	print_summary(layers, nl, runs, nruns, wins);
}

/* ---- the command -------------------------------------------------------- */

static void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART: poll must wake */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int
run_all(struct cv_store *st, const struct cv_installed *vers, size_t nv,
	const struct cv_layer *layers, size_t nl, const struct cv_bench_opts *o,
	struct cv_bench_run *runs)
{
	struct cv_err err = CV_ERR_INIT;

	for (size_t i = 0; i < nv; i++) {
		char *dir = cv_store_dir(st, vers[i].id);
		int r;
		if (ui_is_tty() && !cmd_g.quiet)
			fprintf(stderr,
				"cudnnvm: validating and timing %s "
				"(%zu layers)...\n",
				vers[i].id, nl);
		r = cv_bench_version(dir, &vers[i], layers, nl, o, &runs[i],
				     &err);
		free(dir);
		if (r < 0) {
			if (err.code == CV_EINTR)
				snprintf(err.msg, sizeof err.msg,
					 "bench interrupted while timing %s; "
					 "nothing was printed",
					 vers[i].id);
			return cmd_fail(&err);
		}
		if (runs[i].no_gpu) {
			fprintf(stderr,
				"cudnnvm: bench needs an NVIDIA GPU, and "
				"there is none usable here (%s); run it on a "
				"GPU machine ('cudnnvm validate' checks one)\n",
				runs[i].v.step[CV_STEP_GPU].reason);
			return 1;
		}
	}
	return 0;
}

int
cmd_bench(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct bench_args a;
	struct cv_bench_opts o = { NULL, 30, 5, 0, &interrupted };
	struct cv_err err = CV_ERR_INIT;
	struct cv_installed *vers = NULL;
	struct cv_bench_run *runs = NULL;
	struct cv_layer *layers = NULL;
	struct cv_store *st = ctx->st;
	size_t nv = 0, nl = 0, benched = 0;
	int r, first_failed = -1;

	memset(&a, 0, sizeof a);
	a.runs = 30;
	a.warmup = 5;
	a.dtypes = 1u << CV_DTYPE_FP16;
	a.layouts = (1u << CV_LAYOUT_NCHW) | (1u << CV_LAYOUT_NHWC);
	if ((r = parse_args(argc, argv, &a)) != 0)
		return r;
	o.runs = a.runs;
	o.warmup = a.warmup;
	if (cv_bench_layers(a.shapes ? a.shapes : "resnet50", a.dtypes,
			    a.layouts, &layers, &nl, &err) < 0) {
		return err.code == CV_EUSAGE
			       ? cmd_usage_error("bench", "%s", err.msg)
			       : cmd_fail(&err);
	}
	if ((r = select_versions(st, &a, &vers, &nv)) != 0)
		goto out;
	runs = calloc(nv ? nv : 1, sizeof *runs);
	if (runs == NULL) {
		r = 1;
		goto out;
	}
	catch_signals();
	if ((r = run_all(st, vers, nv, layers, nl, &o, runs)) != 0)
		goto out;
	for (size_t i = 0; i < nv; i++) {
		benched += runs[i].benched;
		if (!runs[i].benched && first_failed < 0)
			first_failed = (int)i;
	}
	if (a.json) {
		char *s = cv_bench_json(layers, nl, runs, nv, &o);
		printf("%s\n", s);
		free(s);
	} else
		print_table(layers, nl, runs, nv, &o);
	fflush(stdout);
	if (benched == 0) {
		fprintf(stderr, "cudnnvm: no version passed validation, so "
				"none was benchmarked; run 'cudnnvm validate "
				"<version>' for the steps\n");
		r = 1;
	} else if (first_failed >= 0 && a.nspecs > 0) {
		/* A version asked for by name that could not run fails the
		 * command; in the default sweep it is only reported. */
		const struct cv_validation *v = &runs[first_failed].v;
		int s = cv_validation_failed(v);
		fprintf(stderr,
			"cudnnvm: %s failed validation (step %d, %s) and was "
			"not benchmarked: %s\n",
			v->id, s + 1, cv_step_name(s),
			s >= 0 ? v->step[s].reason : "");
		r = 1;
	}
out:
	for (size_t i = 0; runs != NULL && i < nv; i++)
		cv_bench_run_release(&runs[i]);
	free(runs);
	free(vers);
	free(layers);
	return r;
}
