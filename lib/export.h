/* export.h: an installed version as the engines of a GPU fleet take it:
 * an OCI image (export_oci.c, helper only), a CDI spec (cdi.c), the
 * mount flags of Pyxis, Apptainer and a Kubernetes Pod (env.c, shell.c)
 * and an EasyBuild tree (easybuild.c, helper only). Every one of them
 * puts the version at the same place, so one lock means one layout. */
#ifndef CUDNNVM_EXPORT_H
#define CUDNNVM_EXPORT_H

#include "cudnnvm.h"

/* Where a container finds a version: CV_CTR_ROOT/<id>, and each of its
 * dependency folders beside it (CV_CTR_ROOT/deps/<name>), as the store
 * keeps them. */
#define CV_CTR_ROOT "/opt/cudnn"

/* ---- env.c: the container view of a version ---------------------------- */

struct cv_ctr_mount {
	char *host; /* the folder on this machine */
	char *ctr;  /* where the container sees it */
};
struct cv_ctr_view {
	char id[64];
	char platform[32];
	char sha256[65]; /* of the archive it came from */
	/* the version's folder first, then its dependencies' */
	struct cv_ctr_mount m[1 + CV_MAX_DEPS];
	size_t nm;
	/* inside the container: CUDNN_PATH, CUDNN_HOME, LD_LIBRARY_PATH */
	struct cv_env env;
};
/* The view of installed `id`. CV_ENOTFOUND when it is not installed;
 * CV_EUSAGE for a Windows build; CV_ERROR (hint: --deps always) when a
 * library it loads was found outside the store, where no container can
 * see it. */
int cv_env_container(struct cv_ctr_view *out, const struct cv_store *st,
		     const char *id, struct cv_err *err);
void cv_env_container_release(struct cv_ctr_view *v);
/* The value of `name` in v->env, or NULL. */
const char *cv_env_container_get(const struct cv_ctr_view *v, const char *name);

/* ---- shell.c: the flags of one engine ----------------------------------- */

enum cv_engine {
	CV_ENGINE_PYXIS = 0, /* srun --container-mounts=SRC:DST:ro,... */
	CV_ENGINE_APPTAINER, /* apptainer exec --bind ... --env ... */
	CV_ENGINE_K8S,       /* a Pod's image volume and its mount */
};
/* "pyxis" / "apptainer" / "k8s"; CV_EUSAGE otherwise. */
int cv_engine_parse(const char *s, int *out, struct cv_err *err);
/* Append what `engine` takes to give a container view v. For k8s,
 * `image` is the image reference the volume pulls (that `export oci`
 * wrote and the site pushed). A path the engine would split (Pyxis: ':',
 * ',' and white space, which enroot's mount table splits; Apptainer: ':'
 * and ',') is CV_EUSAGE naming it, never a broken mount. */
int cv_engine_emit(struct cv_buf *b, int engine, const struct cv_ctr_view *v,
		   const char *image, struct cv_err *err);

/* ---- cdi.c: a CDI spec ----------------------------------------------- */

#define CV_CDI_KIND "cudnnvm.dev/cudnn"
/* 1 when `s` is a name CDI takes for a device: letters, digits, '-',
 * '_', '.', ':', starting and ending with a letter or digit. */
int cv_cdi_name_valid(const char *s);
/* The CDI spec (kind CV_CDI_KIND) with one device per view, named
 * `prefix` + id, whose containerEdits mount the version and its
 * dependencies read-only and set its paths (xmalloc'd JSON text). */
int cv_cdi_spec(const struct cv_ctr_view *views, size_t n, const char *prefix,
		char **out, struct cv_err *err);

/* ---- export_oci.c (helper only): an OCI image layout -------------------- */

struct cv_oci_result {
	char manifest[72]; /* sha256:<hex> of the image manifest */
	char layer[72];    /* of the compressed layer */
	char diff_id[72];  /* of the uncompressed layer */
	uint64_t layer_size;
	char ref[128]; /* the tag it is named by in index.json */
};
/* 1 when `s` is a reference name an OCI layout's index takes (the
 * grammar of org.opencontainers.image.ref.name's tag part). */
int cv_oci_ref_valid(const char *s);
/* Write the image of view v into the OCI image layout `dir` (made when
 * missing or empty; an existing layout keeps its other images, one of
 * the same `ref` replaced). Its one layer holds the version at
 * CV_CTR_ROOT/<id> and its dependency folders beside it, written in
 * sorted order with uid/gid 0, fixed times and a gzip header without a
 * time or name, so the same build gives the same digests anywhere. A
 * folder that is not empty and not an OCI layout is refused
 * (CV_EUSAGE). */
int cv_oci_export(const struct cv_ctr_view *v, const char *dir, const char *ref,
		  struct cv_oci_result *out, struct cv_err *err);

/* The build the pin's cudnnvm.lock locks (lock: its path), when it is
 * installed from exactly the bytes the lock names for its platform:
 * CV_ENOTFOUND (hint: install --frozen) when it is not installed,
 * CV_EDATA when other bytes are. */
int cv_oci_locked_id(const struct cv_store *st, char id[64], char lock[4096],
		     struct cv_err *err);

/* ---- easybuild.c (helper only): an EESSI host_injections tree ---------- */

/* Copy installed `id` (its folder, LICENSE included, without the store's
 * own cudnnvm.json) into <prefix>/software/cuDNN/<ver>/, <ver> being
 * <version>-CUDA-<major> as EasyBuild names it, with the easybuild/
 * folder EasyBuild leaves there: the easyconfig it amounts to (source,
 * sha256, accept_eula) and where it came from. EESSI's own module finds
 * it there. Made beside and renamed into place; an existing folder is
 * replaced only with force (CV_ERROR otherwise). *where gets the folder
 * (xmalloc'd). */
int cv_easybuild_install(const struct cv_store *st, const char *id,
			 const char *prefix, int force, char **where,
			 struct cv_err *err);

#endif
