/* glibc_compat.h: what the release build (pkg/dist.sh defines
 * CV_GLIBC_COMPAT) binds to older glibc symbol versions, so that the
 * front binary starts on glibc 2.17 (RHEL 7) and can say in one line that
 * the helper needs 2.28, where the loader would print a trace. Each file that
 * calls glob includes it after <glob.h>: before it, gcc leaves the call
 * unversioned. */
#ifndef CUDNNVM_GLIBC_COMPAT_H
#define CUDNNVM_GLIBC_COMPAT_H

/* glob@GLIBC_2.27 changed only GLOB_ALTDIRFUNC, which cudnnvm never
 * passes: the x86-64 base version does the same for it */
#if defined(CV_GLIBC_COMPAT) && defined(__x86_64__) && defined(__GLIBC__)
__asm__(".symver glob,glob@GLIBC_2.2.5");
#endif

#endif
