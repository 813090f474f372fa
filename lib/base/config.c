/* config.c: the INI files of doc/SPEC.md, read with inih, strictly: the file is
 * read here (size-capped, NUL bytes refused), fed to inih line by line so
 * every complaint names file:line, and only the keys of doc/SPEC.md are
 * accepted, each at most once per file. */
#include "base/base_int.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_MAX_BYTES (64 * 1024)
#define DEFAULT_MIRROR \
	"https://developer.download.nvidia.com/compute/cudnn/redist/"

enum key {
	K_STORE_PATH,
	K_STORE_CACHE,
	K_MIRROR,
	K_CA_FILE,
	K_PROXY,
	K_TIMEOUT,
	K_RETRIES,
	K_VERIFY_PINS,
	K_CUDA,
	K_PLATFORM,
	K_VALIDATE,
	K_KEEP,
	K_THREADS,
	K_SOURCE,
	K_INDEX,
	K_DEPS,
	K_CUDA_MIRROR,
	K_NKEYS
};

static const struct {
	const char *section, *name;
} keys[K_NKEYS] = {
	{ "store", "path" },         { "store", "cache" },
	{ "remote", "mirror" },      { "remote", "ca_file" },
	{ "remote", "proxy" },       { "remote", "timeout" },
	{ "remote", "retries" },     { "remote", "verify_pins" },
	{ "install", "cuda" },       { "install", "platform" },
	{ "install", "validate" },   { "install", "keep_archives" },
	{ "install", "threads" },    { "remote", "source" },
	{ "remote", "index" },       { "install", "deps" },
	{ "remote", "cuda_mirror" },
};

struct parse {
	struct cv_config *cfg;
	const char *name;
	const char *data;
	size_t len, pos;
	int line; /* line last handed to inih */
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
	cfg->keep_archives = 1;
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
		cv_err_set(p->err, CV_ECONFIG, "%s:%d: %s", p->name, p->line,
			   what);
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
	if (v[0] != '/')
		return fail(p, "'%s' must be an absolute path", v);
	if (strlen(v) >= PATH_MAX)
		return fail(p, "path too long: '%.64s...'", v);
	for (const char *s = v; (s = strstr(s, "..")) != NULL; s += 2)
		if (s[-1] == '/' && (s[2] == '/' || s[2] == '\0'))
			return fail(p, "'%s' must not contain '..'", v);
	return 1;
}

static void
set_str(char **slot, const char *v)
{
	free(*slot);
	*slot = *v ? xstrdup(v) : NULL;
}

static int
handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	struct cv_config *c = p->cfg;
	const char *why;
	int k, b;
	long n;

	if (p->failed)
		return 0;
	for (k = 0; k < K_NKEYS; k++)
		if (strcmp(keys[k].section, section) == 0 &&
		    strcmp(keys[k].name, name) == 0)
			break;
	if (k == K_NKEYS) {
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
			return fail(p, "unknown key '%s' (did you mean '%s'?)",
				    name, cv_suggest_result(&near));
		return fail(p, "unknown key '%s'", name);
	}
	if (p->seen[k])
		return fail(
			p,
			"'%s' is set twice (or an indented line continues it)",
			name);
	p->seen[k] = 1;
	if (has_ctl(value))
		return fail(p, "control character in the value of '%s'", name);
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
		break;
	case K_MIRROR:
		if ((why = cv_url_mirror_problem(value)) != NULL) {
			char *shown = cv_url_redact(value);
			fail(p, "mirror '%s' %s", shown, why);
			free(shown);
			return 0;
		}
		set_str(&c->mirror, value);
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
	case K_VALIDATE:
	case K_VERIFY_PINS:
		if (parse_bool(value, &b) < 0)
			return fail(p, "'%s' must be yes or no", value);
		if (k == K_VALIDATE)
			c->validate = b;
		else
			c->verify_pins = b;
		break;
	}
	return 1;
}

/* inih's reader: hand out one line at a time, counting lines and refusing
 * an over-long one (inih would silently cut it). */
static char *
reader(char *str, int num, void *stream)
{
	struct parse *p = stream;
	const char *s, *nl;
	size_t n, full;

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
	r = ini_parse_stream(reader, &p, handler, &p);
	if (p.failed && (r <= 0 || r >= p.fail_line))
		return CV_ECONFIG;
	if (r != 0) {
		/* inih saw a syntax error before our first complaint. */
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
		if (r < 0)
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

/* Read one file: 0 on success, 1 when absent and optional, <0 on error. */
static int
load_file(struct cv_config *cfg, const char *path, int required,
	  struct cv_err *err)
{
	struct stat sb;
	char *buf;
	ssize_t n;
	size_t got = 0;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT && !required)
			return 1;
		return cv_err_errno(err, CV_ECONFIG,
				    "cannot read config file '%s'", path);
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return cv_err_set(err, CV_ECONFIG,
				  "config file '%s' is not a regular file",
				  path);
	}
	if (sb.st_size > CONFIG_MAX_BYTES) {
		close(fd);
		return cv_err_set(err, CV_ECONFIG,
				  "config file '%s' is larger than %d bytes",
				  path, CONFIG_MAX_BYTES);
	}
	buf = xmalloc(CONFIG_MAX_BYTES + 1);
	while (got <= CONFIG_MAX_BYTES &&
	       (n = read(fd, buf + got, CONFIG_MAX_BYTES + 1 - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = cv_err_errno(err, CV_ECONFIG,
					 "cannot read config file '%s'", path);
			free(buf);
			close(fd);
			return r;
		}
		got += (size_t)n;
	}
	close(fd);
	if (got > CONFIG_MAX_BYTES) {
		free(buf);
		return cv_err_set(err, CV_ECONFIG,
				  "config file '%s' is larger than %d bytes",
				  path, CONFIG_MAX_BYTES);
	}
	r = cv_config_parse_buffer(cfg, path, buf, got, err);
	free(buf);
	return r;
}

int
cv_config_load(struct cv_config *cfg, const char *explicit_file,
	       struct cv_err *err)
{
	const char *sys = getenv("CUDNNVM_SYSCONFDIR");
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	const char *env;
	char *path;
	int r;

	if (sys == NULL || *sys == '\0')
		sys = "/etc/cudnnvm";
	path = cv_path_join(sys, "config.ini");
	r = load_file(cfg, path, 0, err);
	free(path);
	if (r < 0)
		return r;
	/* the system file names the system store; a path any later file
	 * gives is the user's own store, seen beside it */
	free(cfg->system_store_path);
	cfg->system_store_path = cfg->store_path;
	cfg->store_path = NULL;
	path = NULL;
	if (xdg != NULL && xdg[0] == '/')
		path = xasprintf("%s/cudnnvm/config.ini", xdg);
	else if (home != NULL && home[0] == '/')
		path = xasprintf("%s/.config/cudnnvm/config.ini", home);
	if (path != NULL) {
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
		if (env[0] != '/')
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
	}
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
