/* test_sha256.c: streaming SHA-256 against known vectors. */
#include "base/base.h"
#include "install/install_int.h"
#include "sha256_vectors.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
hash(const char *s, size_t step, char hex[65])
{
	struct cv_sha256 *h = cv_sha256_new();
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i += step)
		cv_sha256_update(h, s + i, n - i < step ? n - i : step);
	cv_sha256_final(h, hex);
	cv_sha256_free(h);
}

int
main(void)
{
	char hex[65], tmpl[] = "/tmp/cvsha.XXXXXX";
	struct cv_err err = CV_ERR_INIT;
	FILE *f;
	int fd, nvec;

	/* the vectors the BCrypt backend is tested with on Windows too */
	nvec = check_sha256_vectors("tests/fixtures/sha256-vectors.tsv");
	CHECK(nvec >= 13);

	hash("", 1, hex);
	CHECK(strcmp(hex,
		     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") ==
	      0);
	hash("abc", 1, hex);
	CHECK(strcmp(hex,
		     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") ==
	      0);
	hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 7,
	     hex);
	CHECK(strcmp(hex,
		     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") ==
	      0);

	CHECK(cv_sha256_valid_hex(
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
	CHECK(cv_sha256_valid_hex(
		"248D6A61D20638B8E5C026930C3E6039A33CE45964FF2167F6ECEDD419DB06C1"));
	CHECK(!cv_sha256_valid_hex(
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c"));
	CHECK(!cv_sha256_valid_hex(
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1a"));
	CHECK(!cv_sha256_valid_hex(
		"g48d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
	CHECK(!cv_sha256_valid_hex(""));
	CHECK(!cv_sha256_valid_hex(NULL));

	fd = mkstemp(tmpl);
	f = fdopen(fd, "w");
	fputs("abc", f);
	fclose(f);
	CHECK(cv_sha256_file(tmpl, hex, &err) == 0);
	CHECK(strcmp(hex,
		     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") ==
	      0);
	unlink(tmpl);
	CHECK(cv_sha256_file(tmpl, hex, &err) < 0);
	CHECK(strstr(err.msg, tmpl) != NULL);
	return TEST_DONE();
}
