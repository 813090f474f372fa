/* list_remote.c: `cudnnvm list-remote [<spec>] [--cuda N] [--platform P]
 * [--json] [--refresh]`: the builds the mirror offers for a platform,
 * newest first, one install id per line. */
#include "cmd.h"
#include "ui.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
human(char *out, size_t n, uint64_t bytes)
{
	snprintf(out, n, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

/* 1 when a release of the listing may match spec (its name may be
 * shorter or longer than the spec). */
static int
lists(const struct cv_index *ix, const struct cv_version *spec)
{
	for (size_t i = 0; i < cv_index_count(ix); i++) {
		const struct cv_version *name = cv_index_version(ix, i);
		if (cv_version_matches(spec, name) ||
		    cv_version_matches(name, spec))
			return 1;
	}
	return 0;
}

/* The wheels of the index ([remote] index), newest first. */
static int
list_wheels(const struct cv_config *cfg, const struct cv_store *st,
	    const struct cv_version *spec, int cuda, const char *platform,
	    int json)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_remote *rem = NULL;
	struct cv_wheel *w = NULL;
	json_t *arr = json ? json_array() : NULL;
	size_t n = 0;
	int shown = 0, r = 0;
	const char *index;

	if (cv_pypi_index(cfg, NULL, &index, &err) < 0 ||
	    cv_remote_new(&rem, cfg, index, &err) < 0 ||
	    cv_pypi_list(rem, cv_remote_mirror(rem), cuda, platform, &w, &n,
			 &err) < 0) {
		r = cmd_fail(&err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char id[64], vs[48], size[32];
		int installed;

		if (spec != NULL && !cv_version_matches(spec, &w[i].version))
			continue;
		cv_version_format_id(&w[i].version, id, sizeof id);
		cv_version_format(&w[i].version, vs, sizeof vs);
		installed = cv_store_has(st, id);
		shown++;
		if (json) {
			json_array_append_new(
				arr,
				json_pack("{s:s,s:s,s:i,s:s,s:I,s:s,s:s,s:s,"
					  "s:b}",
					  "id", id, "version", vs, "cuda",
					  w[i].version.cuda, "platform",
					  w[i].platform, "size",
					  (json_int_t)w[i].size, "sha256",
					  w[i].sha256, "url", w[i].url,
					  "source", "pypi", "installed",
					  installed));
			continue;
		}
		if (w[i].size)
			human(size, sizeof size, w[i].size);
		else
			snprintf(size, sizeof size, "-");
		printf("%-20s %-10s %10s%s\n", id, "pypi", size,
		       installed ? "  installed" : "");
	}
	if (json) {
		char *s = json_dumps(arr, JSON_INDENT(2));
		if (s != NULL) {
			puts(s);
			free(s);
		}
	} else if (!shown) {
		cv_err_set(&err, CV_ENOTFOUND,
			   "no cuDNN wheel on the index matches for %s",
			   platform);
		r = cmd_fail(&err);
	}
out:
	json_decref(arr);
	cv_wheels_free(w, n);
	cv_remote_free(rem);
	return r;
}

int
cmd_list_remote(int argc, char **argv, struct cmd_ctx *ctx)
{
	enum { O_CUDA = 256, O_PLATFORM, O_JSON, O_REFRESH, O_SOURCE };
	static const struct option lo[] = {
		{ "cuda", required_argument, NULL, O_CUDA },
		{ "platform", required_argument, NULL, O_PLATFORM },
		{ "json", no_argument, NULL, O_JSON },
		{ "refresh", no_argument, NULL, O_REFRESH },
		{ "source", required_argument, NULL, O_SOURCE },
		{ NULL, 0, NULL, 0 },
	};
	struct cv_err err = CV_ERR_INIT;
	struct cv_store *st = ctx->st;
	struct cv_remote *rem = NULL;
	struct cv_index *ix = NULL;
	struct cv_version spec;
	const char *platform_flag = NULL, *spec_s = NULL, *source_s = NULL;
	char platform[32];
	int c, cuda = 0, json = 0, refresh = 0, r = 0, bad = 0, shown = 0;
	int source = -1;
	json_t *arr = NULL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case O_CUDA:
			if (cv_cuda_major_parse(optarg, &cuda) < 0)
				return cmd_usage_error(
					"list-remote",
					"--cuda needs a CUDA major such as 12");
			break;
		case O_PLATFORM:
			platform_flag = optarg;
			break;
		case O_JSON:
			json = 1;
			break;
		case O_REFRESH:
			refresh = 1;
			break;
		case O_SOURCE:
			source_s = optarg;
			break;
		default:
			return cmd_usage_error("list-remote",
					       "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (source_s != NULL && cv_source_parse(source_s, &source, &err) < 0)
		return cmd_usage_error("list-remote", "%s", err.msg);
	if (argc - optind > 1)
		return cmd_usage_error("list-remote", "give at most one spec");
	if (optind < argc) {
		spec_s = argv[optind];
		if (cv_spec_parse(&spec, spec_s, &err) < 0)
			return cmd_fail(&err);
		if (spec.cuda) {
			if (cuda && cuda != spec.cuda)
				return cmd_usage_error(
					"list-remote",
					"the spec and --cuda disagree");
			cuda = spec.cuda;
			spec.cuda = 0;
		}
		/* latest: the newest release for this machine's CUDA major */
		if (spec.nparts == 0 && cuda == 0 &&
		    (cuda = cv_machine_cuda(NULL, 0, &err)) < 0)
			return cmd_fail(&err);
	}
	if (platform_flag == NULL)
		platform_flag = ctx->cfg.platform;
	if (platform_flag != NULL) {
		if (!cv_platform_valid(platform_flag)) {
			r = cmd_usage_error("list-remote",
					    "unknown platform '%.40s'",
					    platform_flag);
			goto out;
		}
		snprintf(platform, sizeof platform, "%s", platform_flag);
	} else if (cv_platform_detect(platform, &err) < 0) {
		r = cmd_fail(&err);
		goto out;
	}
	if (source < 0)
		source = ctx->cfg.source;
	if (source == CV_SOURCE_PYPI) {
		r = list_wheels(&ctx->cfg, st, spec_s != NULL ? &spec : NULL,
				cuda, platform, json);
		goto out;
	}
	if (cv_remote_new(&rem, &ctx->cfg, NULL, &err) < 0 ||
	    cv_index_open(&ix, rem, cv_store_cache_dir(st), refresh, &err) <
		    0) {
		r = cmd_fail(&err);
		goto out;
	}
	/* a spec no release of a cached listing matches may be a release
	 * published since: read the listing once more */
	if (spec_s != NULL && !lists(ix, &spec) &&
	    cv_index_reread(&ix, &err) < 0) {
		r = cmd_fail(&err);
		goto out;
	}
	/* all the manifests at once: a cold listing costs a few round trips
	 * rather than one per release */
	if (cv_index_prefetch(ix, spec_s != NULL ? &spec : NULL, &err) < 0) {
		r = cmd_fail(&err);
		goto out;
	}
	if (json)
		arr = json_array();
	for (size_t i = 0; i < cv_index_count(ix); i++) {
		struct cv_manifest m;
		struct cv_err merr = CV_ERR_INIT;
		const struct cv_version *name = cv_index_version(ix, i);

		/* the listing name may be shorter or longer than the spec */
		if (spec_s != NULL && !cv_version_matches(&spec, name) &&
		    !cv_version_matches(name, &spec))
			continue;
		if (cv_index_manifest(ix, i, &m, &merr) < 0) {
			if (merr.code == CV_EINTR) {
				r = cmd_fail(&merr);
				goto out;
			}
			/* one bad manifest does not hide the others */
			ui_error("skipped: %s", merr.msg);
			if (!bad || merr.code == CV_EDATA)
				bad = merr.code;
			continue;
		}
		if (spec_s != NULL && !cv_version_matches(&spec, &m.version)) {
			cv_manifest_release(&m);
			continue;
		}
		for (int cu = 999; cu > 0; cu--) {
			const struct cv_release_file *f;
			struct cv_version v = m.version;
			char id[64], size[32];
			int installed;

			if (cuda && cu != cuda)
				continue;
			f = cv_manifest_find(&m, platform, cu);
			if (f == NULL || f->bad[0])
				continue;
			v.cuda = cu;
			cv_version_format_id(&v, id, sizeof id);
			installed = cv_store_has(st, id);
			shown++;
			if (json) {
				char *url =
					cv_manifest_url(cv_remote_mirror(rem),
							f->relative_path);
				char vs[48];
				cv_version_format(&m.version, vs, sizeof vs);
				json_array_append_new(
					arr,
					json_pack(
						"{s:s,s:s,s:s,s:i,s:s,s:I,s:s,"
						"s:s,s:b}",
						"id", id, "version", vs,
						"release", m.label, "cuda", cu,
						"platform", platform, "size",
						(json_int_t)f->size, "sha256",
						f->sha256, "url", url,
						"installed", installed));
				free(url);
			} else {
				human(size, sizeof size, f->size);
				printf("%-20s %-10s %10s%s\n", id, m.label,
				       size, installed ? "  installed" : "");
			}
		}
		cv_manifest_release(&m);
		if (shown && spec_s != NULL && spec.nparts == 0)
			break; /* latest: the newest release only */
	}
	if (json) {
		char *s = json_dumps(arr, JSON_INDENT(2));
		if (s != NULL) {
			puts(s);
			free(s);
		}
	}
	if (bad) {
		cv_err_set(&err, bad,
			   "some manifests on the mirror could not be read "
			   "(see above)");
		r = cmd_fail(&err);
	} else if (!shown && !json) {
		cv_err_set(&err, CV_ENOTFOUND,
			   "no cuDNN build on the mirror matches%s%s%s for %s",
			   spec_s ? " '" : "", spec_s ? spec_s : "",
			   spec_s ? "'" : "", platform);
		if (cuda)
			cv_err_prefix(&err, "cuda%d: ", cuda);
		r = cmd_fail(&err);
	}
out:
	json_decref(arr);
	cv_index_free(ix);
	cv_remote_free(rem);
	return r;
}
