#!/usr/bin/env bash
# exe.sh WIN_BUILD: cudnnvm.exe itself under wine (TAP), in a store of its
# own under the wine prefix's %LOCALAPPDATA%: --version; a Linux-only
# command's one line (64); an NVIDIA-shaped Windows zip of real PE DLLs
# (mkcudnn.sh) installed with --archive through the project's zip reader,
# a wrong sha256 refused (65) with nothing published; the validation child
# failing on the missing zlibwapi.dll, then `validate --no-gpu` passing
# with the DLL loaded from the version's folder, and `validate` with a
# stand-in nvcuda.dll running the convolution (mknvcuda.sh);
# `env --shell cmd` run by
# wine's cmd.exe, whose own PATH search then finds the store's
# cudnn64_8.dll; `use` pinning a folder, found from a child folder;
# zips holding '..', a drive letter, CON, a trailing dot or a ':' stream
# refused (65) with nothing published; `global` refused where there are no
# junctions (wine 8); plain http refused; list-remote and install from the
# loopback HTTPS mirror through WinHTTP with the private CA of the config's
# [remote] ca_file, a server certificate from another CA refused (69);
# install --archive into a store whose path is over MAX_PATH, and into one
# named outside the system's code page (the UTF-8 manifest).
set -u
build=${1:-build-win}
here=$(cd "$(dirname "$0")/../.." && pwd)
exe="$here/$build/cudnnvm.exe"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudnnvm-winexe.XXXXXX") || exit 1
export WINEPREFIX="$here/$build/wine" WINEDEBUG=${WINEDEBUG:--all} WINEDLLOVERRIDES="mscoree,mshtml="
# the store: a user's own, under the prefix's AppData\Local (the user is
# this machine's, as wine names it)
user=$(id -un)
local_u="$WINEPREFIX/drive_c/users/$user/AppData/Local"
store_u="$local_u/cudnnvm"
store_w="C:\\users\\$user\\AppData\\Local\\cudnnvm"
pid=
trap '[ -n "$pid" ] && kill "$pid"; rm -rf "$tmp" "$store_u"' EXIT
rm -rf "$store_u"
# what the machine running the suite has must not reach the program
unset CUDA_HOME CUDA_PATH CUDNNVM_STORE CUDNNVM_VERSION CUDNNVM_CONFIG XDG_DATA_HOME XDG_CONFIG_HOME
. "$here/tests/win/tap.sh"

v8=$("$here/tests/win/mkcudnn.sh" "$tmp" 8.9.7.29 12) || exit 1
zip8="$v8.zip"
sha8=$(sha256sum "$zip8" | cut -d' ' -f1)
zip8w="Z:${zip8//\//\\}"

run --version
[ "$rc" -eq 0 ] && has "cudnnvm 0.1.0" && has "WinHTTP (system)"
ok "cudnnvm.exe --version" $?
run cdi
[ "$rc" -eq 64 ] && [ "$(grep -c . "$tmp/out")" -eq 1 ] && has "cudnnvm: 'cdi' is Linux-only"
ok "a Linux-only command: one cudnnvm: line, exit 64" $?
run install --archive "$zip8w" --sha256 "$(printf '0%.0s' $(seq 64))"
[ "$rc" -eq 65 ] && [ ! -e "$store_u/8.9.7.29-cuda12" ]
ok "install of the zip with a wrong sha256: 65, nothing published" $?
run install --archive "$zip8w" --sha256 "$sha8"
has "installed cuDNN 8.9.7.29-cuda12 in $store_w\\8.9.7.29-cuda12" && [ -e "$store_u/8.9.7.29-cuda12/bin/cudnn64_8.dll" ] &&
	[ -e "$store_u/8.9.7.29-cuda12/lib/x64/cudnn.lib" ] && [ -e "$store_u/8.9.7.29-cuda12/include/cudnn.h" ]
ok "install --archive of an NVIDIA-shaped Windows zip into %LOCALAPPDATA%\\cudnnvm" $?
has "failed validation (step 1, files): cuDNN 8.3 to 9.1 need zlibwapi.dll"
ok "the install's validation child says zlibwapi.dll is missing" $?
cp "$v8/bin/cudnn_ops_infer64_8.dll" "$store_u/8.9.7.29-cuda12/bin/zlibwapi.dll"
run validate 8.9 --no-gpu
[ "$rc" -eq 0 ] && has "2 version     pass (cuDNN 8.9.7)" &&
	has "3 provenance  pass (cuDNN DLLs loaded: 2, all from $store_w\\8.9.7.29-cuda12\\bin)" &&
	has "4 driver      skip: --no-gpu given"
ok "validate --no-gpu: cudnn64_8.dll loaded from the version's folder in the child, 8.9.7" $?
# with a driver: a copy of cudnnvm.exe beside a stand-in nvcuda.dll
# (mknvcuda.sh), the one its bare name finds; the child's step 5 runs the
# convolution through it and the version's DLL, and the parent says so
mkdir -p "$tmp/gpu" && cp "$exe" "$tmp/gpu/" && "$here/tests/win/mknvcuda.sh" "$tmp/gpu" 13000 || exit 1
exe_real=$exe exe="$tmp/gpu/cudnnvm.exe"
run validate 8.9
exe=$exe_real
[ "$rc" -eq 0 ] && has "4 driver      pass (driver for CUDA 13.0)" &&
	has "5 gpu         pass (Fake GPU (sm_90): 2-D convolution matches the CPU reference"
ok "validate with nvcuda.dll: the child's convolution through it, checked against the CPU" $?
run env --shell cmd 8.9
printf '@echo off\r\n' >"$tmp/env.cmd"
sed 's/$/\r/' "$tmp/out" >>"$tmp/env.cmd"
printf 'for %%%%i in (cudnn64_8.dll) do @echo found:%%%%~$PATH:i\r\n' >>"$tmp/env.cmd"
timeout 60 wine cmd /c "Z:${tmp//\//\\}\\env.cmd" 2>&1 | tr -d '\r' >"$tmp/out"
has "found:$store_w\\8.9.7.29-cuda12\\bin\\cudnn64_8.dll"
ok "env --shell cmd, run by cmd.exe: its PATH search finds the store's cudnn64_8.dll" $?
# use: the pin of a folder, which current then names (the store's
# version found from a child folder too)
mkdir -p "$tmp/proj/sub"
projw="Z:${tmp//\//\\}\\proj"
(cd "$tmp/proj" && timeout 60 wine "$exe" use 8.9 >"$tmp/out" 2>&1)
has "pinned 8.9 (8.9.7.29-cuda12) in ./.cudnn-version" &&
	[ "$(tr -d '\r' <"$tmp/proj/.cudnn-version")" = "8.9" ] &&
	(cd "$tmp/proj/sub" && timeout 60 wine "$exe" current 2>&1 | tr -d '\r' >"$tmp/out") &&
	has "8.9.7.29-cuda12 (set by $projw\\.cudnn-version)"
ok "use 8.9 pins the folder; current in a child folder names the pin file, with '\\' only" $?
# doctor in that folder (8.9 active by its pin) on a CUDA folder holding
# the seed's hand-copied cuDNN (an 8.6), named by CUDA_PATH
v86=$("$here/tests/win/mkcudnn.sh" "$tmp/old" 8.6.0.163 11) || exit 1
cudau="$WINEPREFIX/drive_c/cvtestcuda"
rm -rf "$cudau" && mkdir -p "$cudau/bin" "$cudau/include" && cp "$v86/bin"/* "$cudau/bin/" &&
	cp "$v86/include"/* "$cudau/include/"
(cd "$tmp/proj" && CUDA_PATH='C:\cvtestcuda' timeout 120 wine "$exe" doctor 2>&1 | tr -d '\r' >"$tmp/out")
rm -rf "$cudau"
has "cuDNN 8.6.0 copied into C:\cvtestcuda\bin: cudnn64_8.dll and more" &&
	has 'del "C:\cvtestcuda\bin\cudnn*64_8.dll" "C:\cvtestcuda\include\cudnn*.h"'
ok "doctor: a cuDNN copied into %CUDA_PATH%\\bin named, with its del" $?
! grep -E '/usr/local/cuda|bash|LD_LIBRARY_PATH|ld\.so|ldconfig|chmod|\.so\b' "$tmp/out" &&
	has "the active version is not applied to this cmd.exe" &&
	has 'fix: cudnnvm env --shell cmd >"%TEMP%\cudnnvm-env.cmd" && call "%TEMP%\cudnnvm-env.cmd"'
ok "doctor on Windows: no Linux finding (toolkit in /usr/local/cuda, bash hook, ld.so, chmod); cmd.exe's fix" $?
# that fix, as printed, run by cmd.exe in the pinned folder (cudnnvm.exe
# on its PATH): the session then has the active version's CUDNN_HOME
fix=$(sed -n 's/^  fix: \(cudnnvm env --shell cmd .*\)$/\1/p' "$tmp/out")
exew="Z:${here//\//\\}\\$build"
printf '@echo off\r\nset "PATH=%s;%%PATH%%"\r\n%s\r\nset CUDNN_HOME\r\n' "$exew" "$fix" >"$tmp/proj/fix.cmd"
(cd "$tmp/proj" && timeout 60 wine cmd /c "$projw\\fix.cmd" 2>&1 | tr -d '\r' >"$tmp/out")
has "CUDNN_HOME=$store_w\\8.9.7.29-cuda12"
ok "doctor's cmd.exe fix, run as printed by cmd.exe, applies the pinned version" $?
# hostile zips: the good archive with one entry more, each refused (65)
# with nothing published
for bad in '../evil.dll' 'bin/CON' 'bin/trail.' 'bin/cudnn64_8.dll:stream' 'C:/evil.dll'; do
	top=cudnn-windows-x86_64-8.9.5.30_cuda12-archive
	rm -rf "$tmp/h" && mkdir -p "$tmp/h" && cp -r "$v8" "$tmp/h/$top"
	(cd "$tmp/h" && python3 - "$top" "$bad" <<'PY'
import os, sys, zipfile
top, bad = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(top + ".zip", "w", zipfile.ZIP_DEFLATED) as z:
    for d, dirs, files in sorted(os.walk(top)):
        for f in sorted(files):
            z.write(os.path.join(d, f))
    z.writestr(bad if bad.startswith("C:") else top + "/" + bad, b"x")
PY
	)
	hz="$tmp/h/$top.zip"
	run install --archive "Z:$hz" --sha256 "$(sha256sum "$hz" | cut -d' ' -f1)"
	[ "$rc" -eq 65 ] && has "unsafe archive: entry" && [ ! -e "$store_u/8.9.5.30-cuda12" ]
	ok "a zip holding '$bad' is refused (65), nothing published" $?
done
run global 8.9
[ "$rc" -ne 0 ] && has "cannot create the global junction in '$store_w' (its file system has no junctions)"
ok "global where junctions cannot be made (wine 8): refused, saying why" $?
run install 8.9 --mirror http://127.0.0.1:9/
[ "$rc" -ne 0 ] && has "plain http is refused"
ok "a plain http mirror is refused" $?
# install from the loopback HTTPS mirror (NVIDIA's manifest shape, its
# windows-x86_64 entry the zip of mkcudnn.sh's DLLs with its sha256 and
# size) through WinHTTP, the mirror and the test CA given in the config
# file CUDNNVM_CONFIG names
f="$here/tests/fixtures"
python3 "$f/mirror.py" certs "$tmp/certs" &&
	python3 "$f/mirror.py" build "$tmp/root" "$f/manifests/redistrib_8.9.7.29.json" >/dev/null &&
	python3 - "$tmp/root/redistrib_8.9.7.29.json" "$zip8" "$tmp/root" <<'PY' || exit 1
import hashlib, json, os, shutil, sys
mf, z, root = sys.argv[1:]
with open(mf) as fh:
    m = json.load(fh)
e = m["cudnn"]["windows-x86_64"]
dst = os.path.join(root, e["relative_path"])
os.makedirs(os.path.dirname(dst), exist_ok=True)
shutil.copy(z, dst)
with open(z, "rb") as fh:
    data = fh.read()
e["sha256"] = hashlib.sha256(data).hexdigest()
e["size"] = str(len(data))
with open(mf, "w") as fh:
    json.dump(m, fh, indent=4)
PY
python3 "$f/mirror.py" serve "$tmp/root" --cert "$tmp/certs/server.pem" \
	--key "$tmp/certs/server.key" --port-file "$tmp/port" >"$tmp/server.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	[ -s "$tmp/port" ] && break
	sleep 0.1
done
tmpw="Z:${tmp//\//\\}"
conf() { # conf CA: the config file, the mirror's test CA CA (its file name)
	printf '[remote]\nmirror = https://127.0.0.1:%s/\nca_file = %s\nverify_pins = no\n' \
		"$(cat "$tmp/port")" "$tmpw\\certs\\$1" >"$tmp/config.ini"
}
# a store of its own (the one above already holds 8.9.7.29)
rs_u="$WINEPREFIX/drive_c/cvremote"
rm -rf "$rs_u"
export CUDNNVM_CONFIG="$tmpw\\config.ini" CUDNNVM_STORE='C:\cvremote'
conf ca.pem
run list-remote --json
[ "$rc" -eq 0 ] && has '"platform": "windows-x86_64"' && has '"id": "8.9.7.29-cuda12"' &&
	has "/cudnn/windows-x86_64/cudnn-windows-x86_64-8.9.7.29_cuda12-archive.zip"
ok "list-remote from the HTTPS mirror (config's mirror and ca_file) shows the Windows build" $?
run list-remote
[ "$rc" -eq 0 ] && grep -q '^8\.9\.7\.29-cuda12 .*0\.1 MiB$' "$tmp/out"
ok "list-remote: the Windows zip's size" $?
# another CA: refused by WinHTTP's chain check against ca_file's CA
conf other-ca.pem
run install 8.9 --deps never --refresh
[ "$rc" -eq 69 ] && [ "$(grep -c '^cudnnvm: ' "$tmp/out")" -eq 1 ] &&
	has "the server's certificate is not from remote.ca_file's CA" && [ ! -e "$rs_u/8.9.7.29-cuda12" ]
ok "a server certificate from another CA than ca_file's: one cudnnvm: line, 69, nothing installed (D24)" $?
conf ca.pem
run install 8.9.7.29 --deps never --no-validate
[ "$rc" -eq 0 ] && has 'installed cuDNN 8.9.7.29-cuda12 in C:\cvremote\8.9.7.29-cuda12' &&
	[ -e "$rs_u/8.9.7.29-cuda12/bin/cudnn64_8.dll" ] && [ -e "$rs_u/8.9.7.29-cuda12/include/cudnn.h" ] &&
	cmp -s "$rs_u/8.9.7.29-cuda12/bin/cudnn64_8.dll" "$v8/bin/cudnn64_8.dll" &&
	grep -q 'GET /cudnn/windows-x86_64/cudnn-windows-x86_64-8.9.7.29_cuda12-archive.zip' "$tmp/root/requests.log"
ok "install 8.9.7.29 from the HTTPS mirror through WinHTTP with the config's private CA" $?
rm -rf "$rs_u"
unset CUDNNVM_CONFIG CUDNNVM_STORE
# a store whose path is longer than MAX_PATH (260): base's Win32 face
# gives every path past it in the \\?\ form
seg=$(printf 'd%.0s' $(seq 60))
long_u="$WINEPREFIX/drive_c/cvlong/$seg/$seg/$seg/$seg/$seg/store"
long_w="C:\\cvlong\\$seg\\$seg\\$seg\\$seg\\$seg\\store"
rm -rf "$WINEPREFIX/drive_c/cvlong"
CUDNNVM_STORE=$long_w run install --archive "$zip8w" --sha256 "$sha8" --no-validate
[ "${#long_w}" -gt 260 ] && [ "$rc" -eq 0 ] && has "installed cuDNN 8.9.7.29-cuda12 in $long_w\\8.9.7.29-cuda12" &&
	cmp -s "$long_u/8.9.7.29-cuda12/bin/cudnn64_8.dll" "$v8/bin/cudnn64_8.dll" &&
	[ -e "$long_u/8.9.7.29-cuda12/lib/x64/cudnn.lib" ] && [ -e "$long_u/8.9.7.29-cuda12/include/cudnn_version.h" ]
ok "install --archive into a store whose path is over 260 characters (D25)" $?
CUDNNVM_STORE=$long_w run list
[ "$rc" -eq 0 ] && has "8.9.7.29-cuda12"
ok "list in that store names the version" $?
cp "$v8/bin/cudnn_ops_infer64_8.dll" "$long_u/8.9.7.29-cuda12/bin/zlibwapi.dll"
CUDNNVM_STORE=$long_w run validate 8.9 --no-gpu
[ "$rc" -eq 0 ] && has "3 provenance  pass (cuDNN DLLs loaded: 2, all from $long_w\\8.9.7.29-cuda12\\bin)"
ok "validate --no-gpu in that store: its DLLs loaded by their long paths (D25)" $?
# a store whose path is outside the system's code page (wine's is 1252):
# the manifest makes the process's code page UTF-8, so the environment
# arrives whole; without it 'Ω' and 'мир' arrive as 'O???'
uni_u="$WINEPREFIX/drive_c/cvuni-Ωмир/store"
uni_w='C:\cvuni-Ωмир\store'
rm -rf "$WINEPREFIX/drive_c/cvuni-Ωмир"
CUDNNVM_STORE=$uni_w run install --archive "$zip8w" --sha256 "$sha8" --no-validate
[ "$rc" -eq 0 ] && has "installed cuDNN 8.9.7.29-cuda12 in $uni_w\8.9.7.29-cuda12" &&
	[ -e "$uni_u/8.9.7.29-cuda12/bin/cudnn64_8.dll" ]
ok "a store under a folder named outside the code page (Ωмир): installed there, named whole" $?
CUDNNVM_STORE=$uni_w run list
[ "$rc" -eq 0 ] && has "$uni_w\8.9.7.29-cuda12"
ok "list finds it there" $?
rm -rf "$WINEPREFIX/drive_c/cvuni-Ωмир"
rm -rf "$WINEPREFIX/drive_c/cvlong"
echo "1..$n"
[ "$failed" -eq 0 ]
