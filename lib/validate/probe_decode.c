/* probe_decode.c: what the validation child (probe.c, and probe_win32.c
 * on Windows) and its parent share: cudnnGetVersion()'s number read the
 * same way, the driver a CUDA variant needs, and the child's JSON lines.
 * Kept apart from probe.c so that both probes share them. */
#include "validate/validate_int.h"

#include <stdlib.h>
#include <string.h>

long
cv_probe_decode(long v, int *maj, int *min, int *patch)
{
	if (v >= 90000) {
		*maj = (int)(v / 10000);
		*min = (int)(v / 100 % 100);
	} else {
		*maj = (int)(v / 1000);
		*min = (int)(v / 100 % 10);
	}
	*patch = (int)(v % 100);
	return v;
}

int
cv_probe_min_driver(int cuda)
{
	/* cuDriverGetVersion() of the oldest driver that runs the variant
	 * (CUDA 11: r450.80.02, 12: r525.60.13, 13: r580.65.06). */
	if (cuda >= 10 && cuda <= 20)
		return cuda * 1000;
	return 0;
}

void
cv_probe_emit(int fd, struct cv_json *o)
{
	char *s = cv_json_dumps(o, CV_JSON_COMPACT);
	cv_json_decref(o);
	if (s == NULL)
		return;
	/* the line ends even after a short write, as the reader splits on it */
	cv_os_write_all(fd, s, strlen(s));
	cv_os_write_all(fd, "\n", 1);
	free(s);
}
