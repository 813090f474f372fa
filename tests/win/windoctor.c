/* windoctor.c: doctor's Windows findings (lib/doctor/windows.c) for the
 * wine suite (tests/win/suite.sh), as `cudnnvm doctor` and `cudnnvm
 * which` would compute them:
 *
 *	windoctor.exe where NAME         each %PATH% folder's NAME, in order
 *	windoctor.exe find NAME          the DLL the loader would load by NAME
 *	                                 (cv_machine_find_lib)
 *	windoctor.exe check CUDA_PATH STORE_BIN MAJOR ZLIB
 *	                                 one finding a line: level|what|why|fix
 *
 * STORE_BIN "-": no active version. */
#include "base/base.h"
#include "doctor/doctor.h"
#include "machine/machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	struct cv_strv hits = CV_STRV_INIT;
	struct cv_doctor_win w;
	struct cv_finding *f;
	size_t i, n;

	if (argc == 3 && strcmp(argv[1], "where") == 0) {
		cv_doctor_where(getenv("PATH"), argv[2], &hits);
		for (i = 0; i < hits.n; i++)
			printf("%s\n", hits.v[i]);
		n = hits.n;
		cv_strv_release(&hits);
		return n ? 0 : 1;
	}
	if (argc == 3 && strcmp(argv[1], "find") == 0) {
		char *p = cv_machine_find_lib(argv[2]);

		printf("%s\n", p != NULL ? p : "(none)");
		free(p);
		return p != NULL ? 0 : 1;
	}
	if (argc != 6 || strcmp(argv[1], "check") != 0) {
		fprintf(stderr, "usage: windoctor where NAME | check CUDA_PATH "
				"STORE_BIN MAJOR ZLIB\n");
		return 64;
	}
	memset(&w, 0, sizeof w);
	w.cuda_path = argv[2];
	w.path = getenv("PATH");
	w.store_bin = strcmp(argv[3], "-") != 0 ? argv[3] : NULL;
	w.major = (int)strtol(argv[4], NULL, 10);
	w.needs_zlibwapi = (int)strtol(argv[5], NULL, 10);
	n = cv_doctor_win_check(&w, &f);
	/* freed here: doctor.c's cv_findings_free is not in the Windows
	 * build yet */
	for (i = 0; i < n; i++) {
		printf("%d|%s|%s|%s\n", f[i].level, f[i].what, f[i].why,
		       f[i].fix);
		free(f[i].what);
		free(f[i].why);
		free(f[i].fix);
	}
	free(f);
	return 0;
}
