# completions/embed.py: regenerate cmd/completions.c from the completion files
# (they are the one source). Run from the repo root: python3 completions/embed.py
import json
def cstr(name, path):
    s = open(path).read()
    lines = s.splitlines(True)
    out = 'static const char %s[] =\n' % name
    out += '\n'.join('\t' + json.dumps(l).replace('\\u00', '\\x') for l in lines) + ';\n'
    return out
c = '''/* completions.c: `completions <bash|zsh|fish>` prints the completion script.
 * The text below is completions/cudnnvm.bash, completions/_cudnnvm and
 * completions/cudnnvm.fish byte for byte, written by completions/embed.py
 * (tests/e2e/docs.bats checks it). */
#include "cmd.h"
#include "ui.h"

#include <stdio.h>
#include <string.h>

''' + cstr('comp_bash', 'completions/cudnnvm.bash') + '\n' + cstr('comp_zsh', 'completions/_cudnnvm') + '\n' + cstr('comp_fish', 'completions/cudnnvm.fish') + '''
int
cmd_completions(int argc, char **argv)
{
	if (argc != 2)
		return cmd_usage_error("completions", "expected a shell name");
	if (strcmp(argv[1], "bash") == 0)
		fputs(comp_bash, stdout);
	else if (strcmp(argv[1], "zsh") == 0)
		fputs(comp_zsh, stdout);
	else if (strcmp(argv[1], "fish") == 0)
		fputs(comp_fish, stdout);
	else
		return cmd_usage_error("completions",
				       "no completions for '%s'; use bash, zsh or fish",
				       argv[1]);
	return 0;
}
'''
open('cmd/completions.c', 'w').write(c)
