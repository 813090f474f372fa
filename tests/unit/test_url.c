/* test_url.c: mirror URLs: credentials split off for messages and files,
 * and the mirrors that are configuration mistakes. */
#include "base/base.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static int
redacts_to(const char *url, const char *want)
{
	char *got = cv_url_redact(url);
	int ok = strcmp(got, want) == 0;

	free(got);
	return ok;
}

static int
userinfo_is(const char *url, const char *want)
{
	char *got = cv_url_userinfo(url);
	int ok = want == NULL ? got == NULL
			      : got != NULL && strcmp(got, want) == 0;

	free(got);
	return ok;
}

int
main(void)
{
	CHECK(redacts_to("https://u:p@host/a/b", "https://host/a/b"));
	CHECK(redacts_to("https://u:p@host:8443/", "https://host:8443/"));
	CHECK(redacts_to("https://host/a@b/", "https://host/a@b/"));
	/* the last '@' of the authority ends the password */
	CHECK(redacts_to("https://u:p@ss@host/x", "https://host/x"));
	CHECK(redacts_to("http://u:sekrit@h", "http://h"));
	CHECK(redacts_to("no scheme u:p@h", "no scheme u:p@h"));
	CHECK(userinfo_is("https://u:p@host/", "u:p"));
	CHECK(userinfo_is("https://u:p@ss@host/", "u:p@ss"));
	CHECK(userinfo_is("https://host/a@b", NULL));
	CHECK(userinfo_is("https://@host/", NULL));

	CHECK(cv_url_mirror_problem("https://host/redist/") == NULL);
	CHECK(cv_url_mirror_problem("https://u:p@host/") == NULL);
	CHECK(cv_url_mirror_problem("file:///srv/mirror/") == NULL);
	CHECK(cv_url_mirror_problem("https://") != NULL);
	CHECK(cv_url_mirror_problem("https:///x/") != NULL);
	CHECK(cv_url_mirror_problem("https://u:p@/x/") != NULL);
	CHECK(cv_url_mirror_problem("https://:443/") != NULL);
	CHECK(cv_url_mirror_problem("http://host/") != NULL);
	CHECK(cv_url_mirror_problem("https://host/?x") != NULL);
	CHECK(cv_url_mirror_problem("") != NULL);
	return TEST_DONE();
}
