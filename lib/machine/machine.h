/* machine.h: the face of the machine wing, what this machine has: its CUDA
 * toolkits, driver and GPUs (each fact with its source), the loader cache
 * and the ELF files it reads. Only what cmd/ and the wings above call; the
 * rest is in machine_int.h. */
#ifndef CUDNNVM_MACHINE_MACHINE_H
#define CUDNNVM_MACHINE_MACHINE_H

#include "base/base.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cv_json;

/* ---- manifest.c / remote.c / resolve.c: NVIDIA's mirror ---------------- */

/* machine.c: the one model of this machine's CUDA stack, found lazily and
 * once per process; each fact says where it came from. */
struct cv_fact {
	int major, minor;  /* 0.0: not known */
	char source[24];   /* CUDA_HOME, CUDA_PATH, nvcc, /usr/local/cuda,
			    * libcudart, driver, override */
	char detail[4096]; /* the file or command that said it */
};

struct cv_machine {
	struct cv_fact toolkit;  /* the CUDA toolkit's version */
	struct cv_fact driver;   /* the newest CUDA the driver runs */
	char driver_version[32]; /* "580.65.06", "" when no driver */
	struct cv_fact gpu_arch; /* the lowest compute capability */
	char bad[160];           /* a malformed CUDNNVM_OVERRIDE_* */
};

#define CV_MACHINE_TOOLKIT 0x1

#define CV_MACHINE_DRIVER 0x2

#define CV_MACHINE_GPU 0x4

/* The facts asked for in `what` (CV_MACHINE_*), each found once. The
 * overrides CUDNNVM_OVERRIDE_CUDA (toolkit), CUDNNVM_OVERRIDE_DRIVER_CUDA
 * and CUDNNVM_OVERRIDE_GPU_ARCH replace what the machine says. */
const struct cv_machine *cv_machine_get(unsigned what);

/* The CUDA version a toolkit folder states in its own files (version.json,
 * version.txt, include/cuda.h, lib64/libcudart.so.N), nothing run; 1 and
 * detail (the file) set, else 0. */
int cv_machine_toolkit_files(const char *home, int *major, int *minor,
			     char *detail, size_t n);

/* The CUDA major a build without -cudaN means here: the toolkit's, else
 * the newest the driver runs, else 0 (how is then ""). `how` gets a
 * phrase saying where it came from. CV_EUSAGE (<0) for a malformed
 * override. */
int cv_machine_cuda(char *how, size_t n, struct cv_err *err);

/* The CUDA major a request means, in the one order every command uses:
 * the spec's -cudaN, else --cuda (or the config's cuda), else
 * cv_machine_cuda. 0 when nothing says; <0 for a malformed override. */
int cv_machine_want_cuda(int spec_cuda, int flag_cuda, char *how, size_t n,
			 struct cv_err *err);

/* The oldest driver version that runs any CUDA `cuda`.x ("525.60.13"),
 * NULL for a major older than 11 or newer than known. */
const char *cv_machine_min_driver(int cuda);

/* Whether the build of release v for CUDA major `cuda` is the one for this
 * machine: 1 (the major install would take), 0 (another major, newer than
 * the driver runs, or a release without code for the GPU's compute
 * capability), -1 (nothing known here: no toolkit, no driver); why says
 * so, and says when no GPU is known. */
int cv_machine_fits(const struct cv_version *v, int cuda, char *why, size_t n);

/* The lowest compute capability (major * 10 + minor: 75 for 7.5) NVIDIA's
 * support matrices list for cuDNN release v; 0 when not recorded. The one
 * table of it. */
int cv_machine_cudnn_min_arch(const struct cv_version *v);

/* Whether release v has code for the lowest compute capability of this
 * machine's GPUs (only CUDNNVM_OVERRIDE_GPU_ARCH says it outside the probe
 * child, which alone starts the driver): 1, 0 (why names what it needs,
 * the GPU's and the last release for it), -1 (no GPU known, or the
 * release's capabilities not recorded: nothing ruled out). */
int cv_machine_arch_fits(const struct cv_version *v, char *why, size_t n);

/* Every fact with its source, for doctor --json and current --json. */
struct cv_json *cv_machine_json(void);

/* ldcache.c: call fn for every "soname => path" line of `ldconfig -p`
 * (nothing when ldconfig is missing or takes over 5 seconds). */
typedef void (*cv_ldcache_fn)(void *payload, const char *soname,
			      const char *path);

void cv_ldcache_each(cv_ldcache_fn fn, void *payload);

/* elf.c: the SONAME the ELF file open on fd declares, into out (n bytes,
 * NUL-terminated), read as ldconfig reads it. CV_ELF_SONAME when found;
 * CV_ELF_NO_SONAME for an ELF file without one (ldconfig takes its file
 * name); CV_ELF_NOT_ELF; CV_ELF_BAD for an ELF file this reader cannot
 * follow (another byte order, a name longer than n, a bad offset). */
enum { CV_ELF_SONAME, CV_ELF_NO_SONAME, CV_ELF_NOT_ELF, CV_ELF_BAD };

int cv_elf_soname(int fd, char *out, size_t n);

typedef void (*cv_elf_name_fn)(void *payload, const char *name);

int cv_elf_needed(int fd, cv_elf_name_fn fn, void *payload);

/* elf.c / ldcache.c: what the loader would load. cv_elf_native: 1 when
 * the file open on fd is an ELF shared object of this program's class,
 * byte order and machine, 0 for another one, -1 when not ELF at all.
 * cv_machine_lib_loads: whether the loader would load the file at path
 * (links followed) as library `so`: readable, a regular file, native
 * (cv_elf_native) and declaring SONAME `so`. cv_machine_find_lib: where
 * the loader would find `so` for a process started now, in its order:
 * the absolute LD_LIBRARY_PATH entries, ld.so.cache, its built-in folders
 * (CUDNNVM_TEST_CUDA_LIBDIRS, a ':' list, stands in for the last two),
 * passing over every file it would not load; xmalloc'd, or NULL. The one
 * answer for --deps auto, validation and doctor. */
int cv_elf_native(int fd);

int cv_machine_lib_loads(const char *path, const char *so);

char *cv_machine_find_lib(const char *so);

/* pe.c: a Windows DLL's headers, the counterpart of cv_elf_native for
 * the Windows loader. cv_pe_read: 0 with *out set for a PE file (its COFF
 * machine, 64-bit optional header or not, DLL flag), -1 when the file open
 * on fd is not one. cv_pe_native: 1 for an x86-64 PE32+ DLL (what
 * cudnnvm.exe, x86-64 only, can load), 0 for another PE, -1 for not a PE.
 * cv_pe_machine_name: "x86-64", "i386", "ARM64" ... for messages. */
enum {
	CV_PE_I386 = 0x14c,
	CV_PE_IA64 = 0x200,
	CV_PE_ARMNT = 0x1c4,
	CV_PE_AMD64 = 0x8664,
	CV_PE_ARM64 = 0xaa64,
};

struct cv_pe {
	unsigned machine;
	int is64, is_dll;
};

int cv_pe_read(int fd, struct cv_pe *out);

int cv_pe_native(int fd);

const char *cv_pe_machine_name(unsigned machine);

#endif
