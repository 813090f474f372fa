/* fuzz.h: the libFuzzer entry points and checks shared by the targets. */
#ifndef CUDNNVM_FUZZ_H
#define CUDNNVM_FUZZ_H

#include "base/base.h"

#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);

/* An oracle that failed: abort, so libFuzzer keeps the input as a crash. */
#define FUZZ_CHECK(cond, ...)                                               \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "fuzz oracle failed: %s: ", #cond); \
			fprintf(stderr, __VA_ARGS__);                       \
			fputc('\n', stderr);                                \
			abort();                                            \
		}                                                           \
	} while (0)

/* Every error is one line that says something (cmd/ prints it as is). */
static inline void
fuzz_check_err(int rc, const struct cv_err *err)
{
	if (rc >= 0)
		return;
	FUZZ_CHECK(err->code == rc, "code %d, returned %d", err->code, rc);
	FUZZ_CHECK(err->msg[0] != '\0', "empty message for code %d", rc);
	FUZZ_CHECK(strpbrk(err->msg, "\n\r") == NULL,
		   "message is not one line: %s", err->msg);
}

/* 1 when s is a sha256 as manifests and indexes must give it: 64
 * lower-case hex digits. */
static inline int
fuzz_lower_hex64(const char *s)
{
	if (strlen(s) != 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

/* The input as a NUL-terminated string (xmalloc-free: the caller frees). */
static inline char *
fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A fresh folder $TMPDIR/cudnnvm-fuzz-<name>.XXXXXX (/tmp without
 * TMPDIR) into `dir`, for a target's files. */
static inline void
fuzz_tmpdir(char *dir, size_t n, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, n, "%s/cudnnvm-fuzz-%s.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp", name);
	if (mkdtemp(dir) == NULL)
		abort();
}

static inline int
fuzz_remove_entry(const char *path, const struct stat *sb, int flag,
		  struct FTW *f)
{
	(void)sb;
	(void)f;
	if (flag == FTW_DP)
		chmod(path, 0700), rmdir(path);
	else
		unlink(path);
	return 0;
}

/* Remove the tree at `path`, whatever modes an input left in it. */
static inline void
fuzz_remove_tree(const char *path)
{
	nftw(path, fuzz_remove_entry, 16, FTW_PHYS | FTW_DEPTH);
}

#endif
