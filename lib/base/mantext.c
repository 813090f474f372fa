/* mantext.c: a command's entry of the man page as text, for `cudnnvm help
 * <command>` where man(1) is absent (a container, a pip install on a
 * minimal system). make install renders the page once with mandoc into
 * <datadir>/cudnnvm.1.txt; this finds that file from the executable's own
 * place, so it follows the binary wherever an installer put it. */
#include "base/base_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CV_DATADIR
#define CV_DATADIR "/usr/local/share/cudnnvm"
#endif
/* mandoc's indentation of a -tag list's head in the COMMANDS section */
#define HEAD "     cudnnvm "

/* 1 when an executable NAME is in a folder of PATH. */
int
cv_path_has_program(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL;
	int found = 0;

	if (path == NULL)
		return 0;
	copy = xstrdup(path);
	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *f = cv_path_join(*dir ? dir : ".", name);
		struct stat sb;
		found = stat(f, &sb) == 0 && S_ISREG(sb.st_mode) &&
			access(f, X_OK) == 0;
		free(f);
	}
	free(copy);
	return found;
}

/* 1 when LINE heads CMD's entry: "     cudnnvm CMD" and a blank or end */
static int
heads(const char *line, const char *cmd)
{
	size_t n = strlen(cmd);

	return strncmp(line, HEAD, strlen(HEAD)) == 0 &&
	       strncmp(line + strlen(HEAD), cmd, n) == 0 &&
	       (line[strlen(HEAD) + n] == ' ' ||
		line[strlen(HEAD) + n] == '\n');
}

/* The entry of CMD in the COMMANDS section of the rendered page F: its
 * head lines and the text below them, up to the next command's head or
 * the next section. */
static int
entry(FILE *f, const char *cmd, struct cv_buf *out)
{
	char *line = NULL;
	size_t cap = 0;
	int in = 0, commands = 0;

	while (getline(&line, &cap, f) >= 0) {
		int head = strncmp(line, HEAD, strlen(HEAD)) == 0;
		if (in && ((head && !heads(line, cmd)) ||
			   (line[0] != ' ' && line[0] != '\n')))
			break;
		if (strcmp(line, "COMMANDS\n") == 0)
			commands = 1;
		else if (line[0] != ' ' && line[0] != '\n')
			commands = 0;
		if (!in && commands && heads(line, cmd))
			in = 1;
		if (in)
			cv_buf_adds(out, line);
	}
	free(line);
	return in;
}

int
cv_man_command_text(const char *cmd, char **out)
{
	char self[PATH_MAX], *dir, *try[3];
	struct cv_err err = CV_ERR_INIT;
	struct cv_buf b = CV_BUF_INIT;
	int found = 0;

	*out = NULL;
	if (cv_path_has_program("man") || cv_child_self(self, &err) < 0)
		return 0;
	dir = self;
	*strrchr(dir, '/') = '\0';
	/* the front binary in bin/, the helper in libexec/cudnnvm/ */
	try[0] = xasprintf("%s/../share/cudnnvm/cudnnvm.1.txt", dir);
	try[1] = xasprintf("%s/../../share/cudnnvm/cudnnvm.1.txt", dir);
	try[2] = xstrdup(CV_DATADIR "/cudnnvm.1.txt");
	for (int i = 0; i < 3 && !found; i++) {
		FILE *f = fopen(try[i], "re");
		if (f == NULL)
			continue;
		found = entry(f, cmd, &b);
		fclose(f);
	}
	for (int i = 0; i < 3; i++)
		free(try[i]);
	if (found)
		*out = cv_buf_detach(&b);
	else
		cv_buf_reset(&b);
	return found;
}
