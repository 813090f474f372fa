#!/usr/bin/env bats
# validate: the five steps against stub cuDNN/CUDA libraries built here
# (tests/fixtures/build_stubs.sh) and against real cuDNN builds, the cache,
# and the activation gate of install, use and global.
load helper

setup_file() {
	# one NVIDIA-shaped archive per stub: name version cuda
	stub_archives <<-EOF
		v7 7.6.5.32 10
		v8 8.9.7.29 12
		v9 9.19.0.56 13
		wrongver 9.19.0.60 13
		mixed 9.19.0.61 13
		abort 9.19.0.62 13
		nosym 9.19.0.63 13
		badconv 9.19.0.64 13
		hang 9.19.0.65 13
		dep8 8.9.7.30 12
	EOF
}

setup() {
	common_setup
	# No real GPU, whatever the machine: the stub driver says "no device".
	# Tests that want a GPU point this at another stub folder.
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nodev"
}

# inst NAME [flags]: install the packed stub NAME; sets ID
inst() {
	local path sha
	read -r path sha ID <"$STUBS/$1.arch"
	shift
	cudnnvm install --archive "$path" --sha256 "$sha" "$@"
}

id_of() { cut -d' ' -f3 "$STUBS/$1.arch"; }

@test "7.x, 8.x and 9.x stubs pass steps 1-3 and skip the GPU steps without a GPU" {
	for s in v7 v8 v9; do
		run inst $s
		[ "$status" -eq 0 ]
	done
	run cudnnvm validate 7.6
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 version     pass (cuDNN 7.6.5, built with CUDA 10.2)"* ]]
	[[ "$output" == *"3 provenance  pass (cuDNN libraries loaded: 1,"* ]]
	[[ "$output" == *"4 driver      skip: no NVIDIA GPU"* ]]
	[[ "$output" == *"5 gpu         skip: no NVIDIA GPU"* ]]
	run cudnnvm validate 8.9.7
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 version     pass (cuDNN 8.9.7, built with CUDA 12.2)"* ]]
	[[ "$output" == *"3 provenance  pass (cuDNN libraries loaded: 3,"* ]]
	run cudnnvm validate 9.19.0.56
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 version     pass (cuDNN 9.19.0, built with CUDA 13.1)"* ]]
	[[ "$output" == *"3 provenance  pass (cuDNN libraries loaded: 4, all from $(realpath "$CUDNNVM_STORE")/9.19.0.56-cuda13/lib)"* ]]
}

@test "with colour, pass is green and skip yellow; without, the words alone" {
	inst v9
	CLICOLOR_FORCE=1 run cudnnvm validate "$ID"
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 version     "$'\033'"[32mpass"$'\033'"[0m (cuDNN 9.19.0"* ]]
	[[ "$output" == *"4 driver      "$'\033'"[33mskip"$'\033'"[0m: no NVIDIA GPU"* ]]
	run cudnnvm validate "$ID"
	[[ "$output" == *"4 driver      skip: no NVIDIA GPU"* ]]
	[[ "$output" != *$'\033'* ]]
}

@test "--json gives every step with its status and reason" {
	inst v9
	run --separate-stderr cudnnvm validate "$ID" --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["id"] == "9.19.0.56-cuda13" and j["ok"] is True, j
assert [s["name"] for s in j["steps"]] == ["files", "version", "provenance", "driver", "gpu"]
assert [s["status"] for s in j["steps"]] == ["pass", "pass", "pass", "skip", "skip"], j
assert j["steps"][3]["reason"] == "no NVIDIA GPU"
assert j["cudnn_version"] == 91900 and j["cudart_version"] == 13010'
}

@test "a wrong version number fails step 2 with both numbers" {
	inst wrongver --no-validate
	run --separate-stderr cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"2 version     fail: cudnnGetVersion() says 9.14.0 (91400) but this install is 9.19.0 (91900)"* ]]
	[[ "$stderr" == "cudnnvm: $ID failed validation (step 2, version): "* ]]
}

@test "a sub-library loaded from another folder is a mixed load naming both folders" {
	inst mixed --no-validate
	run --separate-stderr cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"3 provenance  fail: mixed load: libcudnn_graph.so.9 came from $STUBS/other/lib (and 2 more), not from $(realpath "$CUDNNVM_STORE")/$ID/lib"* ]]
}

@test "an abort inside cuDNN is a fail naming the signal, not a crash" {
	inst abort --no-validate
	run --separate-stderr cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"2 version     fail: the check process died of SIGABRT (Aborted) while loading "*"/lib/libcudnn.so.9"* ]]
	[[ "$output" == *"3 provenance  skip: not reached"* ]]
}

@test "a library without cudnnGetVersion fails step 2" {
	inst nosym --no-validate
	run cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"2 version     fail: libcudnn.so.9 has no cudnnGetVersion"* ]]
}

@test "a hanging library is killed after the timeout" {
	inst hang --no-validate
	CUDNNVM_VALIDATE_TIMEOUT=1 run cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"fail: no answer after 1 s while loading "*"libcudnn.so.9; the process was killed"* ]]
}

@test "an unreadable library fails step 1 with the chmod fix (non-root user)" {
	command -v setpriv >/dev/null || skip "needs setpriv"
	inst v9
	D=$(mktemp -d /tmp/cudnnvm-unread.XXXXXX)
	chmod 755 "$D"
	cp -a "$CUDNNVM_STORE" "$D/store"
	cp "$CUDNNVM_BIN" "$D/cudnnvm"
	mkdir -p "$D/home" && chown 65534:65534 "$D/home"
	chmod 600 "$D/store/$ID/lib/libcudnn_ops.so.9.19.0"
	run setpriv --reuid=65534 --regid=65534 --clear-groups env -i \
		PATH=/usr/bin:/bin HOME="$D/home" XDG_CACHE_HOME="$D/home/.cache" \
		XDG_CONFIG_HOME="$D/home/.config" CUDNNVM_SYSCONFDIR="$D/etc" \
		CUDNNVM_STORE="$D/store" "$D/cudnnvm" validate "$ID"
	rm -rf "$D"
	[ "$status" -eq 1 ]
	[[ "$output" == *"1 files       fail: "*"/lib/libcudnn_ops.so.9.19.0 is not readable (Permission denied); run: sudo chmod a+r "*"/lib/libcudnn*"* ]]
}

@test "GPU steps with a stub driver: pass, old driver, old GPU, missing cuBLASLt, wrong result" {
	inst v9
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda" run cudnnvm validate "$ID"
	[ "$status" -eq 0 ]
	[[ "$output" == *"4 driver      pass (driver for CUDA 13.0, $STUBS/cuda/libcublasLt.so.13)"* ]]
	[[ "$output" == *"5 gpu         pass (Fake GPU (sm_90): 2-D convolution matches the CPU reference (max error 0.0e+00"* ]]
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-old" run cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"4 driver      fail: the driver supports CUDA 12.2 but this build needs CUDA 13; update the NVIDIA driver (r580.65.06 or newer)"* ]]
	[[ "$output" == *"5 gpu         skip: not run: an earlier step failed"* ]]
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-oldgpu" run cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"5 gpu         fail: Fake GPU has compute capability 6.0; cuDNN 9.19 needs 7.5 or newer"* ]]
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nocublas" run cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"4 driver      fail: libcublasLt.so.13 is not found (cuDNN 9 loads it for its kernels); install the CUDA 13 libraries (cuBLAS)"* ]]
	# the fix cudnnvm can make: the dependency beside the version
	[[ "$output" == *"hint: cudnnvm install $ID --deps always"* ]]
	inst badconv --no-validate
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda" run cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"5 gpu         fail: the convolution on Fake GPU is wrong: max error 0.5 vs the CPU reference"* ]]
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda" run --separate-stderr cudnnvm validate "$ID" --json
	[ "$status" -eq 1 ]
	echo "$output" | python3 -c 'import json,sys; j=json.load(sys.stdin)
assert abs(j["max_err"] - 0.5) < 1e-3 and j["gpu"] == "Fake GPU" and j["cc_major"] == 9, j
assert j["driver_version"] == 13000 and j["ok"] is False, j'
}

@test "an 8.x passes with a driver and fails without the unversioned libcuda.so" {
	inst v8
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda" run cudnnvm validate "$ID"
	[ "$status" -eq 0 ]
	[[ "$output" == *"5 gpu         pass (Fake GPU (sm_90)"* ]]
	if ldconfig -p 2>/dev/null | grep -q '^[[:space:]]*libcuda\.so '; then
		skip "this machine's loader cache has a real libcuda.so"
	fi
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nolink" run cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"4 driver      fail: cuDNN 8 loads the unversioned libcuda.so, which is missing (only libcuda.so.1 is there); run: sudo ln -s libcuda.so.1 $STUBS/cuda-nolink/libcuda.so"* ]]
}

@test "--no-gpu skips steps 4-5 even with a driver" {
	inst v9
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda" run cudnnvm validate "$ID" --no-gpu
	[ "$status" -eq 0 ]
	[[ "$output" == *"4 driver      skip: --no-gpu given"* ]]
	[[ "$output" == *"5 gpu         skip: --no-gpu given"* ]]
}

@test "CUDA_VISIBLE_DEVICES that hides every GPU is named, not 'no NVIDIA GPU'" {
	inst v9 --no-validate
	CUDA_VISIBLE_DEVICES= CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda" run cudnnvm validate "$ID"
	[[ "$output" == *"4 driver      skip: no GPU is visible: CUDA_VISIBLE_DEVICES='' is empty, which hides every GPU; unset it, or name a GPU (CUDA_VISIBLE_DEVICES=0)"* ]]
	[[ "$output" != *"no NVIDIA GPU"* ]]
	CUDA_VISIBLE_DEVICES=3 CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda" run cudnnvm validate "$ID"
	[[ "$output" == *"4 driver      skip: no GPU is visible: CUDA_VISIBLE_DEVICES='3' names no GPU the driver has; unset it"* ]]
	# a GPU it names is used
	CUDA_VISIBLE_DEVICES=0 CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda" run cudnnvm validate "$ID"
	[ "$status" -eq 0 ]
	[[ "$output" == *"5 gpu         pass (Fake GPU (sm_90)"* ]]
	# without the variable, no device is still "no NVIDIA GPU"
	run cudnnvm validate "$ID"
	[[ "$output" == *"4 driver      skip: no NVIDIA GPU"* ]]
}

@test "an 8.x sub-library missing its cuBLAS: skip without a GPU, fail with one" {
	inst dep8
	[ "$ID" = 8.9.7.30-cuda12 ]
	run cudnnvm validate "$ID"
	[ "$status" -eq 0 ]
	[[ "$output" == *"3 provenance  skip: cuDNN libraries loaded: 2, all from this install, but libcudnn_ops_infer.so.8 cannot load: it needs libcublas.so.12, which is not found; install the CUDA 12 libraries (cuBLAS)"* ]]
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nocublas" run cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"3 provenance  fail: "*"needs libcublas.so.12"* ]]
	[[ "$output" == *"4 driver      fail: libcudnn_ops_infer.so.8 needs libcublas.so.12, which is not found; install the CUDA 12 libraries (cuBLAS)"* ]]
}

@test "results are cached; a changed library or a failed result is checked again" {
	inst v9
	run cudnnvm validate "$ID"
	[ "$status" -eq 0 ]
	run cudnnvm validate "$ID"
	[ "${lines[0]}" = "$ID (cached result)" ]
	touch "$CUDNNVM_STORE/$ID/lib/libcudnn_cnn.so.9.19.0"
	run cudnnvm validate "$ID"
	[ "${lines[0]}" = "$ID" ]
	chmod 640 "$CUDNNVM_STORE/$ID/lib/libcudnn_cnn.so.9.19.0"
	run cudnnvm validate "$ID"
	[ "${lines[0]}" = "$ID" ]
	# another driver is another key
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda" run cudnnvm validate "$ID"
	[ "${lines[0]}" = "$ID" ]
	inst wrongver --no-validate
	run cudnnvm validate "$ID"
	run cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "$ID" ]
}

@test "global refuses a failing version and keeps the old one; --force and --no-validate" {
	inst v9
	good=$ID
	run cudnnvm global "$good"
	[ "$status" -eq 0 ]
	inst wrongver --no-validate
	bad=$ID
	before=$(store_snapshot)
	run --separate-stderr cudnnvm global "$bad"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "cudnnvm: not activating $bad: validation failed (step 2, version): "* ]]
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$good" ]
	[ "$(store_snapshot)" = "$before" ]
	run --separate-stderr cudnnvm global "$bad" --force
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"warning: $bad failed validation (version: "*"activating it anyway because of --force"* ]]
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$bad" ]
	run cudnnvm global "$good"
	[ "$status" -eq 0 ]
	# --no-validate: no check at all (the abort stub would fail it)
	inst abort --no-validate
	run cudnnvm global "$ID" --no-validate
	[ "$status" -eq 0 ]
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$ID" ]
}

@test "config validate = no turns the gate off" {
	inst wrongver --no-validate
	mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
	printf '[install]\nvalidate = no\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm global "$ID"
	[ "$status" -eq 0 ]
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$ID" ]
}

@test "use refuses a failing version and writes no pin" {
	inst wrongver --no-validate
	mkdir proj && cd proj
	run cudnnvm use "$ID"
	[ "$status" -eq 1 ]
	[ ! -e .cudnn-version ]
	inst v9
	run cudnnvm use "$ID"
	[ "$status" -eq 0 ]
	[ -e .cudnn-version ]
}

@test "shell refuses a failing version and prints no script" {
	inst wrongver --no-validate
	run --separate-stderr cudnnvm shell --eval bash "$ID"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == "cudnnvm: not activating $ID: validation failed"* ]]
	inst v9
	run --separate-stderr cudnnvm shell --eval bash "$ID"
	[ "$status" -eq 0 ]
	[[ "$output" == *CUDNNVM_VERSION* ]]
}

@test "install validates after installing and reports a failure" {
	run --separate-stderr inst wrongver
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"failed validation (step 2, version)"* ]]
	run inst nosym --no-validate
	[ "$status" -eq 0 ]
}

@test "validate without a spec checks the active version" {
	run --separate-stderr cudnnvm validate
	[ "$status" -eq 1 ]
	[[ "$stderr" == cudnnvm:* ]]
	inst v8
	cudnnvm global "$ID"
	run cudnnvm validate
	[ "$status" -eq 0 ]
	[ "${lines[0]%% *}" = "$ID" ]
}

@test "usage errors exit 64; a version not installed exits 1" {
	run --separate-stderr cudnnvm validate --bogus
	[ "$status" -eq 64 ]
	[[ "$stderr" == "cudnnvm: validate: unknown option '--bogus'; usage: cudnnvm validate"* ]]
	run cudnnvm validate 9 8
	[ "$status" -eq 64 ]
	run cudnnvm validate '../9'
	[ "$status" -eq 64 ]
	run --separate-stderr cudnnvm validate 9.99
	[ "$status" -eq 1 ]
	[[ "$stderr" == cudnnvm:* ]]
}

# ---- real cuDNN builds, without a GPU --------------------------------------

@test "real cuDNN 9 of the CUDA toolkit: packed, installed, steps 1-3 pass" {
	local lib=/usr/local/cuda/lib64 h=/usr/local/cuda/include/cudnn_version.h
	[ -e "$lib/libcudnn.so.9" ] && [ -e "$h" ] || skip "no cuDNN 9 in $lib"
	real_cudnn9_archive
	v=$VER
	# the stub driver (setup) says "no GPU" even on a GPU machine
	run cudnnvm install --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
	run cudnnvm validate "$v"
	[ "$status" -eq 0 ]
	[[ "$output" == *"2 version     pass (cuDNN ${v%.0}, built with CUDA 13."* ]]
	[[ "$output" == *"3 provenance  pass (cuDNN libraries loaded: 4, all from $(realpath "$CUDNNVM_STORE")/$v-cuda13/lib)"* ]]
	[[ "$output" == *"5 gpu         skip: no NVIDIA GPU"* ]]
}

# pack_wheel_into_tmp WHEEL, for cache_make: the wheel's
# nvidia/cudnn/lib, packed as NVIDIA's 8.9.2.26 cuda12 archive.
pack_wheel_into_tmp() {
	local w8="$CACHE_TMP.libs"
	mkdir -p "$w8" || return 1
	(cd "$w8" && python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
z.extractall(members=[n for n in z.namelist() if n.startswith("nvidia/cudnn/lib/")])' "$1") ||
		return 1
	pack_into_tmp 8.9.2.26 12 "$w8/nvidia/cudnn/lib" || return 1
	rm -rf "$w8"
}

# install_into_tmp ARCH SHA, for cache_make: a store holding the archive
install_into_tmp() {
	cudnnvm --store "$CACHE_TMP" install --archive "$1" --sha256 "$2" --no-validate >/dev/null
}

@test "real cuDNN 8.9.2 from NVIDIA's pip wheel: packed, installed, steps 1-3 pass" {
	real_wheel_8926 ||
		skip "nvidia-cudnn-cu12==8.9.2.26 is not cached and PyPI cannot be reached"
	cache_make real-cudnn-8.9.2.26-wheel pack_wheel_into_tmp "$WHEEL"
	ARCH="$TEST_CACHE/real-cudnn-8.9.2.26-wheel/cudnn-linux-x86_64-8.9.2.26_cuda12-archive.tar.xz"
	SHA=$(cat "$TEST_CACHE/real-cudnn-8.9.2.26-wheel/sha256")
	# 1.2 GB of libraries take over a minute to extract on two cores: the
	# install is kept (keyed by the archive's sha256) in the cache and
	# made once; validation runs fresh each time.
	local store="$TEST_CACHE/store-${SHA:0:12}"
	cache_make "store-${SHA:0:12}" install_into_tmp "$ARCH" "$SHA"
	[ -e "$store/8.9.2.26-cuda12/cudnnvm.json" ]
	# validation writes its cache into the shared store: one run at a time
	exec {lock}>"$store.lock"
	flock "$lock"
	rm -rf "$store/.cache/validate"
	run cudnnvm --store "$store" validate 8.9.2
	exec {lock}>&-
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "8.9.2.26-cuda12" ]
	[[ "$output" == *"2 version     pass (cuDNN 8.9.2, built with CUDA 12.1)"* ]]
	[[ "$output" == *"3 provenance  pass (cuDNN libraries loaded: 3, all from $(realpath "$store")/8.9.2.26-cuda12/lib)"* ]]
	[[ "$output" == *"4 driver      skip: no NVIDIA GPU"* ]]
}

@test "an install that fails validation says it is installed, what failed, and that use/global refuse it" {
	ID=$(id_of wrongver)
	run --separate-stderr inst wrongver
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "cudnnvm: installed $ID, but it failed validation (step 2, version): "* ]]
	[[ $stderr == *"'use' and 'global' refuse it until that is fixed (see 'cudnnvm validate $ID'"* ]]
	[[ $stderr != *"not activating"* ]]
	[ -d "$CUDNNVM_STORE/$ID" ]
	run cudnnvm global "$ID"
	[ "$status" -eq 1 ]
}

@test "a store under a folder whose name is not UTF-8 validates: every step has its result" {
	export CUDNNVM_STORE="$T/d$(printf '\377')/store"
	run inst v9 --no-validate
	[ "$status" -eq 0 ]
	ID=$(id_of v9)
	run cudnnvm validate "$ID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"3 provenance  pass (cuDNN libraries loaded: 4, all from $T/d\\xff/store/$ID/lib)"* ]]
	[[ "$output" != *"gave no result"* ]]
	# --json carries the same text as valid JSON
	run cudnnvm validate "$ID" --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; json.loads(sys.argv[1])' "$output"
}

@test "validation hands its child only a libcublasLt the loader would load: one of another ELF class is not found, the next folder's is used (H21)" {
	inst v9
	mkdir -p "$T/cuda32" "$T/lt"
	cp -a "$STUBS/cuda/." "$T/cuda32/"
	# a 32-bit x86 shared object's header in the place of the stub's
	rm "$T/cuda32/libcublasLt.so.13"
	python3 -c 'import struct,sys
open(sys.argv[1], "wb").write(b"\x7fELF\x01\x01\x01" + b"\0" * 9 +
    struct.pack("<HHI", 3, 3, 1) + b"\0" * 32)' "$T/cuda32/libcublasLt.so.13"
	CUDNNVM_TEST_CUDA_LIBDIRS="$T/cuda32" run cudnnvm validate "$ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"4 driver      fail: libcublasLt.so.13 is not found (cuDNN 9 loads it for its kernels)"* ]]
	# the loader passes over it to the next folder, and so does the finder
	cp -a "$STUBS/cuda/libcublasLt.so.13" "$T/lt/"
	CUDNNVM_TEST_CUDA_LIBDIRS="$T/cuda32:$T/lt" run cudnnvm validate "$ID"
	[ "$status" -eq 0 ]
	[[ "$output" == *"4 driver      pass (driver for CUDA 13.0, $T/lt/libcublasLt.so.13)"* ]]
}
