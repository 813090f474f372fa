/* elf.c: the SONAME a shared library declares, read the way ldconfig reads
 * it (glibc's readelflib.c), so that system mode can see which names a
 * version would answer for in the loader cache before ldconfig is run.
 *
 * ldconfig takes the file offset of the dynamic section from PT_DYNAMIC,
 * the load bias from the first PT_LOAD (p_vaddr - p_offset), the first
 * DT_STRTAB and the first DT_SONAME. The DT_NEEDED entries (the libraries a
 * framework's own shared objects link, when its metadata names no cuDNN)
 * are read from the same dynamic section. Every read here is bounded and
 * checked against the file's size; a file this reader cannot follow is reported
 * as unreadable rather than guessed at, since ldconfig might follow it. */
#include "machine/machine_int.h"

#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

/* The ELF machine this program runs as: the loader maps no other. */
#if defined(__x86_64__)
#define NATIVE_EM EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_EM EM_AARCH64
#elif defined(__powerpc64__)
#define NATIVE_EM EM_PPC64
#endif

#define MAX_PHDRS   512       /* real libraries have about ten */
#define MAX_DYNAMIC (1 << 20) /* bytes of dynamic entries read at most */

struct elf_file {
	int fd;
	uint64_t size;
	int is64;
	uint64_t phoff; /* the program headers */
	unsigned phnum, phentsize;
};

static int
read_at(const struct elf_file *f, uint64_t off, void *buf, size_t n)
{
	size_t got = 0;

	if (off > f->size || n > f->size - off)
		return -1;
	while (got < n) {
		long r = cv_os_pread(f->fd, (char *)buf + got, n - got,
				     off + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* The fields of one program header both classes share. */
struct phdr {
	uint32_t type;
	uint64_t offset, vaddr, filesz;
};

static int
read_phdr(const struct elf_file *f, uint64_t off, struct phdr *p)
{
	if (f->is64) {
		Elf64_Phdr h;
		if (read_at(f, off, &h, sizeof h) < 0)
			return -1;
		*p = (struct phdr){ h.p_type, h.p_offset, h.p_vaddr,
				    h.p_filesz };
	} else {
		Elf32_Phdr h;
		if (read_at(f, off, &h, sizeof h) < 0)
			return -1;
		*p = (struct phdr){ h.p_type, h.p_offset, h.p_vaddr,
				    h.p_filesz };
	}
	return 0;
}

/* Dynamic entry i (tag and value) of the section at `off`. */
static int
read_dyn(const struct elf_file *f, uint64_t off, uint64_t i, int64_t *tag,
	 uint64_t *val)
{
	if (f->is64) {
		Elf64_Dyn d;
		if (read_at(f, off + i * sizeof d, &d, sizeof d) < 0)
			return -1;
		*tag = d.d_tag;
		*val = d.d_un.d_val;
	} else {
		Elf32_Dyn d;
		if (read_at(f, off + i * sizeof d, &d, sizeof d) < 0)
			return -1;
		*tag = d.d_tag;
		*val = d.d_un.d_val;
	}
	return 0;
}

/* Where the dynamic entries start and the load bias; 1 when the file has
 * no dynamic section (ldconfig takes its name then). */
static int
find_dynamic(const struct elf_file *f, uint64_t phoff, unsigned phnum,
	     unsigned phentsize, uint64_t *dyn, uint64_t *bias)
{
	int have_load = 0, ndyn = 0;

	for (unsigned i = 0; i < phnum; i++) {
		struct phdr p;
		if (read_phdr(f, phoff + (uint64_t)i * phentsize, &p) < 0)
			return -1;
		if (p.type == PT_LOAD && !have_load) {
			*bias = p.vaddr - p.offset;
			have_load = 1;
		} else if (p.type == PT_DYNAMIC) {
			*dyn = p.offset;
			ndyn++;
		}
	}
	/* two dynamic segments: which one a reader takes is a guess */
	if (ndyn > 1)
		return -1;
	return ndyn == 0 ? 1 : have_load ? 0 : -1;
}

/* The dynamic section of the ELF file open on fd: f filled, its file
 * offset in *dyn and the load bias in *bias. CV_ELF_SONAME (0) when found,
 * CV_ELF_NO_SONAME when the file has no dynamic section, else
 * CV_ELF_NOT_ELF or CV_ELF_BAD. */
static int
open_dynamic(int fd, struct elf_file *f, uint64_t *dyn, uint64_t *bias)
{
	unsigned char ident[EI_NIDENT];
	uint64_t phoff;
	unsigned phnum, phentsize;
	struct cv_stat sb;
	int r;

	f->fd = fd;
	if (cv_os_fstat(fd, &sb) != 0 || sb.kind != CV_KIND_FILE)
		return CV_ELF_BAD;
	f->size = sb.size;
	if (f->size < EI_NIDENT || read_at(f, 0, ident, sizeof ident) < 0 ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0)
		return CV_ELF_NOT_ELF;
	if ((ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64) ||
	    ident[EI_DATA] != (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB
							       : ELFDATA2MSB))
		return CV_ELF_BAD;
	f->is64 = ident[EI_CLASS] == ELFCLASS64;
	if (f->is64) {
		Elf64_Ehdr h;
		if (read_at(f, 0, &h, sizeof h) < 0)
			return CV_ELF_BAD;
		phoff = h.e_phoff;
		phnum = h.e_phnum;
		phentsize = h.e_phentsize;
	} else {
		Elf32_Ehdr h;
		if (read_at(f, 0, &h, sizeof h) < 0)
			return CV_ELF_BAD;
		phoff = h.e_phoff;
		phnum = h.e_phnum;
		phentsize = h.e_phentsize;
	}
	if (phnum > MAX_PHDRS ||
	    phentsize != (f->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return CV_ELF_BAD;
	f->phoff = phoff;
	f->phnum = phnum;
	f->phentsize = phentsize;
	r = find_dynamic(f, phoff, phnum, phentsize, dyn, bias);
	if (r != 0)
		return r > 0 ? CV_ELF_NO_SONAME : CV_ELF_BAD;
	return CV_ELF_SONAME;
}

/* The file offset of address vaddr, through the PT_LOAD segment holding
 * it, as the loader maps it: patchelf (auditwheel's repair of a wheel)
 * moves .dynstr into a segment of its own, where the first segment's bias
 * that ldconfig uses is wrong. 0, or -1 when no segment holds it. */
static int
vaddr_offset(const struct elf_file *f, uint64_t vaddr, uint64_t *off)
{
	for (unsigned i = 0; i < f->phnum; i++) {
		struct phdr p;
		if (read_phdr(f, f->phoff + (uint64_t)i * f->phentsize, &p) < 0)
			return -1;
		if (p.type == PT_LOAD && vaddr >= p.vaddr &&
		    vaddr - p.vaddr < p.filesz) {
			*off = vaddr - p.vaddr + p.offset;
			return 0;
		}
	}
	return -1;
}

/* String `off` of the string table at `strtab` into out (n bytes): 0, or
 * -1 when it is empty, not ended within n bytes or outside the file. */
static int
read_string(const struct elf_file *f, uint64_t strtab, uint64_t off, char *out,
	    size_t n)
{
	if (strtab > f->size || off > f->size - strtab)
		return -1;
	/* the name, NUL included, must fit in out and in the file */
	if (f->size - strtab - off < n)
		n = (size_t)(f->size - strtab - off);
	if (n == 0 || read_at(f, strtab + off, out, n) < 0 ||
	    memchr(out, '\0', n) == NULL || out[0] == '\0')
		return -1;
	return 0;
}

int
cv_elf_native(int fd)
{
	struct elf_file f = { fd, 0, 0, 0, 0, 0 };
	unsigned char ident[EI_NIDENT];
	uint16_t hdr[2]; /* e_type, e_machine: the same place in both classes */
	struct cv_stat sb;

	if (cv_os_fstat(fd, &sb) != 0 || sb.kind != CV_KIND_FILE)
		return -1;
	f.size = sb.size;
	if (read_at(&f, 0, ident, sizeof ident) < 0 ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0 ||
	    read_at(&f, EI_NIDENT, hdr, sizeof hdr) < 0)
		return -1;
	return ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64
						       : ELFCLASS32) &&
			       ident[EI_DATA] ==
				       (__BYTE_ORDER == __LITTLE_ENDIAN
						? ELFDATA2LSB
						: ELFDATA2MSB) &&
			       hdr[0] == ET_DYN
#ifdef NATIVE_EM
			       && hdr[1] == NATIVE_EM
#endif
		       ? 1
		       : 0;
}

int
cv_elf_soname(int fd, char *out, size_t n)
{
	struct elf_file f = { fd, 0, 0, 0, 0, 0 };
	uint64_t dyn = 0, bias = 0, strtab = 0, soname = 0;
	int have_strtab = 0, have_soname = 0, r;

	if (n == 0)
		return CV_ELF_BAD;
	if ((r = open_dynamic(fd, &f, &dyn, &bias)) != CV_ELF_SONAME)
		return r;
	for (uint64_t i = 0;; i++) {
		int64_t tag;
		uint64_t val;
		if (i * (f.is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn)) >=
			    MAX_DYNAMIC ||
		    read_dyn(&f, dyn, i, &tag, &val) < 0)
			return CV_ELF_BAD;
		if (tag == DT_NULL)
			break;
		if (tag == DT_STRTAB && !have_strtab) {
			strtab = val - bias;
			have_strtab = 1;
		} else if (tag == DT_SONAME && !have_soname) {
			soname = val;
			have_soname = 1;
		}
	}
	if (!have_soname)
		return CV_ELF_NO_SONAME;
	if (!have_strtab || read_string(&f, strtab, soname, out, n) < 0)
		return CV_ELF_BAD;
	return CV_ELF_SONAME;
}

int
cv_elf_needed(int fd, cv_elf_name_fn fn, void *payload)
{
	struct elf_file f = { fd, 0, 0, 0, 0, 0 };
	/* bias unused: the segment holding DT_STRTAB maps it instead */
	uint64_t dyn = 0, bias = 0, strtab = 0, needed[CV_ELF_MAX_NEEDED];
	size_t nneeded = 0;
	int have_strtab = 0, r;
	char name[CV_ELF_NAME_MAX];

	if ((r = open_dynamic(fd, &f, &dyn, &bias)) != CV_ELF_SONAME)
		return r == CV_ELF_NO_SONAME ? 0 : -r;
	for (uint64_t i = 0;; i++) {
		int64_t tag;
		uint64_t val;
		if (i * (f.is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn)) >=
			    MAX_DYNAMIC ||
		    read_dyn(&f, dyn, i, &tag, &val) < 0)
			return -CV_ELF_BAD;
		if (tag == DT_NULL)
			break;
		if (tag == DT_STRTAB && !have_strtab) {
			if (vaddr_offset(&f, val, &strtab) < 0)
				return -CV_ELF_BAD;
			have_strtab = 1;
		} else if (tag == DT_NEEDED) {
			if (nneeded == CV_ELF_MAX_NEEDED)
				return -CV_ELF_BAD;
			needed[nneeded++] = val;
		}
	}
	if (nneeded > 0 && !have_strtab)
		return -CV_ELF_BAD;
	/* all read before any is reported: a bad one makes the file bad */
	for (size_t i = 0; i < nneeded; i++)
		if (read_string(&f, strtab, needed[i], name, sizeof name) < 0)
			return -CV_ELF_BAD;
	for (size_t i = 0; i < nneeded; i++) {
		read_string(&f, strtab, needed[i], name, sizeof name);
		fn(payload, name);
	}
	return (int)nneeded;
}
