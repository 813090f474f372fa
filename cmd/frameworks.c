/* frameworks.c: `cudnnvm frameworks`: the frameworks of the Python
 * environment in play, the cuDNN each needs and why, the environment's own
 * copy, and whether the active version fits (exit 1 when one cannot
 * load it). The gate that use, global,
 * shell, venv and exec pass is lib/python/gate.c. */
#include "base/base.h"
#include "cmd.h"
#include "python/python.h"
#include "ui.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The versions the environment's .pth hook pins (cudnnvm venv), one per
 * cuDNN major: each framework gets the one of the major it needs. */
struct pins {
	char ids[CV_VENV_MAXPINS][64];
	struct cv_version v[CV_VENV_MAXPINS];
	int n;
};

static void
pins_read(struct pins *p, const char *prefix)
{
	int n = prefix[0] ? cv_preload_pins(prefix, p->ids, CV_VENV_MAXPINS)
			  : 0;

	p->n = 0;
	for (int i = 0; i < n; i++)
		if (cv_install_id_parse(&p->v[p->n], p->ids[i], NULL) == 0) {
			if (p->n != i)
				memcpy(p->ids[p->n], p->ids[i], 64);
			p->n++;
		}
}

/* The pin f gets (index into p), or -1 when there is none. */
static int
pin_for(const struct pins *p, const struct cv_framework *f)
{
	const struct cv_version *v;

	if (p->n == 0)
		return -1;
	v = cv_gate_version_for(f, &p->v[0], p->n > 1 ? &p->v[1] : NULL);
	return v == &p->v[0] ? 0 : 1;
}

static struct cv_json *
version_json(const struct cv_version *v)
{
	char buf[64];

	if (v->nparts == 0)
		return cv_json_null();
	cv_version_format(v, buf, sizeof buf);
	return cv_json_string(buf);
}

/* {"id": the pin f gets, "fits": whether it can load it}, or null */
static struct cv_json *
pin_json(const struct pins *pins, const struct cv_framework *f)
{
	int k = pin_for(pins, f);

	if (k < 0)
		return cv_json_null();
	return cv_json_pack("{s:s,s:b}", "id", pins->ids[k], "fits",
			    cv_framework_fits(f, &pins->v[k]));
}

static void
print_json(const struct cv_fw_env *fe, const char *active,
	   const struct cv_version *av, const struct pins *pins)
{
	struct cv_json *o = cv_json_object(), *arr = cv_json_array(),
		       *pa = cv_json_array();
	char *s;

	for (int i = 0; i < pins->n; i++)
		cv_json_array_append_new(pa, cv_json_string(pins->ids[i]));
	cv_json_object_set_new(o, "pinned", pa);
	cv_json_object_set_new(o, "environment",
			       fe->prefix[0] ? cv_json_string(fe->prefix)
					     : cv_json_null());
	cv_json_object_set_new(o, "found_by", cv_json_string(fe->how));
	cv_json_object_set_new(o, "complete", cv_json_boolean(!fe->incomplete));
	cv_json_object_set_new(
		o, "active", active ? cv_json_string(active) : cv_json_null());
	cv_json_object_set_new(
		o, "bundled",
		fe->bundled_dir[0]
			? cv_json_pack("{s:s,s:s,s:s}", "dir", fe->bundled_dir,
				       "version", fe->bundled_version,
				       "found_via", fe->bundled_via)
			: cv_json_null());
	for (size_t i = 0; i < fe->n; i++) {
		const struct cv_framework *f = &fe->fw[i];
		struct cv_json *x = cv_json_object(), *need = cv_json_object(),
			       *ex = cv_json_array();
		char text[512];

		cv_json_object_set_new(x, "name", cv_json_string(f->name));
		cv_json_object_set_new(x, "version",
				       cv_json_string(f->version));
		cv_json_object_set_new(x, "location",
				       cv_json_string(f->location));
		cv_json_object_set_new(need, "stated",
				       cv_json_boolean(f->need.have));
		cv_json_object_set_new(
			need, "major",
			f->need.min.nparts
				? cv_json_integer((int64_t)f->need.min.part[0])
				: cv_json_null());
		cv_json_object_set_new(need, "min", version_json(&f->need.min));
		cv_json_object_set_new(need, "max", version_json(&f->need.max));
		cv_json_object_set_new(need, "max_inclusive",
				       cv_json_boolean(f->need.max_incl));
		for (int k = 0; k < f->need.nexclude; k++)
			cv_json_array_append_new(
				ex, version_json(&f->need.exclude[k]));
		cv_json_object_set_new(need, "exclude", ex);
		cv_json_object_set_new(need, "cuda",
				       f->need.cuda
					       ? cv_json_integer(f->need.cuda)
					       : cv_json_null());
		cv_framework_need_text(f, text, sizeof text);
		cv_json_object_set_new(need, "text", cv_json_string(text));
		cv_json_object_set_new(need, "requirement",
				       cv_json_string(f->need.text));
		cv_json_object_set_new(need, "source",
				       cv_json_string(f->need.source));
		cv_json_object_set_new(need, "found_via",
				       cv_json_string(f->need.via));
		cv_json_object_set_new(x, "needs", need);
		cv_json_object_set_new(
			x, "active_fits",
			active ? cv_json_boolean(cv_framework_fits(f, av))
			       : cv_json_null());
		cv_json_object_set_new(x, "pinned", pin_json(pins, f));
		cv_json_array_append_new(arr, x);
	}
	cv_json_object_set_new(o, "frameworks", arr);
	s = cv_json_dumps(o, CV_JSON_INDENT(2));
	if (s != NULL)
		printf("%s\n", s);
	free(s);
	cv_json_decref(o);
}

/* Names, versions and requirement texts come from the environment's
 * files: every line goes out escaped. */
static void
print_text(const struct cv_fw_env *fe, const char *active,
	   const struct cv_version *av, const struct pins *pins)
{
	if (fe->prefix[0] == '\0') {
		printf("no Python environment found ($VIRTUAL_ENV, "
		       "$CONDA_PREFIX and python3 on PATH are unset)\n");
		return;
	}
	ui_print(stdout, "environment: %s (%s)", fe->prefix, fe->how);
	ui_print(stdout, "active cuDNN: %s", active ? active : "none");
	if (pins->n > 1)
		ui_print(stdout,
			 "pinned cuDNN: %s, %s (cudnnvm venv; each framework "
			 "loads the one of its major)",
			 pins->ids[0], pins->ids[1]);
	if (fe->bundled_dir[0])
		ui_print(stdout, "bundled cuDNN: %s (%s, %s)", fe->bundled_dir,
			 fe->bundled_version, fe->bundled_via);
	if (fe->incomplete)
		printf("the scan stopped early: a framework's record is not a "
		       "regular file, is over its size cap, or the metadata "
		       "exceed the time or bytes the scan may take; frameworks "
		       "may be missing below\n");
	if (fe->n == 0)
		printf("no framework that uses cuDNN is installed here\n");
	for (size_t i = 0; i < fe->n; i++) {
		const struct cv_framework *f = &fe->fw[i];
		char text[512];
		int k;

		cv_framework_need_text(f, text, sizeof text);
		ui_print(stdout, "%s %s", f->name, f->version);
		ui_print(stdout, "  at: %s", f->location);
		if (f->need.have) {
			ui_print(stdout, "  needs: %s", text);
			ui_print(stdout, "  because: %s says '%s' (%s)",
				 f->need.source, f->need.text, f->need.via);
		} else if (f->need.via[0]) {
			ui_print(stdout, "  needs: no cuDNN (%s: %s)",
				 f->need.via, f->need.text);
		} else {
			ui_print(stdout,
				 "  needs: nothing stated (%s); not checked",
				 f->need.source);
		}
		if (active)
			ui_print(stdout, "  active %s: %s", active,
				 cv_framework_fits(f, av) ? "fits"
							  : "CANNOT LOAD IT");
		if (pins->n > 1 && (k = pin_for(pins, f)) >= 0)
			ui_print(stdout, "  pinned %s: %s", pins->ids[k],
				 cv_framework_fits(f, &pins->v[k])
					 ? "fits"
					 : "CANNOT LOAD IT");
	}
}

/* 1, said with the fix, when a framework found cannot load the active
 * version id; else 0. */
static int
misfit(const struct cv_store *st, const struct cv_fw_env *fe, const char *id)
{
	struct cv_err why = CV_ERR_INIT;

	if (!cv_gate_misfit(st, fe, id, NULL, &why))
		return 0;
	fflush(stdout);
	ui_error("%s is active but %s", id, why.msg);
	ui_hints(&why);
	return 1;
}

int
cmd_frameworks(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct cv_err err = CV_ERR_INIT;
	struct cmd_opts o;
	struct cv_store *st = ctx->st;
	struct cv_fw_env fe;
	struct cv_version av, spec;
	struct pins pins;
	const char *path = NULL;
	char id[64];
	int c, json = 0, r, have_active;

	cmd_opts_init(&o, argc, argv);
	while ((c = cmd_opts_next(&o)) > 0) {
		if (c == 'j')
			json = 1;
		else if (c == 'p')
			path = o.arg;
	}
	if (c < 0)
		return o.status;
	if (argc - o.ind > 1)
		return cmd_usage_error("frameworks", "too many arguments");
	if (argc - o.ind == 1 && cv_spec_parse(&spec, argv[o.ind], &err) < 0)
		return cmd_fail(&err);
	r = cv_active_id(st, argc - o.ind == 1 ? &spec : NULL, id, &err);
	if (r < 0 && argc - o.ind == 1) {
		return cmd_fail(&err);
	}
	have_active = r == 0 && cv_install_id_parse(&av, id, NULL) == 0;
	if (cv_frameworks_find(&fe, path, &err) < 0)
		return cmd_fail(&err);
	pins_read(&pins, fe.prefix);
	if (json)
		print_json(&fe, have_active ? id : NULL, &av, &pins);
	else
		print_text(&fe, have_active ? id : NULL, &av, &pins);
	r = have_active ? misfit(st, &fe, id) : 0;
	cv_fw_env_release(&fe);
	return r;
}
