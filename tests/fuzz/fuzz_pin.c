/* fuzz_pin.c: pin files (.cudnn-version and .tool-versions) on any bytes.
 *
 * Each input is written to a real file and read with cv_pin_read in both
 * modes. Oracles: a spec returned is a valid spec that appears in the file
 * (never a path or URL), 0 ("no cudnn line") only for .tool-versions, and
 * errors are one line with code CV_EDATA. */
#include "activate/activate_int.h"
#include "fuzz.h"

#include <fcntl.h>
#include <unistd.h>

static char pin_path[4096];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[4096];

	(void)argc;
	(void)argv;
	fuzz_tmpdir(dir, sizeof dir, "pin");
	snprintf(pin_path, sizeof pin_path, "%s/.cudnn-version", dir);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = open(pin_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	char spec[64];

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
	for (int tool = 0; tool < 2; tool++) {
		struct cv_err err = CV_ERR_INIT;
		struct cv_version v;
		int rc;

		memset(spec, 0x55, sizeof spec);
		rc = cv_pin_read(pin_path, tool, spec, &err);
		fuzz_check_err(rc, &err);
		FUZZ_CHECK(rc == 1 || (rc == 0 && tool) ||
				   (rc < 0 && rc == CV_EDATA),
			   "mode %d: returned %d (%s)", tool, rc, err.msg);
		if (rc != 1)
			continue;
		FUZZ_CHECK(memchr(spec, '\0', sizeof spec) != NULL,
			   "spec not terminated");
		FUZZ_CHECK(cv_version_parse(&v, spec, NULL) == 0,
			   "'%s' is not a spec", spec);
		FUZZ_CHECK(strpbrk(spec, "/\\:~") == NULL, "'%s' is a path",
			   spec);
		FUZZ_CHECK(memmem(data, size, spec, strlen(spec)) != NULL,
			   "'%s' is not in the file", spec);
	}
	return 0;
}
