/* hint.c: the commands that errors, `doctor` and `doctor --explain` print
 * as fixes. Each must work as printed in the same environment, so each is
 * built here from what is installed and what this machine's CUDA needs:
 * switch to an installed build that fits before installing another, and
 * install with --cuda N when the release (as a manifest cached by an
 * earlier list-remote or install says) has no build for the machine's
 * major. A build is made active with `eval "$(cudnnvm env ID)"`, which
 * works without the shell hook that `cudnnvm shell` needs. Reads cached
 * files only, never the network, and only on the error path. */
#include "base/base.h"
#include "machine/machine.h"
#include "release/release.h"
#include "store/store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The newest release cached under <cache>/manifests/<mirror>/ that spec
 * matches, parsed into *m. 1 when found. */
static int
newest_cached(const char *cache_dir, const struct cv_version *spec,
	      struct cv_manifest *m)
{
	char *base = cv_path_join(cache_dir, "manifests");
	struct cv_dir *top = cv_dir_open(base);
	const char *de;
	struct cv_version best = { 0 };
	char *best_path = NULL;
	int found = 0;

	while (top != NULL && (de = cv_dir_next(top, NULL)) != NULL) {
		char *dir;
		struct cv_dir *d;
		const char *e;

		if (de[0] == '.')
			continue;
		dir = cv_path_join(base, de);
		d = cv_dir_open(dir);
		while (d != NULL && (e = cv_dir_next(d, NULL)) != NULL) {
			struct cv_version v;
			char ver[64];
			size_t len = strlen(e);

			if (strncmp(e, "redistrib_", 10) != 0 || len < 16 ||
			    len - 15 >= sizeof ver ||
			    strcmp(e + len - 5, ".json") != 0)
				continue;
			memcpy(ver, e + 10, len - 15);
			ver[len - 15] = '\0';
			if (cv_version_parse(&v, ver, NULL) < 0 ||
			    (!cv_version_matches(spec, &v) &&
			     !cv_version_matches(&v, spec)))
				continue;
			if (best_path == NULL ||
			    cv_version_cmp(&v, &best) > 0) {
				best = v;
				free(best_path);
				best_path = cv_path_join(dir, e);
			}
		}
		cv_dir_close(d);
		free(dir);
	}
	cv_dir_close(top);
	free(base);
	if (best_path != NULL) {
		struct cv_buf b = CV_BUF_INIT;
		char buf[65536];
		long n;
		int fd = cv_os_open(best_path, CV_OPEN_READ | CV_OPEN_NOFOLLOW,
				    0);

		b.max = CV_MANIFEST_MAX_BYTES;
		while (fd >= 0 && (n = cv_os_read(fd, buf, sizeof buf)) > 0)
			if (cv_buf_add(&b, buf, (size_t)n) < 0)
				break;
		if (fd >= 0)
			cv_os_close(fd);
		if (b.len > 0 &&
		    cv_manifest_parse(m, "cached", b.buf, b.len, NULL) == 0) {
			found = cv_version_matches(spec, &m->version);
			if (!found)
				cv_manifest_release(m);
		}
		cv_buf_release(&b);
		free(best_path);
	}
	return found;
}

/* The CUDA major an install of spec must name: 0 when the spec names one,
 * nothing is cached, or the release has a build for this machine's major;
 * else the newest major it has. */
static int
needed_cuda(const struct cv_store *st, const struct cv_version *spec)
{
	struct cv_manifest m;
	struct cv_version bare = *spec;
	char platform[32];
	int cuda, best = 0;

	if (st == NULL || spec->cuda != 0 || spec->nparts == 0 ||
	    !newest_cached(cv_store_cache_dir(st), &bare, &m))
		return 0;
	cuda = cv_machine_cuda(NULL, 0, NULL);
	if (cuda > 0 && cv_platform_detect(platform, NULL) == 0 &&
	    cv_manifest_find(&m, platform, cuda) == NULL)
		for (size_t i = 0; i < m.nfiles; i++)
			if (!m.files[i].bad[0] && m.files[i].cuda > best &&
			    strcmp(m.files[i].platform, platform) == 0)
				best = m.files[i].cuda;
	cv_manifest_release(&m);
	return best;
}

void
cv_install_hint(const struct cv_store *st, const struct cv_version *spec,
		char *buf, size_t n)
{
	char text[64];
	int cuda = needed_cuda(st, spec);

	cv_version_format_id(spec, text, sizeof text);
	if (cuda)
		snprintf(buf, n, "%s --cuda %d", text, cuda);
	else
		snprintf(buf, n, "%s", text);
}

static int
any_build(void *payload, const struct cv_version *v)
{
	(void)payload;
	(void)v;
	return 1;
}

char *
cv_hint_pick_global(const struct cv_store *st)
{
	char id[64];

	return cv_hint_installed(st, any_build, NULL, id)
		       ? xasprintf("cudnnvm global %s", id)
		       : xstrdup("cudnnvm install latest && cudnnvm global "
				 "latest");
}

char *
cv_hint_switch(const char *id)
{
	return xasprintf("eval \"$(cudnnvm env %s)\"", id);
}

int
cv_hint_installed(const struct cv_store *st, cv_accept_fn accept, void *payload,
		  char id[64])
{
	return st != NULL && cv_store_pick(st, accept, payload, id);
}

static int
accept_spec(void *payload, const struct cv_version *v)
{
	return cv_version_matches(payload, v);
}

char *
cv_hint_install_then_switch(const char *spec, int cuda)
{
	if (cuda)
		return xasprintf("cudnnvm install %s --cuda %d && eval "
				 "\"$(cudnnvm env %s-cuda%d)\"",
				 spec, cuda, spec, cuda);
	return xasprintf("cudnnvm install %s && eval \"$(cudnnvm env %s)\"",
			 spec, spec);
}

char *
cv_hint_activate(const struct cv_store *st, const struct cv_version *spec)
{
	char id[64], text[64];

	if (cv_hint_installed(st, accept_spec, (void *)spec, id))
		return cv_hint_switch(id);
	cv_version_format_id(spec, text, sizeof text);
	return cv_hint_install_then_switch(text, needed_cuda(st, spec));
}

struct at_least {
	unsigned long major, minor;
};

static int
accept_at_least(void *payload, const struct cv_version *v)
{
	const struct at_least *a = payload;

	return v->part[0] == a->major && v->part[1] >= a->minor;
}

char *
cv_hint_at_least(const struct cv_store *st, int major, int minor)
{
	struct at_least a = { (unsigned long)major, (unsigned long)minor };
	struct cv_version spec;
	char id[64];

	if (cv_hint_installed(st, accept_at_least, &a, id))
		return cv_hint_switch(id);
	memset(&spec, 0, sizeof spec);
	spec.nparts = 2;
	spec.part[0] = (unsigned long)major;
	spec.part[1] = (unsigned long)minor;
	return cv_hint_activate(st, &spec);
}

char *
cv_hint_validation(const struct cv_store *st, const char *id,
		   const struct cv_validation *v, int failed)
{
	const char *why;

	if (failed != CV_STEP_DRIVER && failed != CV_STEP_PROVENANCE)
		return NULL;
	why = v->step[failed].reason;
	/* only a version this user's store holds can be given them */
	if ((strstr(why, "libcublas") == NULL &&
	     strstr(why, "libnvrtc") == NULL) ||
	    strstr(why, "not found") == NULL || !cv_store_has_own(st, id))
		return NULL;
	return xasprintf("cudnnvm install %s --deps always", id);
}

/* The CUDA major a build of spec is for here: its own, else the one an
 * install would pick (cv_machine_cuda), else the release's newest. */
static int
build_cuda(const struct cv_store *st, const struct cv_version *spec)
{
	int cuda = spec->cuda ? spec->cuda : needed_cuda(st, spec);

	return cuda ? cuda : cv_machine_cuda(NULL, 0, NULL);
}

/* Whether a cached manifest of a release spec matches lists a build of
 * it for this platform and CUDA `cuda`; *m then holds it. */
static int
cached_build(const struct cv_store *st, const struct cv_version *spec, int cuda,
	     struct cv_manifest *m)
{
	struct cv_version bare = *spec;
	char platform[32];

	bare.cuda = 0;
	if (st == NULL || cuda <= 0 || cv_platform_detect(platform, NULL) < 0 ||
	    !newest_cached(cv_store_cache_dir(st), &bare, m))
		return 0;
	if (cv_manifest_find(m, platform, cuda) != NULL)
		return 1;
	cv_manifest_release(m);
	return 0;
}

char *
cv_hint_activate_known(const struct cv_store *st, const struct cv_version *spec)
{
	struct cv_manifest m;
	char id[64], text[64];
	int cuda = build_cuda(st, spec);

	if (cv_hint_installed(st, accept_spec, (void *)spec, id))
		return cv_hint_switch(id);
	if (!cached_build(st, spec, cuda, &m))
		return NULL;
	cv_manifest_release(&m);
	cv_version_format_id(spec, text, sizeof text);
	return cv_hint_install_then_switch(text, spec->cuda ? 0 : cuda);
}

char *
cv_hint_pick_global_known(const struct cv_store *st)
{
	struct cv_manifest m;
	struct cv_version spec;
	char id[64];

	if (cv_hint_installed(st, any_build, NULL, id))
		return xasprintf("cudnnvm global %s", id);
	/* the newest release a cached manifest lists for this machine */
	for (unsigned long major = 9; major >= 8; major--) {
		int cuda;
		memset(&spec, 0, sizeof spec);
		spec.nparts = 1;
		spec.part[0] = major;
		cuda = build_cuda(st, &spec);
		if (!cached_build(st, &spec, cuda, &m))
			continue;
		spec = m.version;
		spec.cuda = cuda;
		cv_manifest_release(&m);
		cv_version_format_id(&spec, id, sizeof id);
		return xasprintf("cudnnvm install %s && cudnnvm global %s", id,
				 id);
	}
	return NULL;
}
