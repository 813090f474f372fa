/* test_winbackends.c: the Windows backends of the install wing, BCrypt's
 * SHA-256 and the WinHTTP transport (the cases of transport_cases.h, which
 * libcurl's passes in test_transport.c), run under wine (tests/win/run.sh)
 * against the loopback HTTPS test mirror (tests/fixtures/mirror.py).
 *   test_winbackends VECTORS PORT CA OTHER_CA PATH SHA256 SIZE
 * PATH: an archive of the mirror (Range is served for those), with its
 * SHA256 and SIZE as the mirror's tree has them. */
#include "base/base.h"
#include "install/backend_int.h"
#include "sha256_vectors.h"
#include "tap.h"
#include "transport_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cv_sha256_file reads bytes, not text: CR LF and ^Z pass unchanged. */
static void
check_file(void)
{
	static const char data[] = "a\r\nb\x1a\r\n\n\r";
	const char *path = "cv-sha256-binary.tmp";
	char want[65], got_hex[65];
	struct cv_err err = CV_ERR_INIT;
	struct cv_sha256 *h = cv_sha256_new();
	FILE *f = fopen(path, "wb");

	fwrite(data, 1, sizeof data - 1, f);
	fclose(f);
	cv_sha256_update(h, data, sizeof data - 1);
	cv_sha256_final(h, want);
	cv_sha256_free(h);
	CHECK(cv_sha256_file(path, got_hex, &err) == 0 &&
	      strcmp(got_hex, want) == 0);
	remove(path);
	CHECK(cv_sha256_file(path, got_hex, &err) < 0 &&
	      strstr(err.msg, path) != NULL);
}

int
main(int argc, char **argv)
{
	struct tc_mirror m;
	int nvec;

	if (argc != 8) {
		fprintf(stderr, "usage: test_winbackends VECTORS PORT CA "
				"OTHER_CA PATH SHA256 SIZE\n");
		return 2;
	}
	m = (struct tc_mirror){ argv[2], argv[3], argv[4],
				argv[5], argv[6], strtoull(argv[7], NULL, 10) };

	/* SHA-256 with BCrypt: the same vectors as the OpenSSL backend */
	nvec = check_sha256_vectors(argv[1]);
	CHECK(nvec >= 13);
	check_file();

	/* WinHTTP: the cases libcurl's backend passes too */
	transport_cases(&m);
	return TEST_DONE();
}
