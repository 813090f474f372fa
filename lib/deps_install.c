/* deps_install.c: getting what a cuDNN build loads beside itself (deps.c
 * says what) into the store: found on this machine, or already in the
 * store, or the newest release of its CUDA major that the driver runs,
 * from NVIDIA's CUDA redist tree, verified and published like a version. */
#include "internal.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct component_pick {
	const char *component, *platform;
	int cuda;
	struct cv_release_file file;
	char version[32];
};

static int
parse_component(void *arg, const char *name, const char *data, size_t len,
		struct cv_err *err)
{
	struct component_pick *p = arg;

	return cv_manifest_component(name, data, len, p->component, p->platform,
				     p->cuda, &p->file, p->version, err);
}

/* Whether CUDA release v (12.8.1) may run here: its major is `cuda`, and
 * a driver that states an older minor of that major would not run what
 * nvrtc of a newer one generates. */
static int
release_fits(const struct cv_version *v, int cuda)
{
	const struct cv_machine *m = cv_machine_get(CV_MACHINE_DRIVER);

	if ((int)v->part[0] != cuda)
		return 0;
	if (m->driver.major == cuda && v->nparts > 1 &&
	    (int)v->part[1] > m->driver.minor)
		return 0;
	return 1;
}

/* The newest release of `need` for CUDA major `cuda` on the CUDA mirror
 * that the driver runs: p filled, *url xmalloc'd. */
static int
pick_release(struct cv_index *ix, struct component_pick *p, char **url,
	     struct cv_err *err)
{
	int r = CV_ENOTFOUND;

	for (size_t i = 0; i < cv_index_count(ix); i++) {
		if (!release_fits(cv_index_version(ix, i), p->cuda))
			continue;
		r = cv_index_read(ix, i, parse_component, p, err);
		if (r == CV_ENOTFOUND)
			continue; /* a release without it for this platform */
		if (r < 0)
			return r;
		*url = cv_manifest_url(cv_remote_mirror(cv_index_remote(ix)),
				       p->file.relative_path);
		return 0;
	}
	cv_err_set(err, CV_ENOTFOUND,
		   "the CUDA mirror %s has no %s for CUDA %d on %s%s",
		   cv_remote_mirror(cv_index_remote(ix)), p->component, p->cuda,
		   p->platform,
		   cv_machine_get(CV_MACHINE_DRIVER)->driver.major == p->cuda
			   ? " that this driver runs"
			   : "");
	return r;
}

/* dep's record: component, version, CUDA major, its folder's name. */
static void
dep_named(struct cv_dep *dep, const char *component, const char *version,
	  int cuda)
{
	memset(dep, 0, sizeof *dep);
	snprintf(dep->name, sizeof dep->name, "%s", component);
	snprintf(dep->version, sizeof dep->version, "%s", version);
	dep->cuda = cuda;
	snprintf(dep->dir, sizeof dep->dir, "deps/%s-%s", component, version);
}

/* art from url, announced, downloaded (cached by sha256), verified and
 * published as dep: an archive or a wheel alike. */
static int
download_dep(const struct cv_deps_req *req, struct cv_remote *rem,
	     const struct cv_dep_need *need, const struct cv_artifact *art,
	     const char *url, struct cv_dep *dep, struct cv_err *err)
{
	struct cv_download *dl = NULL;
	struct cv_fetcher fetch;
	int r;

	if (req->fetching != NULL)
		req->fetching(req->payload, dep, art);
	r = cv_download_new(&dl, rem, art, url, cv_store_cache_dir(req->st),
			    req->keep_archives, err);
	if (r == 0) {
		cv_download_fetcher(dl, &fetch);
		if (req->show != NULL)
			req->show(req->payload, dl, art, url, &fetch);
		r = cv_store_install_dep(req->st, art, dep, need->lib_prefix,
					 &fetch, &req->opts, err);
		if (r == CV_EDATA && cv_download_used_cache(dl))
			cv_download_discard(dl);
	}
	if (r == CV_EDATA && strstr(err->msg, url) == NULL) {
		size_t n = strlen(err->msg);
		snprintf(err->msg + n, sizeof err->msg - n, " (from %s)", url);
	}
	cv_download_free(dl);
	return r;
}

/* Download, verify and publish one chosen dependency archive `f` (its
 * url relative to the CUDA mirror of rem) as dep. */
static int
install_file(const struct cv_deps_req *req, struct cv_remote *rem,
	     const struct cv_dep_need *need, const struct cv_dep_file *f,
	     struct cv_dep *dep, struct cv_err *err)
{
	struct cv_artifact art;
	struct cv_version v;
	char *url = cv_manifest_url(cv_remote_mirror(rem), f->url), *base;
	int r;

	memset(&art, 0, sizeof art);
	base = strrchr(f->url, '/');
	base = base ? base + 1 : (char *)f->url;
	if (cv_version_parse(&v, f->version, NULL) < 0 ||
	    strlen(base) >= sizeof art.filename || strlen(url) >= 1024) {
		r = cv_err_set(err, CV_EDATA, "bad %s entry for %s",
			       need->component, url);
		free(url);
		return r;
	}
	art.version = v;
	art.size = f->size;
	snprintf(art.platform, sizeof art.platform, "%s", req->platform);
	memcpy(art.sha256, f->sha256, sizeof art.sha256);
	snprintf(art.filename, sizeof art.filename, "%s", base);
	snprintf(art.source, sizeof art.source, "%s", url);
	dep_named(dep, need->component, f->version, req->version->cuda);
	r = download_dep(req, rem, need, &art, url, dep, err);
	free(url);
	return r;
}

/* The newest release of need's component for the build's CUDA major on
 * the mirror that the driver runs, for req->platform. */
static int
pick_file(const struct cv_deps_req *req, struct cv_index *ix,
	  const struct cv_dep_need *need, struct cv_dep_file *f,
	  struct cv_err *err)
{
	struct component_pick p;
	char *url = NULL;
	int r;

	memset(&p, 0, sizeof p);
	p.component = need->component;
	p.platform = req->platform;
	p.cuda = req->version->cuda;
	if ((r = pick_release(ix, &p, &url, err)) < 0)
		return r;
	free(url);
	memset(f, 0, sizeof *f);
	snprintf(f->name, sizeof f->name, "%s", need->component);
	snprintf(f->version, sizeof f->version, "%s", p.version);
	snprintf(f->url, sizeof f->url, "%s", p.file.relative_path);
	memcpy(f->sha256, p.file.sha256, sizeof f->sha256);
	f->size = p.file.size;
	return 0;
}

static int
fetch_one(const struct cv_deps_req *req, struct cv_index *ix,
	  const struct cv_dep_need *need, struct cv_dep *dep,
	  struct cv_err *err)
{
	struct cv_dep_file f;
	int r;

	if ((r = pick_file(req, ix, need, &f, err)) < 0)
		return r;
	return install_file(req, cv_index_remote(ix), need, &f, dep, err);
}

/* The entry of `component` in the lock's dependencies, or NULL. */
static const struct cv_dep_file *
locked_file(const struct cv_deps_req *req, const char *component)
{
	for (int i = 0; i < req->nlocked; i++)
		if (strcmp(req->locked[i].name, component) == 0)
			return &req->locked[i];
	return NULL;
}

/* The CUDA mirror's client and listing, made on first use. */
static int
cuda_index(const struct cv_deps_req *req, struct cv_remote **rem,
	   struct cv_index **ix, int listing, struct cv_err *err)
{
	char *mirror;
	int r;

	if (*rem == NULL) {
		if ((mirror = cv_deps_cuda_mirror(req->cfg, req->cudnn_mirror,
						  err)) == NULL)
			return CV_ECONFIG;
		r = cv_remote_new(rem, req->cfg, mirror, err);
		free(mirror);
		if (r < 0)
			return r;
	}
	if (listing && *ix == NULL)
		return cv_index_open(ix, *rem, cv_store_cache_dir(req->st),
				     req->refresh, err);
	return 0;
}

int
cv_deps_resolve(const struct cv_deps_req *req,
		struct cv_dep_file out[CV_MAX_DEPS], int *nout,
		struct cv_err *err)
{
	struct cv_dep_need need[CV_MAX_DEPS];
	struct cv_remote *rem = NULL;
	struct cv_index *ix = NULL;
	int n = cv_deps_needed(req->version, need), r = 0;

	*nout = 0;
	if (req->mode == CV_DEPS_NEVER)
		return 0;
	for (int i = 0; i < n && r == 0; i++)
		if ((r = cuda_index(req, &rem, &ix, 1, err)) == 0 &&
		    (r = pick_file(req, ix, &need[i], &out[*nout], err)) == 0)
			(*nout)++;
	cv_index_free(ix);
	cv_remote_free(rem);
	return r;
}

/* NVIDIA's project of `component` for CUDA major `cuda`: the CUDA 13
 * wheels dropped the -cuN suffix (and install into nvidia/cu13/). */
static void
pypi_project(const char *component, int cuda, char *out, size_t n)
{
	const char *base = strcmp(component, "libcublas") == 0
				   ? "nvidia-cublas"
				   : "nvidia-cuda-nvrtc";

	if (cuda >= 13)
		snprintf(out, n, "%s", base);
	else
		snprintf(out, n, "%s-cu%d", base, cuda);
}

/* The same from NVIDIA's wheels on the index: the newest release of the
 * project for this CUDA major that the driver runs. */
static int
fetch_one_pypi(const struct cv_deps_req *req, struct cv_remote *rem,
	       const struct cv_dep_need *need, struct cv_dep *dep,
	       struct cv_err *err)
{
	struct cv_wheel *w = NULL, *pick = NULL;
	struct cv_artifact art;
	char project[64], version[32];
	size_t n = 0;
	int r, cuda = req->version->cuda;

	pypi_project(need->component, cuda, project, sizeof project);
	if ((r = cv_pypi_list_project(rem, req->pypi_index, project, cuda,
				      req->platform, &w, &n, err)) < 0)
		return r;
	for (size_t i = 0; i < n && pick == NULL; i++)
		if (release_fits(&w[i].version, cuda))
			pick = &w[i];
	if (pick == NULL) {
		cv_wheels_free(w, n);
		return cv_err_set(err, CV_ENOTFOUND,
				  "the index has no %s wheel for CUDA %d on "
				  "%s%s",
				  project, cuda, req->platform,
				  n ? " that this driver runs" : "");
	}
	memset(&art, 0, sizeof art);
	art.version = pick->version;
	art.size = pick->size;
	art.wheel = 1;
	snprintf(art.platform, sizeof art.platform, "%s", pick->platform);
	memcpy(art.sha256, pick->sha256, sizeof art.sha256);
	snprintf(art.filename, sizeof art.filename, "%s", pick->filename);
	snprintf(art.source, sizeof art.source, "%s", pick->url);
	cv_version_format(&pick->version, version, sizeof version);
	dep_named(dep, need->component, version, cuda);
	r = download_dep(req, rem, need, &art, pick->url, dep, err);
	cv_wheels_free(w, n);
	return r;
}

void
cv_deps_release(struct cv_deps_held *held)
{
	for (int i = 0; i < held->n; i++)
		cv_fs_unlock(held->fds[i]);
	held->n = 0;
}

int
cv_deps_ensure(const struct cv_deps_req *req, struct cv_dep out[CV_MAX_DEPS],
	       int *nout, struct cv_deps_held *held, struct cv_err *err)
{
	struct cv_dep_need need[CV_MAX_DEPS];
	struct cv_remote *rem = NULL;
	struct cv_index *ix = NULL;
	int n = cv_deps_needed(req->version, need), r = 0;

	*nout = 0;
	held->n = 0;
	if (req->mode == CV_DEPS_NEVER)
		return 0;
	for (int i = 0; i < n && r == 0; i++) {
		struct cv_dep *dep = &out[*nout];
		const struct cv_dep_file *locked;
		char *found;
		int fd;

		memset(dep, 0, sizeof *dep);
		/* held until the version that needs it is published */
		if ((r = cv_store_dep_lock_shared(req->st, need[i].component,
						  req->version->cuda, &fd,
						  err)) < 0)
			break;
		held->fds[held->n++] = fd;
		/* a copy in the store is this store's answer, whatever the
		 * machine has: every version of that major shares it */
		locked = locked_file(req, need[i].component);
		if (cv_store_dep_find(req->st, need[i].component,
				      req->version->cuda, dep) &&
		    (locked == NULL ||
		     strcmp(dep->version, locked->version) == 0)) {
			(*nout)++;
			continue;
		}
		if (req->mode == CV_DEPS_AUTO &&
		    (found = cv_deps_find_on_machine(&need[i])) != NULL) {
			snprintf(dep->name, sizeof dep->name, "%s",
				 need[i].component);
			dep->cuda = req->version->cuda;
			snprintf(dep->dir, sizeof dep->dir, "%s",
				 dirname(found));
			free(found);
			(*nout)++;
			continue;
		}
		if (req->offline && req->mode == CV_DEPS_AUTO)
			continue;
		if (req->pypi_index != NULL) {
			if (rem == NULL &&
			    (r = cv_remote_new(&rem, req->cfg, req->pypi_index,
					       err)) < 0)
				break;
			if ((r = fetch_one_pypi(req, rem, &need[i], dep,
						err)) == 0)
				(*nout)++;
			continue;
		}
		if (locked != NULL) {
			/* the lock's release, byte for byte */
			if ((r = cuda_index(req, &rem, &ix, 0, err)) == 0 &&
			    (r = install_file(req, rem, &need[i], locked, dep,
					      err)) == 0)
				(*nout)++;
			continue;
		}
		if ((r = cuda_index(req, &rem, &ix, 1, err)) < 0)
			break;
		if ((r = fetch_one(req, ix, &need[i], dep, err)) == 0)
			(*nout)++;
	}
	cv_index_free(ix);
	cv_remote_free(rem);
	if (r < 0)
		cv_deps_release(held);
	return r;
}
