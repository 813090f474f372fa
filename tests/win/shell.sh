#!/usr/bin/env bash
# shell.sh WIN_BUILD: cudnnvm.exe's shell side under wine (TAP), in a
# store of its own (CUDNNVM_STORE, under the wine prefix's AppData\Local)
# and a temp folder of its own: `exec` through base's CreateProcessW
# child (the store's cudnn64_8.dll found first on the child's PATH,
# arguments with spaces and quotes arriving whole, the child's exit code
# becoming exec's, 127 for a command that is not there); `hook-env --shell
# cmd`, run by wine's cmd.exe, and `--shell powershell`'s $env: lines;
# `init cmd` refused (64) with hints that work in cmd.exe; `venv` on a
# Windows venv refused (64) as not done yet, nothing written.
set -u
build=${1:-build-win}
here=$(cd "$(dirname "$0")/../.." && pwd)
exe="$here/$build/cudnnvm.exe"
echo_exe="$here/$build/winexec.exe"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudnnvm-winshell.XXXXXX") || exit 1
export WINEPREFIX="$here/$build/wine" WINEDEBUG=${WINEDEBUG:--all} WINEDLLOVERRIDES="mscoree,mshtml="
user=$(id -un)
store_u="$WINEPREFIX/drive_c/users/$user/AppData/Local/cudnnvm-shell-test"
store_w="C:\\users\\$user\\AppData\\Local\\cudnnvm-shell-test"
trap 'rm -rf "$tmp" "$store_u"' EXIT
rm -rf "$store_u"
unset CUDA_HOME CUDA_PATH CUDNNVM_VERSION CUDNNVM_CONFIG XDG_DATA_HOME XDG_CONFIG_HOME
export CUDNNVM_STORE="$store_w"
. "$here/tests/win/tap.sh"
winpath() { printf 'Z:%s' "${1//\//\\}"; }

v8=$("$here/tests/win/mkcudnn.sh" "$tmp" 8.9.7.29 12) || exit 1
run install --archive "$(winpath "$v8.zip")" --sha256 "$(sha256sum "$v8.zip" | cut -d' ' -f1)"
[ -e "$store_u/8.9.7.29-cuda12/bin/cudnn64_8.dll" ]
ok "install --archive into the store named by CUDNNVM_STORE" $?
bin_w="$store_w\\8.9.7.29-cuda12\\bin"

# exec: the child's PATH has the version's bin folder first
# (the exact id: a CUDA of this machine's, seen through wine's Z:, asks
# for no other build; wine's where.exe is a stub, so cmd's own PATH search)
id=8.9.7.29-cuda12
run exec $id -- cmd /c 'for %i in (cudnn64_8.dll) do @echo found:%~$PATH:i'
[ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "found:$bin_w\\cudnn64_8.dll" ]
ok "exec $id -- cmd /c (cmd's PATH search): the store's cudnn64_8.dll first" $?
run exec $id -- "$(winpath "$echo_exe")" echo "a b" 'say "hi"' 'back\slash\' '' tail
printf '[a b]\n[say "hi"]\n[back\\slash\\]\n[]\n[tail]\n' >"$tmp/want"
[ "$rc" -eq 3 ] && cmp -s "$tmp/want" "$tmp/out"
ok "exec: arguments with spaces, quotes and backslashes arrive whole; the child's exit code (3) is exec's" $?
run exec $id -- cmd /c exit 42
[ "$rc" -eq 42 ]
ok "exec: cmd /c exit 42 gives 42" $?
# from 9.18 the DLLs are in bin\x64, which PATH then names
v9=$("$here/tests/win/mkcudnn.sh" "$tmp" 9.19.0.56 12) || exit 1
run install --archive "$(winpath "$v9.zip")" --sha256 "$(sha256sum "$v9.zip" | cut -d' ' -f1)"
run exec 9.19.0.56-cuda12 -- cmd /c 'for %i in (cudnn64_9.dll) do @echo found:%~$PATH:i'
[ "$rc" -eq 0 ] && [ "$(cat "$tmp/out")" = "found:$store_w\\9.19.0.56-cuda12\\bin\\x64\\cudnn64_9.dll" ]
ok "exec 9.19 (DLLs in bin\\x64): cmd's PATH search finds the store's cudnn64_9.dll" $?
run exec $id -- cudnnvm-no-such-program
[ "$rc" -eq 127 ] && [ "$(grep -c . "$tmp/out")" -eq 1 ] &&
	has "cudnnvm: cannot run 'cudnnvm-no-such-program': No such file or directory; check the name and your PATH"
ok "exec of a command that is not there: one cudnnvm: line, 127" $?
run exec 7.1 -- cmd /c exit 0
[ "$rc" -ne 0 ] && has "cudnnvm: " && has "7.1"
ok "exec of a version that is not installed: refused, the child never runs" $?

# hook-env in a folder pinned to 8.9: cmd.exe runs its lines
mkdir -p "$tmp/proj"
printf '%s\n' "$id" >"$tmp/proj/.cudnn-version"
(cd "$tmp/proj" && timeout 60 wine "$exe" hook-env --shell cmd >"$tmp/hook.raw" 2>"$tmp/hook.err")
rc=$?
tr -d '\r' <"$tmp/hook.raw" >"$tmp/out"
[ "$rc" -eq 0 ] && has "set \"CUDNNVM_ACTIVE=$id\"" && has "set \"PATH=$bin_w;" && has "set \"CUDNN_LIB_DIR=$store_w\\$id\\lib\\x64\"" &&
	! grep -qv $'\r$' "$tmp/hook.raw"
ok "hook-env --shell cmd in a pinned folder: set lines, CRLF" $?
{
	printf '@echo off\r\n'
	cat "$tmp/hook.raw"
	printf 'for %%%%i in (cudnn64_8.dll) do @echo found:%%%%~$PATH:i\r\n'
	printf 'echo active:%%CUDNNVM_ACTIVE%%\r\n'
} >"$tmp/hook.cmd"
timeout 60 wine cmd /c "$(winpath "$tmp/hook.cmd")" 2>&1 | tr -d '\r' >"$tmp/out"
has "found:$bin_w\\cudnn64_8.dll" && has "active:$id"
ok "hook-env --shell cmd, run by cmd.exe: its PATH search finds the store's cudnn64_8.dll" $?
(cd "$tmp/proj" && timeout 60 wine "$exe" hook-env --shell powershell 2>&1 | tr -d '\r' >"$tmp/out")
has "\$env:CUDNNVM_ACTIVE = '$id'" && has "\$env:PATH = '$bin_w;" &&
	! grep -v '^\$env:[A-Za-z_][A-Za-z0-9_]* = '"'"'[^'"'"']*'"'"'$' "$tmp/out" | grep -qv '^Remove-Item -ErrorAction SilentlyContinue Env:'
ok "hook-env --shell powershell in a pinned folder: \$env: lines only, the store's bin first on PATH" $?

# init: PowerShell's prompt hook names this exe; cmd.exe has no prompt
# hook, so init cmd says what works there instead
run init powershell
[ "$rc" -eq 0 ] && has "hook-env --shell powershell" && has 'cudnnvm.exe' && has 'function global:prompt'
ok "init powershell: the prompt wrapper calling this exe's hook-env" $?
run init cmd
[ "$rc" -eq 64 ] && has "cudnnvm: cmd.exe has no prompt hook" && has "cudnnvm exec <spec> -- <command>" &&
	[ "$(grep -c '^hint: ' "$tmp/out")" -eq 1 ]
ok "init cmd: refused (64), saying what works in cmd.exe" $?
# its hint, as printed (cudnnvm named by its path), run by cmd.exe in the
# pinned folder: this cmd.exe's PATH then finds the store's DLL
line=$(sed -n 's/^hint: cudnnvm //p' "$tmp/out")
printf '@echo off\r\n"%s" %s\r\nfor %%%%i in (cudnn64_8.dll) do @echo found:%%%%~$PATH:i\r\n' \
	"$(winpath "$exe")" "$line" >"$tmp/hint.cmd"
(cd "$tmp/proj" && timeout 60 wine cmd /c "$(winpath "$tmp/hint.cmd")" 2>&1 | tr -d '\r' >"$tmp/out")
has "found:$bin_w\\cudnn64_8.dll"
ok "init cmd's hint, run by cmd.exe: its PATH then finds the store's cudnn64_8.dll" $?
# venv on a venv made by a Windows Python (Scripts\, Lib\site-packages):
# not pinned yet, said as such (64), nothing written into it
wv="$tmp/winvenv"
mkdir -p "$wv/Scripts" "$wv/Lib/site-packages"
printf '@echo off\r\nset "VIRTUAL_ENV=x"\r\n' >"$wv/Scripts/activate.bat"
printf 'function global:deactivate {}\r\n' >"$wv/Scripts/Activate.ps1"
printf 'home = C:\\Python312\r\n' >"$wv/pyvenv.cfg"
(cd "$wv" && find . -type f -exec sha256sum {} + | sort) >"$tmp/venv.before"
run venv "$id" --path "$(winpath "$wv")"
[ "$rc" -eq 64 ] && has "is a Windows venv (Scripts\\activate.bat): 'cudnnvm venv' does not pin those yet" &&
	(cd "$wv" && find . -type f -exec sha256sum {} + | sort) | cmp -s - "$tmp/venv.before"
ok "venv on a Windows venv: refused (64) as not supported yet, nothing written" $?
echo "1..$n"
[ "$failed" -eq 0 ]
