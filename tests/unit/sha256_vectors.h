/* sha256_vectors.h: tests/fixtures/sha256-vectors.tsv against whichever
 * SHA-256 backend the test links (OpenSSL in test_sha256.c, BCrypt in
 * tests/win/test_winbackends.c). */
#ifndef CUDNNVM_SHA256_VECTORS_H
#define CUDNNVM_SHA256_VECTORS_H

#include "install/backend_int.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hex to bytes; -1 on a bad digit or an odd length. */
static long
vec_unhex(const char *s, unsigned char *out, size_t cap)
{
	size_t n = strlen(s), i;

	if (strcmp(s, "-") == 0)
		return 0;
	if (n % 2 != 0 || n / 2 > cap)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned int b;
		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			return -1;
		out[i] = (unsigned char)b;
	}
	return (long)(n / 2);
}

/* Feed `rep` copies of msg[0..len) in updates of the sizes in `sizes`
 * (comma-separated, cycled; "-": one update of the whole), so that the
 * updates end at odd places of the 64-byte blocks. */
static void
vec_hash(const unsigned char *msg, size_t len, unsigned long rep,
	 const char *sizes, char hex[65])
{
	struct cv_sha256 *h = cv_sha256_new();
	size_t total = len * rep, done = 0, k = 0, nsz = 0;
	size_t sz[16] = { 0 };
	unsigned char *all = malloc(total ? total : 1);
	const char *p = sizes;

	for (size_t i = 0; i < total; i++)
		all[i] = msg[i % len];
	while (strcmp(sizes, "-") != 0 && *p && nsz < 16) {
		sz[nsz++] = strtoul(p, (char **)&p, 10);
		if (*p == ',')
			p++;
	}
	while (done < total) {
		size_t n = nsz ? sz[k++ % nsz] : total;
		if (n > total - done)
			n = total - done;
		cv_sha256_update(h, all + done, n);
		done += n;
	}
	cv_sha256_final(h, hex);
	cv_sha256_free(h);
	free(all);
}

/* One TAP line per vector; returns how many were read. */
static int
check_sha256_vectors(const char *path)
{
	char line[1024], msg_hex[512], sizes[128], want[80];
	unsigned char msg[256];
	unsigned long rep;
	int n = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL) {
		char hex[65];
		long len;

		if (line[0] == '#' || sscanf(line, "%511s %lu %127s %79s",
					     msg_hex, &rep, sizes, want) != 4)
			continue;
		len = vec_unhex(msg_hex, msg, sizeof msg);
		if (len < 0 || (len == 0 && rep != 1))
			continue;
		vec_hash(msg, (size_t)len, rep, sizes, hex);
		n++;
		t_run++;
		if (strcmp(hex, want) == 0) {
			printf("ok %d - sha256 %.16s%s x%lu updates %s\n",
			       t_run, msg_hex,
			       strlen(msg_hex) > 16 ? "..." : "", rep, sizes);
		} else {
			t_fail++;
			printf("not ok %d - sha256 %.16s x%lu updates %s: got "
			       "%s, want %s\n",
			       t_run, msg_hex, rep, sizes, hex, want);
		}
	}
	fclose(f);
	return n;
}

#endif
