/* pypi.c: NVIDIA's cuDNN wheels (nvidia-cudnn-cu11/12/13) on a Python
 * package index, as a second source beside the redist mirror. Many sites
 * reach a PyPI proxy (Artifactory, devpi, Nexus) but not NVIDIA's download
 * server. A project page is asked for as PEP 691 JSON and read as PEP 503
 * HTML when that is what comes back. Every link is resolved against the
 * page and must stay https (or file:// for a file:// index); a file needs
 * a sha256 and must not be yanked. The wheel itself is then installed like
 * an archive: the same download, the same one-pass hash, the entry policy
 * of extract_policy.c in its wheel mode, and cv_wheel_links for the .so
 * chains the wheel lacks. */
#include "base/base.h"
#include "install/install_int.h"
#include "machine/machine.h"
#include "python/python.h"
#include "release/release.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PAGE_MAX (32u << 20) /* the public index's page of cu12 is ~100 KB */
#define ACCEPT                                  \
	"application/vnd.pypi.simple.v1+json, " \
	"application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1"

struct list {
	struct cv_wheel *v;
	size_t n, alloc;
	/* NULL: NVIDIA's cuDNN projects; else the one project (PEP 503
	 * normal form) whose wheels are listed, for CUDA major `cuda` */
	const char *project;
	int cuda;
};

void
cv_wheels_free(struct cv_wheel *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(w[i].url);
	free(w);
}

/* "nvidia_cudnn_cu12", "nvidia-cudnn-cu12", "NVIDIA.cudnn_cu12" -> 12
 * (PEP 503 normalisation: runs of -, _, . are one separator). 0 else. */
static int
project_cuda(const char *name, size_t len)
{
	static const char want[] = "nvidia-cudnn-cu";
	size_t i = 0, j = 0;
	int cuda = 0;

	while (i < len && want[j] != '\0') {
		char c = name[i];
		if (c == '_' || c == '.' || c == '-') {
			if (want[j] != '-')
				return 0;
			while (i < len && (name[i] == '_' || name[i] == '.' ||
					   name[i] == '-'))
				i++;
			j++;
			continue;
		}
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != want[j])
			return 0;
		i++;
		j++;
	}
	if (want[j] != '\0' || i >= len || i + 3 < len)
		return 0;
	for (; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return 0;
		cuda = cuda * 10 + (name[i] - '0');
	}
	return cuda >= 10 && cuda <= 99 ? cuda : 0;
}

/* The platform of a wheel's platform tag (compressed tags are dotted):
 * manylinux*_x86_64 -> linux-x86_64, manylinux*_aarch64 -> linux-sbsa
 * (NVIDIA's aarch64 wheels are its server builds). NULL for others. */
static const char *
tag_platform(const char *tag, size_t len)
{
	const char *p = tag, *end = tag + len;

	while (p < end) {
		const char *dot = memchr(p, '.', (size_t)(end - p));
		size_t n = dot ? (size_t)(dot - p) : (size_t)(end - p);
		if (n > 9 && strncmp(p, "manylinux", 9) == 0) {
			if (n > 7 && strncmp(p + n - 7, "_x86_64", 7) == 0)
				return "linux-x86_64";
			if (n > 8 && strncmp(p + n - 8, "_aarch64", 8) == 0)
				return "linux-sbsa";
		}
		p += n + (dot != NULL);
	}
	return NULL;
}

/* name-version(-build)?-python-abi-platform.whl (PEP 427) of one of
 * NVIDIA's cuDNN projects: 1 with w's version, cuda and platform set, 0
 * for any other file. */
static void normal_name(const char *s, size_t len, char *out, size_t outlen);

static int
parse_filename(const char *fn, struct cv_wheel *w, const struct list *only)
{
	const char *part[7];
	size_t plen[7], len = strlen(fn);
	int n = 0;
	char ver[64];
	const char *plat;

	if (len < 5 || len >= sizeof w->filename ||
	    strcmp(fn + len - 4, ".whl") != 0 || strchr(fn, '/') != NULL)
		return 0;
	len -= 4;
	for (size_t i = 0, start = 0; i <= len; i++)
		if (i == len || fn[i] == '-') {
			if (n == 7)
				return 0;
			part[n] = fn + start;
			plen[n++] = i - start;
			start = i + 1;
		}
	if (n != 5 && n != 6)
		return 0;
	w->version.cuda = 0;
	if (plen[1] >= sizeof ver)
		return 0;
	memcpy(ver, part[1], plen[1]);
	ver[plen[1]] = '\0';
	if (only != NULL && only->project != NULL) {
		/* a CUDA library's wheel: its own version (12.8.61 too) */
		char name[128];
		normal_name(part[0], plen[0], name, sizeof name);
		if (strcmp(name, only->project) != 0 ||
		    cv_version_parse(&w->version, ver, NULL) < 0 ||
		    w->version.cuda != 0 || w->version.nparts < 2)
			return 0;
		w->version.cuda = only->cuda;
	} else {
		if (project_cuda(part[0], plen[0]) == 0 ||
		    cv_version_parse(&w->version, ver, NULL) < 0 ||
		    w->version.nparts != 4 || w->version.cuda != 0)
			return 0;
		w->version.cuda = project_cuda(part[0], plen[0]);
	}
	plat = tag_platform(part[n - 1], plen[n - 1]);
	if (plat == NULL)
		return 0;
	snprintf(w->platform, sizeof w->platform, "%s", plat);
	memcpy(w->filename, fn, len + 4);
	w->filename[len + 4] = '\0';
	return 1;
}

int
cv_wheel_from_filename(struct cv_artifact *art, const char *filename)
{
	const char *base = strrchr(filename, '/');
	struct cv_wheel w;

	memset(&w, 0, sizeof w);
	if (!parse_filename(base ? base + 1 : filename, &w, NULL))
		return -1;
	art->version = w.version;
	snprintf(art->platform, sizeof art->platform, "%s", w.platform);
	snprintf(art->filename, sizeof art->filename, "%s", w.filename);
	art->wheel = 1;
	return 0;
}

/* PEP 503's normal form of a project name: lower case, each run of -, _
 * and . one '-'. */
static void
normal_name(const char *s, size_t len, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 1 < outlen; i++) {
		char c = s[i];
		if (c == '-' || c == '_' || c == '.') {
			if (o == 0 || out[o - 1] != '-')
				out[o++] = '-';
			continue;
		}
		out[o++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	out[o] = '\0';
}

/* 1 when the tag `t` (python-abi-platform) is one the file name's tags
 * [py], [abi], [plat] (each a dotted list) expand to. */
static int
tag_in_name(const char *t, size_t tlen, const char *const part[3],
	    const size_t plen[3])
{
	const char *p = t, *end = t + tlen;

	for (int k = 0; k < 3; k++) {
		const char *dash =
			k < 2 ? memchr(p, '-', (size_t)(end - p)) : end;
		const char *q = part[k], *qe = part[k] + plen[k];
		size_t n;
		int found = 0;

		if (dash == NULL)
			return 0;
		n = (size_t)(dash - p);
		while (q <= qe && !found) {
			const char *dot = memchr(q, '.', (size_t)(qe - q));
			size_t m = dot ? (size_t)(dot - q) : (size_t)(qe - q);
			found = m == n && strncmp(q, p, n) == 0;
			q += m + 1;
		}
		if (!found)
			return 0;
		p = dash + 1;
	}
	return 1;
}

/* How many tags the dotted lists [py], [abi], [plat] expand to. */
static size_t
tags_in_name(const char *const part[3], const size_t plen[3])
{
	size_t total = 1;

	for (int k = 0; k < 3; k++) {
		size_t dots = 1;
		for (size_t i = 0; i < plen[k]; i++)
			dots += part[k][i] == '.';
		total *= dots;
	}
	return total;
}

int
cv_wheel_check_dist_info(const char *filename, const char *dist_info,
			 const char *wheel_text, struct cv_err *err)
{
	const char *base = strrchr(filename, '/'), *part[6], *dash;
	size_t plen[6], len, n = 0, ntags = 0, want;
	char fname[128], dname[128];
	struct cv_strv seen = CV_STRV_INIT;
	const char *line;
	int rc = 0;

	base = base ? base + 1 : filename;
	len = strlen(base);
	if (len > 4 && strcmp(base + len - 4, ".whl") == 0)
		len -= 4;
	for (size_t i = 0, start = 0; i <= len && n < 6; i++)
		if (i == len || base[i] == '-') {
			part[n] = base + start;
			plen[n++] = i - start;
			start = i + 1;
		}
	if (n != 5 && n != 6)
		return cv_err_set(err, CV_EDATA,
				  "'%s' is not a wheel's file name", base);
	if (dist_info == NULL || wheel_text == NULL)
		return cv_err_set(err, CV_EDATA,
				  "unsafe wheel: '%s' has no .dist-info "
				  "folder with a WHEEL file; the wheel was "
				  "not installed",
				  base);
	/* name-version.dist-info: the name's own '-' are '_' (PEP 427) */
	dash = strchr(dist_info, '-');
	normal_name(part[0], plen[0], fname, sizeof fname);
	normal_name(dist_info, dash ? (size_t)(dash - dist_info) : 0, dname,
		    sizeof dname);
	if (dash == NULL || strcmp(fname, dname) != 0 ||
	    strlen(dash + 1) != plen[1] + 10 ||
	    strncmp(dash + 1, part[1], plen[1]) != 0) {
		return cv_err_set(err, CV_EDATA,
				  "unsafe wheel: its folder '%.200s' does not "
				  "name the project and version of its file "
				  "name '%s'; the wheel was not installed",
				  dist_info, base);
	}
	/* the tags, after the optional build tag */
	want = tags_in_name(part + n - 3, plen + n - 3);
	for (line = wheel_text; rc == 0 && *line;) {
		size_t ll = strcspn(line, "\n");
		size_t tl = ll;
		if (tl > 0 && line[tl - 1] == '\r')
			tl--;
		if (tl > 5 && strncmp(line, "Tag: ", 5) == 0) {
			char *t = xstrndup(line + 5, tl - 5);
			int again = 0;
			for (size_t i = 0; i < seen.n && !again; i++)
				again = strcmp(seen.v[i], t) == 0;
			if (!tag_in_name(line + 5, tl - 5, part + n - 3,
					 plen + n - 3)) {
				rc = cv_err_set(
					err, CV_EDATA,
					"unsafe wheel: its WHEEL file has the "
					"tag '%.200s', which its file name "
					"'%s' does not; the wheel was not "
					"installed",
					t, base);
			} else if (!again) {
				cv_strv_push(&seen, t);
				ntags++;
			}
			free(t);
		}
		line += ll + (line[ll] == '\n');
	}
	if (rc == 0 && ntags != want)
		rc = cv_err_set(err, CV_EDATA,
				"unsafe wheel: its WHEEL file does not list "
				"every tag of its file name '%s'; the wheel "
				"was not installed",
				base);
	cv_strv_release(&seen);
	return rc;
}

/* Whether a link of the page may be fetched: https, or file:// when the
 * index itself is a file:// one. */
static int
url_allowed(const char *page_url, const char *url)
{
	if (strncasecmp(url, "https://", 8) == 0)
		return 1;
	return strncasecmp(page_url, "file://", 7) == 0 &&
	       strncasecmp(url, "file://", 7) == 0;
}

/* Add one file of the page when it is a usable wheel for `platform`. */
static int
add_file(struct list *l, const char *page_url, const char *filename,
	 const char *href, const char *sha256, int yanked, uint64_t size,
	 int cuda, const char *platform, struct cv_err *err)
{
	struct cv_wheel w;
	char *url, *hash;

	memset(&w, 0, sizeof w);
	if (yanked || !parse_filename(filename, &w, l))
		return 0;
	if ((cuda && w.version.cuda != cuda) ||
	    (platform != NULL && strcmp(platform, w.platform) != 0))
		return 0;
	url = cv_url_resolve(page_url, href);
	if (url == NULL)
		return cv_err_set(err, CV_EDATA,
				  "the index page %s has a link that does not "
				  "parse: '%.200s'",
				  page_url, href);
	if (!url_allowed(page_url, url)) {
		int rc = cv_err_set(err, CV_EDATA,
				    "the index page %s links %s over an "
				    "insecure scheme (only https is allowed)",
				    page_url, filename);
		free(url);
		return rc;
	}
	/* the fragment carries the hash in PEP 503; it is not part of the
	 * file's address */
	hash = strchr(url, '#');
	if (hash != NULL)
		*hash = '\0';
	if (sha256 == NULL || !cv_sha256_valid_hex(sha256)) {
		free(url); /* PEP 503 allows none; we install nothing unhashed
			    */
		return 0;
	}
	for (int i = 0; i < 64; i++)
		w.sha256[i] = (char)((sha256[i] >= 'A' && sha256[i] <= 'F')
					     ? sha256[i] - 'A' + 'a'
					     : sha256[i]);
	w.url = url;
	w.size = size;
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 16;
		l->v = xrealloc(l->v, l->alloc * sizeof *l->v);
	}
	l->v[l->n++] = w;
	return 0;
}

static int
parse_json(struct list *l, const char *page_url, const char *data, size_t len,
	   int cuda, const char *platform, struct cv_err *err)
{
	struct cv_json_error je;
	struct cv_json *root =
		cv_json_loadb(data, len, CV_JSON_REJECT_DUPLICATES, &je);
	struct cv_json *files, *f;
	size_t i;
	int rc = 0;

	if (root == NULL)
		return cv_err_set(err, CV_EDATA,
				  "the index page %s is not valid JSON (%s at "
				  "byte %d)",
				  page_url, je.text, je.position);
	files = cv_json_object_get(root, "files");
	if (!cv_json_is_array(files)) {
		cv_json_decref(root);
		return cv_err_set(err, CV_EDATA,
				  "the index page %s has no 'files' list",
				  page_url);
	}
	cv_json_array_foreach(files, i, f)
	{
		const char *fn =
			cv_json_string_value(cv_json_object_get(f, "filename"));
		const char *url =
			cv_json_string_value(cv_json_object_get(f, "url"));
		const char *sha = cv_json_string_value(cv_json_object_get(
			cv_json_object_get(f, "hashes"), "sha256"));
		struct cv_json *y = cv_json_object_get(f, "yanked");
		struct cv_json *sz = cv_json_object_get(f, "size");
		/* PEP 691: true, or a string giving the reason */
		int yanked =
			cv_json_is_true(y) ||
			(cv_json_is_string(y) && cv_json_string_length(y) > 0);
		uint64_t size =
			cv_json_is_integer(sz) && cv_json_integer_value(sz) > 0
				? (uint64_t)cv_json_integer_value(sz)
				: 0;

		if (fn == NULL || url == NULL)
			continue;
		if ((rc = add_file(l, page_url, fn, url, sha, yanked, size,
				   cuda, platform, err)) < 0)
			break;
	}
	cv_json_decref(root);
	return rc;
}

/* The value of attribute `name` in the tag text [tag, end), xmalloc'd
 * ("" for a bare attribute, also one that ends the tag: `end` is its
 * '>'), or NULL when absent. */
static char *
html_attr(const char *tag, const char *end, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = tag; p + nl <= end; p++) {
		const char *v;
		char q;
		if ((p[-1] != ' ' && p[-1] != '\t' && p[-1] != '\n' &&
		     p[-1] != '\r') ||
		    strncasecmp(p, name, nl) != 0)
			continue;
		v = p + nl;
		if (v < end && *v != '=' && *v != ' ' && *v != '>' &&
		    *v != '/' && *v != '\n' && *v != '\t' && *v != '\r')
			continue;
		if (v == end || *v != '=')
			return xstrdup("");
		v++;
		q = v < end ? *v : '\0';
		if (q != '"' && q != '\'') {
			/* unquoted: up to white space or the end of the tag */
			size_t len = 0;
			while (v + len < end && v[len] != ' ' &&
			       v[len] != '\t' && v[len] != '\n' &&
			       v[len] != '\r')
				len++;
			return xstrndup(v, len);
		}
		{
			const char *close =
				memchr(v + 1, q, (size_t)(end - v - 1));
			if (close == NULL)
				return NULL;
			return xstrndup(v + 1, (size_t)(close - v - 1));
		}
	}
	return NULL;
}

/* Replace the few character references a simple page uses in place. */
static void
html_unescape(char *s)
{
	static const struct {
		const char *ref;
		char c;
	} refs[] = { { "&amp;", '&' },  { "&lt;", '<' },   { "&gt;", '>' },
		     { "&quot;", '"' }, { "&#39;", '\'' }, { "&#x27;", '\'' } };
	char *o = s;

	while (*s) {
		size_t i, n = sizeof refs / sizeof refs[0];
		for (i = 0; i < n; i++)
			if (strncmp(s, refs[i].ref, strlen(refs[i].ref)) == 0)
				break;
		if (*s == '&' && i < n) {
			*o++ = refs[i].c;
			s += strlen(refs[i].ref);
		} else
			*o++ = *s++;
	}
	*o = '\0';
}

/* PEP 503: each file is <a href="URL#sha256=HEX" [data-yanked]>NAME</a>. */
static int
parse_html(struct list *l, const char *page_url, const char *data, size_t len,
	   int cuda, const char *platform, struct cv_err *err)
{
	const char *p = data, *end = data + len;
	int rc = 0;

	while (rc == 0 && p < end) {
		const char *a = NULL, *gt, *close;
		char *href, *yanked, *name, *frag;
		const char *sha = NULL;

		for (; p + 3 < end; p++)
			if (p[0] == '<' && (p[1] == 'a' || p[1] == 'A') &&
			    (p[2] == ' ' || p[2] == '\t' || p[2] == '\n' ||
			     p[2] == '\r')) {
				a = p;
				break;
			}
		if (a == NULL)
			break;
		gt = memchr(a, '>', (size_t)(end - a));
		if (gt == NULL)
			break;
		for (close = gt; close + 3 < end; close++)
			if (close[0] == '<' && close[1] == '/' &&
			    (close[2] == 'a' || close[2] == 'A') &&
			    close[3] == '>')
				break;
		if (close + 3 >= end)
			return cv_err_set(err, CV_EDATA,
					  "the index page %s has an unclosed "
					  "<a> tag",
					  page_url);
		p = close + 4;
		href = html_attr(a + 2, gt, "href");
		if (href == NULL)
			continue;
		yanked = html_attr(a + 2, gt, "data-yanked");
		name = xstrndup(gt + 1, (size_t)(close - gt - 1));
		html_unescape(href);
		html_unescape(name);
		frag = strchr(href, '#');
		if (frag != NULL && strncmp(frag, "#sha256=", 8) == 0)
			sha = frag + 8;
		rc = add_file(l, page_url, name, href, sha, yanked != NULL, 0,
			      cuda, platform, err);
		free(href);
		free(yanked);
		free(name);
	}
	return rc;
}

/* A project page as the index sent it: PEP 691 JSON, else PEP 503 HTML. */
static int
parse_page(struct list *l, const char *page_url, const char *data, size_t len,
	   int cuda, const char *platform, struct cv_err *err)
{
	size_t i = 0;

	while (i < len && (data[i] == ' ' || data[i] == '\n' ||
			   data[i] == '\r' || data[i] == '\t'))
		i++;
	if (i < len && data[i] == '{')
		return parse_json(l, page_url, data, len, cuda, platform, err);
	return parse_html(l, page_url, data, len, cuda, platform, err);
}

int
cv_pypi_parse(const char *page_url, const char *data, size_t len, int cuda,
	      const char *platform, struct cv_wheel **out, size_t *n,
	      struct cv_err *err)
{
	struct list l = { NULL, 0, 0, NULL, 0 };
	int rc = parse_page(&l, page_url, data, len, cuda, platform, err);

	if (rc < 0) {
		cv_wheels_free(l.v, l.n);
		return rc;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

static int
newest_first(const void *pa, const void *pb)
{
	const struct cv_wheel *a = pa, *b = pb;
	int c = cv_version_cmp(&b->version, &a->version);

	if (c != 0)
		return c;
	return b->version.cuda - a->version.cuda;
}

/* A listing's end: newest first into *out, or freed on an error. */
static int
list_done(struct list *l, int rc, struct cv_wheel **out, size_t *n)
{
	if (rc < 0) {
		cv_wheels_free(l->v, l->n);
		return rc;
	}
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, newest_first);
	*out = l->v;
	*n = l->n;
	return 0;
}

/* The page of nvidia-cudnn-cu<cuda>; *missing set (and 0 returned) when
 * the index has no such project. */
static int
fetch_project(struct cv_remote *r, const char *index, int cuda,
	      const char *platform, struct list *l, int *missing,
	      struct cv_err *err)
{
	struct cv_buf page = CV_BUF_INIT;
	struct cv_wheel *w = NULL;
	size_t n = 0;
	char *url;
	int rc;

	*missing = 0;
	url = xasprintf("%s%snvidia-cudnn-cu%d/", index,
			index[strlen(index) - 1] == '/' ? "" : "/", cuda);
	rc = cv_remote_get_accept(r, url, ACCEPT, PAGE_MAX, &page, err);
	if (rc == CV_ENETWORK && err != NULL &&
	    strncmp(err->msg, "HTTP 404 ", 9) == 0) {
		*missing = 1;
		rc = 0;
	} else if (rc == 0)
		rc = cv_pypi_parse(url, page.buf, page.len, cuda, platform, &w,
				   &n, err);
	if (rc == 0)
		for (size_t i = 0; i < n; i++) {
			if (l->n == l->alloc) {
				l->alloc = l->alloc ? l->alloc * 2 : 16;
				l->v = xrealloc(l->v, l->alloc * sizeof *l->v);
			}
			l->v[l->n++] = w[i];
		}
	free(w);
	cv_buf_release(&page);
	free(url);
	return rc;
}

/* A simple index's URL ends in /simple/ (PEP 503's own examples, every
 * proxy's): one that does not, with nothing found, was likely given the
 * site's root. The words to add to the error, "" when it does. */
static const char *
simple_missing(const char *index)
{
	return strstr(index, "/simple") != NULL
		       ? ""
		       : "; a simple index's URL usually ends in /simple/";
}

int
cv_pypi_list(struct cv_remote *r, const char *index, int cuda,
	     const char *platform, struct cv_wheel **out, size_t *n,
	     struct cv_err *err)
{
	static const int all[] = { 13, 12, 11 };
	struct list l = { NULL, 0, 0, NULL, 0 };
	int rc = 0, missing, found = 0;

	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		int want = cuda ? cuda : all[i];
		if ((rc = fetch_project(r, index, want, platform, &l, &missing,
					err)) < 0)
			break;
		found += !missing;
		if (cuda)
			break;
	}
	if (rc == 0 && !found) {
		char *shown = cv_url_redact(index);
		const char *more = simple_missing(shown);
		size_t len = strlen(shown);
		if (cuda)
			rc = cv_err_set(
				err, CV_ENOTFOUND,
				"the index %s has no nvidia-cudnn-cu%d%s",
				shown, cuda, more);
		else
			rc = cv_err_set(
				err, CV_ENOTFOUND,
				"the index %s has no nvidia-cudnn-cu11, "
				"-cu12 or -cu13%s",
				shown, more);
		if (*more)
			cv_err_hint(err,
				    "cudnnvm list-remote --source pypi --index "
				    "%s%ssimple/",
				    shown,
				    len && shown[len - 1] == '/' ? "" : "/");
		free(shown);
	}
	return list_done(&l, rc, out, n);
}

int
cv_wheel_walk_next(void *arg, struct cv_candidate *c, struct cv_err *err)
{
	struct cv_wheel_walk *ww = arg;

	(void)err;
	while (ww->i == ww->n && ww->older >= 11) {
		struct cv_wheel *ow = NULL;
		size_t on = 0;

		/* an older list the index cannot give is passed */
		if (cv_pypi_list(ww->r, ww->index, ww->older--, ww->platform,
				 &ow, &on, NULL) < 0)
			continue;
		if (ww->own)
			cv_wheels_free(ww->w, ww->n);
		ww->w = ow;
		ww->n = on;
		ww->i = 0;
		ww->own = 1;
	}
	if (ww->i == ww->n)
		return 0;
	c->at = ww->i++;
	c->version = ww->w[c->at].version;
	c->ncuda = 1;
	c->cuda[0] = c->version.cuda;
	return 1;
}

/* Every wheel matching the spec lacks code for this GPU: the refusal, with
 * the newest wheel of the list that has it as the command to run. */
static int
refuse_for_gpu(const struct cv_wheel *w, size_t n,
	       const struct cv_passed_over *p, int cuda, struct cv_err *err)
{
	char why[256], s[64], cu[16] = "";

	cv_passed_over_refuse(p, err);
	if (cuda > 0)
		snprintf(cu, sizeof cu, " --cuda %d", cuda);
	for (size_t i = 0; i < n; i++) {
		struct cv_version v = w[i].version;

		if (cv_machine_arch_fits(&v, why, sizeof why) != 1)
			continue;
		v.cuda = 0;
		cv_version_format(&v, s, sizeof s);
		return cv_err_hint(err, "cudnnvm install %s --source pypi%s", s,
				   cu);
	}
	return err->code;
}

int
cv_pypi_resolve(struct cv_remote *r, const char *index,
		const struct cv_resolve_req *req, struct cv_resolved *out,
		struct cv_err *err)
{
	struct cv_wheel *w = NULL, *take;
	struct cv_version spec;
	struct cv_wheel_walk ww;
	struct cv_rank_source src = { cv_wheel_walk_next, &ww };
	struct cv_rank_req rq;
	struct cv_rank_pick pick;
	char platform[32], how[512] = "";
	size_t n = 0;
	int cuda = 0, rc;
	struct cv_passed_over passed;

	memset(out, 0, sizeof *out);
	if ((rc = cv_resolve_begin(req, &spec, &cuda, how, sizeof how, platform,
				   &passed, err)) < 0)
		return rc;
	if ((rc = cv_pypi_list(r, index, cuda, platform, &w, &n, err)) < 0)
		return rc;
	memset(&rq, 0, sizeof rq);
	rq.spec = req->spec != NULL ? &spec : NULL;
	rq.cuda = cuda;
	/* as the mirror's resolver does: the machine's major (not one the
	 * user named) falls back to the newest older one with a wheel, since
	 * a cuda12 build runs on a CUDA 13 driver, never the reverse; the
	 * index has one project per major, so the newest older one with a
	 * match is the one */
	rq.fallback = cuda > 11 &&
		      (req->spec == NULL || req->spec->cuda == 0) &&
		      req->cuda <= 0;
	rq.fallback_first = 1;
	rq.passed = &passed;
	memset(&ww, 0, sizeof ww);
	ww.w = w;
	ww.n = n;
	ww.r = r;
	ww.index = index;
	ww.platform = platform;
	ww.older = rq.fallback ? cuda - 1 : 0;
	rc = cv_rank_best(&src, &rq, &pick, err);
	if (rc != CV_RANK_TAKEN) {
		if (ww.own)
			cv_wheels_free(ww.w, ww.n);
		if (rc < 0) {
			cv_wheels_free(w, n);
			return rc;
		}
		if (passed.oldest[0] != '\0')
			rc = refuse_for_gpu(w, n, &passed, cuda, err);
		else {
			char s[64] = "any version", cu[16] = "";
			if (req->spec != NULL)
				cv_version_format(&spec, s, sizeof s);
			if (cuda)
				snprintf(cu, sizeof cu, " cuda%d", cuda);
			rc = cv_err_set(err, CV_ENOTFOUND,
					"no wheel of cuDNN %s for %s%s on the "
					"index %s; see 'cudnnvm list-remote "
					"--source pypi'",
					s, platform, cu,
					index ? index : "(none)");
		}
		cv_wheels_free(w, n);
		return rc;
	}
	take = &ww.w[pick.at];
	if (pick.fell_back)
		cv_warn("the index has no cuda%d wheel of cuDNN %s (this "
			"machine's CUDA comes from %s); took the cuda%d one, "
			"which a CUDA %d driver runs too; --cuda N chooses "
			"another",
			cuda, take->filename, how, pick.cuda, cuda);
	/* a size the page does not give is asked for by the download, once
	 * the version is known not to be in the store */
	rc = cv_artifact_init(&out->art, &take->version, take->platform,
			      take->sha256, take->size, take->filename,
			      take->url, err);
	out->art.wheel = 1;
	out->url = xstrdup(take->url);
	cv_version_format(&take->version, out->label, sizeof out->label);
	cv_passed_over_warn(&passed, out->label);
	if (ww.own)
		cv_wheels_free(ww.w, ww.n);
	cv_wheels_free(w, n);
	if (rc < 0)
		cv_resolved_release(out);
	return rc;
}

/* ---- the unpacked wheel -------------------------------------------------- */

/* "libcudnn_ops.so.9" -> base length (up to ".so.") when the name ends in
 * ".so.<major>"; 0 else. */
static size_t
soname_base(const char *name, unsigned long major)
{
	const char *so = strstr(name, ".so.");
	char want[32];

	if (so == NULL || so == name || strncmp(name, "lib", 3) != 0)
		return 0;
	snprintf(want, sizeof want, ".so.%lu", major);
	if (strcmp(so, want) != 0)
		return 0;
	return (size_t)(so - name);
}

int
cv_wheel_links(const char *dir, const struct cv_version *v, struct cv_err *err)
{
	char *lib = cv_path_join(dir, "lib");
	int dfd = cv_os_open(lib, CV_OPEN_READ | CV_OPEN_DIR | CV_OPEN_NOFOLLOW,
			     0);
	struct cv_strv names = CV_STRV_INIT;
	const char *name;
	struct cv_dir *d;
	int rc = 0;

	if (dfd < 0) {
		rc = cv_err_set(err, CV_EDATA,
				"the wheel holds no nvidia/cudnn/lib; is it a "
				"cuDNN wheel?");
		free(lib);
		return rc;
	}
	d = cv_dir_adopt(dfd);
	if (d == NULL) {
		cv_os_close(dfd);
		rc = cv_err_errno(err, CV_EIO, "cannot read '%s'", lib);
		free(lib);
		return rc;
	}
	while ((name = cv_dir_next(d, NULL)) != NULL)
		if (soname_base(name, v->part[0]) > 0)
			cv_strv_push(&names, name);
	for (size_t i = 0; rc == 0 && i < names.n; i++) {
		size_t b = soname_base(names.v[i], v->part[0]);
		char *full =
			xasprintf("%.*s.so.%lu.%lu.%lu", (int)b, names.v[i],
				  v->part[0], v->part[1], v->part[2]);
		char *bare = xasprintf("%.*s.so", (int)b, names.v[i]);
		struct cv_stat sb;

		if (cv_os_stat_at(dfd, names.v[i], 1, &sb) != 0 ||
		    sb.kind != CV_KIND_FILE)
			rc = cv_err_set(err, CV_EDATA,
					"unsafe wheel: lib/%s is not a file",
					names.v[i]);
		else if (cv_os_stat_at(dfd, full, 1, &sb) == 0 ||
			 cv_os_stat_at(dfd, bare, 1, &sb) == 0)
			rc = cv_err_set(
				err, CV_EDATA,
				"the wheel holds both lib/%s and lib/%s "
				"or lib/%s; it is not one of NVIDIA's",
				names.v[i], full, bare);
		else if (cv_os_rename_at(dfd, names.v[i], dfd, full) != 0 ||
			 cv_os_symlink_at(full, dfd, names.v[i]) != 0 ||
			 cv_os_symlink_at(names.v[i], dfd, bare) != 0)
			rc = cv_err_errno(err, cv_code_from_errno(errno),
					  "cannot link %s in '%s'", names.v[i],
					  lib);
		free(full);
		free(bare);
	}
	if (rc == 0 && names.n == 0)
		rc = cv_err_set(err, CV_EDATA,
				"the wheel holds no libcudnn*.so.%lu; is it a "
				"cuDNN %lu wheel?",
				v->part[0], v->part[0]);
	cv_strv_release(&names);
	cv_dir_close(d);
	free(lib);
	return rc;
}

int
cv_pypi_index(const struct cv_config *cfg, const char *flag, const char **out,
	      struct cv_err *err)
{
	*out = flag != NULL ? flag : cfg->pypi_index;
	if (*out != NULL)
		return 0;
	return cv_err_set(
		err, CV_ECONFIG,
		"source = pypi needs a package index: set 'index = URL' in [remote] of config.ini (a PEP 503/691 simple index: your PyPI mirror or proxy, or the public index's /simple/ URL), or pass --index URL");
}

int
cv_pypi_list_project(struct cv_remote *r, const char *index,
		     const char *project, int cuda, const char *platform,
		     struct cv_wheel **out, size_t *n, struct cv_err *err)
{
	struct cv_buf page = CV_BUF_INIT;
	struct list l = { NULL, 0, 0, project, cuda };
	char *url =
		xasprintf("%s%s%s/", index,
			  index[strlen(index) - 1] == '/' ? "" : "/", project);
	int rc = cv_remote_get_accept(r, url, ACCEPT, PAGE_MAX, &page, err);

	if (rc == 0)
		rc = parse_page(&l, url, page.buf, page.len, cuda, platform,
				err);
	cv_buf_release(&page);
	free(url);
	return list_done(&l, rc, out, n);
}
