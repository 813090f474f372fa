/* machine_int.h: what the files of the machine wing (and their unit tests)
 * share; no other wing includes it. */
#ifndef CUDNNVM_MACHINE_MACHINE_INT_H
#define CUDNNVM_MACHINE_MACHINE_INT_H

#include "machine/machine.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* ---- manifest.c / remote.c / resolve.c: NVIDIA's mirror ---------------- */

#define CV_MACHINE_ALL 0x7

/* Forget what was found (tests, and a process that changed its env). */
void cv_machine_forget(void);

/* The newest CUDA major.minor a driver version ("580.65.06") runs; 0 when
 * it is older than any known or malformed. */
int cv_machine_driver_cuda(const char *version, int *major, int *minor);

/* The newest cuDNN release line (9.10) that supports compute capability
 * `arch` (major * 10 + minor); 0 when every recorded line does or none is
 * known to. */
int cv_machine_cudnn_last_for_arch(int arch, int *major, int *minor);

/* Call fn once for each DT_NEEDED name of the ELF file open on fd, in the
 * file's order, after every one of them was read: the number of names
 * (0 also for a file without a dynamic section), or -CV_ELF_NOT_ELF or
 * -CV_ELF_BAD (then fn was never called: more than CV_ELF_MAX_NEEDED, a
 * name of CV_ELF_NAME_MAX bytes or more, an empty one, a bad offset). */
#define CV_ELF_MAX_NEEDED 256

#define CV_ELF_NAME_MAX 256

#endif
