/* config.c: the INI files of doc/SPEC.md, read strictly: the file is read
 * here (size-capped, NUL bytes refused), handed to the platform's INI
 * reader (cv_ini_read: inih on POSIX, fed line by line so every complaint
 * names file:line; the Win32 profile API on Windows, whose keys are found
 * again in the text for their line), and only the keys of doc/SPEC.md are
 * accepted, each at most once per file. */
#include "base/base_int.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_MAX_BYTES (64 * 1024)
#define DEFAULT_MIRROR \
	"https://developer.download.nvidia.com/compute/cudnn/redist/"

/* The one table of keys: the reader, `cudnnvm config` and the docs test
 * (which holds man/cudnnvm.ini.5 to `config list`) all go by it. */
enum key {
	K_STORE_PATH,
	K_STORE_CACHE,
	K_MIRROR,
	K_CA_FILE,
	K_PROXY,
	K_TIMEOUT,
	K_RETRIES,
	K_VERIFY_PINS,
	K_SOURCE,
	K_INDEX,
	K_CUDA_MIRROR,
	K_CUBLAS_MIRROR,
	K_CUDA,
	K_PLATFORM,
	K_VALIDATE,
	K_KEEP,
	K_THREADS,
	K_DEPS,
	K_NKEYS
};

static const struct {
	const char *section, *name;
} keys[K_NKEYS] = {
	{ "store", "path" },
	{ "store", "cache" },
	{ "remote", "mirror" },
	{ "remote", "ca_file" },
	{ "remote", "proxy" },
	{ "remote", "timeout" },
	{ "remote", "retries" },
	{ "remote", "verify_pins" },
	{ "remote", "source" },
	{ "remote", "index" },
	{ "remote", "cuda_mirror" },
	{ "remote", "cublas_mirror" }, /* cuBLAS's own channel */
	{ "install", "cuda" },
	{ "install", "platform" },
	{ "install", "validate" },
	{ "install", "keep_archives" },
	{ "install", "threads" },
	{ "install", "deps" },
};

struct parse {
	struct cv_config *cfg;
	const char *name;
	const char *data;
	size_t len, pos;
	int line;     /* line last handed to the reader */
	int by_lines; /* the reader takes the text from reader() */
	int seen[K_NKEYS];
	struct cv_err *err;
	int failed;
	int fail_line;
};

void
cv_config_init(struct cv_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->mirror = xstrdup(DEFAULT_MIRROR);
	cfg->timeout = 30;
	cfg->retries = 3;
	cfg->validate = 1;
	/* one copy of each version: the store's (mise's
	 * always_keep_download = false); --keep, keep_archives = yes, a lock
	 * and a mirror folder are the ways to reinstall offline */
	cfg->keep_archives = CV_KEEP_NO;
	cfg->verify_pins = 1;
}

void
cv_config_release(struct cv_config *cfg)
{
	free(cfg->system_store_path);
	free(cfg->store_path);
	free(cfg->cache_path);
	free(cfg->mirror);
	free(cfg->ca_file);
	free(cfg->proxy);
	free(cfg->platform);
	free(cfg->pypi_index);
	free(cfg->cuda_mirror);
	free(cfg->cublas_mirror);
	free(cfg->pins_mirror);
	memset(cfg, 0, sizeof *cfg);
}

static int fail(struct parse *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
fail(struct parse *p, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	if (!p->failed) {
		va_start(ap, fmt);
		vsnprintf(what, sizeof what, fmt, ap);
		va_end(ap);
		if (p->name != NULL && p->line <= 0) /* no line to name */
			cv_err_set(p->err, CV_ECONFIG, "%s: %s", p->name, what);
		else if (p->name != NULL)
			cv_err_set(p->err, CV_ECONFIG, "%s:%d: %s", p->name,
				   p->line, what);
		else /* a value config set was given: no file to name */
			cv_err_set(p->err, CV_EUSAGE, "%s", what);
		p->failed = 1;
		p->fail_line = p->line;
	}
	return 0;
}

static int
parse_bool(const char *v, int *out)
{
	static const char *const yes[] = { "yes", "true", "1", "on", NULL };
	static const char *const no[] = { "no", "false", "0", "off", NULL };

	for (int i = 0; yes[i]; i++)
		if (strcasecmp(v, yes[i]) == 0)
			return *out = 1, 0;
	for (int i = 0; no[i]; i++)
		if (strcasecmp(v, no[i]) == 0)
			return *out = 0, 0;
	return -1;
}

static int
parse_long(const char *v, long lo, long hi, long *out)
{
	char *end;
	long n;

	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || n < lo || n > hi)
		return -1;
	*out = n;
	return 0;
}

static int
has_ctl(const char *v)
{
	for (const unsigned char *s = (const unsigned char *)v; *s; s++)
		if (*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static int
check_path(struct parse *p, const char *v)
{
	if (!cv_os_is_absolute(v))
		return fail(p, "'%s' must be an absolute path", v);
	if (strlen(v) >= PATH_MAX)
		return fail(p, "path too long: '%.64s...'", v);
	for (const char *s = v; (s = strstr(s, "..")) != NULL; s += 2)
		if (cv_os_is_sep((unsigned char)s[-1]) &&
		    (cv_os_is_sep((unsigned char)s[2]) || s[2] == '\0'))
			return fail(p, "'%s' must not contain '..'", v);
	return 1;
}

static void
set_str(char **slot, const char *v)
{
	free(*slot);
	*slot = *v ? xstrdup(v) : NULL;
}

/* A key of no row of keys[]: did-you-mean within its section. */
static int
unknown_key(struct parse *p, const char *section, const char *name)
{
	struct cv_suggest near = CV_SUGGEST_INIT(name);
	int known = 0;
	for (int i = 0; i < K_NKEYS; i++)
		if (strcmp(keys[i].section, section) == 0) {
			known = 1;
			cv_suggest_consider(&near, keys[i].name);
		}
	if (!known)
		return fail(
			p,
			"unknown section '[%s]' (known: [store], [remote], [install])",
			section);
	if (cv_suggest_result(&near) != NULL)
		return fail(p, "unknown key '%s' (did you mean '%s'?)", name,
			    cv_suggest_result(&near));
	return fail(p, "unknown key '%s'", name);
}

/* The value of row k into the configuration: 1, or 0 with p failed. */
static int
set_value(struct parse *p, int k, const char *value)
{
	struct cv_config *c = p->cfg;
	const char *why;
	int b;
	long n;

	switch (k) {
	case K_STORE_PATH:
		if (*value && !check_path(p, value))
			return 0;
		set_str(&c->store_path, value);
		break;
	case K_STORE_CACHE:
		if (*value && !check_path(p, value))
			return 0;
		set_str(&c->cache_path, value);
		break;
	case K_CA_FILE:
		if (*value && !check_path(p, value))
			return 0;
		set_str(&c->ca_file, value);
		c->ca_from = "remote.ca_file";
		break;
	case K_MIRROR:
		if ((why = cv_url_mirror_problem(value)) != NULL) {
			char *shown = cv_url_redact(value);
			fail(p, "mirror '%s' %s", shown, why);
			free(shown);
			return 0;
		}
		set_str(&c->mirror, value);
		c->mirror_from = "remote.mirror";
		break;
	case K_CUDA_MIRROR:
		if ((why = cv_url_mirror_problem(value)) != NULL) {
			char *shown = cv_url_redact(value);
			fail(p, "cuda_mirror '%s' %s", shown, why);
			free(shown);
			return 0;
		}
		set_str(&c->cuda_mirror, value);
		break;
	case K_CUBLAS_MIRROR:
		if ((why = cv_url_mirror_problem(value)) != NULL) {
			char *shown = cv_url_redact(value);
			fail(p, "cublas_mirror '%s' %s", shown, why);
			free(shown);
			return 0;
		}
		set_str(&c->cublas_mirror, value);
		break;
	case K_DEPS:
		if (cv_config_deps_mode(value, &c->deps) < 0)
			return fail(p,
				    "deps '%s' must be auto, always or never",
				    value);
		break;
	case K_PROXY:
		set_str(&c->proxy, value);
		break;
	case K_SOURCE:
		if (cv_source_parse(value, &c->source, NULL) < 0)
			return fail(p, "source '%s' must be nvidia or pypi",
				    value);
		break;
	case K_INDEX:
		if ((why = cv_url_mirror_problem(value)) != NULL) {
			char *shown = cv_url_redact(value);
			fail(p, "index '%s' %s", shown, why);
			free(shown);
			return 0;
		}
		set_str(&c->pypi_index, value);
		break;
	case K_TIMEOUT:
		if (parse_long(value, 1, 86400, &n) < 0)
			return fail(
				p,
				"timeout '%s' must be a number of seconds (1-86400)",
				value);
		c->timeout = n;
		break;
	case K_RETRIES:
		if (parse_long(value, 0, 100, &n) < 0)
			return fail(p, "retries '%s' must be a number 0-100",
				    value);
		c->retries = (int)n;
		break;
	case K_CUDA:
		if (strcmp(value, "auto") == 0)
			c->cuda = 0;
		else if (parse_long(value, 11, 13, &n) == 0)
			c->cuda = (int)n;
		else
			return fail(p, "cuda '%s' must be auto, 11, 12 or 13",
				    value);
		break;
	case K_PLATFORM:
		if (strcmp(value, "auto") == 0) {
			set_str(&c->platform, "");
			break;
		}
		/* the platforms NVIDIA's manifests name (platform.c), the
		 * same list install --platform takes */
		if (!cv_platform_valid(value))
			return fail(
				p,
				"platform '%s' must be auto, linux-x86_64, linux-sbsa, linux-aarch64, linux-ppc64le, windows-x86_64 or windows-arm64",
				value);
		set_str(&c->platform, value);
		break;
	case K_THREADS:
		if (strcmp(value, "auto") == 0)
			c->threads = 0;
		else if (parse_long(value, 1, CV_MAX_THREADS, &n) == 0)
			c->threads = (unsigned)n;
		else
			return fail(
				p, "threads '%s' must be auto or a number 1-%d",
				value, CV_MAX_THREADS);
		break;
	case K_KEEP:
		if (strcmp(value, "always") == 0) {
			c->keep_archives = CV_KEEP_ALWAYS;
			break;
		}
		if (parse_bool(value, &b) < 0)
			return fail(p, "'%s' must be yes, no or always", value);
		c->keep_archives = b ? CV_KEEP_YES : CV_KEEP_NO;
		break;
	case K_VERIFY_PINS:
		/* mirror: a site's mirror that makes its own manifests, the
		 * pins still held everywhere else */
		if (strcmp(value, "mirror") == 0) {
			c->verify_pins = CV_PINS_MIRROR;
			break;
		}
		if (parse_bool(value, &b) < 0)
			return fail(p, "'%s' must be yes, no or mirror", value);
		c->verify_pins = b ? CV_PINS_YES : CV_PINS_NO;
		break;
	case K_VALIDATE:
		if (parse_bool(value, &b) < 0)
			return fail(p, "'%s' must be yes or no", value);
		c->validate = b;
		break;
	}
	return 1;
}

static int line_is_key(const char *line, size_t len, const char *name);
static int line_section(const char *line, size_t len, char *sec, size_t n);

/* The line of the first "name = ..." of [section], for a reader that
 * gives no lines (the profile API); 0 when it is not found. */
static int
key_line(const struct parse *p, const char *section, const char *name)
{
	const char *s = p->data, *end = p->data + p->len;
	char sec[64] = "";
	int line = 1;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t full = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
		if (!line_section(s, full, sec, sizeof sec) &&
		    strcmp(sec, section) == 0 && line_is_key(s, full, name))
			return line;
		s += full;
		line++;
	}
	return 0;
}

static int
handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	int k;

	if (p->failed)
		return 0;
	if (!p->by_lines)
		p->line = key_line(p, section, name);
	for (k = 0; k < K_NKEYS; k++)
		if (strcmp(keys[k].section, section) == 0 &&
		    strcmp(keys[k].name, name) == 0)
			break;
	if (k == K_NKEYS)
		return unknown_key(p, section, name);
	if (p->seen[k])
		return fail(
			p,
			"'%s' is set twice (or an indented line continues it)",
			name);
	p->seen[k] = 1;
	if (has_ctl(value))
		return fail(p, "control character in the value of '%s'", name);
	return set_value(p, k, value);
}

/* inih's reader: hand out one line at a time, counting lines and refusing
 * an over-long one (inih would silently cut it). */
static char *
reader(char *str, int num, void *stream)
{
	struct parse *p = stream;
	const char *s, *nl;
	size_t n, full;

	p->by_lines = 1;
	if (p->failed || p->pos >= p->len)
		return NULL;
	s = p->data + p->pos;
	nl = memchr(s, '\n', p->len - p->pos);
	full = nl ? (size_t)(nl - s) + 1 : p->len - p->pos;
	p->line++;
	n = full;
	if (n > 0 && s[n - 1] == '\n')
		n--;
	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (num < 3 || n > (size_t)num - 2) {
		char lim[32];
		snprintf(lim, sizeof lim, "%d", num > 2 ? num - 2 : 0);
		fail(p, "line too long (the limit is %s bytes)", lim);
		return NULL;
	}
	memcpy(str, s, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	p->pos += full;
	return str;
}

int
cv_config_parse_buffer(struct cv_config *cfg, const char *name,
		       const char *data, size_t len, struct cv_err *err)
{
	struct parse p;
	const char *nul;
	int r;

	memset(&p, 0, sizeof p);
	p.cfg = cfg;
	p.name = name;
	p.data = data;
	p.len = len;
	p.err = err;
	if ((nul = memchr(data, '\0', len)) != NULL) {
		p.line = 1;
		for (const char *s = data; s < nul; s++)
			p.line += *s == '\n';
		fail(&p, "%s", "NUL byte in the file");
		return CV_ECONFIG;
	}
	r = cv_ini_read(data, len, reader, handler, &p);
	if (p.failed && (r <= 0 || r >= p.fail_line))
		return CV_ECONFIG;
	if (r != 0) {
		/* the reader saw a syntax error before our first complaint */
		p.failed = 0;
		/* A syntax error inih found at line r: say which kind. */
		const char *s = data;
		int line = 1;
		while (line < r &&
		       (s = memchr(s, '\n', (size_t)(data + len - s))) !=
			       NULL) {
			s++;
			line++;
		}
		p.line = r;
		while (s && s < data + len && (*s == ' ' || *s == '\t'))
			s++;
		if (r == CV_INI_NOT_KEY)
			fail(&p, "%s",
			     "a line that is not 'key = value', a [section] or "
			     "a ; comment");
		else if (r < 0)
			fail(&p, "%s", "cannot parse");
		else if (s && s < data + len && *s == '[')
			fail(&p, "%s", "section header without a closing ']'");
		else
			fail(&p, "%s",
			     "expected 'key = value', a [section] or a ; comment");
		return CV_ECONFIG;
	}
	return 0;
}

/* The bytes of one file into *bufp (*lenp): 0, 1 when absent and
 * optional, <0 on error. */
static int
read_file(const char *path, int required, char **bufp, size_t *lenp,
	  struct cv_err *err)
{
	struct cv_stat sb;
	char *buf;
	long n;
	size_t got = 0;
	int fd, r;

	fd = cv_os_open(path, CV_OPEN_READ | CV_OPEN_NONBLOCK, 0);
	if (fd < 0) {
		if (errno == ENOENT && !required)
			return 1;
		return cv_err_errno(err, CV_ECONFIG,
				    "cannot read config file '%s'", path);
	}
	if (cv_os_fstat(fd, &sb) != 0 || sb.kind != CV_KIND_FILE) {
		cv_os_close(fd);
		return cv_err_set(err, CV_ECONFIG,
				  "config file '%s' is not a regular file",
				  path);
	}
	if (sb.size > CONFIG_MAX_BYTES) {
		cv_os_close(fd);
		return cv_err_set(err, CV_ECONFIG,
				  "config file '%s' is larger than %d bytes",
				  path, CONFIG_MAX_BYTES);
	}
	buf = xmalloc(CONFIG_MAX_BYTES + 1);
	while (got <= CONFIG_MAX_BYTES &&
	       (n = cv_os_read(fd, buf + got, CONFIG_MAX_BYTES + 1 - got)) !=
		       0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = cv_err_errno(err, CV_ECONFIG,
					 "cannot read config file '%s'", path);
			free(buf);
			cv_os_close(fd);
			return r;
		}
		got += (size_t)n;
	}
	cv_os_close(fd);
	if (got > CONFIG_MAX_BYTES) {
		free(buf);
		return cv_err_set(err, CV_ECONFIG,
				  "config file '%s' is larger than %d bytes",
				  path, CONFIG_MAX_BYTES);
	}
	buf[got] = '\0';
	*bufp = buf;
	*lenp = got;
	return 0;
}

/* Read one file: 0 on success, 1 when absent and optional, <0 on error. */
static int
load_file(struct cv_config *cfg, const char *path, int required,
	  struct cv_err *err)
{
	char *buf;
	size_t got;
	int r = read_file(path, required, &buf, &got, err);

	if (r != 0)
		return r;
	r = cv_config_parse_buffer(cfg, path, buf, got, err);
	free(buf);
	return r;
}

int
cv_config_load(struct cv_config *cfg, const char *explicit_file,
	       struct cv_err *err)
{
	const char *sys = getenv("CUDNNVM_SYSCONFDIR");
	const char *env;
	char *path, *place = NULL;
	int r;

	/* /etc/cudnnvm, %ProgramData%\cudnnvm */
	if ((sys == NULL || *sys == '\0') &&
	    (sys = place = cv_os_place(CV_PLACE_MACHINE_CONFIG)) == NULL)
		sys = "/etc/cudnnvm";
	path = cv_path_join(sys, "config.ini");
	r = load_file(cfg, path, 0, err);
	free(path);
	free(place);
	if (r < 0)
		return r;
	/* the system file names the system store; a path any later file
	 * gives is the user's own store, seen beside it */
	free(cfg->system_store_path);
	cfg->system_store_path = cfg->store_path;
	cfg->store_path = NULL;
	if ((path = cv_config_user_path(NULL)) != NULL) {
		r = load_file(cfg, path, 0, err);
		free(path);
		if (r < 0)
			return r;
	}
	if (explicit_file == NULL)
		explicit_file = getenv("CUDNNVM_CONFIG");
	if (explicit_file != NULL && *explicit_file != '\0') {
		r = load_file(cfg, explicit_file, 1, err);
		if (r < 0)
			return r;
	}
	env = getenv("CUDNNVM_STORE");
	if (env != NULL && *env != '\0') {
		if (has_ctl(env))
			return cv_err_set(
				err, CV_ECONFIG,
				"CUDNNVM_STORE holds a control character");
		/* relative, it would name another store in every folder */
		if (!cv_os_is_absolute(env))
			return cv_err_set(err, CV_ECONFIG,
					  "CUDNNVM_STORE '%.200s' must be an "
					  "absolute path",
					  env);
		set_str(&cfg->store_path, env);
		cfg->store_only = 1;
	}
	env = getenv("CUDNNVM_MIRROR");
	if (env != NULL && *env != '\0') {
		const char *why = cv_url_mirror_problem(env);
		if (why != NULL) {
			char *shown = cv_url_redact(env);
			r = cv_err_set(err, CV_ECONFIG,
				       "CUDNNVM_MIRROR '%.200s' %s", shown,
				       why);
			free(shown);
			return r;
		}
		set_str(&cfg->mirror, env);
		cfg->mirror_from = "CUDNNVM_MIRROR";
	}
	/* as curl, pip and uv: a bundle named in the environment replaces
	 * the system CAs, and one the configuration names beats it, as
	 * curl's --cacert does (remote.c says when the file is missing) */
	static const char *const ca_env[] = { "CURL_CA_BUNDLE",
					      "SSL_CERT_FILE" };
	for (size_t i = 0; cfg->ca_file == NULL && i < 2; i++) {
		env = getenv(ca_env[i]);
		if (env == NULL || *env == '\0')
			continue;
		if (has_ctl(env))
			return cv_err_set(err, CV_ECONFIG,
					  "%s holds a control character",
					  ca_env[i]);
		set_str(&cfg->ca_file, env);
		cfg->ca_from = ca_env[i];
		break;
	}
	free(cfg->pins_mirror);
	cfg->pins_mirror = NULL;
	if (cfg->verify_pins == CV_PINS_MIRROR && cfg->mirror_from != NULL)
		cfg->pins_mirror = xstrdup(cfg->mirror);
	return 0;
}

int
cv_config_set_mirror(struct cv_config *cfg, const char *url, const char *from,
		     struct cv_err *err)
{
	const char *why = cv_url_mirror_problem(url);

	if (why != NULL) {
		char *shown = cv_url_redact(url);
		int r = cv_err_set(err, CV_ECONFIG, "%s '%.200s' %s", from,
				   shown, why);
		free(shown);
		return r;
	}
	set_str(&cfg->mirror, url);
	cfg->mirror_from = from;
	return 0;
}

int
cv_source_parse(const char *s, int *out, struct cv_err *err)
{
	if (strcmp(s, "nvidia") == 0)
		*out = CV_SOURCE_NVIDIA;
	else if (strcmp(s, "pypi") == 0)
		*out = CV_SOURCE_PYPI;
	else
		return cv_err_set(err, CV_EUSAGE,
				  "unknown source '%.40s' (nvidia or pypi)", s);
	return 0;
}

int
cv_config_deps_mode(const char *s, int *out)
{
	static const char *const names[] = { "auto", "always", "never" };

	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	return -1;
}

/* ---- cudnnvm config: the same table of keys, read and edited ---- */

const char *
cv_config_key(size_t i, char *buf, size_t n)
{
	if (i >= K_NKEYS)
		return NULL;
	snprintf(buf, n, "%s.%s", keys[i].section, keys[i].name);
	return buf;
}

/* The index of "section.name", or -1 with CV_EUSAGE and did-you-mean. */
static int
key_index(const char *key, struct cv_err *err)
{
	struct cv_suggest near = CV_SUGGEST_INIT(key);
	char names[K_NKEYS][48];

	for (int k = 0; k < K_NKEYS; k++) {
		cv_config_key((size_t)k, names[k], sizeof names[k]);
		if (strcmp(names[k], key) == 0)
			return k;
		cv_suggest_consider(&near, names[k]);
	}
	/* "mirror" for "remote.mirror": the name alone, when it is one key's */
	for (int k = 0; k < K_NKEYS; k++)
		if (strcmp(keys[k].name, key) == 0)
			near.best = names[k], near.dist = 0;
	if (near.best != NULL && (near.dist == 0 || cv_suggest_result(&near)))
		cv_err_set(err, CV_EUSAGE,
			   "unknown configuration key '%.64s' (did you mean "
			   "'%s'?)",
			   key, near.best);
	else
		cv_err_set(err, CV_EUSAGE, "unknown configuration key '%.64s'",
			   key);
	cv_err_hint(err, "cudnnvm config list");
	return -1;
}

static const char *
str_or_empty(const char *s)
{
	return s != NULL ? s : "";
}

static char *
value_of(const struct cv_config *c, int k)
{
	static const char *const keep[] = { "no", "yes", "always" };
	static const char *const pins[] = { "no", "yes", "mirror" };
	static const char *const deps[] = { "auto", "always", "never" };

	switch (k) {
	case K_STORE_PATH:
		return xstrdup(str_or_empty(c->store_path));
	case K_STORE_CACHE:
		return xstrdup(str_or_empty(c->cache_path));
	case K_MIRROR:
		return cv_url_redact(c->mirror);
	case K_CA_FILE:
		return xstrdup(str_or_empty(c->ca_file));
	case K_PROXY:
		return c->proxy ? cv_url_redact(c->proxy) : xstrdup("");
	case K_TIMEOUT:
		return xasprintf("%ld", c->timeout);
	case K_RETRIES:
		return xasprintf("%d", c->retries);
	case K_VERIFY_PINS:
		return xstrdup(pins[c->verify_pins % 3]);
	case K_CUDA:
		return c->cuda ? xasprintf("%d", c->cuda) : xstrdup("auto");
	case K_PLATFORM:
		return xstrdup(c->platform && *c->platform ? c->platform
							   : "auto");
	case K_VALIDATE:
		return xstrdup(c->validate ? "yes" : "no");
	case K_KEEP:
		return xstrdup(keep[c->keep_archives % 3]);
	case K_THREADS:
		return c->threads ? xasprintf("%u", c->threads)
				  : xstrdup("auto");
	case K_SOURCE:
		return xstrdup(c->source == CV_SOURCE_PYPI ? "pypi" : "nvidia");
	case K_INDEX:
		return c->pypi_index ? cv_url_redact(c->pypi_index)
				     : xstrdup("");
	case K_DEPS:
		return xstrdup(deps[c->deps % 3]);
	case K_CUDA_MIRROR:
		return c->cuda_mirror ? cv_url_redact(c->cuda_mirror)
				      : xstrdup("");
	case K_CUBLAS_MIRROR:
		return c->cublas_mirror ? cv_url_redact(c->cublas_mirror)
					: xstrdup("");
	}
	return xstrdup("");
}

int
cv_config_value(const struct cv_config *cfg, const char *key, char **out,
		struct cv_err *err)
{
	int k = key_index(key, err);

	*out = NULL;
	if (k < 0)
		return err->code;
	*out = value_of(cfg, k);
	return 0;
}

char *
cv_config_user_path(struct cv_err *err)
{
	/* $XDG_CONFIG_HOME/cudnnvm, ~/.config/cudnnvm, %APPDATA%\cudnnvm */
	char *dir = cv_os_place(CV_PLACE_USER_CONFIG), *path;

	if (dir == NULL) {
		cv_err_set(err, CV_ECONFIG,
			   "no user configuration file: neither "
			   "XDG_CONFIG_HOME nor HOME is an absolute path");
		return NULL;
	}
	path = cv_path_join(dir, "config.ini");
	free(dir);
	return path;
}

/* Whether value is one the reader takes for key k, as the reader takes
 * it: the handler's own check, and the line reading back as written
 * (inih would cut " ; rest" as a comment, and trims blanks). */
static int
check_value(int k, const char *value, struct cv_err *err)
{
	struct cv_config tmp;
	struct parse p;
	size_t len = strlen(value);

	if (has_ctl(value))
		return cv_err_set(err, CV_EUSAGE,
				  "control character in the value");
	if (len > 0 &&
	    (value[0] == ' ' || value[0] == '\t' || value[len - 1] == ' ' ||
	     value[len - 1] == '\t' || value[0] == ';' || value[0] == '#' ||
	     strstr(value, " ;") || strstr(value, "\t;") ||
	     strstr(value, " #") || strstr(value, "\t#")))
		return cv_err_set(err, CV_EUSAGE,
				  "'%.64s' would not read back: no leading "
				  "or trailing blank, no ' ;' or ' #'",
				  value);
	if (len > 4000)
		return cv_err_set(err, CV_EUSAGE, "the value is too long");
	cv_config_init(&tmp);
	memset(&p, 0, sizeof p);
	p.cfg = &tmp;
	p.err = err;
	handler(&p, keys[k].section, keys[k].name, value);
	cv_config_release(&tmp);
	if (p.failed) {
		char shown[48];
		cv_config_key((size_t)k, shown, sizeof shown);
		cv_err_prefix(err, "%s: ", shown);
		return err->code;
	}
	return 0;
}

/* The words a key takes, for "did you mean" on a mistyped value. */
static const char *
words_of(int k)
{
	switch (k) {
	case K_VERIFY_PINS:
		return "yes no mirror";
	case K_VALIDATE:
		return "yes no";
	case K_KEEP:
		return "yes no always";
	case K_CUDA:
		return "auto 11 12 13";
	case K_SOURCE:
		return "nvidia pypi";
	case K_DEPS:
		return "auto always never";
	case K_THREADS:
		return "auto";
	case K_PLATFORM:
		return "auto linux-x86_64 linux-sbsa linux-aarch64 "
		       "linux-ppc64le windows-x86_64 windows-arm64";
	default:
		return NULL;
	}
}

static int
check_value_near(int k, const char *value, struct cv_err *err)
{
	struct cv_suggest near = CV_SUGGEST_INIT(value);
	const char *w = words_of(k);
	char word[32];

	if (check_value(k, value, err) == 0)
		return 0;
	while (w != NULL && *w) {
		size_t n = strcspn(w, " ");
		snprintf(word, sizeof word, "%.*s", (int)n, w);
		cv_suggest_consider(&near, word);
		w += n + (w[n] == ' ');
		if (cv_suggest_result(&near) != NULL && near.best != NULL &&
		    strcmp(near.best, word) == 0)
			break; /* near.best points into word: keep it */
	}
	if (cv_suggest_result(&near) != NULL) {
		char key[48];
		cv_config_key((size_t)k, key, sizeof key);
		cv_err_hint(err, "cudnnvm config set %s %s", key, near.best);
	}
	return err->code;
}

/* A line's key when it is "name = ..." (or "name: ..."), else NULL. */
static int
line_is_key(const char *line, size_t len, const char *name)
{
	size_t n = strlen(name), i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (len - i < n || strncmp(line + i, name, n) != 0)
		return 0;
	i += n;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return i < len && (line[i] == '=' || line[i] == ':');
}

/* The section a "[name]" line opens into sec, or 0 when it is none. */
static int
line_section(const char *line, size_t len, char *sec, size_t n)
{
	size_t i = 0, end;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i >= len || line[i] != '[')
		return 0;
	end = i + 1;
	while (end < len && line[end] != ']')
		end++;
	snprintf(sec, n, "%.*s", (int)(end - i - 1), line + i + 1);
	return 1;
}

/* old with key's line replaced, removed (value NULL) or added after the
 * last line of its section, else in a new section at the end; every other
 * byte as it was. */
static void
edit_text(const char *old, size_t len, int k, const char *value,
	  struct cv_buf *out)
{
	const char *s = old, *end = old + len;
	char sec[64] = "";
	size_t found = (size_t)-1, found_len = 0, after = (size_t)-1;

	for (; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t full = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
		size_t off = (size_t)(s - old);
		int blank = strspn(s, " \t\r") >= full - (nl != NULL) ||
			    s[strspn(s, " \t")] == ';' ||
			    s[strspn(s, " \t")] == '#';

		if (line_section(s, full, sec, sizeof sec)) {
			if (strcmp(sec, keys[k].section) == 0)
				after = off + full;
		} else if (strcmp(sec, keys[k].section) == 0) {
			if (found == (size_t)-1 &&
			    line_is_key(s, full, keys[k].name)) {
				found = off;
				found_len = full;
			}
			if (!blank)
				after = off + full;
		}
		s += full;
	}
	if (found != (size_t)-1) {
		cv_buf_add(out, old, found);
		if (value != NULL)
			cv_buf_addf(out, "%s = %s\n", keys[k].name, value);
		cv_buf_add(out, old + found + found_len,
			   len - found - found_len);
		return;
	}
	if (value == NULL) {
		cv_buf_add(out, old, len);
		return;
	}
	if (after != (size_t)-1) {
		cv_buf_add(out, old, after);
		if (after > 0 && old[after - 1] != '\n')
			cv_buf_add(out, "\n", 1);
		cv_buf_addf(out, "%s = %s\n", keys[k].name, value);
		cv_buf_add(out, old + after, len - after);
		return;
	}
	cv_buf_add(out, old, len);
	if (len > 0 && old[len - 1] != '\n')
		cv_buf_add(out, "\n", 1);
	if (len > 0)
		cv_buf_add(out, "\n", 1);
	cv_buf_addf(out, "[%s]\n%s = %s\n", keys[k].section, keys[k].name,
		    value);
}

/* The file config set may replace: absent, or a regular file of the
 * caller's own, reached through no symbolic link of its last name. */
static int
check_owner(const char *path, mode_t *mode, struct cv_err *err)
{
	struct cv_stat sb;

	*mode = 0644;
	if (cv_os_lstat(path, &sb) != 0) {
		if (errno == ENOENT)
			return 1;
		return cv_err_errno(err, CV_ECONFIG, "cannot read '%s'", path);
	}
	if (sb.kind == CV_KIND_LINK) {
		char to[PATH_MAX];
		if (cv_os_readlink(path, to, sizeof to) < 0)
			to[0] = '\0';
		return cv_err_set(
			err, CV_EPERM,
			"'%s' is a symbolic link to '%.200s': config "
			"writes only a file of its own, never through "
			"a link",
			path, to);
	}
	if (sb.kind != CV_KIND_FILE)
		return cv_err_set(err, CV_ECONFIG,
				  "config file '%s' is not a regular file",
				  path);
	if (sb.uid != cv_os_euid())
		return cv_err_set(err, CV_EPERM,
				  "'%s' belongs to uid %ld, not to you (uid "
				  "%ld): config does not write it",
				  path, sb.uid, cv_os_euid());
	*mode = (mode_t)(sb.perm & 0777);
	return 0;
}

int
cv_config_edit(const char *path, const char *key, const char *value,
	       int *changed, struct cv_err *err)
{
	struct cv_buf out = CV_BUF_INIT;
	struct cv_config check;
	const char *now;
	char *old = NULL, *dir;
	size_t len = 0;
	mode_t mode;
	int k, r;

	*changed = 0;
	if ((k = key_index(key, err)) < 0)
		return err->code;
	if (value != NULL && check_value_near(k, value, err) < 0)
		return err->code;
	if ((r = check_owner(path, &mode, err)) < 0)
		return r;
	if (r == 0 && (r = read_file(path, 1, &old, &len, err)) < 0)
		return r;
	if (old == NULL)
		old = xstrdup("");
	edit_text(old, len, k, value, &out);
	/* the whole file must read back: one bad line elsewhere is named,
	 * and nothing is written */
	cv_config_init(&check);
	r = cv_config_parse_buffer(&check, path, out.buf ? out.buf : "",
				   out.len, err);
	cv_config_release(&check);
	now = out.buf != NULL ? out.buf : "";
	if (r == 0 && (out.len != len || memcmp(now, old, len) != 0)) {
		char *sep = NULL;
		dir = xstrdup(path);
		for (char *c = dir; *c; c++)
			if (cv_os_is_sep((unsigned char)*c))
				sep = c;
		if (sep != NULL) {
			*sep = '\0';
		} else {
			free(dir);
			dir = xstrdup(".");
		}
		r = cv_fs_mkdirs(dir, 0755, err);
		free(dir);
		if (r == 0)
			r = cv_fs_write_atomic(path, out.buf, out.len, mode,
					       err);
		*changed = r == 0;
	}
	cv_buf_release(&out);
	free(old);
	return r;
}
