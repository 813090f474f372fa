/* ldcache.c: the loader's cache as `ldconfig -p` prints it, so code that
 * asks "where would the loader find this soname" reads it one way. */
#include "base/base.h"
#include "machine/machine_int.h"

#include <stdlib.h>
#include <string.h>

/* `<exe> [-C cache] -p` into out; 0 when it ran and exited 0. A wedged
 * ldconfig must not hang validate or doctor: 5 seconds at most. */
static int
run_ldconfig(const char *exe, unsigned flags, struct cv_buf *out)
{
	/* the test hook CUDNNVM_TEST_LDCACHE names another cache file */
	const char *cache = getenv("CUDNNVM_TEST_LDCACHE");
	const char *argv[5] = { exe, "-p", NULL, NULL, NULL };
	struct cv_child child = CV_CHILD_INIT;

	if (cache != NULL && *cache != '\0') {
		argv[1] = "-C";
		argv[2] = cache;
		argv[3] = "-p";
	}
	cv_buf_reset(out);
	child.argv = argv;
	child.flags = flags | CV_CHILD_STDIN_NULL | CV_CHILD_STDERR_NULL;
	child.timeout_s = 5;
	child.out = out;
	return cv_child_run(&child, NULL) == 0 ? 0 : -1;
}

void
cv_ldcache_each(cv_ldcache_fn fn, void *payload)
{
	struct cv_buf out = CV_BUF_INIT;
	char *line, *next;

	if (run_ldconfig("ldconfig", CV_CHILD_SEARCH_PATH, &out) < 0 &&
	    run_ldconfig("/sbin/ldconfig", 0, &out) < 0) {
		cv_buf_release(&out);
		return;
	}
	/* "\tlibcudnn.so.9 (libc6,x86-64) => /usr/lib/.../libcudnn.so.9" */
	for (line = out.buf; *line; line = next) {
		char *name, *arrow, *nl = strchr(line, '\n');

		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		name = line + strspn(line, " \t");
		arrow = strstr(name, "=> ");
		if (arrow == NULL)
			continue;
		arrow += 3;
		name[strcspn(name, " ")] = '\0';
		if (*name != '\0' && *arrow == '/')
			fn(payload, name, arrow);
	}
	cv_buf_release(&out);
}
