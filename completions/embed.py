# completions/embed.py: rewrite the three scripts embedded in cmd/completions.c
# from the completion files (they are the one source); the C code around them
# is kept as it is. Run from the repo root: python3 completions/embed.py
import json


def cstr(name, path):
    lines = open(path).read().splitlines(True)
    out = 'static const char %s[] =\n' % name
    out += '\n'.join('\t' + json.dumps(l).replace('\\u00', '\\x') for l in lines) + ';\n'
    return out


src = open('cmd/completions.c').read()
start = src.index('static const char comp_bash[] =')
end = src.index('\nint\ncmd_completions(')
arrays = '\n'.join([cstr('comp_bash', 'completions/cudnnvm.bash'),
                    cstr('comp_zsh', 'completions/_cudnnvm'),
                    cstr('comp_fish', 'completions/cudnnvm.fish')])
open('cmd/completions.c', 'w').write(src[:start] + arrays + src[end:])
