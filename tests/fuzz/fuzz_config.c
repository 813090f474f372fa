/* fuzz_config.c: the INI parser (inih plus our checks) on any bytes.
 *
 * Oracles: no memory error or leak (ASan), an error is one line with code
 * CV_ECONFIG, and an accepted file leaves a usable config: a mirror, and
 * numbers inside their documented ranges. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cv_config cfg;
	struct cv_err err = CV_ERR_INIT;
	int rc;

	cv_config_init(&cfg);
	rc = cv_config_parse_buffer(&cfg, "fuzz.ini", (const char *)data, size,
				    &err);
	fuzz_check_err(rc, &err);
	if (rc < 0)
		FUZZ_CHECK(rc == CV_ECONFIG, "code %d: %s", rc, err.msg);
	else {
		FUZZ_CHECK(cfg.mirror != NULL, "no mirror after a good file");
		FUZZ_CHECK(cfg.timeout > 0 && cfg.retries >= 0 && cfg.cuda >= 0,
			   "timeout %ld retries %d cuda %d", cfg.timeout,
			   cfg.retries, cfg.cuda);
		FUZZ_CHECK(cfg.validate == 0 || cfg.validate == 1,
			   "validate %d", cfg.validate);
	}
	cv_config_release(&cfg);
	return 0;
}
