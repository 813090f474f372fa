/* test_pe.c: the PE reader (lib/machine/pe.c) on headers built here, byte
 * by byte as the PE format lays them out: an x86-64 DLL is native, an
 * i386 or ARM64 one is a PE of another machine, an x86-64 program (not a
 * DLL) is not loadable as cuDNN, and a file that only starts like one (an
 * ELF library, "MZ" alone, a signature offset past the end, a bad
 * optional-header magic) is not a PE at all. The same file runs under wine
 * (make windows-check), where real mingw-built DLLs are checked too. */
#include "base/base.h"
#include "machine/machine.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[256];

static void
put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v & 0xff);
	p[1] = (unsigned char)(v >> 8);
}

/* A PE's first bytes: MZ, e_lfanew = 0x80, the signature, the COFF header
 * with `machine` and `flags`, SizeOfOptionalHeader 0xf0, the magic. */
static size_t
pe_bytes(unsigned char *b, unsigned machine, unsigned flags, unsigned magic)
{
	memset(b, 0, 0x200);
	b[0] = 'M';
	b[1] = 'Z';
	b[0x3c] = 0x80;
	b[0x80] = 'P';
	b[0x81] = 'E'; /* then two zero bytes */
	put16(b + 0x84, machine);
	put16(b + 0x84 + 16, 0xf0);
	put16(b + 0x84 + 18, flags);
	put16(b + 0x98, magic);
	return 0x200;
}

/* cv_pe_native of `len` bytes written to a file; *pe gets cv_pe_read's */
static int
native_of(const unsigned char *b, size_t len, struct cv_pe *pe)
{
	char *path = cv_path_join(dir, "f.dll");
	int fd, r;

	if (pe != NULL)
		memset(pe, 0, sizeof *pe);
	fd = cv_os_open(path, CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_TRUNC,
			0644);
	if (fd < 0 || cv_os_write_all(fd, b, len) != 0) {
		free(path);
		return -2;
	}
	cv_os_close(fd);
	fd = cv_os_open(path, CV_OPEN_READ, 0);
	free(path);
	if (fd < 0)
		return -2;
	r = cv_pe_native(fd);
	if (pe != NULL && cv_pe_read(fd, pe) != 0)
		pe->machine = 0;
	cv_os_close(fd);
	return r;
}

int
main(int argc, char **argv)
{
	unsigned char b[0x200];
	struct cv_pe pe;
	char *tmp = getenv("TMPDIR"), tmpl[256];
	int i, fd;

	/* the folder given (under wine: a Z: path), else TMPDIR, else /tmp */
	snprintf(tmpl, sizeof tmpl, "%s/cv-pe.XXXXXX",
		 argc > 1              ? argv[1]
		 : tmp != NULL && *tmp ? tmp
				       : "/tmp");
	/* a name of our own, closed before it becomes the folder (Windows
	 * removes no open file) */
	fd = cv_os_mkstemp(tmpl);
	if (fd < 0 || cv_os_close(fd) != 0 || cv_os_unlink(tmpl) != 0 ||
	    cv_os_mkdir(tmpl, 0700) != 0) {
		printf("Bail out! cannot make %s\n", tmpl);
		return 1;
	}
	snprintf(dir, sizeof dir, "%s", tmpl);

	CHECK(native_of(b, pe_bytes(b, CV_PE_AMD64, 0x2022, 0x20b), &pe) == 1);
	CHECK(pe.machine == CV_PE_AMD64 && pe.is64 && pe.is_dll);
	CHECK(native_of(b, pe_bytes(b, CV_PE_I386, 0x2102, 0x10b), &pe) == 0);
	CHECK(pe.machine == CV_PE_I386 && !pe.is64 && pe.is_dll);
	CHECK(strcmp(cv_pe_machine_name(pe.machine), "i386") == 0);
	CHECK(native_of(b, pe_bytes(b, CV_PE_ARM64, 0x2022, 0x20b), &pe) == 0);
	CHECK(strcmp(cv_pe_machine_name(pe.machine), "ARM64") == 0);
	/* a program, not a DLL */
	CHECK(native_of(b, pe_bytes(b, CV_PE_AMD64, 0x0022, 0x20b), NULL) == 0);
	/* an x86-64 COFF machine with a 32-bit optional header */
	CHECK(native_of(b, pe_bytes(b, CV_PE_AMD64, 0x2022, 0x10b), NULL) == 0);
	/* not PE at all */
	CHECK(native_of(b, pe_bytes(b, CV_PE_AMD64, 0x2022, 0x999), NULL) ==
	      -1);
	CHECK(native_of((const unsigned char *)"\177ELF\2\1\1", 7, NULL) == -1);
	CHECK(native_of((const unsigned char *)"MZ", 2, NULL) == -1);
	pe_bytes(b, CV_PE_AMD64, 0x2022, 0x20b);
	CHECK(native_of(b, 0x90, NULL) == -1); /* cut in the COFF header */
	b[0x3c] = 0xff;
	b[0x3d] = 0xff;
	b[0x3e] = 0xff;
	b[0x3f] = 0x7f; /* the signature 2 GiB on */
	CHECK(native_of(b, sizeof b, NULL) == -1);
	pe_bytes(b, CV_PE_AMD64, 0x2022, 0x20b);
	b[0x80] = 'N'; /* "NE": a 16-bit executable's signature */
	CHECK(native_of(b, sizeof b, NULL) == -1);
	/* the real files named on the command line (the wine suite's DLLs,
	 * "name=expected") */
	for (i = 2; i < argc; i++) {
		char *eq = strrchr(argv[i], '=');
		int want;

		if (eq == NULL)
			continue;
		*eq = '\0';
		want = (int)strtol(eq + 1, NULL, 10);
		fd = cv_os_open(argv[i], CV_OPEN_READ, 0);
		CHECK(fd >= 0 && cv_pe_native(fd) == want);
		if (fd >= 0)
			cv_os_close(fd);
	}
	{
		char *f = cv_path_join(dir, "f.dll");
		cv_os_unlink(f);
		free(f);
		cv_os_rmdir(dir);
	}
	return TEST_DONE();
}
