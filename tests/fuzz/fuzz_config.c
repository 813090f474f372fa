/* fuzz_config.c: the INI parser (inih plus our checks) on any bytes.
 *
 * Oracles: no memory error or leak (ASan), an error is one line with code
 * CV_ECONFIG, and an accepted file leaves a usable config: an https:// or
 * file:// mirror, numbers inside their documented ranges (man/cudnnvm.ini.5),
 * absolute paths without "..", no control bytes in any value. */
#include "base/base_int.h"
#include "fuzz.h"

/* A value that reaches a path, a URL or an environment script has no
 * control bytes. */
static void
check_text(const char *v)
{
	for (const char *s = v; s && *s; s++)
		FUZZ_CHECK((unsigned char)*s >= 0x20 && *s != 0x7f,
			   "control byte in '%s'", v);
}

/* A configured path is absolute with no ".." component. */
static void
check_path(const char *v)
{
	if (v == NULL)
		return;
	check_text(v);
	FUZZ_CHECK(v[0] == '/', "relative path '%s'", v);
	for (const char *s = v; (s = strstr(s, "..")) != NULL; s += 2)
		FUZZ_CHECK(!(s[-1] == '/' && (s[2] == '/' || s[2] == '\0')),
			   "'..' in '%s'", v);
}

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
		FUZZ_CHECK(cfg.mirror != NULL &&
				   (strncmp(cfg.mirror, "https://", 8) == 0 ||
				    strncmp(cfg.mirror, "file://", 7) == 0),
			   "mirror '%s'", cfg.mirror ? cfg.mirror : "(null)");
		FUZZ_CHECK(cfg.timeout >= 1 && cfg.timeout <= 86400,
			   "timeout %ld", cfg.timeout);
		FUZZ_CHECK(cfg.retries >= 0 && cfg.retries <= 100, "retries %d",
			   cfg.retries);
		FUZZ_CHECK(cfg.cuda == 0 || (cfg.cuda >= 11 && cfg.cuda <= 13),
			   "cuda %d", cfg.cuda);
		FUZZ_CHECK(cfg.threads <= CV_MAX_THREADS, "threads %u",
			   cfg.threads);
		FUZZ_CHECK((cfg.validate | cfg.verify_pins) <= 1 &&
				   cfg.keep_archives >= CV_KEEP_NO &&
				   cfg.keep_archives <= CV_KEEP_ALWAYS,
			   "booleans %d %d %d", cfg.validate, cfg.keep_archives,
			   cfg.verify_pins);
		check_path(cfg.store_path);
		check_path(cfg.cache_path);
		check_path(cfg.ca_file);
		check_text(cfg.mirror);
		check_text(cfg.proxy);
		FUZZ_CHECK(cfg.platform == NULL || cfg.platform[0] == '\0' ||
				   cv_platform_valid(cfg.platform),
			   "platform '%s'", cfg.platform);
	}
	cv_config_release(&cfg);
	return 0;
}
