/* uninstall.h: `cudnnvm uninstall <spec>`. */
#ifndef CUDNNVM_UNINSTALL_H
#define CUDNNVM_UNINSTALL_H

struct cv_err;
struct cv_store;
struct cv_version;

/* Remove the one installed version spec names (shown: the spec as the
 * user wrote it; its id into id). Refuses a spec naming several, the
 * system store's copy, the global default and the version active here
 * (unless force; a removed global default is unset first) and a version
 * running programs map (unless in_use_ok). */
int cv_uninstall(struct cv_store *st, const struct cv_version *spec,
		 const char *shown, int force, int in_use_ok, char id[64],
		 struct cv_err *err);

#endif
