/* deps.c: what a cuDNN build loads beside itself at run time, and whether
 * this machine already has it. cuDNN 9 dlopens libcublasLt.so.<CUDA major>
 * at its first use (and aborts when it is missing) and libnvrtc for its
 * runtime-compiled engines; cuDNN 8 links cuBLAS and cuBLASLt, and its
 * CUDA 12 builds nvrtc too (doc/cudnn-facts.md, "Runtime dependencies").
 * Installing them is deps_install.c's, in the helper. */
#include "base/base.h"
#include "machine/machine.h"
#include "store/store.h"
#include "validate/validate_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CUDA 11's nvrtc keeps one soname for the whole major: libnvrtc.so.11.2. */
static void
nvrtc_soname(int cuda, char *out, size_t n)
{
	if (cuda == 11)
		snprintf(out, n, "libnvrtc.so.11.2");
	else
		snprintf(out, n, "libnvrtc.so.%d", cuda);
}

int
cv_deps_needed(const struct cv_version *v, struct cv_dep_need need[CV_MAX_DEPS])
{
	int n = 0, cuda = v->cuda;

	if (cuda < 11)
		return 0; /* older builds than NVIDIA's redist tree serves */
	memset(need, 0, CV_MAX_DEPS * sizeof *need);
	need[n].component = "libcublas";
	need[n].lib_prefix = "libcublas";
	snprintf(need[n].soname, sizeof need[n].soname, "libcublasLt.so.%d",
		 cuda);
	/* 8.x links libcublas itself too; 9.x only cuBLASLt */
	if (v->part[0] < 9)
		snprintf(need[n].soname2, sizeof need[n].soname2,
			 "libcublas.so.%d", cuda);
	n++;
	if (v->part[0] >= 9 || cuda >= 12) {
		need[n].component = "cuda_nvrtc";
		need[n].lib_prefix = "libnvrtc";
		nvrtc_soname(cuda, need[n].soname, sizeof need[n].soname);
		n++;
	}
	return n;
}

char *
cv_deps_find_on_machine(const struct cv_dep_need *need)
{
	char *p = cv_machine_find_lib(need->soname), *q;

	if (p == NULL || need->soname2[0] == '\0')
		return p;
	/* both of cuDNN 8's libraries, from one place */
	q = cv_machine_find_lib(need->soname2);
	if (q == NULL) {
		free(p);
		return NULL;
	}
	free(q);
	return p;
}

/* The libraries of component `name` cuDNN may load, for CUDA major cuda:
 * how many, into so[0..2). */
static int
component_sonames(const char *name, int cuda, char so[2][32])
{
	if (strcmp(name, "libcublas") == 0) {
		snprintf(so[0], sizeof so[0], "libcublasLt.so.%d", cuda);
		snprintf(so[1], sizeof so[1], "libcublas.so.%d", cuda);
		return 2;
	}
	if (strcmp(name, "cuda_nvrtc") == 0) {
		nvrtc_soname(cuda, so[0], sizeof so[0]);
		return 1;
	}
	return 0;
}

/* lib/<so> of the folder: loaded as that SONAME, and the file it leads to
 * in the same folder named for the release (or the SONAME itself). */
static int
soname_agrees(const char *libdir, const char *so, const struct cv_dep *dep,
	      struct cv_err *err)
{
	char *path = cv_path_join(libdir, so), real[PATH_MAX], dir[PATH_MAX];
	const char *base, *stem_end = strstr(so, ".so.");
	/* libcublasLt.so.12 -> libcublasLt.so.<release> */
	char *want =
		xasprintf("%.*s%s", stem_end ? (int)(stem_end - so) + 4 : 0, so,
			  dep->version);
	int r = 0;

	if (!cv_machine_lib_loads(path, so))
		r = cv_err_set(err, CV_ESTORE,
			       "its %s is missing or is not a library the "
			       "loader loads as %s",
			       so, so);
	else if (cv_os_realpath(path, real, sizeof real) == NULL ||
		 cv_os_realpath(libdir, dir, sizeof dir) == NULL ||
		 (base = strrchr(real, '/')) == NULL ||
		 strncmp(real, dir, strlen(dir)) != 0 ||
		 real + strlen(dir) != base)
		r = cv_err_set(err, CV_ESTORE, "its %s leads out of its lib/",
			       so);
	else if (strcmp(base + 1, so) != 0 && strcmp(base + 1, want) != 0)
		r = cv_err_set(err, CV_ESTORE,
			       "its %s is %s, a file of another release than "
			       "%s",
			       so, base + 1, dep->version);
	free(want);
	free(path);
	return r;
}

int
cv_deps_folder_agrees(const char *libdir, const struct cv_dep *dep,
		      struct cv_err *err)
{
	char so[2][32];
	int n = component_sonames(dep->name, dep->cuda, so), r = 0;

	if (n == 0)
		return cv_err_set(err, CV_ESTORE,
				  "%s is no component cuDNN loads", dep->name);
	for (int i = 0; i < n && r == 0; i++)
		r = soname_agrees(libdir, so[i], dep, err);
	return r;
}

int
cv_deps_store_copy_agrees(const struct cv_store *st, const struct cv_dep *dep)
{
	char *lib = xasprintf("%s/%s/lib", cv_store_root(st), dep->dir);
	int ok = cv_deps_folder_agrees(lib, dep, NULL) == 0;

	free(lib);
	return ok;
}

/* The tree `name` (cuda, cublas) beside the cuDNN one in NVIDIA's layout:
 * .../compute/cudnn/redist/ -> .../compute/<name>/redist/ (a site mirror
 * copying them keeps that), or NULL when m names no cudnn/redist. */
static char *
sibling_tree(const char *m, const char *name)
{
	const char *at = NULL, *p;

	for (p = m; (p = strstr(p, "/cudnn/redist")) != NULL; p++)
		at = p;
	if (at == NULL)
		return NULL;
	return xasprintf("%.*s/%s/redist%s", (int)(at - m), m, name, at + 13);
}

char *
cv_deps_cuda_mirror(const struct cv_config *cfg, const char *cudnn_mirror,
		    struct cv_err *err)
{
	const char *m = cudnn_mirror != NULL ? cudnn_mirror : cfg->mirror;
	char *out;

	if (cfg->cuda_mirror != NULL && cfg->cuda_mirror[0] != '\0')
		return xstrdup(cfg->cuda_mirror);
	if ((out = sibling_tree(m, "cuda")) == NULL)
		cv_err_set(err, CV_ECONFIG,
			   "cannot tell where the CUDA redist tree (cuBLAS, "
			   "nvrtc) is from the mirror %s: set [remote] "
			   "cuda_mirror to the folder holding its "
			   "redistrib_<cuda version>.json",
			   m);
	return out;
}

char *
cv_deps_cublas_mirror(const struct cv_config *cfg, const char *cudnn_mirror,
		      struct cv_err *err)
{
	const char *m = cudnn_mirror != NULL ? cudnn_mirror : cfg->mirror;
	char *out;

	if (cfg->cublas_mirror != NULL && cfg->cublas_mirror[0] != '\0')
		return xstrdup(cfg->cublas_mirror);
	if ((out = sibling_tree(m, "cublas")) == NULL)
		cv_err_set(err, CV_ECONFIG,
			   "cannot tell where cuBLAS's own channel is from "
			   "the mirror %s: set [remote] cublas_mirror to the "
			   "folder holding its redistrib_<version>.json",
			   m);
	return out;
}

char *
cv_deps_sibling_dir(const char *cudnn_dir, const char *channel)
{
	return sibling_tree(cudnn_dir, channel);
}
