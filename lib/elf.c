/* elf.c: the SONAME a shared library declares, read the way ldconfig reads
 * it (glibc's readelflib.c), so that system mode can see which names a
 * version would answer for in the loader cache before ldconfig is run.
 *
 * ldconfig takes the file offset of the dynamic section from PT_DYNAMIC,
 * the load bias from the first PT_LOAD (p_vaddr - p_offset), the first
 * DT_STRTAB and the first DT_SONAME. Every read here is bounded and checked
 * against the file's size; a file this reader cannot follow is reported as
 * unreadable rather than guessed at, since ldconfig might follow it. */
#include "internal.h"

#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PHDRS   512       /* real libraries have about ten */
#define MAX_DYNAMIC (1 << 20) /* bytes of dynamic entries read at most */

struct elf_file {
	int fd;
	uint64_t size;
	int is64;
};

static int
read_at(const struct elf_file *f, uint64_t off, void *buf, size_t n)
{
	size_t got = 0;

	if (off > f->size || n > f->size - off)
		return -1;
	while (got < n) {
		ssize_t r = pread(f->fd, (char *)buf + got, n - got,
				  (off_t)(off + got));
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

int
cv_elf_soname(int fd, char *out, size_t n)
{
	unsigned char ident[EI_NIDENT];
	struct elf_file f = { fd, 0, 0 };
	uint64_t phoff, dyn = 0, bias = 0, strtab = 0, soname = 0;
	unsigned phnum, phentsize;
	int have_strtab = 0, have_soname = 0, r;
	struct stat sb;

	if (n == 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
		return CV_ELF_BAD;
	f.size = (uint64_t)sb.st_size;
	if (f.size < EI_NIDENT || read_at(&f, 0, ident, sizeof ident) < 0 ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0)
		return CV_ELF_NOT_ELF;
	if ((ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64) ||
	    ident[EI_DATA] != (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB
							       : ELFDATA2MSB))
		return CV_ELF_BAD;
	f.is64 = ident[EI_CLASS] == ELFCLASS64;
	if (f.is64) {
		Elf64_Ehdr h;
		if (read_at(&f, 0, &h, sizeof h) < 0)
			return CV_ELF_BAD;
		phoff = h.e_phoff;
		phnum = h.e_phnum;
		phentsize = h.e_phentsize;
	} else {
		Elf32_Ehdr h;
		if (read_at(&f, 0, &h, sizeof h) < 0)
			return CV_ELF_BAD;
		phoff = h.e_phoff;
		phnum = h.e_phnum;
		phentsize = h.e_phentsize;
	}
	if (phnum > MAX_PHDRS ||
	    phentsize != (f.is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return CV_ELF_BAD;
	r = find_dynamic(&f, phoff, phnum, phentsize, &dyn, &bias);
	if (r != 0)
		return r > 0 ? CV_ELF_NO_SONAME : CV_ELF_BAD;
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
	if (!have_strtab || strtab > f.size || soname > f.size - strtab)
		return CV_ELF_BAD;
	/* the name, NUL included, must fit in out and in the file */
	if (f.size - strtab - soname < n)
		n = (size_t)(f.size - strtab - soname);
	if (n == 0 || read_at(&f, strtab + soname, out, n) < 0 ||
	    memchr(out, '\0', n) == NULL || out[0] == '\0')
		return CV_ELF_BAD;
	return CV_ELF_SONAME;
}
