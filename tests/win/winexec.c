/* winexec.c: cv_os_exec on Windows for the wine suite: `winexec.exe
 * args PROGRAM ARGS...` runs PROGRAM in its place (its exit code, handed
 * back, becomes ours); `winexec.exe echo ARGS...` prints each argument as the C
 * runtime split the command line, one "[ARG]" a line, and exits with 3. */
#include "base/base.h"

#include <stdio.h>
#include <string.h>

int
main(int argc, char **argv)
{
	int i;

	if (argc >= 2 && strcmp(argv[1], "echo") == 0) {
		for (i = 2; i < argc; i++)
			printf("[%s]\n", argv[i]);
		return 3;
	}
	if (argc >= 3 && strcmp(argv[1], "args") == 0) {
		int r = cv_os_exec(argv + 2);
		if (r >= 0)
			return r;
		perror("cv_os_exec");
		return 127;
	}
	return 64;
}
