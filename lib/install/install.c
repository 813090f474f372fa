/* install.c: one-pass verified install. The fetcher's bytes are hashed and
 * counted while libarchive extracts them into a private staging folder;
 * the folder is published under its install id by one rename only when
 * size and sha256 match. Also: a fetcher that reads a local file. */
#include "base/base.h"
#include "install/install_int.h"
#include "machine/machine.h"
#include "release/release.h"
#include "store/store.h"
#include "validate/validate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define FILE_CHUNK (1 << 20)

/* ---- a local archive file ------------------------------------------------ */

struct file_src {
	char *path;
	int fd;
	char *buf;
};

static ssize_t
file_read(void *ctx, const void **buf, struct cv_err *err)
{
	struct file_src *f = ctx;
	ssize_t n;

	do
		n = cv_os_read(f->fd, f->buf, FILE_CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return cv_err_errno(err, CV_EIO, "cannot read '%s'", f->path);
	*buf = f->buf;
	return n;
}

static int
file_open(void *arg, struct cv_source *src, struct cv_err *err)
{
	struct file_src *f = arg;

	f->fd = cv_os_open(f->path, CV_OPEN_READ, 0);
	if (f->fd < 0)
		return cv_err_errno(err,
				    errno == ENOENT ? CV_ENOTFOUND
						    : cv_code_from_errno(errno),
				    "cannot open the archive '%s'", f->path);
	f->buf = xmalloc(FILE_CHUNK);
	src->read = file_read;
	src->ctx = f;
	return 0;
}

static void
file_close(void *arg, int ok)
{
	struct file_src *f = arg;

	(void)ok;
	if (f->fd >= 0)
		cv_os_close(f->fd);
	f->fd = -1;
	free(f->buf);
	f->buf = NULL;
}

void
cv_fetcher_file(struct cv_fetcher *fetch, const char *path)
{
	struct file_src *f = xcalloc(1, sizeof *f);

	f->path = xstrdup(path);
	f->fd = -1;
	fetch->open = file_open;
	fetch->close = file_close;
	fetch->arg = f;
}

void
cv_fetcher_file_free(struct cv_fetcher *fetch)
{
	struct file_src *f = fetch->arg;

	if (f == NULL)
		return;
	file_close(f, 0);
	free(f->path);
	free(f);
	fetch->arg = NULL;
}

/* ---- the install --------------------------------------------------------- */

struct hsrc {
	struct cv_source *in;
	struct cv_sha256 *h;
	uint64_t n, cap;
};

static ssize_t
hashing_read(void *ctx, const void **buf, struct cv_err *err)
{
	struct hsrc *s = ctx;
	ssize_t n = s->in->read(s->in->ctx, buf, err);

	if (n > 0) {
		cv_sha256_update(s->h, *buf, (size_t)n);
		s->n += (uint64_t)n;
		if (s->cap && s->n > s->cap)
			return cv_err_set(
				err, CV_EDATA,
				"the archive is larger than the expected %llu bytes",
				(unsigned long long)s->cap);
	}
	return n;
}

/* Read what libarchive left (padding after the archive end) into the
 * hash. */
static int
drain(struct cv_source *s, struct cv_err *err)
{
	const void *buf;
	ssize_t n;

	while ((n = s->read(s->ctx, &buf, err)) > 0)
		;
	return n < 0 ? (int)n : 0;
}

static void
now_rfc3339(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;

#ifdef _WIN32
	gmtime_s(&tm, &t); /* the C runtime's gmtime_r */
#else
	gmtime_r(&t, &tm);
#endif
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The archive's top folder must agree with what it is installed as
 * (doc/reliability.md 2.3 rule 3): NVIDIA names it like the file,
 * cudnn-<platform>-<version>_cuda<N>-archive, so a renamed or mislabelled
 * archive cannot publish one build under another's id. The old .tgz layout
 * says only "cuda"; its version is checked by validation. */
static int
top_agrees(void *arg, const char *top, struct cv_err *err)
{
	const struct cv_artifact *art = arg;
	struct cv_artifact said;
	char name[300], is[64], want[64];
	size_t len = strlen(top);

	if (strcmp(top, "cuda") == 0)
		return 0;
	memset(&said, 0, sizeof said);
	snprintf(name, sizeof name, "%s.tar.xz", top);
	if (len <= 8 || strcmp(top + len - 8, "-archive") != 0 ||
	    strlen(name) >= 256 ||
	    cv_artifact_from_filename(&said, name, NULL) < 0)
		return cv_err_set(
			err, CV_EDATA,
			"the archive's top folder '%s' is not named like an NVIDIA cuDNN archive (cudnn-<platform>-<version>_cuda<N>-archive); the archive was not installed",
			top);
	if (cv_version_cmp(&said.version, &art->version) == 0 &&
	    said.version.cuda == art->version.cuda &&
	    strcmp(said.platform, art->platform) == 0)
		return 0;
	cv_version_format_id(&said.version, is, sizeof is);
	cv_version_format_id(&art->version, want, sizeof want);
	return cv_err_set(
		err, CV_EDATA,
		"the archive's top folder '%s' holds cuDNN %s for %s, not %s for %s; is it the archive you meant? (--version, --cuda and --platform must agree with it)",
		top, is, said.platform, want, art->platform);
}

/* A wheel's central directory sits at its end, and it alone tells what
 * each entry is (a link looks like a file in the stream) and where it
 * starts. So the bytes are hashed as they arrive and spooled into the
 * staging folder, and unpacked from the spool while it grows (see
 * cv_zip_stream_start); what was unpacked is kept only once size and
 * sha256 match and the directory agrees with it. The spool is removed
 * before the folder is published. */
#define WHEEL_SPOOL ".cudnnvm-wheel"

/* At most 4x the wheel, and at least 256 MiB, as for archives. */
static uint64_t
wheel_cap(uint64_t size)
{
	return size * 4 > (256ULL << 20) ? size * 4 : 256ULL << 20;
}

/* The wheel's .dist-info must name the release its file name does. */
static int
dist_info_agrees(void *payload, const char *dist_info, const char *wheel_text,
		 struct cv_err *err)
{
	const struct cv_artifact *art = payload;

	return cv_wheel_check_dist_info(art->filename, dist_info, wheel_text,
					err);
}

static int
wheel_verified(const struct cv_artifact *art, const char *stage,
	       struct cv_source *raw, unsigned threads, const char *dep_prefix,
	       char got[65], uint64_t *nbytes, struct cv_err *err)
{
	struct hsrc hs = { raw, cv_sha256_new(), 0, art->size };
	struct cv_extract_limits lim = { .wheel = 1,
					 .check_dist_info = dist_info_agrees,
					 .payload = (void *)art,
					 .dep_lib_prefix = dep_prefix };
	struct cv_zip_stream *zs = NULL;
	char *spool = cv_path_join(stage, WHEEL_SPOOL);
	int fd = cv_os_open(spool,
			    CV_OPEN_WRITE | CV_OPEN_CREATE | CV_OPEN_EXCL |
				    CV_OPEN_NOFOLLOW,
			    0600);
	int nthreads = (int)threads;
	const void *buf;
	ssize_t n;
	int r = 0;

	if (fd < 0) {
		r = cv_err_errno(err, cv_code_from_errno(errno),
				 "cannot write '%s'", spool);
		goto out;
	}
	/* the cap must be known before a byte is unpacked: only a wheel
	 * whose size the index gave is unpacked as it arrives */
	if (art->size) {
		lim.max_total_bytes = wheel_cap(art->size);
		if ((r = cv_zip_stream_start(spool, stage, &lim, nthreads, &zs,
					     err)) < 0) {
			cv_os_close(fd);
			goto out;
		}
	}
	while ((n = hashing_read(&hs, &buf, err)) > 0) {
		const char *p = buf;
		while (n > 0) {
			long w = cv_os_write(fd, p, (size_t)n);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				r = cv_err_errno(err, cv_code_from_errno(errno),
						 "cannot write '%s'", spool);
				break;
			}
			p += w;
			n -= w;
		}
		if (r < 0)
			break;
		/* all of what was hashed is in the spool now */
		cv_zip_stream_grew(zs, hs.n);
	}
	if (n < 0 && r == 0)
		r = (int)n;
	if (cv_os_close(fd) != 0 && r == 0)
		r = cv_err_errno(err, CV_EIO, "cannot write '%s'", spool);
	cv_sha256_final(hs.h, got);
	*nbytes = hs.n;
	if (r < 0)
		goto out;
	if (art->size && hs.n != art->size) {
		r = cv_err_set(err, CV_EDATA,
			       "size mismatch for '%s': expected %llu bytes, "
			       "got %llu",
			       art->filename, (unsigned long long)art->size,
			       (unsigned long long)hs.n);
		goto out;
	}
	if (strcasecmp(art->sha256, got) != 0) {
		r = cv_err_set(err, CV_EDATA,
			       "sha256 mismatch for '%s': expected %s, got %s; "
			       "the file is damaged or not the one you meant",
			       art->filename, art->sha256, got);
		goto out;
	}
	if (zs != NULL) {
		r = cv_zip_stream_finish(zs, 1, err);
		zs = NULL;
	} else {
		lim.max_total_bytes = wheel_cap(hs.n);
		r = cv_extract_zip_file(spool, stage, &lim, nthreads, err);
	}
out:
	if (zs != NULL)
		cv_zip_stream_finish(zs, 0, NULL);
	cv_os_unlink(spool);
	cv_sha256_free(hs.h);
	free(spool);
	return r;
}

/* Reading and hashing run on their own thread (a pump into a pipe), so
 * they overlap with decompression and writing. */
static int
extract_verified(const struct cv_artifact *art, const char *id,
		 const char *stage, struct cv_source *raw,
		 const struct cv_extract_limits *base,
		 struct cv_installed *inst, struct cv_err *err)
{
	struct hsrc hs = { raw, cv_sha256_new(), 0, art->size };
	struct cv_source hashed = { hashing_read, &hs };
	struct cv_pipe *pipe = cv_pipe_new(8, 1 << 20);
	struct cv_source src = { cv_pipe_read, pipe };
	struct cv_pump *pump;
	struct cv_extract_limits lim = *base;
	unsigned threads = cv_inflate_threads(base->threads);
	struct cv_err xerr = CV_ERR_INIT;
	char got[65];
	int r, rx;

	/* defined on every path, so that no caller reads a record half
	 * filled by an early error */
	if (inst != NULL)
		memset(inst, 0, sizeof *inst);
	if (art->wheel) {
		cv_pipe_free(pipe);
		cv_sha256_free(hs.h);
		if ((r = wheel_verified(art, stage, raw, threads,
					base->dep_lib_prefix, got, &hs.n,
					err)) < 0 ||
		    (base->dep_lib_prefix == NULL &&
		     (r = cv_wheel_links(stage, &art->version, err)) < 0))
			return r;
		goto done;
	}

	/* At most 4x the archive (and at least 256 MiB): up front from its
	 * size, or, for a FIFO or pipe whose size is unknown, from the bytes
	 * read so far, so a tiny bomb cannot fill the disk either way. */
	if (art->size) {
		uint64_t cap = art->size * 4;
		if (cap < (256ULL << 20))
			cap = 256ULL << 20;
		lim.max_total_bytes = cap;
	} else {
		lim.max_ratio = 4;
		lim.ratio_floor = 256ULL << 20;
	}
	if ((r = cv_pump_start(&hashed, pipe, &pump, err)) < 0) {
		cv_pipe_free(pipe);
		cv_sha256_free(hs.h);
		return r;
	}
	rx = cv_extract(&src, stage, &lim, &xerr);
	/* A bad archive with a wrong hash is reported as the wrong hash:
	 * that is what the user must act on. Disk errors stay as they are. */
	if (rx < 0 && rx != CV_EDATA) {
		*err = xerr;
		cv_pipe_abort(pipe);
		cv_pump_join(pump);
		cv_pipe_free(pipe);
		cv_sha256_free(hs.h);
		return rx;
	}
	r = drain(&src, rx < 0 ? NULL : err);
	cv_pump_join(pump);
	cv_pipe_free(pipe);
	if (r < 0 && rx == 0) {
		cv_sha256_free(hs.h);
		return r;
	}
	cv_sha256_final(hs.h, got);
	cv_sha256_free(hs.h);
	if (r == 0 && art->size && hs.n != art->size)
		return cv_err_set(
			err, CV_EDATA,
			"size mismatch for '%s': expected %llu bytes, got %llu",
			art->filename, (unsigned long long)art->size,
			(unsigned long long)hs.n);
	/* an artifact made by cv_artifact_init is lower case already; one
	 * filled by hand may not be */
	if (r == 0 && strcasecmp(art->sha256, got) != 0)
		return cv_err_set(
			err, CV_EDATA,
			"sha256 mismatch for '%s': expected %s, got %s; the file is damaged or not the one you meant",
			art->filename, art->sha256, got);
	if (rx < 0) {
		*err = xerr;
		return rx;
	}
done:
	if (inst == NULL)
		return 0;
	memset(inst, 0, sizeof *inst);
	snprintf(inst->id, sizeof inst->id, "%s", id);
	inst->version = art->version;
	snprintf(inst->platform, sizeof inst->platform, "%s", art->platform);
	memcpy(inst->sha256, got, sizeof inst->sha256);
	inst->size = hs.n;
	snprintf(inst->source, sizeof inst->source, "%s", art->source);
	snprintf(inst->origin, sizeof inst->origin, "%s",
		 art->wheel ? "pypi" : "nvidia");
	now_rfc3339(inst->installed_at);
	return 0;
}

/* A Windows zip must hold NVIDIA's Windows layout: cudnn64_<major>.dll
 * in bin/ (bin/x64/ from 9.18, cv_store_dll_subdir) and cudnn.h in
 * include/; a zip with its DLLs elsewhere would install a version PATH
 * and validation cannot find. */
static int
windows_layout(const struct cv_artifact *art, const char *stage,
	       struct cv_err *err)
{
	const char *sub = cv_store_dll_subdir(&art->version);
	char *dll, *h;
	struct cv_stat sb;
	int ok;

	if (art->wheel || strncmp(art->platform, "windows", 7) != 0)
		return 0;
	dll = xasprintf("%s/%s/cudnn64_%lu.dll", stage, sub,
			art->version.part[0]);
	h = xasprintf("%s/include/cudnn.h", stage);
	ok = cv_os_lstat(dll, &sb) == 0 && sb.kind == CV_KIND_FILE &&
	     cv_os_lstat(h, &sb) == 0 && sb.kind == CV_KIND_FILE;
	free(dll);
	free(h);
	if (ok)
		return 0;
	return cv_err_set(err, CV_EDATA,
			  "the archive '%s' has no %s/cudnn64_%lu.dll and "
			  "include/cudnn.h (NVIDIA's Windows layout for cuDNN "
			  "%lu.%lu); it was not installed",
			  art->filename, sub, art->version.part[0],
			  art->version.part[0], art->version.part[1]);
}

int
cv_store_install(struct cv_store *st, const struct cv_artifact *art,
		 const struct cv_fetcher *fetch,
		 const struct cv_install_opts *opts, int *already,
		 struct cv_err *err)
{
	static const struct cv_install_opts defaults = CV_INSTALL_OPTS_INIT;
	const struct cv_store_txn_wait wait = { opts ? opts->nowait : 0,
						opts ? opts->waiting : NULL,
						opts ? opts->payload : NULL };
	struct cv_installed inst;
	struct cv_artifact sized;
	struct cv_source raw = { NULL, NULL };
	struct cv_store_txn *txn = NULL;
	char id[64];
	int r, opened = 0, replace = 0;

	if (opts == NULL)
		opts = &defaults;
	*already = 0;
	if ((r = cv_artifact_check(art, id, err)) < 0)
		return r;
	if (!cv_store_writable(st))
		return cv_err_set(err, CV_ESTORE,
				  "the store is not open for writing");
	if ((r = cv_store_txn_begin(st, CV_STORE_TXN_VERSION, id, 0, &wait,
				    &txn, err)) < 0)
		return r;
	cv_checkpoint("after-lock");
	if (cv_store_in_system(st, id)) {
		/* every user already has the admin's copy; a private one
		 * would only hide it */
		cv_store_txn_abort(txn);
		if (!opts->force) {
			*already = 1;
			return 0;
		}
		return cv_err_set(
			err, CV_EPERM,
			"cuDNN %s is owned by the system store %s; ask its admin to reinstall it",
			id, cv_store_system_root(st));
	}
	if (cv_store_has_own(st, id)) {
		if (!opts->force) {
			*already = 1;
			cv_store_txn_abort(txn);
			return 0;
		}
		/* before anything is fetched: swapping the files under a
		 * process that mapped them mixes two builds in it */
		if (!opts->even_if_in_use &&
		    (r = cv_store_check_unused(st, id, 1, err)) < 0) {
			cv_store_txn_abort(txn);
			return r;
		}
		replace = 1;
	}
	if ((r = cv_store_txn_stage(txn, replace, err)) < 0)
		goto out;
	if ((r = fetch->open(fetch->arg, &raw, err)) < 0)
		goto out;
	opened = 1;
	/* a size the index did not give, learned by the source (a wheel's
	 * HEAD request) now that the version is known to be needed */
	if (art->size == 0 && fetch->size != NULL) {
		sized = *art;
		sized.size = fetch->size(fetch->arg);
		art = &sized;
	}
	{
		/* a wheel has no top folder to check: its layout is fixed */
		struct cv_extract_limits lim = {
			.check_top = art->wheel ? NULL : top_agrees,
			.payload = (void *)art,
			.threads = opts->threads,
			.wheel = art->wheel
		};
		if ((r = extract_verified(art, id, cv_store_txn_path(txn), &raw,
					  &lim, &inst, err)) < 0 ||
		    (r = windows_layout(art, cv_store_txn_path(txn), err)) < 0)
			goto out;
	}
	for (int i = 0; i < opts->ndeps && i < CV_MAX_DEPS; i++)
		inst.deps[inst.ndeps++] = opts->deps[i];
	{
		const struct cv_store_record rec = { &inst, NULL };
		r = cv_store_txn_commit(txn, &rec, err);
	}
out:
	if (opened)
		fetch->close(fetch->arg, r == 0);
	cv_store_txn_abort(txn);
	if (r < 0 && err)
		cv_err_prefix(err, "install %s: ", id);
	return r;
}

/* ---- a dependency (cuBLAS, nvrtc) ---------------------------------------- */

/* NVIDIA names a component's archive like its one top folder:
 * <component>-<platform>-<version>-archive.tar.xz holds
 * <component>-<platform>-<version>-archive/. */
static int
dep_top_agrees(void *arg, const char *top, struct cv_err *err)
{
	const struct cv_artifact *art = arg;
	size_t n = strlen(top);

	if (strncmp(art->filename, top, n) == 0 &&
	    (strcmp(art->filename + n, ".tar.xz") == 0 ||
	     strcmp(art->filename + n, ".tar.gz") == 0))
		return 0;
	return cv_err_set(
		err, CV_EDATA,
		"the archive's top folder '%s' is not named like the archive '%s'; it was not installed",
		top, art->filename);
}

/* Keep in <stage>/lib only the libraries whose SONAME is the
 * component's (lib_prefix*): the names an archive gives its files prove
 * nothing, and a libz.so.1 filed as libcublasLt.so.12 would be preloaded
 * by the .pth hook and cached machine-wide by system mode. Links left
 * pointing at nothing go with them. */
static void
keep_own_sonames(const char *stage, const char *prefix)
{
	char *lib = cv_path_join(stage, "lib");
	struct cv_dir *d = cv_dir_open_at(CV_AT_CWD, lib, 1);
	const char *name;
	struct cv_stat sb;
	size_t pl = strlen(prefix);
	int dfd;

	free(lib);
	if (d == NULL)
		return;
	dfd = cv_dir_fd(d);
	while ((name = cv_dir_next(d, NULL)) != NULL) {
		char so[256];
		int fd;
		if (cv_os_stat_at(dfd, name, 1, &sb) != 0 ||
		    sb.kind != CV_KIND_FILE)
			continue;
		fd = cv_os_open_at(dfd, name, CV_OPEN_READ | CV_OPEN_NOFOLLOW,
				   0);
		if (fd < 0 ||
		    cv_elf_soname(fd, so, sizeof so) != CV_ELF_SONAME ||
		    strncmp(so, prefix, pl) != 0)
			cv_os_remove_at(dfd, name, 0);
		if (fd >= 0)
			cv_os_close(fd);
	}
	cv_dir_rewind(d);
	while ((name = cv_dir_next(d, NULL)) != NULL)
		if (cv_os_stat_at(dfd, name, 1, &sb) == 0 &&
		    sb.kind == CV_KIND_LINK &&
		    cv_os_stat_at(dfd, name, 0, &sb) != 0)
			cv_os_remove_at(dfd, name, 0);
	cv_dir_close(d);
}

/* That <stage>/lib/<soname> is a library whose SONAME is soname (what
 * keep_own_sonames left): a channel's archive that lacks the library
 * cuDNN loads, or files another library under its name, is refused. */
static int
has_soname(const char *stage, const char *soname, const char *filename,
	   struct cv_err *err)
{
	char *lib = cv_path_join(stage, "lib"), *path, so[256];
	int fd, ok = 0;

	path = cv_path_join(lib, soname);
	if ((fd = cv_os_open(path, CV_OPEN_READ, 0)) >= 0) {
		ok = cv_elf_soname(fd, so, sizeof so) == CV_ELF_SONAME &&
		     strcmp(so, soname) == 0;
		cv_os_close(fd);
	}
	free(path);
	free(lib);
	if (ok)
		return 0;
	return cv_err_set(err, CV_EDATA,
			  "the archive '%s' holds no library whose SONAME is "
			  "%s; it was not installed",
			  filename, soname);
}

int
cv_store_install_dep(struct cv_store *st, const struct cv_artifact *art,
		     struct cv_dep *dep, const char *lib_prefix,
		     const struct cv_fetcher *fetch,
		     const struct cv_install_opts *opts, struct cv_err *err)
{
	struct cv_extract_limits lim = { .check_top = art->wheel
							      ? NULL
							      : dep_top_agrees,
					 .payload = (void *)art,
					 .threads = opts->threads,
					 .wheel = art->wheel,
					 .dep_lib_prefix = lib_prefix };
	const struct cv_store_txn_wait wait = { opts->nowait, opts->waiting,
						opts->payload };
	struct cv_source raw = { NULL, NULL };
	struct cv_store_txn *txn = NULL;
	int r, opened = 0, replace = 0;

	if ((r = cv_store_txn_begin(st, CV_STORE_TXN_DEP, dep->name, dep->cuda,
				    &wait, &txn, err)) < 0)
		return r;
	{
		struct cv_dep have;
		/* that very release (a lock may name an older one than the
		 * newest of its CUDA major the store holds); a copy whose
		 * libraries are not what its record says is exchanged for
		 * this one, which every version recording it then loads */
		if (cv_store_dep_get(st, dep->name, dep->version, &have) &&
		    have.cuda == dep->cuda) {
			if (cv_deps_store_copy_agrees(st, &have)) {
				*dep = have;
				cv_store_txn_abort(txn);
				return 0;
			}
			replace = 1;
		}
	}
	if ((r = cv_store_txn_stage(txn, replace, err)) < 0)
		goto out;
	if ((r = fetch->open(fetch->arg, &raw, err)) < 0)
		goto out;
	opened = 1;
	if ((r = extract_verified(art, dep->dir, cv_store_txn_path(txn), &raw,
				  &lim, NULL, err)) < 0)
		goto out;
	keep_own_sonames(cv_store_txn_path(txn), lib_prefix);
	if (opts->dep_require != NULL &&
	    ((r = has_soname(cv_store_txn_path(txn), opts->dep_require->soname,
			     art->filename, err)) < 0 ||
	     (opts->dep_require->soname2[0] != '\0' &&
	      (r = has_soname(cv_store_txn_path(txn),
			      opts->dep_require->soname2, art->filename, err)) <
		      0)))
		goto out;
	snprintf(dep->sha256, sizeof dep->sha256, "%s", art->sha256);
	dep->size = art->size;
	dep->in_store = 1;
	{
		const struct cv_store_record rec = { NULL, dep };
		r = cv_store_txn_commit(txn, &rec, err);
	}
out:
	if (opened)
		fetch->close(fetch->arg, r == 0);
	cv_store_txn_abort(txn);
	if (r < 0 && err)
		cv_err_prefix(err, "install %s %s: ", dep->name, dep->version);
	return r;
}
