/* test_rank.c: the ranking walk of both resolvers and both listers
 * (rank.c) on its own, over a source made of an array: the spec, ties,
 * the CUDA major wanted and the fallback to an older one (never a newer
 * one, which the driver cannot run), a damaged build, the GPU's passed
 * over releases, an empty source, and the listers' walk. */
#include "base/base.h"
#include "install/install_int.h"
#include "machine/machine_int.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rel {
	const char *version;
	int cuda[3]; /* newest first, 0-ended */
	const char *bad[3];
};

struct array_src {
	const struct rel *r;
	size_t n, i;
	struct cv_version v[16];
	int fail_at;  /* next() fails when it reaches this one; -1: never */
	size_t asked; /* how many next() gave */
};

static int
array_next(void *arg, struct cv_candidate *c, struct cv_err *err)
{
	struct array_src *a = arg;

	if (a->i == a->n)
		return 0;
	if ((int)a->i == a->fail_at)
		return cv_err_set(err, CV_ENETWORK, "cannot read release %zu",
				  a->i);
	c->at = a->i;
	cv_version_parse(&a->v[a->i], a->r[a->i].version, NULL);
	c->version = a->v[a->i];
	c->label = a->r[a->i].version;
	c->has = "cuda-x";
	for (int k = 0; k < 3 && a->r[a->i].cuda[k]; k++) {
		c->cuda[k] = a->r[a->i].cuda[k];
		c->bad[k] = a->r[a->i].bad[k];
		c->ncuda++;
	}
	a->i++;
	a->asked++;
	return 1;
}

static struct array_src src_of_arr;

static struct cv_rank_source
src_of(const struct rel *r, size_t n)
{
	struct cv_rank_source s = { array_next, &src_of_arr };

	memset(&src_of_arr, 0, sizeof src_of_arr);
	src_of_arr.r = r;
	src_of_arr.n = n;
	src_of_arr.fail_at = -1;
	return s;
}

/* The walk's pick for spec (NULL: any) and major `cuda`. */
static int
best(const struct rel *r, size_t n, const char *spec, int cuda, int fallback,
     int fallback_first, struct cv_passed_over *passed,
     struct cv_rank_pick *pick)
{
	struct cv_rank_source s = src_of(r, n);
	struct cv_version v;
	struct cv_rank_req rq;
	struct cv_err err = CV_ERR_INIT;

	memset(&rq, 0, sizeof rq);
	if (spec != NULL) {
		cv_version_parse(&v, spec, NULL);
		rq.spec = &v;
	}
	rq.cuda = cuda;
	rq.fallback = fallback;
	rq.fallback_first = fallback_first;
	rq.passed = passed;
	return cv_rank_best(&s, &rq, pick, &err);
}

struct seen {
	char ids[8][64];
	int n, stop_at;
};

static int
note(void *arg, const struct cv_candidate *c, int k)
{
	struct seen *s = arg;
	struct cv_version v = c->version;

	v.cuda = c->cuda[k];
	if (s->n < 8)
		cv_version_format_id(&v, s->ids[s->n], sizeof s->ids[0]);
	return ++s->n == s->stop_at;
}

int
main(void)
{
	static const struct rel rels[] = {
		{ "9.13.0.50", { 13, 12, 0 }, { NULL, NULL, NULL } },
		{ "9.12.0.46", { 12, 0, 0 }, { NULL, NULL, NULL } },
		{ "9.8.0.87", { 12, 11, 0 }, { NULL, NULL, NULL } },
		{ "8.9.7.29", { 12, 11, 0 }, { NULL, NULL, NULL } },
	};
	const size_t nrels = sizeof rels / sizeof rels[0];
	struct cv_rank_pick pick;
	struct cv_passed_over passed;
	struct cv_rank_source s;
	struct cv_rank_req rq;
	struct cv_err err = CV_ERR_INIT;
	struct seen seen;
	int stopped;

	unsetenv("CUDNNVM_OVERRIDE_GPU_ARCH");
	cv_machine_forget();

	/* the newest release with a build of the major wanted; 0: each
	 * release's newest major */
	CHECK(best(rels, nrels, NULL, 12, 0, 0, NULL, &pick) == CV_RANK_TAKEN &&
	      pick.at == 0 && pick.cuda == 12 && !pick.fell_back);
	CHECK(best(rels, nrels, NULL, 0, 0, 0, NULL, &pick) == CV_RANK_TAKEN &&
	      pick.at == 0 && pick.cuda == 13);
	CHECK(best(rels, nrels, "9.12", 0, 0, 0, NULL, &pick) ==
		      CV_RANK_TAKEN &&
	      pick.at == 1 && pick.cuda == 12);
	CHECK(best(rels, nrels, "8", 11, 0, 0, NULL, &pick) == CV_RANK_TAKEN &&
	      pick.at == 3 && pick.cuda == 11);
	/* the walk stops at the first it takes: nothing after it is read */
	CHECK(best(rels, nrels, NULL, 13, 0, 0, NULL, &pick) == CV_RANK_TAKEN &&
	      src_of_arr.asked == 1);

	/* ties: two releases of one version, the first given wins */
	{
		static const struct rel tie[] = {
			{ "9.1.0.70", { 12, 0, 0 }, { NULL, NULL, NULL } },
			{ "9.1.0.70", { 12, 0, 0 }, { NULL, NULL, NULL } },
		};
		CHECK(best(tie, 2, "9.1", 12, 0, 0, NULL, &pick) ==
			      CV_RANK_TAKEN &&
		      pick.at == 0);
	}

	/* a major no release has: the machine's may fall back to the newest
	 * older build (9.12's cuda12 when cuda13 is asked of 9.12 and
	 * older: the newest release first, then its newest major), a major
	 * the user named never does */
	CHECK(best(rels + 1, nrels - 1, NULL, 13, 1, 0, NULL, &pick) ==
		      CV_RANK_TAKEN &&
	      pick.at == 0 && pick.cuda == 12 && pick.fell_back &&
	      src_of_arr.asked == 3);
	CHECK(best(rels + 1, nrels - 1, NULL, 13, 0, 0, NULL, &pick) ==
		      CV_RANK_NONE &&
	      pick.matched && pick.first_at == 0 &&
	      strcmp(pick.first, "9.12.0.46") == 0 &&
	      strcmp(pick.first_has, "cuda-x") == 0);
	/* a fallback is older, never newer: a cuda13 build needs a CUDA 13
	 * driver, so a CUDA 12 machine is never given one */
	{
		static const struct rel only13[] = {
			{ "9.14.0.64", { 13, 0, 0 }, { NULL, NULL, NULL } },
		};
		CHECK(best(only13, 1, NULL, 12, 1, 0, NULL, &pick) ==
			      CV_RANK_NONE &&
		      pick.matched && pick.fallback_cuda == 0);
	}
	/* with every wanted build offered first (a wheel index), the first
	 * older build is taken at once */
	{
		static const struct rel wheels[] = {
			{ "9.13.0.50", { 12, 0, 0 }, { NULL, NULL, NULL } },
			{ "9.12.0.46", { 12, 0, 0 }, { NULL, NULL, NULL } },
			{ "9.8.0.87", { 11, 0, 0 }, { NULL, NULL, NULL } },
		};
		CHECK(best(wheels, 3, NULL, 13, 1, 1, NULL, &pick) ==
			      CV_RANK_TAKEN &&
		      pick.at == 0 && pick.cuda == 12 && pick.fell_back &&
		      src_of_arr.asked == 1);
		CHECK(best(wheels, 3, NULL, 13, 1, 0, NULL, &pick) ==
			      CV_RANK_TAKEN &&
		      pick.at == 0 && src_of_arr.asked == 3);
	}

	/* a damaged build of the major wanted is said, not passed; one of
	 * another major is passed when the newest is wanted */
	{
		static const struct rel dmg[] = {
			{ "9.13.0.50",
			  { 13, 12, 0 },
			  { "cudnn.linux-x86_64.cuda13.sha256: missing", NULL,
			    NULL } },
		};
		CHECK(best(dmg, 1, NULL, 13, 0, 0, NULL, &pick) ==
			      CV_RANK_BAD &&
		      strstr(pick.bad, "missing") != NULL);
		CHECK(best(dmg, 1, NULL, 0, 0, 0, NULL, &pick) ==
			      CV_RANK_TAKEN &&
		      pick.cuda == 12);
	}

	/* the GPU: a compute capability 7.0 GPU has no code in 9.11 and
	 * newer; those are noted and passed, --force passes none */
	setenv("CUDNNVM_OVERRIDE_GPU_ARCH", "7.0", 1);
	cv_machine_forget();
	memset(&passed, 0, sizeof passed);
	CHECK(best(rels, nrels, NULL, 12, 0, 0, &passed, &pick) ==
		      CV_RANK_TAKEN &&
	      pick.at == 2);
	CHECK(strcmp(passed.newest, "9.13.0.50") == 0 &&
	      strcmp(passed.oldest, "9.12.0.46") == 0);
	memset(&passed, 0, sizeof passed);
	CHECK(best(rels, 2, NULL, 12, 0, 0, &passed, &pick) == CV_RANK_NONE &&
	      !pick.matched && passed.oldest[0] != '\0');
	memset(&passed, 0, sizeof passed);
	passed.any_gpu = 1;
	CHECK(best(rels, nrels, NULL, 12, 0, 0, &passed, &pick) ==
		      CV_RANK_TAKEN &&
	      pick.at == 0 && passed.oldest[0] == '\0');
	unsetenv("CUDNNVM_OVERRIDE_GPU_ARCH");
	cv_machine_forget();

	/* an empty source: nothing matched, nothing passed over, which the
	 * resolvers word as "no release ... see 'cudnnvm list-remote'" */
	memset(&passed, 0, sizeof passed);
	CHECK(best(rels, 0, NULL, 12, 1, 0, &passed, &pick) == CV_RANK_NONE &&
	      !pick.matched && passed.oldest[0] == '\0');
	CHECK(best(rels, nrels, "7", 12, 1, 0, &passed, &pick) ==
		      CV_RANK_NONE &&
	      !pick.matched);

	/* a source that fails stops the walk with its error */
	s = src_of(rels, nrels);
	src_of_arr.fail_at = 1;
	memset(&rq, 0, sizeof rq);
	rq.cuda = 11;
	CHECK(cv_rank_best(&s, &rq, &pick, &err) == CV_ENETWORK &&
	      strstr(err.msg, "release 1") != NULL);

	/* the listers: every build of every matching release, newest
	 * first, of one major or all, damaged ones left out */
	memset(&seen, 0, sizeof seen);
	s = src_of(rels, nrels);
	memset(&rq, 0, sizeof rq);
	CHECK(cv_rank_each(&s, &rq, note, &seen, &stopped, &err) == 7 &&
	      !stopped);
	CHECK(strcmp(seen.ids[0], "9.13.0.50-cuda13") == 0 &&
	      strcmp(seen.ids[1], "9.13.0.50-cuda12") == 0 &&
	      strcmp(seen.ids[6], "8.9.7.29-cuda11") == 0);
	memset(&seen, 0, sizeof seen);
	s = src_of(rels, nrels);
	rq.cuda = 11;
	CHECK(cv_rank_each(&s, &rq, note, &seen, &stopped, &err) == 2 &&
	      strcmp(seen.ids[0], "9.8.0.87-cuda11") == 0);
	/* latest: the newest release with a build, and no further */
	{
		struct cv_version latest;
		cv_version_parse(&latest, "latest", NULL);
		memset(&seen, 0, sizeof seen);
		s = src_of(rels, nrels);
		rq.cuda = 11;
		rq.spec = &latest;
		rq.newest_only = latest.nparts == 0;
		CHECK(cv_rank_each(&s, &rq, note, &seen, &stopped, &err) == 1 &&
		      strcmp(seen.ids[0], "9.8.0.87-cuda11") == 0 &&
		      src_of_arr.asked == 3);
		rq.spec = NULL;
		rq.newest_only = 0;
	}
	/* the visitor stops it */
	memset(&seen, 0, sizeof seen);
	seen.stop_at = 3;
	s = src_of(rels, nrels);
	rq.cuda = 0;
	CHECK(cv_rank_each(&s, &rq, note, &seen, &stopped, &err) == 3 &&
	      stopped);
	{
		static const struct rel dmg[] = {
			{ "9.13.0.50",
			  { 13, 12, 0 },
			  { "damaged", NULL, NULL } },
		};
		memset(&seen, 0, sizeof seen);
		s = src_of(dmg, 1);
		CHECK(cv_rank_each(&s, &rq, note, &seen, &stopped, &err) == 1 &&
		      strcmp(seen.ids[0], "9.13.0.50-cuda12") == 0);
	}
	return TEST_DONE();
}
