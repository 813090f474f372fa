/* fuzz_elf.c: ELF files on any bytes, read for their DT_NEEDED names
 * (cv_elf_needed, what `frameworks` reads from a package's own shared
 * objects) and their SONAME (cv_elf_soname).
 *
 * Each input is written to a real file. Oracle: a reader of the target's
 * own, over the bytes in memory (no pread, no shared code), following the
 * rules lib/machine/elf.c documents: one PT_DYNAMIC and a PT_LOAD, the dynamic
 * entries up to DT_NULL within 1 MiB and the file, the first DT_STRTAB
 * mapped through the PT_LOAD that holds its address, at most 256 NEEDED
 * names each non-empty and ended within 256 bytes and the file. Both
 * readers accept the same files and give the same names in the same order;
 * a refusal reports no name. cv_elf_soname never reads past its buffer and
 * returns a NUL-ended, non-empty name when it says it found one. */
#include "fuzz.h"
#include "machine/machine_int.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

static char elf_path[4096];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[4096];

	(void)argc;
	(void)argv;
	fuzz_tmpdir(dir, sizeof dir, "elf");
	snprintf(elf_path, sizeof elf_path, "%s/lib.so", dir);
	return 0;
}

struct names {
	char v[CV_ELF_MAX_NEEDED + 1][CV_ELF_NAME_MAX];
	size_t n;
};

static void
collect(void *payload, const char *name)
{
	struct names *x = payload;

	FUZZ_CHECK(x->n <= CV_ELF_MAX_NEEDED, "more than %d names",
		   CV_ELF_MAX_NEEDED);
	FUZZ_CHECK(strlen(name) < CV_ELF_NAME_MAX, "a name of %zu bytes",
		   strlen(name));
	snprintf(x->v[x->n++], CV_ELF_NAME_MAX, "%s", name);
}

/* Little-endian fields of the buffer (the machines this runs on). */
static uint64_t
get(const uint8_t *d, size_t off, size_t w)
{
	uint64_t v = 0;

	for (size_t i = 0; i < w; i++)
		v |= (uint64_t)d[off + i] << (8 * i);
	return v;
}

/* The oracle: the NEEDED names of d into x; -1 when not ELF or refused. */
static int
oracle(const uint8_t *d, size_t size, struct names *x)
{
	int is64;
	uint64_t phoff, dyn = 0, strtab = 0, need[CV_ELF_MAX_NEEDED];
	size_t phnum, phent, dent, nneed = 0;
	int ndyn = 0, load = 0, have_strtab = 0;

	x->n = 0;
	if (size < 16 || memcmp(d, "\177ELF", 4) != 0)
		return -1;
	if ((d[4] != 1 && d[4] != 2) || d[5] != 1)
		return -1;
	is64 = d[4] == 2;
	if (size < (is64 ? 64u : 52u))
		return -1;
	phoff = is64 ? get(d, 32, 8) : get(d, 28, 4);
	phent = (size_t)get(d, is64 ? 54 : 42, 2);
	phnum = (size_t)get(d, is64 ? 56 : 44, 2);
	if (phnum > 512 || phent != (is64 ? 56u : 32u))
		return -1;
	for (size_t i = 0; i < phnum; i++) {
		uint64_t p = phoff + i * phent;
		if (phoff > size || p > size || size - p < phent)
			return -1;
		uint32_t type = (uint32_t)get(d, (size_t)p, 4);
		if (type == PT_LOAD)
			load = 1;
		if (type == PT_DYNAMIC) {
			ndyn++;
			dyn = is64 ? get(d, (size_t)p + 8, 8)
				   : get(d, (size_t)p + 4, 4);
		}
	}
	if (ndyn == 0)
		return 0;
	if (ndyn > 1 || !load)
		return -1;
	dent = is64 ? 16 : 8;
	for (uint64_t i = 0;; i++) {
		uint64_t e = dyn + i * dent;
		int64_t tag;
		uint64_t val;
		if (i * dent >= (1u << 20) || dyn > size || e > size ||
		    size - e < dent)
			return -1;
		tag = is64 ? (int64_t)get(d, (size_t)e, 8)
			   : (int32_t)get(d, (size_t)e, 4);
		val = get(d, (size_t)e + dent / 2, dent / 2);
		if (tag == DT_NULL)
			break;
		if (tag == DT_STRTAB && !have_strtab) {
			/* the PT_LOAD holding the address, first in order */
			int mapped = 0;
			for (size_t k = 0; k < phnum && !mapped; k++) {
				size_t p = (size_t)(phoff + k * phent);
				uint64_t off = is64 ? get(d, p + 8, 8)
						    : get(d, p + 4, 4);
				uint64_t va = is64 ? get(d, p + 16, 8)
						   : get(d, p + 8, 4);
				uint64_t fs = is64 ? get(d, p + 32, 8)
						   : get(d, p + 16, 4);
				if (get(d, p, 4) == PT_LOAD && val >= va &&
				    val - va < fs) {
					strtab = val - va + off;
					mapped = 1;
				}
			}
			if (!mapped)
				return -1;
			have_strtab = 1;
		} else if (tag == DT_NEEDED) {
			if (nneed == CV_ELF_MAX_NEEDED)
				return -1;
			need[nneed++] = val;
		}
	}
	if (nneed > 0 && !have_strtab)
		return -1;
	for (size_t i = 0; i < nneed; i++) {
		uint64_t at = strtab + need[i];
		size_t len = 0;
		if (strtab > size || need[i] > size - strtab || at >= size)
			return -1;
		while (at + len < size && len < CV_ELF_NAME_MAX &&
		       d[at + len] != 0)
			len++;
		if (len == 0 || len == CV_ELF_NAME_MAX || at + len >= size)
			return -1;
		memcpy(x->v[i], d + at, len);
		x->v[i][len] = '\0';
	}
	x->n = nneed;
	return (int)nneed;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct names got, want;
	int fd = open(elf_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	char soname[64];
	int r, o;

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	fd = open(elf_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		abort();
	got.n = 0;
	r = cv_elf_needed(fd, collect, &got);
	o = oracle(data, size, &want);
	FUZZ_CHECK((r < 0) == (o < 0), "lib says %d, the oracle %d", r, o);
	if (r < 0) {
		FUZZ_CHECK(got.n == 0, "%zu names reported before a refusal",
			   got.n);
		FUZZ_CHECK(r == -CV_ELF_BAD || r == -CV_ELF_NOT_ELF,
			   "returned %d", r);
	} else {
		FUZZ_CHECK((size_t)r == got.n && got.n == want.n,
			   "%d returned, %zu reported, %zu expected", r, got.n,
			   want.n);
		for (size_t i = 0; i < got.n; i++)
			FUZZ_CHECK(strcmp(got.v[i], want.v[i]) == 0,
				   "name %zu: '%s', expected '%s'", i, got.v[i],
				   want.v[i]);
	}
	memset(soname, 0x55, sizeof soname);
	if (cv_elf_soname(fd, soname, sizeof soname) == CV_ELF_SONAME)
		FUZZ_CHECK(memchr(soname, '\0', sizeof soname) != NULL &&
				   soname[0] != '\0',
			   "a SONAME that is not a name");
	close(fd);
	return 0;
}
