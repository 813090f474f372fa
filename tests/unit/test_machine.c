/* test_machine.c: the machine model: where the toolkit's version is read
 * from and in which order, the driver's CUDA, the overrides, and the
 * CUDA major a spec without -cudaN means. */
#include "base/base.h"
#include "machine/machine_int.h"
#include "tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmp[] = "/tmp/cvmachine.XXXXXX";

static void
put(const char *rel, const char *text, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", tmp, rel);
	for (char *p = path + strlen(tmp) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static const struct cv_machine *
fresh(void)
{
	cv_machine_forget();
	return cv_machine_get(CV_MACHINE_ALL);
}

static char *
at(const char *rel)
{
	static char buf[512];
	snprintf(buf, sizeof buf, "%s/%s", tmp, rel);
	return buf;
}

/* The loader's choice (ldcache.c): a file it would not load is passed
 * over to the next folder, whatever its name says (H21). */
static void
loader_choice(void)
{
	/* a 32-bit x86 shared object's header: ident, e_type, e_machine */
	static const unsigned char elf32[52] = {
		0x7f, 'E', 'L', 'F', 1, 1, 1, [16] = 3, [18] = 3, [20] = 1
	};
	char *libc = cv_machine_find_lib("libc.so.6"), dirs[2200], *p;
	FILE *f;
	int fd;

	/* the real search finds this program's own C library */
	CHECK(libc != NULL && cv_machine_lib_loads(libc, "libc.so.6"));
	/* its SONAME is not another library's */
	CHECK(libc != NULL && !cv_machine_lib_loads(libc, "libz.so.1"));
	fd = libc != NULL ? open(libc, O_RDONLY) : -1;
	CHECK(fd >= 0 && cv_elf_native(fd) == 1);
	if (fd >= 0)
		close(fd);
	put("l32/libc.so.6", "", 0644);
	f = fopen(at("l32/libc.so.6"), "wb");
	if (f != NULL) {
		fwrite(elf32, 1, sizeof elf32, f);
		fclose(f);
	}
	fd = open(at("l32/libc.so.6"), O_RDONLY);
	CHECK(fd >= 0 && cv_elf_native(fd) == 0);
	if (fd >= 0)
		close(fd);
	put("text/libc.so.6", "not a library\n", 0644);
	fd = open(at("text/libc.so.6"), O_RDONLY);
	CHECK(fd >= 0 && cv_elf_native(fd) == -1);
	if (fd >= 0)
		close(fd);
	mkdir(at("isdir"), 0755);
	mkdir(at("isdir/libc.so.6"), 0755);
	mkdir(at("dangle"), 0755);
	CHECK(symlink("libc.so.6.gone", at("dangle/libc.so.6")) == 0);
	mkdir(at("good"), 0755);
	CHECK(libc != NULL && symlink(libc, at("good/libc.so.6")) == 0);
	dirs[0] = '\0';
	for (int i = 0; i < 5; i++) {
		static const char *const d[] = { "l32", "text", "isdir",
						 "dangle", "good" };
		snprintf(dirs + strlen(dirs), sizeof dirs - strlen(dirs),
			 "%s%s", i ? ":" : "", at(d[i]));
	}
	unsetenv("LD_LIBRARY_PATH");
	setenv("CUDNNVM_TEST_CUDA_LIBDIRS", dirs, 1);
	p = cv_machine_find_lib("libc.so.6");
	CHECK(p != NULL && strcmp(p, at("good/libc.so.6")) == 0);
	free(p);
	/* an absolute LD_LIBRARY_PATH folder comes first; a relative one is
	 * the working folder's, never an answer */
	setenv("CUDNNVM_TEST_CUDA_LIBDIRS", at("nothing"), 1);
	CHECK(chdir(tmp) == 0);
	setenv("LD_LIBRARY_PATH", "good", 1);
	p = cv_machine_find_lib("libc.so.6");
	CHECK(p == NULL);
	free(p);
	setenv("LD_LIBRARY_PATH", at("good"), 1);
	p = cv_machine_find_lib("libc.so.6");
	CHECK(p != NULL && strcmp(p, at("good/libc.so.6")) == 0);
	free(p);
	CHECK(chdir("/") == 0);
	unsetenv("LD_LIBRARY_PATH");
	unsetenv("CUDNNVM_TEST_CUDA_LIBDIRS");
	free(libc);
}

int
main(void)
{
	const struct cv_machine *m;
	struct cv_err err = CV_ERR_INIT;
	char how[512];
	int major = 0, minor = 0;

	if (mkdtemp(tmp) == NULL)
		return 1;
	/* nothing on the path, no toolkit variables, no driver */
	setenv("PATH", at("nothing"), 1);
	unsetenv("CUDA_HOME");
	unsetenv("CUDA_PATH");
	unsetenv("CUDNNVM_OVERRIDE_CUDA");
	unsetenv("CUDNNVM_OVERRIDE_DRIVER_CUDA");
	unsetenv("CUDNNVM_OVERRIDE_GPU_ARCH");
	setenv("CUDNNVM_TEST_DRIVER_VERSION_FILE", at("none"), 1);

	/* CUDA_HOME: version.json, then version.txt, then cuda.h, then the
	 * runtime's file name, each without running anything */
	put("a/version.json",
	    "{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"12.4.1\"}}", 0644);
	setenv("CUDA_HOME", at("a"), 1);
	m = fresh();
	CHECK(m->toolkit.major == 12 && m->toolkit.minor == 4);
	CHECK(strcmp(m->toolkit.source, "CUDA_HOME") == 0);
	CHECK(strstr(m->toolkit.detail, "a/version.json") != NULL);
	put("b/version.txt", "CUDA Version 10.2.89\n", 0644);
	setenv("CUDA_HOME", at("b"), 1);
	m = fresh();
	CHECK(m->toolkit.major == 10 && m->toolkit.minor == 2);
	put("c/include/cuda.h",
	    "/* header */\n#define CUDA_VERSION 13000\n#define X 1\n", 0644);
	setenv("CUDA_HOME", at("c"), 1);
	m = fresh();
	CHECK(m->toolkit.major == 13 && m->toolkit.minor == 0);
	CHECK(strstr(m->toolkit.detail, "include/cuda.h") != NULL);
	put("d/lib64/libcudart.so.11.0", "", 0644);
	put("d/lib64/libcudart.so.12", "", 0644);
	setenv("CUDA_HOME", at("d"), 1);
	m = fresh();
	CHECK(m->toolkit.major == 12);
	/* a malformed version.json is not a version; CUDA_PATH is next */
	put("e/version.json", "{\"cuda\":{\"version\":\"twelve\"}}", 0644);
	setenv("CUDA_HOME", at("e"), 1);
	setenv("CUDA_PATH", at("a"), 1);
	m = fresh();
	CHECK(m->toolkit.major == 12 &&
	      strcmp(m->toolkit.source, "CUDA_PATH") == 0);
	unsetenv("CUDA_HOME");
	unsetenv("CUDA_PATH");

	/* the nvcc on PATH: its toolkit's files first, --version last */
	put("f/bin/nvcc",
	    "#!/bin/sh\necho 'Cuda compilation tools, release 11.8, V11.8.89'\n",
	    0755);
	setenv("PATH", at("f/bin"), 1);
	/* the nvcc on PATH comes before /usr/local/cuda: nothing here
	 * depends on the toolkit this machine has */
	m = fresh();
	CHECK(m->toolkit.major == 11 && m->toolkit.minor == 8);
	CHECK(strcmp(m->toolkit.source, "nvcc") == 0);
	CHECK(strstr(m->toolkit.detail, "--version") != NULL);
	put("f/version.json",
	    "{\"cuda\":{\"name\":\"CUDA SDK\",\"version\":\"12.8.0\"}}", 0644);
	m = fresh();
	CHECK(m->toolkit.major == 12 && m->toolkit.minor == 8 &&
	      strcmp(m->toolkit.source, "nvcc") == 0);
	/* an nvcc wrapper that hangs is given up on, not waited for */
	put("h/bin/nvcc", "#!/bin/sh\nexec /bin/sleep 60\n", 0755);
	setenv("PATH", at("h/bin"), 1);
	{
		time_t t0 = time(NULL);
		m = fresh();
		CHECK(time(NULL) - t0 < 30);
		CHECK(strcmp(m->toolkit.source, "nvcc") != 0);
	}
	setenv("PATH", at("f/bin"), 1);
	/* CUDA_HOME comes before nvcc, as in PyTorch's cpp_extension */
	setenv("CUDA_HOME", at("c"), 1);
	m = fresh();
	CHECK(m->toolkit.major == 13 &&
	      strcmp(m->toolkit.source, "CUDA_HOME") == 0);
	/* a FIFO where version.json belongs is passed over, not opened */
	mkdir(at("g"), 0755);
	mkfifo(at("g/version.json"), 0644);
	put("g/include/cuda.h", "#define CUDA_VERSION 12020\n", 0644);
	setenv("CUDA_HOME", at("g"), 1);
	m = fresh();
	CHECK(m->toolkit.major == 12 && m->toolkit.minor == 2);

	/* the driver: kernel module version -> newest CUDA it runs */
	CHECK(cv_machine_driver_cuda("580.65.06", &major, &minor) &&
	      major == 13 && minor == 0);
	CHECK(cv_machine_driver_cuda("580.65.05", &major, &minor) &&
	      major == 12 && minor == 9);
	CHECK(cv_machine_driver_cuda("525.60.13", &major, &minor) &&
	      major == 12 && minor == 0);
	CHECK(cv_machine_driver_cuda("525.60.12", &major, &minor) &&
	      major == 11);
	CHECK(cv_machine_driver_cuda("535.104.05", &major, &minor) &&
	      major == 12 && minor == 2);
	CHECK(!cv_machine_driver_cuda("390.157", &major, &minor));
	CHECK(!cv_machine_driver_cuda("x", &major, &minor));
	put("version",
	    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  "
	    "Sat Aug 19 01:15:15 UTC 2025\nGCC version: gcc\n",
	    0644);
	setenv("CUDNNVM_TEST_DRIVER_VERSION_FILE", at("version"), 1);
	m = fresh();
	CHECK(strcmp(m->driver_version, "580.159.04") == 0);
	CHECK(m->driver.major == 13 && strcmp(m->driver.source, "driver") == 0);

	/* in a container the driver is only its libraries: libcuda.so.1
	 * points at libcuda.so.<driver version> */
	put("drv/libcuda.so.575.57.08", "", 0644);
	put("wsl/libcuda.so.1.1", "", 0644);
	if (symlink("libcuda.so.575.57.08", at("drv/libcuda.so.1")) != 0 ||
	    symlink("libcuda.so.1.1", at("wsl/libcuda.so.1")) != 0)
		return 1;
	unsetenv("CUDNNVM_TEST_DRIVER_VERSION_FILE");
	{
		char dirs[1100], wsl[512];
		snprintf(wsl, sizeof wsl, "%s", at("wsl"));
		snprintf(dirs, sizeof dirs, "%s:%s", wsl, at("drv"));
		setenv("CUDNNVM_TEST_CUDA_LIBDIRS", dirs, 1);
	}
	if (access("/proc/driver/nvidia/version", F_OK) == 0 ||
	    access("/sys/module/nvidia/version", F_OK) == 0) {
		printf("ok - # SKIP libcuda's name: a kernel driver is here\n");
	} else {
		m = fresh();
		CHECK(strcmp(m->driver_version, "575.57.08") == 0);
		CHECK(m->driver.major == 12 && m->driver.minor == 9);
		CHECK(strstr(m->driver.detail, "drv/libcuda.so.1") != NULL);
	}
	unsetenv("CUDNNVM_TEST_CUDA_LIBDIRS");
	setenv("CUDNNVM_TEST_DRIVER_VERSION_FILE", at("version"), 1);
	m = fresh();
	/* the CUDA a spec means: toolkit first, else the driver's */
	CHECK(cv_machine_cuda(how, sizeof how, &err) == 12);
	CHECK(strstr(how, "CUDA_HOME") != NULL);
	unsetenv("CUDA_HOME");
	setenv("PATH", at("nothing"), 1);
	/* no toolkit, whatever this machine has: an empty override */
	setenv("CUDNNVM_OVERRIDE_CUDA", "", 1);
	cv_machine_forget();
	CHECK(cv_machine_cuda(how, sizeof how, &err) == 13);
	CHECK(strstr(how, "driver") != NULL);
	unsetenv("CUDNNVM_OVERRIDE_CUDA");
	CHECK(cv_machine_want_cuda(11, 12, how, sizeof how, &err) == 11);
	CHECK(cv_machine_want_cuda(0, 12, how, sizeof how, &err) == 12);

	/* overrides win, and a malformed one is an error, not ignored */
	setenv("CUDNNVM_OVERRIDE_CUDA", "11.8", 1);
	setenv("CUDNNVM_OVERRIDE_DRIVER_CUDA", "12.4", 1);
	setenv("CUDNNVM_OVERRIDE_GPU_ARCH", "7.0", 1);
	m = fresh();
	CHECK(m->toolkit.major == 11 && m->toolkit.minor == 8 &&
	      strcmp(m->toolkit.source, "override") == 0);
	CHECK(m->driver.major == 12 && m->driver.minor == 4);
	CHECK(m->gpu_arch.major == 7 && m->gpu_arch.minor == 0);
	CHECK(cv_machine_cuda(how, sizeof how, &err) == 11);
	/* an empty toolkit override means "no toolkit": the driver decides */
	setenv("CUDNNVM_OVERRIDE_CUDA", "", 1);
	m = fresh();
	CHECK(m->toolkit.major == 0);
	CHECK(cv_machine_cuda(how, sizeof how, &err) == 12);
	setenv("CUDNNVM_OVERRIDE_DRIVER_CUDA", "13.0", 1);
	cv_machine_forget();
	CHECK(cv_machine_cuda(how, sizeof how, &err) == 13);
	setenv("CUDNNVM_OVERRIDE_CUDA", "twelve", 1);
	cv_machine_forget();
	CHECK(cv_machine_cuda(how, sizeof how, &err) == CV_EUSAGE);
	CHECK(strstr(err.msg, "CUDNNVM_OVERRIDE_CUDA") != NULL);
	setenv("CUDNNVM_OVERRIDE_CUDA", "12.4.1x", 1);
	cv_machine_forget();
	CHECK(cv_machine_cuda(how, sizeof how, &err) == CV_EUSAGE);
	unsetenv("CUDNNVM_OVERRIDE_CUDA");
	unsetenv("CUDNNVM_OVERRIDE_DRIVER_CUDA");
	unsetenv("CUDNNVM_OVERRIDE_GPU_ARCH");

	/* the support matrices' lowest compute capability, release by
	 * release: 9.10.2 still runs on Maxwell, 9.11 starts at Turing */
	{
		static const struct {
			const char *release;
			int arch;
		} rows[] = {
			{ "9.20.0.48", 75 }, { "9.17", 75 },
			{ "9.11.0", 75 },    { "9.10.2.21", 50 },
			{ "9.0", 50 },       { "8.9.7.29", 50 },
			{ "8.6", 0 },        { "8.3.2", 30 },
			{ "7.6.5", 30 },     { "7.5", 0 },
			{ "10", 75 },
		};
		struct cv_version v;
		char why[512];

		for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
			CHECK(cv_version_parse(&v, rows[i].release, &err) == 0);
			CHECK(cv_machine_cudnn_min_arch(&v) == rows[i].arch);
		}
		CHECK(cv_machine_cudnn_last_for_arch(70, &major, &minor) &&
		      major == 9 && minor == 10);
		CHECK(cv_machine_cudnn_last_for_arch(35, &major, &minor) &&
		      major == 8 && minor == 3);
		CHECK(!cv_machine_cudnn_last_for_arch(75, &major, &minor));
		CHECK(!cv_machine_cudnn_last_for_arch(20, &major, &minor));

		/* no GPU known: nothing ruled out, and why says so */
		cv_version_parse(&v, "9.13", &err);
		cv_machine_forget();
		CHECK(cv_machine_arch_fits(&v, why, sizeof why) == -1);
		CHECK(strstr(why, "no GPU compute capability known") != NULL);
		setenv("CUDNNVM_OVERRIDE_GPU_ARCH", "7.0", 1);
		cv_machine_forget();
		CHECK(cv_machine_arch_fits(&v, why, sizeof why) == 0);
		CHECK(strstr(why, "7.5 or newer") != NULL &&
		      strstr(why, "9.10 is the last release") != NULL);
		CHECK(cv_machine_fits(&v, 12, why, sizeof why) == 0);
		cv_version_parse(&v, "9.10.2", &err);
		CHECK(cv_machine_arch_fits(&v, why, sizeof why) == 1);
		setenv("CUDNNVM_OVERRIDE_GPU_ARCH", "7.5", 1);
		cv_version_parse(&v, "9.13", &err);
		cv_machine_forget();
		CHECK(cv_machine_arch_fits(&v, why, sizeof why) == 1);
		unsetenv("CUDNNVM_OVERRIDE_GPU_ARCH");
		cv_machine_forget();
	}
	setenv("PATH", "/usr/bin:/bin", 1);
	loader_choice();
	{
		char *cmd = NULL;
		int n = asprintf(&cmd, "rm -rf '%s'", tmp);
		if (n > 0 && system(cmd) != 0)
			fprintf(stderr, "cleanup failed\n");
		free(cmd);
	}
	return TEST_DONE();
}
