/* test_transport.c: libcurl's cv_transport_get (http_curl.c) through the
 * cases WinHTTP's passes under wine (transport_cases.h), against the
 * loopback HTTPS test mirror this test starts (tests/fixtures/mirror.py,
 * as tests/win/run.sh starts it), from the repository's root. */
#include "base/base.h"
#include "install/backend_int.h"
#include "tap.h"
#include "transport_cases.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static char tmp[] = "/tmp/cudnnvm-transport-XXXXXX";

/* The first line `cmd` prints, into buf; 0 when it printed one. */
static int
line_of(const char *cmd, char *buf, size_t n)
{
	FILE *p = popen(cmd, "r");
	int ok = p != NULL && fgets(buf, (int)n, p) != NULL;

	if (p != NULL)
		pclose(p);
	buf[ok ? strcspn(buf, "\n") : 0] = '\0';
	return ok ? 0 : -1;
}

int
main(void)
{
	char cmd[2048], port[16], rel[512], sha[80], size[32], pid[32];
	char ca[600], other[600];
	struct tc_mirror m;

	if (mkdtemp(tmp) == NULL || access("tests/fixtures/mirror.py", R_OK))
		return printf("1..0 # skip no mirror.py (run from the "
			      "repository's root)\n"),
		       0;
	snprintf(cmd, sizeof cmd,
		 "python3 tests/fixtures/mirror.py certs %s/certs >/dev/null "
		 "&& python3 tests/fixtures/mirror.py build %s/root "
		 "tests/fixtures/manifests/*.json >/dev/null && "
		 "{ python3 tests/fixtures/mirror.py serve %s/root --cert "
		 "%s/certs/server.pem --key %s/certs/server.key --port-file "
		 "%s/port >%s/server.log 2>&1 & echo $!; } && "
		 "for i in $(seq 100); do [ -s %s/port ] && break; sleep 0.1; "
		 "done",
		 tmp, tmp, tmp, tmp, tmp, tmp, tmp, tmp);
	CHECK(line_of(cmd, pid, sizeof pid) == 0);
	snprintf(cmd, sizeof cmd, "cat %s/port", tmp);
	CHECK(line_of(cmd, port, sizeof port) == 0);
	/* the largest archive of the tree: a transfer of several blocks */
	snprintf(cmd, sizeof cmd,
		 "cd %s/root && find . -name '*.tar.xz' -printf '%%s %%P\\n' "
		 "| sort -n | tail -n 1 | cut -d' ' -f2",
		 tmp);
	CHECK(line_of(cmd, rel, sizeof rel) == 0);
	snprintf(cmd, sizeof cmd, "sha256sum %s/root/%s | cut -d' ' -f1", tmp,
		 rel);
	CHECK(line_of(cmd, sha, sizeof sha) == 0);
	snprintf(cmd, sizeof cmd, "stat -c %%s %s/root/%s", tmp, rel);
	CHECK(line_of(cmd, size, sizeof size) == 0);
	snprintf(ca, sizeof ca, "%s/certs/ca.pem", tmp);
	snprintf(other, sizeof other, "%s/certs/other-ca.pem", tmp);
	/* the system's store must be the system's, not a test's CA */
	unsetenv("SSL_CERT_FILE");
	unsetenv("CURL_CA_BUNDLE");
	unsetenv("https_proxy");
	unsetenv("HTTPS_PROXY");
	unsetenv("all_proxy");
	unsetenv("ALL_PROXY");
	m = (struct tc_mirror){ port, ca,  other,
				rel,  sha, strtoull(size, NULL, 10) };
	if (port[0] && rel[0])
		transport_cases(&m);
	if (pid[0])
		kill((pid_t)atoi(pid), SIGTERM);
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
	CHECK(system(cmd) == 0);
	return TEST_DONE();
}
