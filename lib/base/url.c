/* url.c: what cudnnvm checks in a mirror URL before libcurl sees it: that
 * it names a host (a configuration mistake, not a network failure), and
 * the credentials of https://user:pass@host/, which are sent to that host
 * but never printed or written to disk. Plain libc, so that reading the
 * configuration does not load libcurl. */
#include "base/base_int.h"

#include <string.h>

/* The "user:pass@" of scheme://user:pass@host/...: its start and length
 * (the '@' included), 0 when there is none. The authority ends at the first
 * '/', '?' or '#'; its last '@' ends the credentials (a password may hold
 * an unescaped '@'). */
static size_t
userinfo_span(const char *url, const char **start)
{
	const char *scheme_end = strstr(url, "://"), *auth, *at = NULL;
	size_t auth_len;

	if (scheme_end == NULL)
		return 0;
	auth = scheme_end + 3;
	auth_len = strcspn(auth, "/?#");
	for (size_t i = 0; i < auth_len; i++)
		if (auth[i] == '@')
			at = auth + i;
	if (at == NULL)
		return 0;
	*start = auth;
	return (size_t)(at + 1 - auth);
}

char *
cv_url_redact(const char *url)
{
	const char *start = NULL;
	size_t len = userinfo_span(url, &start);

	if (len == 0)
		return xstrdup(url);
	return xasprintf("%.*s%s", (int)(start - url), url, start + len);
}

char *
cv_url_userinfo(const char *url)
{
	const char *start = NULL;
	size_t len = userinfo_span(url, &start);

	return len > 1 ? xstrndup(start, len - 1) : NULL;
}

char *
cv_url_host(const char *url)
{
	const char *scheme_end = strstr(url, "://"), *auth, *start = NULL;
	size_t skip;

	if (scheme_end == NULL)
		return xstrdup(url);
	skip = userinfo_span(url, &start);
	auth = scheme_end + 3 + skip;
	if (strncmp(url, "file://", 7) == 0)
		return xstrdup(auth);
	return xstrndup(auth, strcspn(auth, "/?#"));
}

const char *
cv_url_mirror_problem(const char *url)
{
	const char *host, *start = NULL;

	if (strncmp(url, "file://", 7) == 0)
		host = NULL;
	else if (strncmp(url, "https://", 8) == 0)
		host = url + 8 + userinfo_span(url, &start);
	else
		return "is not an https:// (or file://) URL; plain http is "
		       "refused";
	if (strpbrk(url, " \t\r\n?#") != NULL)
		return "contains a space, '?' or '#'";
	if (host != NULL &&
	    (host[0] == '\0' || host[0] == '/' || host[0] == ':'))
		return "names no host";
	return NULL;
}

int
cv_url_same_mirror(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la > 0 && a[la - 1] == '/')
		la--;
	while (lb > 0 && b[lb - 1] == '/')
		lb--;
	return la == lb && strncmp(a, b, la) == 0;
}
