/* deps_install.c: getting what a cuDNN build loads beside itself (deps.c
 * says what) into the store: found on this machine, or already in the
 * store, or the newest release of its CUDA major that the driver runs,
 * from NVIDIA's CUDA redist tree, verified and published like a version. */
#include "base/base.h"
#include "install/install_int.h"
#include "machine/machine.h"
#include "release/release.h"
#include "store/store.h"
#include "validate/validate.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct component_pick {
	const char *component, *platform;
	const char *tree; /* for messages: "the CUDA mirror", ... */
	size_t at;        /* the listing's release it was found in */
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
		p->at = i;
		return 0;
	}
	cv_err_set(err, CV_ENOTFOUND, "%s %s has no %s for CUDA %d on %s%s",
		   p->tree, cv_remote_mirror(cv_index_remote(ix)), p->component,
		   p->cuda, p->platform,
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

/* One dependency to download: what, from where, and its transfer, which
 * starts beside the others' before the first is unpacked. */
struct dep_job {
	const struct cv_dep_need *need;
	struct cv_artifact art;
	char url[1024];
	struct cv_dep *dep;
	struct cv_remote *rem;
	struct cv_download *dl;
	int channel; /* from cuBLAS's channel: its library must be kept */
};

/* job's artifact from url, as dep. */
static void
job_set(struct dep_job *job, const struct cv_artifact *art, const char *url)
{
	job->art = *art;
	snprintf(job->url, sizeof job->url, "%s", url);
}

/* The job's transfer, started now (cached by sha256). */
static int
job_start(const struct cv_deps_req *req, struct dep_job *job,
	  struct cv_err *err)
{
	int r = cv_download_new(&job->dl, job->rem, &job->art, job->url,
				cv_store_cache_dir(req->st), req->keep_archives,
				err);

	return r < 0 ? r : cv_download_prefetch(job->dl, err);
}

/* The job announced, its bytes verified and published as job->dep: an
 * archive or a wheel alike. */
static int
job_install(const struct cv_deps_req *req, struct dep_job *job,
	    struct cv_err *err)
{
	struct cv_fetcher fetch;
	struct cv_install_opts opts = req->opts;
	int r;

	if (job->channel)
		opts.dep_require = job->need;
	cv_download_fetcher(job->dl, &fetch);
	r = cv_store_install_dep(req->st, &job->art, job->dep,
				 job->need->lib_prefix, &fetch, &opts, err);
	if (r == CV_EDATA && cv_download_used_cache(job->dl))
		cv_download_discard(job->dl);
	if (r == CV_EDATA && strstr(err->msg, job->url) == NULL) {
		size_t n = strlen(err->msg);
		snprintf(err->msg + n, sizeof err->msg - n, " (from %s)",
			 job->url);
	}
	return r;
}

/* The dependency archive `f` (its url relative to the CUDA mirror of
 * rem) as job, for dep. */
static int
plan_file(const struct cv_deps_req *req, struct cv_remote *rem,
	  const struct cv_dep_need *need, const struct cv_dep_file *f,
	  struct dep_job *job, struct cv_err *err)
{
	struct cv_artifact art;
	struct cv_version v;
	char *url = cv_manifest_url(cv_remote_mirror(rem), f->url), *base;
	int r = 0;

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
	job->channel = strcmp(f->channel, CV_CHANNEL_CUBLAS) == 0;
	snprintf(art.platform, sizeof art.platform, "%s", req->platform);
	memcpy(art.sha256, f->sha256, sizeof art.sha256);
	snprintf(art.filename, sizeof art.filename, "%s", base);
	snprintf(art.source, sizeof art.source, "%s", url);
	dep_named(job->dep, need->component, f->version, req->version->cuda);
	job->rem = rem;
	job_set(job, &art, url);
	free(url);
	return r;
}

/* The newest release of need's component for the build's CUDA major on
 * the listing ix (of `channel`, CV_CHANNEL_*) that the driver runs, for
 * req->platform: CV_ENOTFOUND when none fits, CV_EDATA when its manifest
 * names another file than that component's archive of that release. */
static int
pick_file(const struct cv_deps_req *req, struct cv_index *ix,
	  const struct cv_dep_need *need, const char *channel,
	  struct cv_dep_file *f, struct cv_err *err)
{
	struct component_pick p;
	char *url = NULL;
	int r, cublas = strcmp(channel, CV_CHANNEL_CUBLAS) == 0;

	memset(&p, 0, sizeof p);
	memset(f, 0, sizeof *f);
	p.component = need->component;
	p.platform = req->platform;
	p.cuda = req->version->cuda;
	p.tree = cublas ? "cuBLAS's channel" : "the CUDA mirror";
	if ((r = pick_release(ix, &p, &url, err)) < 0)
		return r;
	free(url);
	/* the manifest names that component's archive of that release, as
	 * a lock must: not another component's under this one's name */
	if (!cv_dep_url_ok(need->component, req->platform, p.version,
			   cublas ? p.cuda : 0, p.file.relative_path))
		return cv_err_set(err, CV_EDATA,
				  "%s %s: the %s %s entry for %s names '%s', "
				  "not that release's archive; refused",
				  p.tree, cv_remote_mirror(cv_index_remote(ix)),
				  need->component, p.version, req->platform,
				  p.file.relative_path);
	snprintf(f->channel, sizeof f->channel, "%s", channel);
	snprintf(f->manifest, sizeof f->manifest, "redistrib_%s.json",
		 cv_index_name(ix, p.at));
	snprintf(f->name, sizeof f->name, "%s", need->component);
	snprintf(f->version, sizeof f->version, "%s", p.version);
	snprintf(f->url, sizeof f->url, "%s", p.file.relative_path);
	memcpy(f->sha256, p.file.sha256, sizeof f->sha256);
	f->size = p.file.size;
	return 0;
}

/* need's (libcublas) newest fitting release on cuBLAS's channel into f:
 * 0; 1 when the channel cannot be had or has none that fits (told once
 * through req->fallback: the CUDA tree answers); <0 on bad data. */
static int
cublas_pick(const struct cv_deps_req *req, const struct cv_dep_need *need,
	    struct cv_remote **rem, struct cv_dep_file *f, struct cv_err *err)
{
	struct cv_index *ix = NULL;
	struct cv_err why = CV_ERR_INIT;
	int r = cv_cublas_open(req, 1, rem, &ix, err);

	if (r != 0)
		return r;
	r = pick_file(req, ix, need, CV_CHANNEL_CUBLAS, f, &why);
	cv_index_free(ix);
	if (r == CV_ENOTFOUND)
		return cv_cublas_fall_back(req, &why);
	if (r < 0)
		*err = why;
	return r;
}

static int
plan_one(const struct cv_deps_req *req, struct cv_index *ix,
	 const struct cv_dep_need *need, struct dep_job *job,
	 struct cv_err *err)
{
	struct cv_dep_file f;
	int r;

	if ((r = pick_file(req, ix, need, CV_CHANNEL_CUDA, &f, err)) < 0)
		return r;
	return plan_file(req, cv_index_remote(ix), need, &f, job, err);
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
	struct cv_remote *rem = NULL, *crem = NULL;
	struct cv_index *ix = NULL;
	int n = cv_deps_needed(req->version, need), r = 0;

	*nout = 0;
	if (req->mode == CV_DEPS_NEVER)
		return 0;
	for (int i = 0; i < n && r == 0; i++) {
		/* cuBLAS from its own channel first */
		if (strcmp(need[i].component, "libcublas") == 0 &&
		    (r = cublas_pick(req, &need[i], &crem, &out[*nout], err)) <=
			    0) {
			*nout += r == 0;
			continue;
		}
		if ((r = cuda_index(req, &rem, &ix, 1, err)) == 0 &&
		    (r = pick_file(req, ix, &need[i], CV_CHANNEL_CUDA,
				   &out[*nout], err)) == 0)
			(*nout)++;
	}
	cv_index_free(ix);
	cv_remote_free(rem);
	cv_remote_free(crem);
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
plan_pypi(const struct cv_deps_req *req, struct cv_remote *rem,
	  const struct cv_dep_need *need, struct dep_job *job,
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
	dep_named(job->dep, need->component, version, cuda);
	job->rem = rem;
	if (strlen(pick->url) >= sizeof job->url)
		r = cv_err_set(err, CV_EDATA, "bad %s entry for %s", project,
			       pick->url);
	else
		job_set(job, &art, pick->url);
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

/* What dependency `need` is here: 0 with *fetch 0 when the store or the
 * machine has it (dep filled), *fetch 1 when it must be downloaded, 1
 * when it is left out (auto, offline); <0 on error. */
static int
dep_here(const struct cv_deps_req *req, const struct cv_dep_need *need,
	 struct cv_dep *dep, int *fetch)
{
	const struct cv_dep_file *locked = locked_file(req, need->component);
	char *found;

	*fetch = 0;
	/* a copy in the store is this store's answer, whatever the machine
	 * has: every version of that major shares it, so one whose libraries
	 * are not what its record says (older code filed another archive
	 * under its name) is never shared again (H23) */
	if (cv_store_dep_find(req->st, need->component, req->version->cuda,
			      dep) &&
	    (locked == NULL || strcmp(dep->version, locked->version) == 0) &&
	    cv_deps_store_copy_agrees(req->st, dep))
		return 0;
	memset(dep, 0, sizeof *dep);
	if (req->mode == CV_DEPS_AUTO &&
	    (found = cv_deps_find_on_machine(need)) != NULL) {
		snprintf(dep->name, sizeof dep->name, "%s", need->component);
		dep->cuda = req->version->cuda;
		snprintf(dep->dir, sizeof dep->dir, "%s", dirname(found));
		free(found);
		return 0;
	}
	if (req->offline && req->mode == CV_DEPS_AUTO)
		return 1;
	*fetch = 1;
	return 0;
}

/* The download of dependency `need` planned as job: from the index, the
 * lock's release byte for byte, or the newest the CUDA mirror offers. */
static int
plan_dep(const struct cv_deps_req *req, const struct cv_dep_need *need,
	 struct cv_remote **rem, struct cv_remote **crem, struct cv_index **ix,
	 struct dep_job *job, struct cv_err *err)
{
	const struct cv_dep_file *locked = locked_file(req, need->component);
	struct cv_dep_file f;
	int r;

	if (req->pypi_index != NULL) {
		if (*rem == NULL &&
		    (r = cv_remote_new(rem, req->cfg, req->pypi_index, err)) <
			    0)
			return r;
		return plan_pypi(req, *rem, need, job, err);
	}
	/* the lock's channel, byte for byte: no fallback to another */
	if (locked != NULL && strcmp(locked->channel, CV_CHANNEL_CUBLAS) == 0)
		return (r = cv_cublas_open(req, 0, crem, NULL, err)) < 0
			       ? r
			       : plan_file(req, *crem, need, locked, job, err);
	if (locked != NULL)
		return (r = cuda_index(req, rem, ix, 0, err)) < 0
			       ? r
			       : plan_file(req, *rem, need, locked, job, err);
	if (strcmp(need->component, "libcublas") == 0 &&
	    (r = cublas_pick(req, need, crem, &f, err)) <= 0)
		return r < 0 ? r : plan_file(req, *crem, need, &f, job, err);
	if ((r = cuda_index(req, rem, ix, 1, err)) < 0)
		return r;
	return plan_one(req, *ix, need, job, err);
}

/* Every planned download started side by side (and req->beside, the
 * cuDNN archive, with them), then each verified and published in turn. */
static int
run_jobs(const struct cv_deps_req *req, struct dep_job *jobs, int njobs,
	 struct cv_err *err)
{
	int r = 0;

	/* announced together: they download together */
	for (int i = 0; i < njobs && req->fetching != NULL; i++)
		req->fetching(req->payload, jobs[i].dep, &jobs[i].art);
	for (int i = 0; i < njobs && r == 0; i++)
		if ((r = job_start(req, &jobs[i], err)) == 0)
			cv_download_group_add(req->group, jobs[i].dl);
	if (r == 0 && njobs > 0 && req->beside != NULL &&
	    (r = cv_download_prefetch(req->beside, err)) == 0 &&
	    cv_download_fetching(req->beside))
		cv_download_group_add(req->group, req->beside);
	if (r == 0 && njobs > 0 && req->group != NULL &&
	    req->downloading != NULL)
		req->downloading(req->payload, req->group);
	for (int i = 0; i < njobs && r == 0; i++)
		r = job_install(req, &jobs[i], err);
	for (int i = 0; i < njobs; i++) {
		cv_download_group_drop(req->group, jobs[i].dl);
		cv_download_free(jobs[i].dl);
	}
	return r;
}

int
cv_deps_ensure(const struct cv_deps_req *req, struct cv_dep out[CV_MAX_DEPS],
	       int *nout, struct cv_deps_held *held, struct cv_err *err)
{
	struct cv_dep_need need[CV_MAX_DEPS];
	struct dep_job jobs[CV_MAX_DEPS];
	struct cv_remote *rem = NULL, *crem = NULL;
	struct cv_index *ix = NULL;
	int n = cv_deps_needed(req->version, need), r = 0, njobs = 0;

	*nout = 0;
	held->n = 0;
	memset(jobs, 0, sizeof jobs);
	if (req->mode == CV_DEPS_NEVER)
		return 0;
	for (int i = 0; i < n && r == 0; i++) {
		struct cv_dep *dep = &out[*nout];
		int fd, fetch;

		memset(dep, 0, sizeof *dep);
		/* held until the version that needs it is published */
		if ((r = cv_store_dep_lock_shared(req->st, need[i].component,
						  req->version->cuda, &fd,
						  err)) < 0)
			break;
		held->fds[held->n++] = fd;
		if ((r = dep_here(req, &need[i], dep, &fetch)) != 0) {
			r = r > 0 ? 0 : r;
			continue;
		}
		if (fetch) {
			jobs[njobs].need = &need[i];
			jobs[njobs].dep = dep;
			if ((r = plan_dep(req, &need[i], &rem, &crem, &ix,
					  &jobs[njobs], err)) < 0)
				break;
			njobs++;
		}
		(*nout)++;
	}
	if (r == 0)
		r = run_jobs(req, jobs, njobs, err);
	cv_index_free(ix);
	cv_remote_free(rem);
	cv_remote_free(crem);
	if (r < 0)
		cv_deps_release(held);
	return r;
}

int
cv_deps_preview(const struct cv_deps_req *req,
		struct cv_dep_file out[CV_MAX_DEPS], int *nout,
		struct cv_err *err)
{
	struct cv_dep_need need[CV_MAX_DEPS];
	struct cv_dep_file all[CV_MAX_DEPS];
	int n = cv_deps_needed(req->version, need), na = 0, r;

	*nout = 0;
	if ((r = cv_deps_resolve(req, all, &na, err)) < 0)
		return r;
	for (int i = 0; i < na; i++) {
		struct cv_dep have;
		char *found = NULL;
		int k;
		for (k = 0; k < n; k++)
			if (strcmp(need[k].component, all[i].name) == 0)
				break;
		/* what dep_here would take instead of a download */
		if (k < n &&
		    ((cv_store_dep_find(req->st, all[i].name,
					req->version->cuda, &have) &&
		      cv_deps_store_copy_agrees(req->st, &have)) ||
		     (req->mode == CV_DEPS_AUTO &&
		      (found = cv_deps_find_on_machine(&need[k])) != NULL))) {
			free(found);
			continue;
		}
		out[(*nout)++] = all[i];
	}
	return 0;
}
