/* test_port.c: the base files over the OS face (fs.c, child.c, platform.c,
 * shell.c, mantext.c, interrupt.c, the store's place), the same cases on
 * Linux and, cross-built, on Windows under wine (make windows-base): a
 * lock two handles and two processes contend for, an argument that comes
 * back unchanged through a child that prints its argv, a timeout that
 * ends the child and the grandchild it started, the platform's name and
 * the store's default folder. The program is its own child: --argv,
 * --hold, --sleep and --spawn are the parts it plays there. */
#include "base/base_int.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#define SEP "\\"
#else
#include <signal.h>
#include <unistd.h>
#define SEP "/"
#endif

static char dir[256], self[4096];

static char *
at(const char *name)
{
	static char buf[4][320];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof buf[i], "%s" SEP "%s", dir, name);
	return buf[i];
}

static void
pause_ms(unsigned ms)
{
#ifdef _WIN32
	Sleep(ms);
#else
	struct timespec ts = { (time_t)(ms / 1000),
			       (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
#endif
}

/* ---- the parts the program plays as a child --------------------------- */

/* Each argument after --argv in hex, one a line: what the child read. */
static int
print_argv(int argc, char **argv)
{
#ifdef _WIN32
	/* main's argv is in the ANSI code page: read the line as UTF-16 */
	int n;
	wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
	(void)argc, (void)argv;
	for (int i = 2; w != NULL && i < n; i++) {
		char u[4096];
		int len = WideCharToMultiByte(CP_UTF8, 0, w[i], -1, u, sizeof u,
					      NULL, NULL);
		for (int k = 0; k + 1 < len; k++)
			printf("%02x", (unsigned char)u[k]);
		printf("\n");
	}
#else
	for (int i = 2; i < argc; i++) {
		for (const char *c = argv[i]; *c; c++)
			printf("%02x", (unsigned char)*c);
		printf("\n");
	}
#endif
	return 0;
}

/* Hold the lock on argv[2] until killed, saying so on stdout. */
static int
hold(char **argv)
{
	int fd;

	if (cv_fs_trylock(argv[2], &fd, NULL) != 1)
		return 3;
	printf("held\n");
	fflush(stdout);
	pause_ms(30000);
	return 0;
}

/* Write this process's id to argv[2], then sleep. */
static int
sleeper(char **argv)
{
	char pid[32];

	snprintf(pid, sizeof pid, "%ld", cv_os_pid());
	cv_fs_write_atomic(argv[2], pid, strlen(pid), 0644, NULL);
	pause_ms(30000);
	return 0;
}

/* Start a sleeper (argv[2] its pid file) and wait for it. */
static int
spawner(char **argv)
{
	const char *args[] = { self, "--sleep", argv[2], NULL };
	struct cv_child c = CV_CHILD_INIT;

	c.argv = args;
	return cv_child_run(&c, NULL);
}

/* ---- the cases -------------------------------------------------------- */

static void
platform(void)
{
	char p[32], m[64];
	struct cv_err err = CV_ERR_INIT;

	CHECK(cv_os_machine(m, sizeof m) == 0 && strcmp(m, "x86_64") == 0);
	CHECK(cv_platform_detect(p, &err) == 0);
#ifdef _WIN32
	/* as NVIDIA's redistrib manifests name it */
	CHECK(strcmp(p, "windows-x86_64") == 0);
	CHECK(strcmp(cv_os_family(), "windows") == 0);
#else
	CHECK(strcmp(p, "linux-x86_64") == 0);
	CHECK(strcmp(cv_os_family(), "linux") == 0);
#endif
	CHECK(cv_platform_valid(p));
	CHECK(cv_usable_cores() >= 1);
}

static void
files(void)
{
	struct cv_err err = CV_ERR_INIT;
	char buf[64], *nested = at("a" SEP "b" SEP "c");
	struct cv_stat sb;
	int fd;

	CHECK(cv_fs_mkdirs(nested, 0755, &err) == 0);
	CHECK(cv_os_stat(nested, &sb) == 0 && sb.kind == CV_KIND_DIR);
	CHECK(cv_fs_write_atomic(at("w"), "one", 3, 0644, &err) == 0);
	/* a second write replaces it whole */
	CHECK(cv_fs_write_atomic(at("w"), "second", 6, 0644, &err) == 0);
	CHECK(cv_fs_read_head(CV_AT_CWD, at("w"), 1, buf, sizeof buf) == 6 &&
	      strcmp(buf, "second") == 0);
	/* no temporary is left beside it */
	{
		struct cv_dir *d = cv_dir_open(dir);
		const char *n;
		int tmps = 0;
		while (d != NULL && (n = cv_dir_next(d, NULL)) != NULL)
			tmps += strstr(n, ".tmp") != NULL;
		cv_dir_close(d);
		CHECK(d != NULL && tmps == 0);
	}
	/* the read-back through a stream's commit */
	{
		struct cv_fs_stream *s;
		CHECK(cv_fs_stream_open(at("s"), 0644, &s, &err) == 0 &&
		      cv_fs_stream_write(s, "streamed", 8, &err) == 0 &&
		      cv_fs_stream_commit(s, at("s"), &err) == 0);
		CHECK(cv_fs_read_head(CV_AT_CWD, at("s"), 1, buf, sizeof buf) ==
			      8 &&
		      strcmp(buf, "streamed") == 0);
	}
	CHECK(cv_fs_sync_tree(at("a"), &err) == 0);
	fd = cv_os_open(at("a" SEP "b" SEP "f"), CV_OPEN_WRITE | CV_OPEN_CREATE,
			0644);
	CHECK(fd >= 0 && cv_os_close(fd) == 0);
	CHECK(cv_fs_rmtree(at("a"), &err) == 0);
	CHECK(cv_os_stat(at("a"), &sb) < 0 && errno == ENOENT);
	/* a folder of ours, written by nobody else */
	CHECK(cv_os_stat(dir, &sb) == 0 && cv_fs_foreign_writer(&sb, 0) == 0);
}

static void
locks(void)
{
	struct cv_err err = CV_ERR_INIT;
	int a = -1, b = -1, r;

	CHECK(cv_fs_trylock(at("lock"), &a, &err) == 1);
	/* a second handle in the same process is refused */
	CHECK(cv_fs_trylock(at("lock"), &b, &err) == 0 && b == -1);
	CHECK(cv_fs_lock_busy(at("lock")) == 1);
	r = cv_fs_lock(at("lock"), 1, NULL, NULL, "testing", &b, &err);
	CHECK(r == CV_ELOCKED);
	/* the lock file stays readable and writable while held */
	CHECK(cv_fs_write_atomic(at("lock2"), "x", 1, 0644, &err) == 0);
	cv_fs_unlock(a);
	CHECK(cv_fs_lock_busy(at("lock")) == 0);
	CHECK(cv_fs_trylock(at("lock"), &b, &err) == 1);
	cv_fs_unlock(b);
	/* shared locks share */
	CHECK(cv_fs_lock_shared_at(CV_AT_CWD, at("lock"), "lock", &a, &err) ==
		      0 &&
	      cv_fs_lock_shared_at(CV_AT_CWD, at("lock"), "lock", &b, &err) ==
		      0);
	CHECK(cv_fs_lock_busy(at("lock")) == 1);
	cv_fs_unlock(a);
	cv_fs_unlock(b);
}

/* What the parent saw while the child said it held the lock. */
struct probe {
	const char *path;
	int busy; /* 1 refused, 0 taken, -1 not asked */
};

static int
probe_lock(void *arg, const char *data, size_t n)
{
	struct probe *p = arg;
	int fd = -1;

	if (p->busy == -1 && n >= 4 && memcmp(data, "held", 4) == 0) {
		p->busy = cv_fs_trylock(p->path, &fd, NULL) == 0;
		cv_fs_unlock(fd);
	}
	return 0;
}

/* Another process holds the lock until it is killed, which gives it back. */
static void
lock_process(void)
{
	const char *args[] = { self, "--hold", at("plock"), NULL };
	struct probe p = { at("plock"), -1 };
	struct cv_child c = CV_CHILD_INIT;
	struct cv_err err = CV_ERR_INIT;
	int fd = -1, waited = 0;

	c.argv = args;
	c.timeout_s = 3;
	c.on_out = probe_lock;
	c.arg = &p;
	/* returns once the timeout kills it */
	CHECK(cv_child_run(&c, &err) == 128 + 9 && c.timed_out == 1);
	CHECK(p.busy == 1);
	/* and the lock went with it */
	while (cv_fs_trylock(at("plock"), &fd, &err) != 1 && waited++ < 50)
		pause_ms(100);
	CHECK(fd >= 0);
	cv_fs_unlock(fd);
}

/* A folder's lock (cv_lock_hold's), held against another process. */
static void
lock_folder(void)
{
	const char *args[] = { self, "--lock-dir", dir, NULL };
	struct cv_child c = CV_CHILD_INIT;
	struct cv_err err = CV_ERR_INIT;
	int fd = -1;

	c.argv = args;
	CHECK(cv_child_run(&c, &err) == 0);
	CHECK(cv_fs_lock_dir(dir, &fd, &err) == 0);
	CHECK(cv_child_run(&c, &err) == 1);
	cv_fs_unlock(fd);
	CHECK(cv_child_run(&c, &err) == 0);
}

/* Arguments through a child's command line and back. */
static void
quoting(void)
{
	static const char *const tricky[] = {
		"plain",       "with space", "",
		"\"quoted\"",  "trailing\\", "trailing space\\",
		"a\\\\b",      "a\\\"b",     "\\\\server\\share\\",
		"tab\there",   "new\nline",  "two  spaces",
		"caf\xc3\xa9", "end\\\\\"",  "%PATH%",
		"^&|<>",
	};
	size_t n = sizeof tricky / sizeof *tricky;
	const char *args[32];
	struct cv_buf out = CV_BUF_INIT, want = CV_BUF_INIT;
	struct cv_child c = CV_CHILD_INIT;
	struct cv_err err = CV_ERR_INIT;

	args[0] = self;
	args[1] = "--argv";
	for (size_t i = 0; i < n; i++) {
		args[i + 2] = tricky[i];
		for (const char *s = tricky[i]; *s; s++)
			cv_buf_addf(&want, "%02x", (unsigned char)*s);
		cv_buf_add(&want, "\n", 1);
	}
	args[n + 2] = NULL;
	c.argv = args;
	c.out = &out;
	CHECK(cv_child_run(&c, &err) == 0);
	/* Windows's stdout may write "\r\n" */
	{
		size_t k = 0;
		for (size_t i = 0; i < out.len; i++)
			if (out.buf[i] != '\r')
				out.buf[k++] = out.buf[i];
		out.len = k;
		out.buf[k] = '\0';
	}
	CHECK(strcmp(out.buf, want.buf) == 0);
	if (strcmp(out.buf, want.buf) != 0)
		printf("# got:\n%s# want:\n%s", out.buf, want.buf);
	cv_buf_release(&out);
	cv_buf_release(&want);
}

/* Exit codes, the streams kept apart, the environment given. */
static void
statuses(void)
{
	struct cv_child c = CV_CHILD_INIT;
	struct cv_err err = CV_ERR_INIT;
	const char *missing[] = { "cv-no-such-program-here", NULL };

	c.argv = missing;
	c.flags = CV_CHILD_SEARCH_PATH;
	CHECK(cv_child_run(&c, &err) == CV_ENOTFOUND);
	{
		const char *args[] = { self, "--exit", "7", NULL };
		memset(&c, 0, sizeof c);
		c.argv = args;
		CHECK(cv_child_run(&c, &err) == 7);
	}
	{
		const char *args[] = { self, "--env", "CV_PORT_X", NULL };
		char *const envp[] = { (char *)"CV_PORT_X=from-envp",
				       (char *)"CV_PORT_A=first", NULL };
		struct cv_buf out = CV_BUF_INIT, eb = CV_BUF_INIT;
		memset(&c, 0, sizeof c);
		c.argv = args;
		c.envp = envp;
		c.out = &out;
		c.err = &eb;
		CHECK(cv_child_run(&c, &err) == 0);
		CHECK(strncmp(out.buf, "from-envp", 9) == 0);
		CHECK(strncmp(eb.buf, "to-stderr", 9) == 0);
		cv_buf_release(&out);
		cv_buf_release(&eb);
	}
}

/* A timeout ends the child and, on Windows (its job), the grandchild. */
static void
timeout(void)
{
	const char *args[] = { self, "--spawn", at("gpid"), NULL };
	struct cv_child c = CV_CHILD_INIT;
	struct cv_err err = CV_ERR_INIT;
	char buf[32];
	long g = 0;
	int waited = 0;

	c.argv = args;
	c.timeout_s = 2;
	CHECK(cv_child_run(&c, &err) == 128 + 9 && c.timed_out == 1);
	if (cv_fs_read_head(CV_AT_CWD, at("gpid"), 1, buf, sizeof buf) > 0)
		g = atol(buf);
	CHECK(g > 0);
#ifdef _WIN32
	while (g > 0 && cv_os_pid_alive(g) && waited++ < 50)
		pause_ms(100);
	CHECK(g > 0 && cv_os_pid_alive(g) == 0);
#else
	/* posix_spawn's child alone is killed: end the grandchild here */
	(void)waited;
	if (g > 0)
		kill((pid_t)g, SIGKILL);
#endif
}

static void
places(void)
{
	char *user = cv_os_place(CV_PLACE_USER_DATA);
	char *machine = cv_os_place(CV_PLACE_MACHINE_DATA);
	char name[256];

#ifdef _WIN32
	/* wine's profile: C:\users\<user>\AppData\Local */
	CHECK(user != NULL && strncmp(user, "C:\\users\\", 9) == 0 &&
	      strlen(user) > 22 &&
	      strcmp(user + strlen(user) - 22, "\\AppData\\Local\\cudnnvm") ==
		      0);
	CHECK(machine != NULL &&
	      strcmp(machine, "C:\\ProgramData\\cudnnvm") == 0);
	{
		char *cache = cv_os_place(CV_PLACE_USER_CACHE);
		CHECK(cache != NULL && user != NULL &&
		      strncmp(cache, user, strlen(user)) == 0 &&
		      strcmp(cache + strlen(user), "\\cache") == 0);
		free(cache);
	}
	/* with the variable gone, the known folder says the same */
	{
		char *saved = xstrdup(getenv("LOCALAPPDATA"));
		char *again;
		cv_os_setenv("LOCALAPPDATA", NULL);
		again = cv_os_place(CV_PLACE_USER_DATA);
		CHECK(again != NULL && user != NULL &&
		      strcmp(again, user) == 0);
		free(again);
		/* a name outside ASCII comes back as UTF-8, the trailing
		 * separator dropped */
		cv_os_setenv("LOCALAPPDATA", "C:\\Users\\Jos\xc3\xa9\\");
		again = cv_os_place(CV_PLACE_USER_DATA);
		CHECK(again != NULL &&
		      strcmp(again, "C:\\Users\\Jos\xc3\xa9\\cudnnvm") == 0);
		cv_os_setenv("LOCALAPPDATA", saved);
		free(again);
		free(saved);
	}
	CHECK(cv_os_is_absolute("C:\\x") && cv_os_is_absolute("\\\\srv\\s") &&
	      !cv_os_is_absolute("x\\y") && !cv_os_is_absolute("C:x"));
	CHECK(cv_os_process_name(cv_os_pid(), name, sizeof name) == 0 &&
	      strcmp(name, "test_port.exe") == 0);
	CHECK(cv_path_has_program("cmd"));
	/* wine starts us from no shell: Windows's own is the guess */
	CHECK(cv_shell_guess() == CV_SHELL_CMD ||
	      cv_shell_guess() == CV_SHELL_PWSH);
#else
	cv_os_setenv("XDG_DATA_HOME", "/xdg/data");
	free(user);
	user = cv_os_place(CV_PLACE_USER_DATA);
	CHECK(user != NULL && strcmp(user, "/xdg/data/cudnnvm") == 0);
	CHECK(machine != NULL && strcmp(machine, "/opt/cudnn") == 0);
	{
		char *cache;
		cv_os_setenv("XDG_CACHE_HOME", "relative");
		cv_os_setenv("HOME", "/home/u");
		cache = cv_os_place(CV_PLACE_USER_CACHE);
		/* a relative XDG folder is passed over */
		CHECK(cache != NULL &&
		      strcmp(cache, "/home/u/.cache/cudnnvm") == 0);
		free(cache);
	}
	CHECK(cv_os_is_absolute("/x") && !cv_os_is_absolute("C:\\x"));
	CHECK(cv_os_process_name(cv_os_pid(), name, sizeof name) == 0 &&
	      strcmp(name, "test_port") == 0);
	CHECK(cv_path_has_program("sh"));
#endif
	CHECK(!cv_path_has_program("cv-no-such-program-here"));
	free(user);
	free(machine);
}

static int
parse_text(const char *text, struct cv_err *err)
{
	struct cv_config cfg;
	struct cv_err none = CV_ERR_INIT;
	int r;

	*err = none;
	cv_config_init(&cfg);
	r = cv_config_parse_buffer(&cfg, "t.ini", text, strlen(text), err);
	cv_config_release(&cfg);
	return r;
}

/* One configuration, read the same by inih and by the profile API. */
static void
config(void)
{
#ifdef _WIN32
#define ABS "C:\\stores"
#else
#define ABS "/stores"
#endif
	static const char text[] = "; a test configuration\n"
				   "# a comment of inih's other kind\n"
				   "[remote]\n"
				   "mirror = https://mirror.example/cudnn/\n"
				   "timeout=30\n"
				   "\n"
				   "[install]\n"
				   "validate   =   no\r\n"
				   "threads = 4\n"
				   "[store]\n"
				   "path = " ABS "\\caf\xc3\xa9 store\n";
	struct cv_config cfg;
	struct cv_err err = CV_ERR_INIT;
	char *v = NULL;

	cv_config_init(&cfg);
	CHECK(cv_config_parse_buffer(&cfg, "t.ini", text, strlen(text), &err) ==
	      0);
	CHECK(cv_config_value(&cfg, "remote.mirror", &v, &err) == 0 &&
	      strcmp(v, "https://mirror.example/cudnn/") == 0);
	free(v);
	CHECK(cv_config_value(&cfg, "remote.timeout", &v, &err) == 0 &&
	      strcmp(v, "30") == 0);
	free(v);
	CHECK(cv_config_value(&cfg, "install.validate", &v, &err) == 0 &&
	      strcmp(v, "no") == 0);
	free(v);
	CHECK(cv_config_value(&cfg, "install.threads", &v, &err) == 0 &&
	      strcmp(v, "4") == 0);
	free(v);
	CHECK(cv_config_value(&cfg, "store.path", &v, &err) == 0 &&
	      strcmp(v, ABS "\\caf\xc3\xa9 store") == 0);
	free(v);
	cv_config_release(&cfg);
	/* refused the same way, with the key's line */
	CHECK(parse_text("[remote]\n\nmirorr = x\n", &err) == CV_ECONFIG &&
	      strstr(err.msg, "t.ini:3:") != NULL);
	CHECK(parse_text("[remote]\ntimeout = 3\ntimeout = 4\n", &err) ==
		      CV_ECONFIG &&
	      strstr(err.msg, "set twice") != NULL);
	CHECK(parse_text("[remote]\njunk\n", &err) == CV_ECONFIG);
	CHECK(parse_text("[install]\nvalidate = maybe\n", &err) == CV_ECONFIG &&
	      strstr(err.msg, "t.ini:2:") != NULL);
	/* what cudnnvm.ini(5) says the two read differently */
#ifdef _WIN32
	CHECK(parse_text("[install]\nvalidate = no ; c\n", &err) == CV_ECONFIG);
	CHECK(parse_text("timeout = 3\n[remote]\n", &err) == 0);
#else
	CHECK(parse_text("[install]\nvalidate = no ; c\n", &err) == 0);
	CHECK(parse_text("timeout = 3\n[remote]\n", &err) == CV_ECONFIG);
#endif
}

/* The shell a child started from a shell guesses: that shell. */
static void
shell_parent(void)
{
	struct cv_child c = CV_CHILD_INIT;
	struct cv_err err = CV_ERR_INIT;
#ifdef _WIN32
	/* wine's cmd.exe, from its system folder on PATH */
	const char *args[] = { "cmd.exe", "/c", self, "--guess", NULL };
	int want = CV_SHELL_CMD;
#else
	char line[4200];
	const char *args[] = { "/bin/sh", "-c", line, NULL };
	int want = CV_SHELL_SH;
	/* a second command keeps sh from exec'ing the last one itself */
	snprintf(line, sizeof line, "'%s' --guess; exit $?", self);
#endif
	c.argv = args;
	c.flags = CV_CHILD_SEARCH_PATH;
	CHECK(cv_child_run(&c, &err) == 10 + want);
}

static volatile sig_atomic_t interrupted;

static void
on_first(void)
{
	interrupted = 1;
}

/* The first interrupt calls first() and the process goes on. */
static void
interrupts(void)
{
	int waited = 0;

	cv_interrupt_catch(on_first);
#ifdef _WIN32
	/* a Ctrl-C goes to the console's processes: one of our own when
	 * started without one (wine under make); no console, no case */
	if (!GenerateConsoleCtrlEvent(CTRL_C_EVENT, 0) &&
	    (!AllocConsole() || !GenerateConsoleCtrlEvent(CTRL_C_EVENT, 0))) {
		printf("ok %d - # SKIP no console to send Ctrl-C\n", ++t_run);
		return;
	}
#else
	raise(SIGINT);
#endif
	while (!interrupted && waited++ < 50)
		pause_ms(100);
	CHECK(interrupted == 1);
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--argv") == 0)
		return print_argv(argc, argv);
	if (argc == 3 && strcmp(argv[1], "--hold") == 0)
		return hold(argv);
	if (argc == 3 && strcmp(argv[1], "--sleep") == 0)
		return sleeper(argv);
	if (argc == 2 && strcmp(argv[1], "--guess") == 0)
		return 10 + cv_shell_guess();
	if (argc == 3 && strcmp(argv[1], "--lock-dir") == 0) {
		/* 0 when the folder's lock was free, 1 when held */
		int fd = cv_os_open(argv[2], CV_OPEN_READ | CV_OPEN_DIR, 0);
		if (fd < 0)
			return 2;
		if (cv_os_lock(fd, CV_LOCK_EX | CV_LOCK_NOWAIT) == 0)
			return 0;
		return errno == EWOULDBLOCK || errno == EAGAIN ? 1 : 3;
	}
	if (argc == 3 && strcmp(argv[1], "--exit") == 0)
		return atoi(argv[2]);
	if (argc == 3 && strcmp(argv[1], "--env") == 0) {
		const char *v = getenv(argv[2]);
		fprintf(stderr, "to-stderr\n");
		printf("%s\n", v != NULL ? v : "(unset)");
		return 0;
	}
	if (cv_child_self(self, NULL) < 0)
		return 1;
	if (argc == 3 && strcmp(argv[1], "--spawn") == 0)
		return spawner(argv);
#ifdef _WIN32
	{
		const char *tmp = getenv("TEMP");
		snprintf(dir, sizeof dir, "%s\\cv-test-port.%ld",
			 tmp != NULL ? tmp : ".", cv_os_pid());
	}
#else
	snprintf(dir, sizeof dir, "/tmp/cv-test-port.%ld", cv_os_pid());
#endif
	if (cv_os_mkdir(dir, 0700) != 0)
		return 1;
	platform();
	files();
	locks();
	lock_process();
	lock_folder();
	quoting();
	statuses();
	timeout();
	places();
	shell_parent();
	config();
	interrupts();
	if (cv_fs_rmtree(dir, NULL) != 0)
		return 1;
	return TEST_DONE();
}
