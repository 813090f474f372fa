#!/usr/bin/env bats
# The machine model and the resolver of installed builds: every command
# turns a spec without -cudaN into the same build, the one of this
# machine's CUDA major (the toolkit's, else the driver's), and says so when
# only another variant is installed.
load activation

setup() {
	activation_setup
	unset CUDNNVM_OVERRIDE_CUDA CUDA_HOME CUDA_PATH
	mkver 9.12.0.46-cuda12
	mkver 9.12.0.46-cuda13
	# a CUDA 12.8 toolkit found through CUDA_HOME, no driver
	mkdir -p "$T/cuda12"
	printf '{"cuda": {"name": "CUDA SDK", "version": "12.8.1"}}\n' >"$T/cuda12/version.json"
	export CUDA_HOME="$T/cuda12"
	export CUDNNVM_TEST_DRIVER_VERSION_FILE="$T/no-driver"
}

@test "use, current, env, which and exec take the toolkit's variant" {
	mkdir proj && cd proj
	run --separate-stderr cudnnvm use 9.12
	[ "$status" -eq 0 ]
	[[ $stderr == *"9.12.0.46-cuda12"* ]]
	[ "$(cat .cudnn-version)" = "9.12" ]
	[ "$(cudnnvm current)" = "9.12.0.46-cuda12 (set by $T/proj/.cudnn-version)" ]
	[ "$(cudnnvm which root)" = "$CUDNNVM_STORE/9.12.0.46-cuda12" ]
	[[ "$(cudnnvm env --shell sh)" == *"$CUDNNVM_STORE/9.12.0.46-cuda12/lib"* ]]
	[[ "$(cudnnvm exec -- sh -c 'echo $LD_LIBRARY_PATH')" == "$CUDNNVM_STORE/9.12.0.46-cuda12/lib"* ]]
	# the same spec with a CUDA 13 toolkit means the cuda13 build
	printf '{"cuda": {"name": "CUDA SDK", "version": "13.0.1"}}\n' >"$T/cuda12/version.json"
	[ "$(cudnnvm current)" = "9.12.0.46-cuda13 (set by $T/proj/.cudnn-version)" ]
}

@test "global and shell take the toolkit's variant too" {
	run cudnnvm global 9.12
	[ "$status" -eq 0 ]
	[ "$(cudnnvm global)" = "9.12.0.46-cuda12" ]
	run --separate-stderr cudnnvm shell 9.12 --eval sh
	[ "$status" -eq 0 ]
}

@test "uninstalling the other variant does not move a pin" {
	mkdir proj && cd proj
	cudnnvm -q use 9.12
	[ "$(cudnnvm current)" = "9.12.0.46-cuda12 (set by $T/proj/.cudnn-version)" ]
	cudnnvm -q uninstall 9.12.0.46-cuda13
	[ "$(cudnnvm current)" = "9.12.0.46-cuda12 (set by $T/proj/.cudnn-version)" ]
}

@test "only another variant installed: taken, with one warning naming both" {
	rm -rf "$CUDNNVM_STORE/9.12.0.46-cuda12"
	mkdir proj && cd proj
	run --separate-stderr cudnnvm use 9.12
	[ "$status" -eq 0 ]
	[[ $stderr == *"warning: no cuda12 build matching 9.12 is installed; using 9.12.0.46-cuda13"* ]]
	[[ $stderr == *"'cudnnvm install 9.12 --cuda 12'"* ]]
	[ "$(grep -c 'warning: no cuda12' <<<"$stderr")" -eq 1 ]
	# the prompt-side commands read the state without repeating it
	run --separate-stderr cudnnvm current
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# a failing command stays one error line
	run --separate-stderr cudnnvm use 9.12 --no-validate --bogus
	[ "$status" -eq 64 ]
	one_error_line
}

@test "without a toolkit the driver decides the variant" {
	unset CUDA_HOME
	export CUDNNVM_OVERRIDE_CUDA=
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n' >"$T/no-driver"
	[ "$(cudnnvm exec 9.12 -- sh -c 'echo $LD_LIBRARY_PATH')" = "$CUDNNVM_STORE/9.12.0.46-cuda12/lib" ] ||
		[[ "$(cudnnvm exec 9.12 -- sh -c 'echo $LD_LIBRARY_PATH')" == "$CUDNNVM_STORE/9.12.0.46-cuda12/lib:"* ]]
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:16 UTC 2025\n' >"$T/no-driver"
	[[ "$(cudnnvm exec 9.12 -- sh -c 'echo $LD_LIBRARY_PATH')" == "$CUDNNVM_STORE/9.12.0.46-cuda13/lib"* ]]
	# the override stands in for another machine's driver
	CUDNNVM_OVERRIDE_DRIVER_CUDA=12.4 run cudnnvm exec 9.12 -- sh -c 'echo $LD_LIBRARY_PATH'
	[[ $output == "$CUDNNVM_STORE/9.12.0.46-cuda12/lib"* ]]
}

@test "the toolkit override wins over the machine's toolkit" {
	CUDNNVM_OVERRIDE_CUDA=13.0 run cudnnvm exec 9.12 -- sh -c 'echo $LD_LIBRARY_PATH'
	[[ $output == "$CUDNNVM_STORE/9.12.0.46-cuda13/lib"* ]]
}

@test "a malformed override is a usage error, not ignored" {
	CUDNNVM_OVERRIDE_CUDA=twelve run --separate-stderr cudnnvm exec 9.12 -- true
	[ "$status" -eq 64 ]
	one_error_line
	[[ $stderr == *"CUDNNVM_OVERRIDE_CUDA='twelve'"* ]]
}

@test "a toolkit without version.json is read from its cuda.h" {
	rm "$T/cuda12/version.json"
	mkdir -p "$T/cuda12/include"
	printf '#define CUDA_VERSION 13000\n' >"$T/cuda12/include/cuda.h"
	[[ "$(cudnnvm exec 9.12 -- sh -c 'echo $LD_LIBRARY_PATH')" == "$CUDNNVM_STORE/9.12.0.46-cuda13/lib"* ]]
}

@test "doctor --json and current --json say where each machine fact came from" {
	export CUDNNVM_OVERRIDE_GPU_ARCH=7.0
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:16 UTC 2025\n' >"$T/no-driver"
	cudnnvm -q global 9.12
	run --separate-stderr cudnnvm doctor --json
	python3 -c '
import json, sys
m = json.loads(sys.argv[1])["machine"]
assert m["cuda_toolkit"]["version"] == "12.8", m
assert m["cuda_toolkit"]["source"] == "CUDA_HOME", m
assert m["cuda_toolkit"]["detail"].endswith("cuda12/version.json"), m
assert m["driver_cuda"]["version"] == "13.0" and m["driver_cuda"]["source"] == "driver", m
assert m["driver_version"] == "580.65.06", m
assert m["gpu_arch"] == {"version": "7.0", "source": "override", "detail": "CUDNNVM_OVERRIDE_GPU_ARCH"}, m
assert m["preferred_cuda"] == 12, m
' "$output"
	run --separate-stderr cudnnvm current --json
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
o = json.loads(sys.argv[1])
assert o["id"] == "9.12.0.46-cuda12", o
assert o["machine"]["preferred_cuda"] == 12, o
' "$output"
}

@test "use, global and shell take --cuda N as the spec's -cudaN" {
	mkdir proj && cd proj
	run --separate-stderr cudnnvm use 9.12 --cuda 13
	[ "$status" -eq 0 ]
	[ "$(cat .cudnn-version)" = "9.12-cuda13" ]
	[ "$(cudnnvm current)" = "9.12.0.46-cuda13 (set by $T/proj/.cudnn-version)" ]
	cudnnvm -q global 9.12 --cuda 13
	[ "$(cudnnvm global)" = "9.12.0.46-cuda13" ]
	run --separate-stderr cudnnvm shell --eval sh 9.12 --cuda 13
	[ "$status" -eq 0 ]
	[ "$output" = "export CUDNNVM_VERSION='9.12-cuda13'" ]
	run --separate-stderr cudnnvm use 9.12-cuda12 --cuda 13
	[ "$status" -eq 64 ]
	one_error_line
	[[ $stderr == *"disagree"* ]]
	run --separate-stderr cudnnvm global 9.12 --cuda twelve
	[ "$status" -eq 64 ]
	one_error_line
	[ "$(cat .cudnn-version)" = "9.12-cuda13" ]
}

@test "use installs with --cuda N when the version is missing" {
	rm -rf "$CUDNNVM_STORE/9.12.0.46-cuda13"
	mkdir proj && cd proj
	# no mirror here: the install fails, and says what it tried
	run --separate-stderr cudnnvm use 9.12 --cuda 13
	[ "$status" -ne 0 ]
	[[ $stderr == *"cudnnvm install 9.12-cuda13"* ]]
	[ ! -e .cudnn-version ]
}
