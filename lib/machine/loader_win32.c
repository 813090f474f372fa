/* loader_win32.c: what the Windows loader would load, the counterpart of
 * elf.c and ldcache.c for the same questions (validation, --deps auto,
 * doctor): a DLL has no SONAME, its name is its file's; there is no
 * loader cache; a program loading a DLL by name (as a framework loads
 * cudnn64_9.dll or cublasLt64_12.dll) gets, in order, its own folder's,
 * then System32's, the Windows folder's, and then the first PATH
 * folder's (the standard search order with SafeDllSearchMode, the
 * working folder aside), passing over a file that is no x86-64 DLL
 * (machine/pe.c). */
#ifdef _WIN32
#include "base/base.h"
#include "machine/machine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A DLL's name, case folded as Windows compares it */
static int
same_name(const char *a, const char *b)
{
	for (;; a++, b++) {
		int x = (unsigned char)*a, y = (unsigned char)*b;

		x = x >= 'A' && x <= 'Z' ? x + ('a' - 'A') : x;
		y = y >= 'A' && y <= 'Z' ? y + ('a' - 'A') : y;
		if (x != y)
			return 0;
		if (x == '\0')
			return 1;
	}
}

int
cv_machine_lib_loads(const char *path, const char *so)
{
	const char *base = strrchr(path, '\\'), *slash = strrchr(path, '/');
	int fd, r;

	if (slash != NULL && (base == NULL || slash > base))
		base = slash;
	base = base != NULL ? base + 1 : path;
	if (!same_name(base, so) ||
	    (fd = cv_os_open(path, CV_OPEN_READ, 0)) < 0)
		return 0;
	r = cv_pe_native(fd) == 1;
	cv_os_close(fd);
	return r;
}

/* dir\so when the loader would load it: xmalloc'd, or NULL */
static char *
in_dir(const char *dir, size_t n, const char *so)
{
	char *p;

	while (n > 0 && (dir[n - 1] == '\\' || dir[n - 1] == '/'))
		n--;
	if (n == 0)
		return NULL;
	p = xasprintf("%.*s\\%s", (int)n, dir, so);
	if (cv_machine_lib_loads(p, so))
		return p;
	free(p);
	return NULL;
}

char *
cv_machine_find_lib(const char *so)
{
	/* the test hook of the Linux side: a ';' list standing in for the
	 * system folders */
	const char *test = getenv("CUDNNVM_TEST_CUDA_LIBDIRS");
	const char *root = getenv("SystemRoot"), *path = getenv("PATH");
	char sys[2][600], *found = NULL;
	const char *p, *end;
	int i;

	snprintf(sys[0], sizeof sys[0], "%s\\System32",
		 root != NULL ? root : "C:\\Windows");
	snprintf(sys[1], sizeof sys[1], "%s",
		 root != NULL ? root : "C:\\Windows");
	for (i = 0; test == NULL && i < 2 && found == NULL; i++)
		found = in_dir(sys[i], strlen(sys[i]), so);
	p = test != NULL ? test : path != NULL ? path : "";
	for (; found == NULL && *p; p = *end ? end + 1 : end) {
		end = strchr(p, ';');
		if (end == NULL)
			end = p + strlen(p);
		found = in_dir(p, (size_t)(end - p), so);
	}
	return found;
}

/* Windows keeps no cache of libraries by name */
void
cv_ldcache_each(cv_ldcache_fn fn, void *payload)
{
	(void)fn;
	(void)payload;
}

/* A PE file is never ELF: what reads sonames (system mode, the install's
 * library sweep) and the frameworks' DT_NEEDED entries learns it is none */
int
cv_elf_soname(int fd, char *out, size_t n)
{
	(void)fd;
	if (n > 0)
		out[0] = '\0';
	return CV_ELF_NOT_ELF;
}

int
cv_elf_needed(int fd, cv_elf_name_fn fn, void *payload)
{
	(void)fd;
	(void)fn;
	(void)payload;
	return -1;
}

int
cv_elf_native(int fd)
{
	(void)fd;
	return -1;
}
#endif
