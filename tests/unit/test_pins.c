/* test_pins.c: the built-in pin table equals tests/fixtures/manifest-pins.tsv
 * and matches NVIDIA's real manifests. Run from the repository root. */
#include "base/base.h"
#include "install/install_int.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
check_file(const char *name)
{
	char *path = xasprintf("tests/fixtures/manifests/%s", name);
	FILE *f = fopen(path, "rb");
	char buf[1 << 16];
	size_t n = 0;
	int r;

	free(path);
	if (f == NULL)
		return -1;
	n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	r = cv_pins_check(name, buf, n, NULL);
	return r;
}

int
main(void)
{
	FILE *f = fopen("tests/fixtures/manifest-pins.tsv", "r");
	char line[512];
	int rows = 0, same = 0;

	CHECK(f != NULL);
	while (f && fgets(line, sizeof line, f) != NULL) {
		char ver[32], url[256], sha[80], *name;
		const char *pin;
		if (sscanf(line, "%31s %255s %79s", ver, url, sha) != 3 ||
		    strcmp(ver, "version") == 0)
			continue;
		rows++;
		name = xasprintf("redistrib_%s.json", ver);
		pin = cv_pins_lookup(name);
		if (pin != NULL && strcmp(pin, sha) == 0 &&
		    strstr(url, name) != NULL)
			same++;
		else
			printf("# %s: pin differs from the tsv\n", name);
		free(name);
	}
	if (f)
		fclose(f);
	CHECK(rows >= 37);
	CHECK(same == rows);
	CHECK(cv_pins_lookup("redistrib_0.0.0.json") == NULL);
	CHECK(cv_pins_lookup("") == NULL);
	/* the real manifests pass their pins */
	CHECK(check_file("redistrib_8.9.7.29.json") == 0);
	CHECK(check_file("redistrib_9.8.0.json") == 0);
	CHECK(check_file("redistrib_9.13.0.json") == 0);
	CHECK(check_file("redistrib_9.20.0.json") == 0);
	/* other bytes under a pinned name are tampering */
	{
		struct cv_err err = CV_ERR_INIT;
		CHECK(cv_pins_check("redistrib_9.13.0.json", "{}", 2, &err) ==
		      CV_EDATA);
		CHECK(strstr(err.msg, "tampering") != NULL);
		/* one short line; the setting that relaxes it for the one
		 * mirror is the hint */
		CHECK(strlen(err.msg) < 170);
		CHECK(strstr(err.hint, "cudnnvm config set remote.verify_pins "
				       "mirror") != NULL);
	}
	return TEST_DONE();
}
