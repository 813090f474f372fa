/* easybuild.c: an installed version as EasyBuild would have installed it
 * into an EESSI host_injections tree. EESSI may not redistribute cuDNN:
 * its module for cuDNN looks in host_injections, where each site puts the
 * files after accepting NVIDIA's licence itself. The tree is
 * <prefix>/software/cuDNN/<version>-CUDA-<major>/ with lib/, include/,
 * LICENSE and the easybuild/ folder EasyBuild leaves in every
 * installation. */
#include "install/install_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct copy {
	const char *to;
};

static int
copy_chunk(const void *data, size_t len, void *p, struct cv_err *err)
{
	return cv_fs_stream_write(p, data, len, err);
}

static int
copy_entry(const char *rel, const char *full, const struct cv_stat *sb, void *p,
	   struct cv_err *err)
{
	const struct copy *c = p;
	char *dst, target[4096];
	struct cv_fs_stream *s = NULL;
	int r;

	/* the store's record: easybuild/ says where this came from */
	if (strcmp(rel, "cudnnvm.json") == 0)
		return 0;
	dst = cv_path_join(c->to, rel);
	if (sb->kind == CV_KIND_DIR)
		r = cv_fs_mkdirs(dst, 0755, err);
	else if (sb->kind == CV_KIND_LINK)
		r = cv_fs_readlink(full, target, sizeof target, err) < 0
			    ? err->code
			    : cv_fs_symlink(target, dst, err);
	else if (sb->kind == CV_KIND_FILE) {
		r = cv_fs_stream_open(dst, (sb->perm & 0111) ? 0755 : 0644, &s,
				      err);
		if (r == 0 &&
		    (r = cv_fs_read_each(full, copy_chunk, s, err)) == 0)
			r = cv_fs_stream_commit(s, dst, err);
		else
			cv_fs_stream_abort(s);
	} else
		r = cv_err_set(err, CV_EDATA,
			       "'%s' is neither a file, a folder nor a link",
			       full);
	free(dst);
	return r;
}

static const char *
base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

/* The easyconfig this installation amounts to, so that `eb` and EESSI's
 * scripts see what they would have made. */
static int
write_easybuild(const char *dir, const struct cv_installed *inst,
		const char *ver, struct cv_err *err)
{
	char v[64], *eb, *path, *text;
	int r;

	cv_version_format(&inst->version, v, sizeof v);
	if (strchr(v, '-') != NULL)
		*strchr(v, '-') = '\0';
	eb = cv_path_join(dir, "easybuild");
	if ((r = cv_fs_mkdirs(eb, 0755, err)) < 0) {
		free(eb);
		return r;
	}
	text = xasprintf(
		"# written by cudnnvm from the store's %s\n"
		"easyblock = 'Tarball'\n\n"
		"name = 'cuDNN'\nversion = '%s'\n"
		"versionsuffix = '-CUDA-%d'\n\n"
		"homepage = 'https://developer.nvidia.com/cudnn'\n"
		"description = \"\"\"The NVIDIA CUDA Deep Neural Network "
		"library (cuDNN).\"\"\"\n\n"
		"toolchain = SYSTEM\n\n"
		"sources = ['%s']\nchecksums = ['%s']\n\n"
		"# the site accepted NVIDIA's licence (LICENSE) with "
		"--accept-eula\naccept_eula = True\n\n"
		"sanity_check_paths = {\n"
		"    'files': ['include/cudnn.h', 'lib/libcudnn.so'],\n"
		"    'dirs': ['include', 'lib'],\n}\n\n"
		"moduleclass = 'numlib'\n",
		inst->id, v, inst->version.cuda, base_name(inst->source),
		inst->sha256);
	path = xasprintf("%s/cuDNN-%s.eb", eb, ver);
	r = cv_fs_write_atomic(path, text, strlen(text), 0644, err);
	free(path);
	free(text);
	free(eb);
	return r;
}

/* Move the finished `stage` to `dest`, an old dest out of the way first. */
static int
publish(const char *stage, const char *dest, int force, struct cv_err *err)
{
	struct cv_stat sb;
	char *old;
	int r;

	if (cv_os_lstat(dest, &sb) != 0)
		return cv_fs_rename(stage, dest, err);
	if (!force) {
		cv_err_set(err, CV_ERROR, "'%s' is already there", dest);
		return cv_err_hint(err, "add --force to replace it");
	}
	old = xasprintf("%s.old.%ld", dest, cv_os_pid());
	if ((r = cv_fs_rename(dest, old, err)) == 0 &&
	    (r = cv_fs_rename(stage, dest, err)) == 0)
		r = cv_fs_rmtree(old, err);
	free(old);
	return r;
}

int
cv_easybuild_install(const struct cv_store *st, const char *id,
		     const char *prefix, int force, char **where,
		     struct cv_err *err)
{
	struct cv_installed inst;
	struct copy c;
	char v[64], ver[96], *home, *parent, *dest, *stage;
	int r;

	*where = NULL;
	if ((r = cv_store_get(st, id, &inst, err)) < 0)
		return r;
	if (strncmp(inst.platform, "windows", 7) == 0) {
		cv_err_set(err, CV_EUSAGE,
			   "cuDNN %s is a Windows build; EESSI is Linux", id);
		return cv_err_hint(err, "cudnnvm list");
	}
	cv_version_format(&inst.version, v, sizeof v);
	if (strchr(v, '-') != NULL)
		*strchr(v, '-') = '\0';
	snprintf(ver, sizeof ver, "%s-CUDA-%d", v, inst.version.cuda);
	parent = xasprintf("%s/software/cuDNN", prefix);
	dest = xasprintf("%s/%s", parent, ver);
	stage = xasprintf("%s/.%s.%ld.tmp", parent, ver, cv_os_pid());
	home = cv_store_dir(st, id);
	c.to = stage;
	if ((r = cv_fs_mkdirs(stage, 0755, err)) == 0 &&
	    (r = cv_fs_walk_sorted(home, copy_entry, &c, err)) == 0 &&
	    (r = write_easybuild(stage, &inst, ver, err)) == 0)
		r = publish(stage, dest, force, err);
	if (r < 0)
		(void)cv_fs_rmtree(stage, NULL);
	else
		*where = xstrdup(dest);
	free(home);
	free(stage);
	free(dest);
	free(parent);
	return r;
}
