#!/usr/bin/env bash
# suite.sh WIN_BUILD: the Windows validation child's steps under wine
# (TAP), on NVIDIA-shaped Windows cuDNN folders built here with real PE
# DLLs (mkcudnn.sh): a good 8.9 (bin/) and 9.18 (bin/x64/) pass, loaded
# from their folder; 8.9 without zlibwapi.dll, a DLL patched to the i386
# machine, a file that is no PE, a version other than the install's, and
# a process already holding another copy of a sub-library (the loader
# binds the import to it) each fail, saying so; with a stand-in
# nvcuda.dll, step 5's convolution runs and is checked. WINEPREFIX as
# run.sh's.
set -u
build=${1:-build-win}
here=$(cd "$(dirname "$0")/../.." && pwd)
probe="$here/$build/winprobe.exe"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudnnvm-winsuite.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export WINEPREFIX="$here/$build/wine" WINEDEBUG=${WINEDEBUG:--all} WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$WINEPREFIX"
n=0 failed=0
ok() { # ok NAME STATUS: one TAP line
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then echo "ok $n - $1"; else
		echo "not ok $n - $1"
		failed=$((failed + 1))
		sed 's/^/# /' "$tmp/out"
	fi
}
# run DIR MAJOR EXPECT [args]: the probe's lines into $tmp/out
run() {
	local d=$1
	shift
	timeout 120 wine "$probe" "Z:$d" "$@" 2>&1 | tr -d '\r' >"$tmp/out"
}
has() { grep -qF -- "$1" "$tmp/out"; }

v8=$("$here/tests/win/mkcudnn.sh" "$tmp" 8.9.6.50 12) &&
	v9=$("$here/tests/win/mkcudnn.sh" "$tmp" 9.18.0.77 12) || exit 1
# NVIDIA's archive has no zlibwapi.dll: the user adds it (here any x64 DLL
# of that name stands in)
run "$v8/bin" 8 8906
has "result 0 fail cuDNN 8.3 to 9.1 need zlibwapi.dll" && has "result 1 skip"
ok "8.9 without zlibwapi.dll: the files step fails naming it" $?
cp "$v9/bin/x64/cudnn_ops64_9.dll" "$v8/bin/zlibwapi.dll"
run "$v8/bin" 8 8906
has "result 0 pass" && has "fact cudnn_version 8906" && has "result 1 pass cuDNN 8.9.6" &&
	has "result 2 pass cuDNN DLLs loaded: 2, all from Z:${v8//\//\\}\\bin" &&
	has "result 3 skip --no-gpu given"
ok "validate --no-gpu: 8.9's cudnn64_8.dll loaded from its bin folder, 8906" $?
run "$v9/bin/x64" 9 91800 json
has '{"k":"fact","name":"cudnn_version","value":91800}' &&
	has '{"k":"step","step":1,"status":"pass","reason":"cuDNN 9.18.0"}' &&
	has '{"k":"step","step":3,"status":"skip","reason":"--no-gpu given"}' && has '{"k":"done"}'
ok "the child's JSON lines, as validate-probe writes them for its parent (jsmn backend)" $?
run "$v9/bin/x64" 9 91800
has "fact cudnn_version 91800" && has "result 2 pass cuDNN DLLs loaded: 2, all from" &&
	has '\bin\x64'
ok "9.18: cudnn64_9.dll from bin\\x64, 91800" $?
run "$v9/bin/x64" 9 91800 gpu
has "result 3 skip no NVIDIA driver: nvcuda.dll is not in the system folders" &&
	has "result 4 skip"
ok "without --no-gpu and no nvcuda.dll: driver and GPU skipped, said" $?
# With a driver: step 5 runs the convolution through nvcuda.dll and the
# version's DLL, as on Linux (probe_conv.c). The driver is a stand-in
# (mknvcuda.sh: FAKE_CUDA of the Linux tests' fake, host memory as the
# device's) put beside a copy of the probe, where a bare name is looked
# for; the DLL computes on the CPU. What a real GPU proves is not proven
# here: that the calls reach one.
gpu_at() { # gpu_at NAME DRIVER [CC_MAJOR CC_MINOR]: a probe beside that nvcuda.dll
	mkdir -p "$tmp/$1" && cp "$probe" "$tmp/$1/" &&
		"$here/tests/win/mknvcuda.sh" "$tmp/$1" "$2" "${3:-9}" "${4:-0}"
}
run_at() { # run_at NAME DIR MAJOR EXPECT [args]: as run, with NAME's probe
	local at=$1 d=$2
	shift 2
	timeout 120 wine "$tmp/$at/winprobe.exe" "Z:$d" "$@" 2>&1 | tr -d '\r' >"$tmp/out"
}
gpu_at drv 13000 || exit 1
run_at drv "$v9/bin/x64" 9 91800 gpu
has "fact driver_version 13000" && has "result 3 pass driver for CUDA 13.0" &&
	has "fact gpu Fake GPU" && has "fact cc_major 9" && has "fact max_err 0" &&
	has "result 4 pass Fake GPU (sm_90): 2-D convolution matches the CPU reference"
ok "with nvcuda.dll: the driver, then the convolution, checked against the CPU" $?
run_at drv "$v9/bin/x64" 9 91800 gpu json
has '{"k":"fact","name":"gpu","value":"Fake GPU"}' && has '"name":"max_err","value":0' &&
	has '{"k":"step","step":4,"status":"pass","reason":"Fake GPU (sm_90): 2-D'
ok "step 5's facts and result in the child's JSON lines" $?
bad=$(FAKE_CFLAGS=-DFAKE_BADCONV "$here/tests/win/mkcudnn.sh" "$tmp/bad" 9.18.0.77 12) || exit 1
run_at drv "$bad/bin/x64" 9 91800 gpu
has "result 4 fail the convolution on Fake GPU is wrong: max error 0.5 vs the CPU reference"
ok "a DLL whose convolution is wrong fails step 5, with the error" $?
gpu_at volta 13000 7 0 || exit 1
run_at volta "$v9/bin/x64" 9 91800 gpu
has "result 4 fail Fake GPU has compute capability 7.0; cuDNN 9.18 needs 7.5 or newer" &&
	has "fact cc_major 7"
ok "a GPU older than the version supports fails step 5, naming what it needs" $?
gpu_at old 11080 || exit 1
run_at old "$v9/bin/x64" 9 91800 gpu
has "result 3 fail the driver supports CUDA 11.8 but this build needs CUDA 12" &&
	has "result 4 skip not run: no usable GPU, or an earlier step failed"
ok "a driver older than the build's CUDA fails step 4; step 5 is not run" $?
run "$v9/bin/x64" 9 91700
has "result 1 fail cudnnGetVersion() says 9.18.0 (91800) but this install is 9.17.0"
ok "a DLL reporting another version than the install's fails" $?
# another copy of the ops sub-library already in the process: the loader
# binds cudnn64_8.dll's import to it
mkdir -p "$tmp/cuda/bin" && cp "$v8/bin/cudnn_ops_infer64_8.dll" "$tmp/cuda/bin/"
run "$v8/bin" 8 8906 preload "Z:$tmp/cuda/bin/cudnn_ops_infer64_8.dll"
has "result 2 fail mixed load: Z:${tmp//\//\\}\\cuda\\bin\\cudnn_ops_infer64_8.dll is not from"
ok "a cuDNN sub-library from another folder: provenance fails naming it" $?
mkdir -p "$tmp/i386" && cp "$v8/bin"/*.dll "$tmp/i386/"
python3 - "$tmp/i386/cudnn64_8.dll" <<'PY' || exit 1
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<H", b, struct.unpack_from("<I", b, 0x3c)[0] + 4, 0x14C)
open(sys.argv[1], "wb").write(b)
PY
run "$tmp/i386" 8 8906
has "cudnn64_8.dll is an i386 DLL, not an x86-64 DLL" && has "result 1 skip"
ok "a DLL of another machine (i386) is refused before loading" $?
mkdir -p "$tmp/text" && cp "$v8/bin"/*.dll "$tmp/text/" && echo 'not a DLL' >"$tmp/text/cudnn64_8.dll"
run "$tmp/text" 8 8906
has "cudnn64_8.dll is not a Windows DLL (no PE header)"
ok "a cudnn64_8.dll that is no PE file is refused" $?
# doctor on the seed's hand install: an 8.6 copied into the CUDA
# toolkit's folder (bin, include, lib\x64, as the seed's copy step does),
# under C:\Program Files like the installer's, ahead of the store's 8.9
# on PATH
doc="$here/$build/windoctor.exe"
cudaw='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\vcvtest'
cudau="$WINEPREFIX/drive_c/Program Files/NVIDIA GPU Computing Toolkit/CUDA/vcvtest"
trap 'rm -rf "$tmp" "$cudau"' EXIT
rm -rf "$cudau" && mkdir -p "$cudau/bin" "$cudau/include" "$cudau/lib/x64"
v86=$("$here/tests/win/mkcudnn.sh" "$tmp/old" 8.6.0.163 11) || exit 1
cp "$v86/bin"/* "$cudau/bin/" && cp "$v86/include"/* "$cudau/include/" &&
	cp "$v86/lib/x64"/* "$cudau/lib/x64/" && cp "$v86/include/cudnn_version.h" "$cudau/include/cudnn.h" &&
	echo 'the toolkit' >"$cudau/bin/cudart64_12.dll" || exit 1
storew="Z:${v8//\//\\}\\bin"
# cmd LINE: run by wine's cmd.exe from a batch file (a command line
# handed over from here would have its quotes escaped), its output in
# $tmp/out
cmd() {
	printf '@echo off\r\n%s\r\n' "$1" >"$tmp/run.cmd"
	timeout 120 wine cmd /c "Z:${tmp//\//\\}\\run.cmd" 2>&1 | tr -d '\r' >"$tmp/out"
}
cmd "set PATH=$cudaw\\bin;$storew;%PATH%& Z:$doc check \"$cudaw\" $storew 8 1"
has "2|cuDNN 8.6.0 copied into $cudaw\\bin: cudnn64_8.dll and more|" &&
	has "|del \"$cudaw\\bin\\cudnn*64_8.dll\" \"$cudaw\\include\\cudnn*.h\" \"$cudaw\\lib\\x64\\cudnn*.lib\"" &&
	has "2|PATH finds cudnn64_8.dll first in $cudaw\\bin (cuDNN 8.6.0), not in $storew|"
ok "doctor: cuDNN 8.6 copied into %CUDA_PATH%\\bin, and PATH finding it first, named" $?
fix=$(grep -F 'copied into' "$tmp/out" | cut -d'|' -f4)
cmd "$fix"
[ ! -e "$cudau/bin/cudnn64_8.dll" ] && [ ! -e "$cudau/bin/cudnn_ops_infer64_8.dll" ] &&
	[ ! -e "$cudau/include/cudnn.h" ] && [ ! -e "$cudau/lib/x64/cudnn.lib" ] &&
	[ -e "$cudau/bin/cudart64_12.dll" ]
ok "doctor's del, run as printed by cmd.exe, removes the copy and only it" $?
rm "$v8/bin/zlibwapi.dll"
cmd "set PATH=$cudaw\\bin;$storew;%PATH%& Z:$doc check \"$cudaw\" $storew 8 1"
! has "copied into" && ! has "PATH finds" && has "2|zlibwapi.dll is missing from $storew|"
ok "after the fix: no copy, the store's first; zlibwapi.dll missing said" $?
# cudnnvm which cudnn64_8.dll: where's answer, in PATH order, the first
# what cmd's own PATH search (%~\$PATH:i) finds
mkdir -p "$tmp/early" && cp "$v8/bin/cudnn64_8.dll" "$tmp/early/"
earlyw="Z:${tmp//\//\\}\\early"
cmd "set PATH=$earlyw;$storew;%PATH%& Z:$doc where cudnn64_8.dll& for %%i in (cudnn64_8.dll) do @echo cmd:%%~\$PATH:i"
[ "$(sed -n 1p "$tmp/out")" = "$earlyw\\cudnn64_8.dll" ] &&
	[ "$(sed -n 2p "$tmp/out")" = "$storew\\cudnn64_8.dll" ] &&
	has "cmd:$earlyw\\cudnn64_8.dll"
ok "where cudnn64_8.dll: every PATH folder holding it, in order, as cmd finds it" $?
cmd "set PATH=$earlyw;$storew;%PATH%& Z:$doc check - $storew 8 0"
fix=$(grep -F 'PATH finds' "$tmp/out" | cut -d'|' -f4)
[ -n "$fix" ] && cmd "set PATH=$earlyw;$storew;%PATH%& $fix& for %%i in (cudnn64_8.dll) do @echo cmd:%%~\$PATH:i" &&
	has "cmd:$storew\\cudnn64_8.dll"
ok "an older copy first on PATH: doctor's set PATH, run by cmd.exe, puts the store's first" $?
# the loader's answer by name: PATH's first x86-64 DLL of that name, a
# non-PE and an i386 copy ahead of it passed over
mkdir -p "$tmp/p1" "$tmp/p2" && echo 'not a DLL' >"$tmp/p1/cudnn64_8.dll" &&
	cp "$tmp/i386/cudnn64_8.dll" "$tmp/p2/"
p1w="Z:${tmp//\//\\}\\p1" p2w="Z:${tmp//\//\\}\\p2"
cmd "set PATH=%PATH%;$p1w;$p2w;$storew;$earlyw& Z:$doc find cudnn64_8.dll"
[ "$(cat "$tmp/out")" = "$storew\\cudnn64_8.dll" ]
ok "the loader's cudnn64_8.dll by name: a non-PE and an i386 copy earlier on PATH passed over" $?
# exec: the program started in our place (CreateProcessW), each argument
# arriving whole, its exit code ours; a missing one is ENOENT (127)
ex="$here/$build/winexec.exe"
timeout 60 wine "$ex" args "Z:$ex" echo 'a b' 'q"uote' 'back\' '' 'tail\\"x' 2>&1 | tr -d '\r' >"$tmp/out"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 3 ] && [ "$(cat "$tmp/out")" = "$(printf '[a b]\n[q"uote]\n[back\\]\n[]\n[tail\\\\"x]')" ]
ok "exec: arguments with blanks, quotes, backslashes and none arrive whole; the exit code is the program's" $?
timeout 60 wine "$ex" args no-such-program-here >"$tmp/out" 2>&1
[ $? -eq 127 ] && has "No such file or directory"
ok "exec of a program PATH does not have: ENOENT" $?
# the global junction: made, followed, rewritten in place (skipped, and
# said, where there are no reparse points: wine 8)
mkdir -p "$tmp/junction"
timeout 60 wine "$here/$build/winjunction.exe" "Z:$tmp/junction" 2>&1 | tr -d '\r' >"$tmp/out"
rc=${PIPESTATUS[0]}
while read -r line; do
	case $line in
	"ok "*"# SKIP"*) n=$((n + 1)) && echo "ok $n - junction:${line#*-}" ;;
	"ok "*) n=$((n + 1)) && echo "ok $n - junction:${line#*-}" ;;
	"not ok "*) n=$((n + 1)) failed=$((failed + 1)) && echo "not ok $n - junction:${line#*-}" ;;
	esac
done <"$tmp/out"
[ "$rc" -eq 0 ] || { n=$((n + 1)) failed=$((failed + 1)) && echo "not ok $n - winjunction.exe exit $rc"; }
# the PE reader's own cases under wine, and on the real DLLs
wine "$here/$build/test_pe.exe" "Z:$tmp" "Z:$v8/bin/cudnn64_8.dll=1" \
	"Z:$tmp/i386/cudnn64_8.dll=0" "Z:$tmp/text/cudnn64_8.dll=-1" 2>&1 | tr -d '\r' >"$tmp/out"
! grep -q '^not ok' "$tmp/out" && grep -q '^1\.\.1[0-9]' "$tmp/out"
ok "test_pe.c under wine, on built headers and the suite's DLLs" $?
echo "1..$n"
[ "$failed" -eq 0 ]
