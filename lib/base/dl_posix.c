/* dl_posix.c: dynamic loading (cv_dl_*) with dlopen(3): what the probes
 * that load cuDNN and the CUDA driver into a child stand on. */
#include "base/base_int.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

void *
cv_dl_open(const char *path, int global)
{
	return dlopen(path, RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
}

void *
cv_dl_sym(void *lib, const char *name)
{
	return dlsym(lib, name);
}

const char *
cv_dl_error(void)
{
	return dlerror();
}

void
cv_dl_close(void *lib)
{
	if (lib != NULL)
		dlclose(lib);
}

int
cv_dl_file_of(const void *addr, char *buf, size_t n)
{
	Dl_info info;

	if (n == 0 || !dladdr(addr, &info) || info.dli_fname == NULL)
		return -1;
	snprintf(buf, n, "%s", info.dli_fname);
	return 0;
}

struct each_loaded {
	int (*fn)(const char *path, void *payload);
	void *payload;
};

static int
each_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct each_loaded *e = arg;

	(void)size;
	return e->fn(info->dlpi_name != NULL ? info->dlpi_name : "",
		     e->payload);
}

int
cv_dl_each_loaded(int (*fn)(const char *path, void *payload), void *payload)
{
	struct each_loaded e = { fn, payload };

	return dl_iterate_phdr(each_cb, &e);
}
