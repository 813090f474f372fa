/* test_config.c: strict INI parsing and the load order of doc/SPEC.md. */
#include "base/base_int.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct cv_err err;

static int
parse(struct cv_config *c, const char *text)
{
	err = (struct cv_err)CV_ERR_INIT;
	return cv_config_parse_buffer(c, "t.ini", text, strlen(text), &err);
}

/* Parse on a fresh config; 1 when it fails with CV_ECONFIG naming `where`. */
static int
fails_at(const char *text, const char *where)
{
	struct cv_config c;
	int r;

	cv_config_init(&c);
	r = parse(&c, text);
	cv_config_release(&c);
	if (r != CV_ECONFIG || strstr(err.msg, where) == NULL) {
		printf("# got %d: %s\n", r, err.msg);
		return 0;
	}
	return 1;
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

int
main(void)
{
	struct cv_config c;
	char dir[] = "/tmp/cvcfg.XXXXXX", p[512];
	char buf[600];

	cv_config_init(&c);
	CHECK(c.timeout == 30 && c.retries == 3 && c.validate == 1 &&
	      c.keep_archives == CV_KEEP_NO && c.verify_pins == 1 &&
	      c.cuda == 0);
	CHECK(strcmp(c.mirror,
		     "https://developer.download.nvidia.com/compute/cudnn/redist/") ==
	      0);
	CHECK(parse(&c,
		    "[store]\npath = /opt/x\ncache = /var/c\n"
		    "[remote]\nmirror = https://m.example/r/\ntimeout = 5\n"
		    "retries = 0\nca_file = /etc/ca.pem\nproxy = http://p:3128\n"
		    "verify_pins = no\n"
		    "[install]\ncuda = 12\nplatform = linux-sbsa\n"
		    "validate = false\nkeep_archives = 0\n") == 0);
	CHECK(strcmp(c.store_path, "/opt/x") == 0);
	CHECK(strcmp(c.cache_path, "/var/c") == 0);
	CHECK(strcmp(c.mirror, "https://m.example/r/") == 0);
	CHECK(c.timeout == 5 && c.retries == 0 && c.cuda == 12);
	CHECK(strcmp(c.platform, "linux-sbsa") == 0);
	CHECK(c.validate == 0 && c.keep_archives == 0 && c.verify_pins == 0);
	/* keep_archives: yes (while installed), no, or always */
	CHECK(parse(&c, "[install]\nkeep_archives = always\n") == 0);
	CHECK(c.keep_archives == CV_KEEP_ALWAYS);
	CHECK(parse(&c, "[install]\nkeep_archives = yes\n") == 0);
	CHECK(c.keep_archives == CV_KEEP_YES);
	CHECK(parse(&c, "[install]\nkeep_archives = sometimes\n") < 0);
	/* verify_pins: yes, no, or mirror (all but the configured mirror) */
	CHECK(parse(&c, "[remote]\nverify_pins = mirror\n") == 0);
	CHECK(c.verify_pins == CV_PINS_MIRROR);
	CHECK(parse(&c, "[remote]\nverify_pins = mirrors\n") < 0);
	CHECK(strcmp(c.ca_file, "/etc/ca.pem") == 0);
	/* the same platform list install --platform takes */
	CHECK(parse(&c, "[install]\nplatform = linux-ppc64le\n") == 0);
	CHECK(strcmp(c.platform, "linux-ppc64le") == 0);
	/* a later file overrides; auto resets */
	CHECK(parse(&c, "[install]\ncuda = auto\nplatform = auto\n") == 0);
	CHECK(c.cuda == 0 && c.platform == NULL);
	/* inline comments need whitespace before ';' (C4) */
	CHECK(parse(&c, "[store]\npath = /opt/a;b\n") == 0);
	CHECK(strcmp(c.store_path, "/opt/a;b") == 0);
	CHECK(parse(&c, "[store]\npath = /opt/a ; comment\n") == 0);
	CHECK(strcmp(c.store_path, "/opt/a") == 0);
	/* BOM and CRLF are accepted */
	CHECK(parse(&c, "\xef\xbb\xbf[store]\r\npath = /opt/crlf\r\n") == 0);
	CHECK(strcmp(c.store_path, "/opt/crlf") == 0);
	CHECK(parse(&c, "; only a comment\n\n# another\n") == 0);
	cv_config_release(&c);

	/* C1: malformed lines name file:line */
	CHECK(fails_at("[store\npath = /x\n",
		       "t.ini:1: section header without a closing ']'"));
	CHECK(fails_at("[store]\n\njust words\n",
		       "t.ini:3: expected 'key = value'"));
	memset(buf, 'a', sizeof buf - 1);
	buf[sizeof buf - 1] = '\0';
	memcpy(buf, "[store]\npath = /", 16);
	CHECK(fails_at(buf, "t.ini:2: line too long"));
	/* C1b: NUL byte */
	{
		struct cv_config d;
		cv_config_init(&d);
		err = (struct cv_err)CV_ERR_INIT;
		CHECK(cv_config_parse_buffer(&d, "t.ini",
					     "[store]\npath = /opt/a\0/../x\n",
					     27, &err) == CV_ECONFIG);
		CHECK(strstr(err.msg, "t.ini:2: NUL byte") != NULL);
		cv_config_release(&d);
	}
	/* C2: long section names are unknown */
	CHECK(fails_at(
		"[storeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee1]\npath=/x\n",
		"t.ini:2: unknown section"));
	/* C3: an indented line continues (repeats) the key */
	CHECK(fails_at("[store]\npath = /opt/cudnn\n  /x/evil\n",
		       "t.ini:3: 'path' is set twice"));
	/* C5 */
	CHECK(fails_at("[store]\npath = /a\npath = /b\n",
		       "t.ini:3: 'path' is set twice"));
	CHECK(fails_at("[store]\npaht = /a\n", "t.ini:2: unknown key 'paht'"));
	CHECK(fails_at("[nope]\nx = 1\n", "t.ini:2: unknown section '[nope]'"));
	CHECK(fails_at("path = /a\n", "t.ini:1: unknown section"));
	/* C6 and values */
	CHECK(fails_at("[store]\npath = relative/dir\n",
		       "t.ini:2: 'relative/dir' must be an absolute path"));
	CHECK(fails_at("[store]\npath = /opt/../etc\n", "t.ini:2:"));
	CHECK(fails_at("[remote]\ntimeout = 10s\n", "t.ini:2: timeout"));
	CHECK(fails_at("[remote]\ntimeout = -1\n", "t.ini:2: timeout"));
	CHECK(fails_at("[remote]\nretries = 99999999999999999999\n",
		       "t.ini:2: retries"));
	CHECK(fails_at("[remote]\nmirror = http://plain/\n",
		       "t.ini:2: mirror"));
	CHECK(fails_at("[install]\ncuda = 10\n", "t.ini:2: cuda"));
	CHECK(fails_at("[install]\nplatform = linux-mips\n",
		       "t.ini:2: platform"));
	CHECK(fails_at("[install]\nvalidate = maybe\n",
		       "t.ini:2: 'maybe' must be yes or no"));

	/* load order: system, user, explicit, then the environment */
	CHECK(mkdtemp(dir) != NULL);
	snprintf(p, sizeof p, "%s/etc", dir);
	mkdir(p, 0755);
	setenv("CUDNNVM_SYSCONFDIR", p, 1);
	snprintf(p, sizeof p, "%s/etc/config.ini", dir);
	write_file(
		p,
		"[remote]\ntimeout = 7\nretries = 9\n[store]\npath = /sys/store\n");
	snprintf(p, sizeof p, "%s/xdg", dir);
	setenv("XDG_CONFIG_HOME", p, 1);
	snprintf(p, sizeof p, "%s/xdg/cudnnvm", dir);
	snprintf(p, sizeof p, "%s/xdg", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/xdg/cudnnvm", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/xdg/cudnnvm/config.ini", dir);
	write_file(p, "[remote]\ntimeout = 8\n");
	unsetenv("CUDNNVM_CONFIG");
	unsetenv("CUDNNVM_STORE");
	unsetenv("CUDNNVM_MIRROR");
	cv_config_init(&c);
	err = (struct cv_err)CV_ERR_INIT;
	CHECK(cv_config_load(&c, NULL, &err) == 0);
	CHECK(c.timeout == 8 && c.retries == 9);
	/* the system file names the system store, not the user's */
	CHECK(c.system_store_path &&
	      strcmp(c.system_store_path, "/sys/store") == 0);
	CHECK(c.store_path == NULL && !c.store_only);
	cv_config_release(&c);
	snprintf(p, sizeof p, "%s/explicit.ini", dir);
	write_file(p, "[remote]\nretries = 1\n");
	setenv("CUDNNVM_STORE", "/env/store", 1);
	setenv("CUDNNVM_MIRROR", "https://env.example/", 1);
	cv_config_init(&c);
	CHECK(cv_config_load(&c, p, &err) == 0);
	CHECK(c.timeout == 8 && c.retries == 1);
	CHECK(strcmp(c.store_path, "/env/store") == 0 && c.store_only);
	CHECK(strcmp(c.system_store_path, "/sys/store") == 0);
	CHECK(strcmp(c.mirror, "https://env.example/") == 0);
	cv_config_release(&c);
	/* CUDNNVM_CONFIG when no flag */
	setenv("CUDNNVM_CONFIG", p, 1);
	cv_config_init(&c);
	CHECK(cv_config_load(&c, NULL, &err) == 0 && c.retries == 1);
	cv_config_release(&c);
	/* a missing explicit file is an error; a bad system file too */
	snprintf(p, sizeof p, "%s/missing.ini", dir);
	cv_config_init(&c);
	CHECK(cv_config_load(&c, p, &err) == CV_ECONFIG);
	CHECK(strstr(err.msg, "missing.ini") != NULL);
	cv_config_release(&c);
	unsetenv("CUDNNVM_CONFIG");
	snprintf(p, sizeof p, "%s/etc/config.ini", dir);
	write_file(p, "[remote]\nbogus = 1\n");
	cv_config_init(&c);
	CHECK(cv_config_load(&c, NULL, &err) == CV_ECONFIG);
	CHECK(strstr(err.msg, "config.ini:2: unknown key 'bogus'") != NULL);
	cv_config_release(&c);
	/* a directory is not a config file */
	snprintf(p, sizeof p, "%s/etc", dir);
	cv_config_init(&c);
	CHECK(cv_config_load(&c, p, &err) == CV_ECONFIG);
	cv_config_release(&c);
	snprintf(p, sizeof p, "rm -rf '%s'", dir);
	CHECK(system(p) == 0);
	return TEST_DONE();
}
