/* active.c: which version is active here, as every command that applies
 * one asks it: the walk over CUDNNVM_VERSION, pin files, locks and the
 * global default (activate.c), then the rule that a checked pin of the
 * Python environment in play wins over a pin file or global default its
 * frameworks cannot load (gate.c). The walk itself knows nothing of
 * Python, so the prompt's question never reaches the frameworks unless a
 * Python environment is in play. */
#include "activate/activate.h"
#include "base/base.h"
#include "python/python_int.h"

#include <string.h>

int
cv_active_resolve(const struct cv_store *st, const char *cwd,
		  struct cv_active *out, cv_seen_fn seen, void *payload,
		  struct cv_err *err)
{
	int r = cv_active_walk(st, cwd, out, seen, payload, err);

	if (r == 0)
		cv_gate_venv_pin(st, out);
	return r;
}

int
cv_active_id(const struct cv_store *st, const struct cv_version *spec,
	     char id[64], struct cv_err *err)
{
	struct cv_active a;
	int r;

	if (spec != NULL)
		return cv_active_find(st, spec, id, err);
	r = cv_active_resolve(st, NULL, &a, NULL, NULL, err);
	if (r == 0)
		memcpy(id, a.id, sizeof a.id);
	return r;
}
