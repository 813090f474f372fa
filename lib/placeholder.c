/* placeholder.c: definitions the foundation modules replace (config.c,
 * store.c, sha256.c, extract.c); delete each once its module exists. */
#include "internal.h"

void
cv_config_init(struct cv_config *cfg)
{
	(void)cfg;
}
void
cv_config_release(struct cv_config *cfg)
{
	(void)cfg;
}
int
cv_config_load(struct cv_config *cfg, const char *f, struct cv_err *err)
{
	(void)cfg;
	(void)f;
	return cv_err_set(err, CV_ERROR, "config not built yet");
}
int
cv_store_open(struct cv_store **out, const struct cv_config *cfg,
	      const char *flag_store, int for_write, struct cv_err *err)
{
	(void)out;
	(void)cfg;
	(void)flag_store;
	(void)for_write;
	return cv_err_set(err, CV_ERROR, "store not built yet");
}
