/* winprobe.c: the Windows validation child's steps (probe_win32.c) run
 * on one folder, for the wine suite (tests/win/suite.sh): each finding on
 * a line of its own, "result STEP STATUS TEXT" and "fact NAME VALUE", as
 * the parent would read them.
 *
 *	winprobe.exe DIR MAJOR EXPECT [gpu] [preload DLL] [json]
 *
 * "gpu": without --no-gpu (under wine there is no nvcuda.dll, and the
 * driver step must say so, unless the suite put its stand-in beside the
 * program, where a bare name is looked for too); "preload DLL": load that DLL
 *first, as a process that already holds another copy of a cuDNN sub-library
 *would; "json": the child's own JSON lines instead (cv_probe_run, as `cudnnvm
 *validate-probe` writes them for its parent). */
#include "base/base.h"
#include "validate/validate_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = { "pass", "fail", "skip" };

static void
on_fact(void *payload, const char *name, long value)
{
	(void)payload;
	printf("fact %s %ld\n", name, value);
}

static void
on_fact_text(void *payload, const char *name, const char *value)
{
	(void)payload;
	printf("fact %s %s\n", name, value);
}

static void
on_fact_real(void *payload, const char *name, double value)
{
	(void)payload;
	printf("fact %s %g\n", name, value);
}

static void
on_result(void *payload, int step, int status, const char *text)
{
	(void)payload;
	printf("result %d %s %s\n", step,
	       status >= CV_CHECK_PASS && status <= CV_CHECK_SKIP
		       ? names[status - CV_CHECK_PASS]
		       : "?",
	       text);
}

int
main(int argc, char **argv)
{
	struct cv_probe_args a;
	struct cv_probe_sink s = { .fact = on_fact,
				   .result = on_result,
				   .fact_text = on_fact_text,
				   .fact_real = on_fact_real };
	int i, json = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: winprobe DIR MAJOR EXPECT [gpu] "
				"[preload DLL]\n");
		return 64;
	}
	memset(&a, 0, sizeof a);
	a.libdir = argv[1];
	a.major = (int)strtol(argv[2], NULL, 10);
	a.expect = strtol(argv[3], NULL, 10);
	a.cuda = 12;
	a.no_gpu = 1;
	for (i = 4; i < argc; i++) {
		if (strcmp(argv[i], "gpu") == 0)
			a.no_gpu = 0;
		else if (strcmp(argv[i], "json") == 0)
			json = 1;
		else if (strcmp(argv[i], "preload") == 0 && i + 1 < argc &&
			 cv_dl_open(argv[++i], 0) == NULL) {
			fprintf(stderr, "preload: %s\n", cv_dl_error());
			return 1;
		}
	}
	fflush(stdout);
	if (json)
		return cv_probe_run(&a, 1);
	cv_probe_win(&a, &s);
	return 0;
}
