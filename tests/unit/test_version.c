/* test_version.c: the spec grammar, ordering and matching. */
#include "base/base.h"
#include "tap.h"

#include <string.h>

static int
parses(const char *s)
{
	struct cv_version v;
	struct cv_err err = CV_ERR_INIT;
	return cv_version_parse(&v, s, &err) == 0;
}

static int
cmp(const char *a, const char *b)
{
	struct cv_version x, y;
	cv_version_parse(&x, a, NULL);
	cv_version_parse(&y, b, NULL);
	return cv_version_cmp(&x, &y);
}

static int
matches(const char *spec, const char *v)
{
	struct cv_version s, x;
	cv_version_parse(&s, spec, NULL);
	cv_version_parse(&x, v, NULL);
	return cv_version_matches(&s, &x);
}

static int
roundtrip(const char *s)
{
	struct cv_version v;
	char buf[64];
	cv_version_parse(&v, s, NULL);
	cv_version_format_id(&v, buf, sizeof buf);
	return strcmp(buf, s) == 0;
}

/* The shared table of tests/fixtures/spec-vectors.tsv (the .pth module
 * is held to the same lines): every line's verdict, or 0 when the table is
 * missing or a line differs. */
static int
shared_vectors_agree(void)
{
	FILE *f = fopen("tests/fixtures/spec-vectors.tsv", "r");
	char line[256];
	int n = 0, ok = 1;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL) {
		char *tab = strrchr(line, '\t');
		int want;

		if (line[0] == '#' || tab == NULL)
			continue;
		*tab = '\0';
		want = strncmp(tab + 1, "ok", 2) == 0;
		if (parses(line) != want) {
			printf("# spec-vectors: '%s' should be %s\n", line,
			       want ? "ok" : "bad");
			ok = 0;
		}
		n++;
	}
	fclose(f);
	return ok && n > 30;
}

int
main(void)
{
	static const char *good[] = { "9",           "9.13",
				      "9.13.0",      "9.13.0.50",
				      "9.13-cuda12", "8.9.7.29-cuda11",
				      "0.0",         "999.99999.0.1" };
	static const char *bad[] = { "",
				     "../../etc",
				     "9.1.0/../../x",
				     "9.1.0;rm -rf ~",
				     "$(id)",
				     "`id`",
				     "9.1.0\n",
				     "09.1",
				     "9..1",
				     "9.1.",
				     "9.1.0.1.2",
				     "1000",
				     "9.123456",
				     "9-cuda",
				     "9-cuda0",
				     "9-cuda1234",
				     "\xd9\xa9.\xd9\xa1",
				     " 9",
				     "9 ",
				     "v9",
				     "9.1-CUDA12",
				     "9.13-cuda12x" };
	struct cv_version v;
	struct cv_err err = CV_ERR_INIT;
	char big[10000];

	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		CHECK(parses(good[i]));
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK(!parses(bad[i]));
	memset(big, '9', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	CHECK(!parses(big));

	CHECK(cv_version_parse(&v, "9.1.0\n", &err) == CV_EUSAGE);
	CHECK(strchr(err.msg, '\n') == NULL);
	CHECK(cv_exit_status(err.code) == 64);

	CHECK(cmp("9.10", "9.9") > 0);
	CHECK(cmp("9.9", "9.10") < 0);
	CHECK(cmp("9.13.0.50", "9.13.0.50") == 0);
	CHECK(cmp("10", "9.99") > 0);
	CHECK(cmp("9.1", "9.1.0") < 0);
	CHECK(cmp("9.1.0", "9.1") > 0);

	CHECK(matches("9", "9.13.0.50-cuda12"));
	CHECK(matches("9.13", "9.13.0.50-cuda12"));
	CHECK(!matches("9.1", "9.13.0.50-cuda12"));
	CHECK(matches("9.13-cuda12", "9.13.0.50-cuda12"));
	CHECK(!matches("9.13-cuda13", "9.13.0.50-cuda12"));
	CHECK(!matches("9.13.0.50.1", "9.13.0.50-cuda12") ||
	      !parses("9.13.0.50.1"));

	CHECK(roundtrip("9.13.0.50-cuda12"));
	CHECK(roundtrip("8.9.7.29"));
	CHECK(cv_install_id_parse(&v, "9.13.0.50-cuda12", NULL) == 0);
	CHECK(cv_install_id_parse(&v, "9.13.0-cuda12", NULL) < 0);
	CHECK(cv_install_id_parse(&v, "9.13.0.50", NULL) < 0);

	cv_version_parse(&v, "8.9.7", NULL);
	CHECK(cv_version_cudnn_number(&v) == 8907);
	cv_version_parse(&v, "9.19.0", NULL);
	CHECK(cv_version_cudnn_number(&v) == 91900);
	cv_version_parse(&v, "7.6.5", NULL);
	CHECK(cv_version_cudnn_number(&v) == 7605);

	/* the order is total and antisymmetric over a small set */
	{
		static const char *set[] = { "8",        "8.9",  "8.9.7",
					     "8.9.7.29", "9",    "9.1",
					     "9.9",      "9.10", "9.10.2.21" };
		size_t n = sizeof set / sizeof *set;
		int ok = 1;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++) {
				int a = cmp(set[i], set[j]),
				    b = cmp(set[j], set[i]);
				if ((a > 0) != (b < 0) || (a == 0) != (i == j))
					ok = 0;
				if (i < j && a >= 0)
					ok = 0;
			}
		CHECK(ok);
	}

	/* latest: only where a command takes a spec, never in a pin */
	{
		struct cv_version w, any;
		char buf[32];
		CHECK(cv_version_parse(&v, "latest", NULL) < 0);
		CHECK(cv_spec_parse(&v, "latest", NULL) == 0 && v.nparts == 0 &&
		      v.cuda == 0);
		cv_version_format_id(&v, buf, sizeof buf);
		CHECK(strcmp(buf, "latest") == 0);
		CHECK(cv_spec_parse(&v, "latest-cuda12", NULL) == 0 &&
		      v.nparts == 0 && v.cuda == 12);
		cv_version_format_id(&v, buf, sizeof buf);
		CHECK(strcmp(buf, "latest-cuda12") == 0);
		cv_install_id_parse(&w, "9.13.0.50-cuda12", NULL);
		CHECK(cv_version_matches(&v, &w));
		w.cuda = 13;
		CHECK(!cv_version_matches(&v, &w));
		CHECK(cv_spec_parse(&any, "latest", NULL) == 0 &&
		      cv_version_matches(&any, &w));
		CHECK(cv_spec_parse(&v, "latest-cuda0", NULL) < 0);
		CHECK(cv_spec_parse(&v, "latestx", NULL) < 0);
		CHECK(cv_spec_parse(&v, "Latest", NULL) < 0);
		CHECK(cv_spec_parse(&v, "9.13-cuda12", NULL) == 0 &&
		      v.nparts == 2 && v.cuda == 12);
	}
	CHECK(shared_vectors_agree());
	return TEST_DONE();
}
