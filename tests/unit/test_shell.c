/* test_shell.c: quoting per shell (doc/reliability.md V3). Each quoted value
 * is fed back through the real sh and fish where they exist. */
#include "base/base.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A check that cannot run here says so (TAP SKIP) instead of vanishing. */
#define SKIP(why)                                        \
	do {                                             \
		t_run++;                                 \
		printf("ok %d # SKIP %s\n", t_run, why); \
	} while (0)

static char *
q(int sh, const char *s)
{
	struct cv_buf *b = cv_text_new();
	struct cv_err err = CV_ERR_INIT;
	char *out;

	if (cv_shell_quote(b, sh, s, &err) < 0) {
		cv_text_free(b);
		return NULL;
	}
	out = strdup(cv_text_str(b));
	cv_text_free(b);
	return out;
}

static int
quoted_is(int sh, const char *s, const char *want)
{
	char *got = q(sh, s);
	int ok = got != NULL && strcmp(got, want) == 0;

	if (!ok)
		printf("# got [%s] want [%s]\n", got ? got : "(refused)", want);
	free(got);
	return ok;
}

/* Round trip through a real shell: eval the assignment, print the value. */
static int
round_trip(const char *shell, int sh, const char *value)
{
	struct cv_buf *b = cv_text_new();
	struct cv_err err = CV_ERR_INIT;
	char path[] = "/tmp/cv-test-shell.XXXXXX", cmd[256], got[512];
	size_t n;
	FILE *f, *p;
	int fd, ok;

	if (cv_shell_set(b, sh, "CV_T", value, 1, &err) < 0)
		return 0;
	cv_text_add(b,
		    sh == CV_SHELL_FISH ? "printf '%s' \"$CV_T\"\n"
					: "printf '%s' \"$CV_T\"\n",
		    19);
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fputs(cv_text_str(b), f);
	fclose(f);
	cv_text_free(b);
	snprintf(cmd, sizeof cmd, "%s %s", shell, path);
	p = popen(cmd, "r");
	n = fread(got, 1, sizeof got - 1, p);
	pclose(p);
	got[n] = '\0';
	unlink(path);
	ok = strcmp(got, value) == 0;
	if (!ok)
		printf("# %s: got [%s] want [%s]\n", shell, got, value);
	return ok;
}

int
main(void)
{
	static const char *const hard[] = {
		"/plain/path",     "/with space/x", "/it's/quoted",
		"/dollar/$HOME/x", "/back`tick`/x", "/new\nline/x",
		"/back\\slash/x",  "/dq\"/x",       "/semi;colon&amp|/x",
		"/star*/?/[a]/x",  "/ü/ñ/x",        "",
	};
	int sh;
	struct cv_err err = CV_ERR_INIT;

	CHECK(cv_shell_parse("bash", &sh, &err) == 0 && sh == CV_SHELL_BASH);
	CHECK(cv_shell_parse("dash", &sh, &err) == 0 && sh == CV_SHELL_SH);
	CHECK(cv_shell_parse("pwsh", &sh, &err) == 0 && sh == CV_SHELL_PWSH);
	CHECK(cv_shell_parse("tcsh", &sh, &err) == 0 && sh == CV_SHELL_CSH);
	CHECK(cv_shell_parse("nushell", &sh, &err) == CV_EUSAGE);

	CHECK(quoted_is(CV_SHELL_SH, "a'b", "'a'\\''b'"));
	CHECK(quoted_is(CV_SHELL_SH, "$x `y`", "'$x `y`'"));
	CHECK(quoted_is(CV_SHELL_FISH, "a'b\\c", "'a\\'b\\\\c'"));
	CHECK(quoted_is(CV_SHELL_PWSH, "a'b$c", "'a''b$c'"));
	CHECK(quoted_is(CV_SHELL_PWSH,
			"a\xe2\x80\x99"
			"b",
			"'a\xe2\x80\x99\xe2\x80\x99"
			"b'"));
	CHECK(quoted_is(CV_SHELL_CMD, "C:\\a 50%", "C:\\a 50%%"));
	CHECK(q(CV_SHELL_CMD, "a\nb") == NULL);
	CHECK(q(CV_SHELL_CMD, "a\"b") == NULL);

	for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++) {
		CHECK(round_trip("sh", CV_SHELL_SH, hard[i]));
		if (access("/bin/dash", X_OK) == 0)
			CHECK(round_trip("dash", CV_SHELL_SH, hard[i]));
		else
			SKIP("dash is not installed");
		if (access("/usr/bin/zsh", X_OK) == 0 ||
		    access("/bin/zsh", X_OK) == 0)
			CHECK(round_trip("zsh", CV_SHELL_ZSH, hard[i]));
		else
			SKIP("zsh is not installed");
		if (access("/usr/bin/fish", X_OK) == 0)
			CHECK(round_trip("fish", CV_SHELL_FISH, hard[i]));
		else
			SKIP("fish is not installed");
	}
	/* names are checked */
	{
		struct cv_buf *b = cv_text_new();
		CHECK(cv_shell_set(b, CV_SHELL_SH, "A;rm", "x", 1, &err) ==
		      CV_EUSAGE);
		CHECK(cv_shell_set(b, CV_SHELL_SH, "A", NULL, 1, &err) == 0 &&
		      strcmp(cv_text_str(b), "unset A\n") == 0);
		cv_text_free(b);
	}
	/* every shell with a prompt hook has an init script, others not */
	{
		struct cv_buf *b = cv_text_new();
		CHECK(cv_shell_init_script(b, CV_SHELL_BASH, "/o p/cudnnvm",
					   &err) == 0 &&
		      strstr(cv_text_str(b), "-nt") != NULL);
		/* the hook calls the binary by its quoted absolute path */
		CHECK(strstr(cv_text_str(b), "'/o p/cudnnvm' hook-env") !=
			      NULL &&
		      strstr(cv_text_str(b), "command cudnnvm") == NULL);
		CHECK(cv_shell_init_script(b, CV_SHELL_SH, "/x", &err) ==
		      CV_EUSAGE);
		cv_text_free(b);
	}
	/* csh: setenv/unsetenv, each command ended by ';' (eval `...` joins
	 * lines), ' carried, a newline refused */
	{
		struct cv_buf *b = cv_text_new();
		CHECK(cv_shell_set(b, CV_SHELL_CSH, "A", "it's $x !", 1,
				   &err) == 0 &&
		      strcmp(cv_text_str(b), "setenv A 'it'\\''s $x \\!';\n") ==
			      0);
		cv_text_free(b);
		b = cv_text_new();
		CHECK(cv_shell_set(b, CV_SHELL_CSH, "A", NULL, 1, &err) == 0 &&
		      strcmp(cv_text_str(b), "unsetenv A;\n") == 0);
		CHECK(cv_shell_set(b, CV_SHELL_CSH, "A", "a\nb", 1, &err) ==
		      CV_EDATA);
		cv_text_free(b);
		b = cv_text_new();
		CHECK(cv_shell_init_script(b, CV_SHELL_CSH, "/x/cudnnvm",
					   &err) == 0 &&
		      strstr(cv_text_str(b), "alias cwdcmd") != NULL &&
		      strchr(cv_text_str(b), '#') == NULL);
		cv_text_free(b);
	}
	/* PowerShell: the prompt function wrapped, the user's own kept
	 * (taken once, so a second init does not wrap the wrapper) and
	 * called after the hook, $LASTEXITCODE kept across it, the exe
	 * called by its quoted path */
	{
		struct cv_buf *b = cv_text_new();
		const char *t;
		CHECK(cv_shell_init_script(
			      b, CV_SHELL_PWSH,
			      "C:\\Program Files\\it's\\cudnnvm.exe",
			      &err) == 0);
		t = cv_text_str(b);
		CHECK(strstr(t,
			     "if (-not $global:__cudnnvm_prompt) { "
			     "$global:__cudnnvm_prompt = $function:prompt }\n") !=
		      NULL);
		CHECK(strstr(t, "function global:prompt { __cudnnvm_hook; & "
				"$global:__cudnnvm_prompt }\n") != NULL);
		CHECK(strstr(t,
			     "$out = & 'C:\\Program Files\\it''s\\cudnnvm.exe' "
			     "hook-env --shell powershell\n") != NULL);
		CHECK(strstr(t, "$cv_s = $global:LASTEXITCODE\n") != NULL &&
		      strstr(t, "$global:LASTEXITCODE = $cv_s\n") != NULL &&
		      strstr(t, "$cv_s = $global:LASTEXITCODE") <
			      strstr(t, "hook-env"));
		CHECK(strstr(t, "@EXE@") == NULL);
		cv_text_free(b);
	}
	/* cmd.exe has no prompt hook: refused (64), with the env line that
	 * works there as the hint */
	{
		struct cv_buf *b = cv_text_new();
		CHECK(cv_shell_init_script(b, CV_SHELL_CMD, "C:\\x.exe",
					   &err) == CV_EUSAGE &&
		      strstr(err.msg, "cmd.exe has no prompt hook") != NULL &&
		      strstr(err.hint, "cudnnvm env --shell cmd > "
				       "\"%TEMP%\\cudnnvm-env.cmd\" && call "
				       "\"%TEMP%\\cudnnvm-env.cmd\"") != NULL);
		CHECK(*cv_text_str(b) == '\0');
		cv_text_free(b);
	}
	return TEST_DONE();
}
