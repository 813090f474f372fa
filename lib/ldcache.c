/* ldcache.c: the loader's cache as `ldconfig -p` prints it, so code that
 * asks "where would the loader find this soname" reads it one way. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

void
cv_ldcache_each(cv_ldcache_fn fn, void *payload)
{
	/* timeout: a wedged ldconfig must not hang validate or doctor. The
	 * test hook CUDNNVM_TEST_LDCACHE names another cache file; the shell
	 * expands it inside quotes, so no path is pasted into the command. */
	FILE *f = popen(
		"a=${CUDNNVM_TEST_LDCACHE:+-C}; "
		"timeout 5 ldconfig $a ${CUDNNVM_TEST_LDCACHE:+\"$CUDNNVM_TEST_LDCACHE\"} -p 2>/dev/null || "
		"timeout 5 /sbin/ldconfig $a ${CUDNNVM_TEST_LDCACHE:+\"$CUDNNVM_TEST_LDCACHE\"} -p 2>/dev/null",
		"r");
	char line[2048];

	if (f == NULL)
		return;
	/* "\tlibcudnn.so.9 (libc6,x86-64) => /usr/lib/.../libcudnn.so.9" */
	while (fgets(line, sizeof line, f) != NULL) {
		char *name = line + strspn(line, " \t");
		char *arrow = strstr(name, "=> ");

		if (arrow == NULL)
			continue;
		arrow += 3;
		arrow[strcspn(arrow, "\n")] = '\0';
		name[strcspn(name, " ")] = '\0';
		if (*name != '\0' && *arrow == '/')
			fn(payload, name, arrow);
	}
	pclose(f);
}
