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

#ifndef CV_DATADIR
#define CV_DATADIR "/usr/local/share/cudnnvm"
#endif
/* mandoc's indentation of a -tag list's head in the COMMANDS section */
#define HEAD "     cudnnvm "

/* 1 when an executable NAME (NAME.exe on Windows) is in a folder of
 * PATH, whose folders the platform's separator parts. */
int
cv_path_has_program(const char *name)
{
	const char *path = getenv("PATH"), *end;
	char *file = xasprintf("%s%s", name, cv_os_exe_suffix());
	int found = 0;

	for (const char *dir = path; dir != NULL && !found;
	     dir = *end ? end + 1 : NULL) {
		char *d, *f;
		struct cv_stat sb;
		end = strchr(dir, cv_os_path_list_sep());
		if (end == NULL)
			end = dir + strlen(dir);
		d = xstrndup(dir, (size_t)(end - dir));
		f = cv_path_join(*d ? d : ".", file);
		found = cv_os_stat(f, &sb) == 0 && sb.kind == CV_KIND_FILE &&
			cv_os_access(f, CV_ACCESS_EXEC) == 0;
		free(f);
		free(d);
	}
	free(file);
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

/* The next line of text (its '\n' kept, the last one's added) into
 * line; 0 at the end. */
static int
next_line(const char **text, struct cv_buf *line)
{
	const char *s = *text, *nl;

	if (*s == '\0')
		return 0;
	nl = strchr(s, '\n');
	cv_buf_reset(line);
	cv_buf_add(line, s, nl != NULL ? (size_t)(nl - s) : strlen(s));
	cv_buf_add(line, "\n", 1);
	*text = nl != NULL ? nl + 1 : s + strlen(s);
	return 1;
}

/* The entry of CMD in the COMMANDS section of the rendered page TEXT:
 * its head lines and the text below them, up to the next command's head
 * or the next section. */
static int
entry(const char *text, const char *cmd, struct cv_buf *out)
{
	struct cv_buf b = CV_BUF_INIT;
	int in = 0, commands = 0;

	while (next_line(&text, &b)) {
		const char *line = b.buf;
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
	cv_buf_release(&b);
	return in;
}

/* The whole rendered page at path (xmalloc'd), NULL when it cannot be
 * read; a page is text, so a NUL in it ends it. */
static char *
read_page(const char *path)
{
	struct cv_stat sb;
	char *text = NULL;
	int fd = cv_os_open(path, CV_OPEN_READ, 0);

	if (fd < 0)
		return NULL;
	if (cv_os_fstat(fd, &sb) == 0 && sb.kind == CV_KIND_FILE &&
	    sb.size < (64u << 20)) {
		text = xmalloc((size_t)sb.size + 1);
		if (cv_os_read_full(fd, text, (size_t)sb.size + 1) < 0) {
			free(text);
			text = NULL;
		}
	}
	cv_os_close(fd);
	return text;
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
	/* Windows names the executable with '\\' (and takes '/' after it) */
	if (strcmp(cv_os_family(), "windows") == 0)
		for (char *c = dir; *c; c++)
			if (*c == '\\')
				*c = '/';
	*strrchr(dir, '/') = '\0';
	/* the front binary in bin/, the helper in libexec/cudnnvm/ */
	try[0] = xasprintf("%s/../share/cudnnvm/cudnnvm.1.txt", dir);
	try[1] = xasprintf("%s/../../share/cudnnvm/cudnnvm.1.txt", dir);
	try[2] = xstrdup(CV_DATADIR "/cudnnvm.1.txt");
	for (int i = 0; i < 3 && !found; i++) {
		char *text = read_page(try[i]);
		if (text == NULL)
			continue;
		found = entry(text, cmd, &b);
		free(text);
	}
	for (int i = 0; i < 3; i++)
		free(try[i]);
	if (found)
		*out = cv_buf_detach(&b);
	else
		cv_buf_reset(&b);
	return found;
}
