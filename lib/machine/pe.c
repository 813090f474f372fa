/* pe.c: what a Windows DLL is, read from its headers the way the Windows
 * loader reads them, so that validation can refuse a file LoadLibraryExW
 * would refuse (or worse, load into another kind of process) before the
 * child tries it, and say why: "an i386 DLL", "not a PE file". The
 * counterpart of elf.c's cv_elf_native; pure reading through base's face,
 * so it builds and is unit-tested on Linux too.
 *
 * The layout (Microsoft's PE format document): "MZ" at 0, the offset of
 * the "PE\0\0" signature at 0x3c, then the COFF header (Machine,
 * NumberOfSections, ..., SizeOfOptionalHeader, Characteristics) and the
 * optional header whose Magic is 0x20b for PE32+ (64-bit) and 0x10b for
 * PE32. */
#include "machine/machine_int.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#define PE_SIG_AT       0x3c
#define PE_MAX_SIG_AT   (1u << 20) /* real files put it under 0x200 */
#define COFF_DLL        0x2000     /* IMAGE_FILE_DLL */
#define OPT_MAGIC_PE32  0x10b
#define OPT_MAGIC_PE32P 0x20b

static int
read_at(int fd, uint64_t size, uint64_t off, void *buf, size_t n)
{
	size_t got = 0;

	if (off > size || n > size - off)
		return -1;
	while (got < n) {
		long r = cv_os_pread(fd, (char *)buf + got, n - got, off + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static unsigned
le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int
cv_pe_read(int fd, struct cv_pe *out)
{
	unsigned char mz[0x40], coff[24], magic[2];
	struct cv_stat sb;
	uint32_t at;

	memset(out, 0, sizeof *out);
	if (cv_os_fstat(fd, &sb) != 0 || sb.kind != CV_KIND_FILE)
		return -1;
	if (read_at(fd, sb.size, 0, mz, sizeof mz) < 0 || mz[0] != 'M' ||
	    mz[1] != 'Z')
		return -1;
	at = le32(mz + PE_SIG_AT);
	/* the signature, the 20 bytes of the COFF header, the magic */
	if (at > PE_MAX_SIG_AT ||
	    read_at(fd, sb.size, at, coff, sizeof coff) < 0 ||
	    memcmp(coff, "PE\0\0", 4) != 0)
		return -1;
	out->machine = le16(coff + 4);
	out->is_dll = (le16(coff + 22) & COFF_DLL) != 0;
	if (le16(coff + 20) < sizeof magic ||
	    read_at(fd, sb.size, at + sizeof coff, magic, sizeof magic) < 0)
		return -1;
	switch (le16(magic)) {
	case OPT_MAGIC_PE32P:
		out->is64 = 1;
		break;
	case OPT_MAGIC_PE32:
		out->is64 = 0;
		break;
	default:
		return -1;
	}
	return 0;
}

const char *
cv_pe_machine_name(unsigned machine)
{
	switch (machine) {
	case CV_PE_AMD64:
		return "x86-64";
	case CV_PE_I386:
		return "i386";
	case CV_PE_ARM64:
		return "ARM64";
	case CV_PE_ARMNT:
		return "ARM";
	case CV_PE_IA64:
		return "Itanium";
	default:
		return "an unknown machine";
	}
}

int
cv_pe_native(int fd)
{
	struct cv_pe pe;

	if (cv_pe_read(fd, &pe) != 0)
		return -1;
	return pe.machine == CV_PE_AMD64 && pe.is64 && pe.is_dll ? 1 : 0;
}
