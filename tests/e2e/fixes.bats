#!/usr/bin/env bats
# Every fix that `doctor` and `doctor --explain` print works as printed:
# each scenario prints its fix, the fix is run in a fresh bash exactly as
# printed, and must exit 0 and leave the version it promised active. The
# machine is a CUDA 13 one (the override) unless a scenario says other.
load remote
load activation

setup() {
	remote_setup
	export CUDNNVM_OVERRIDE_CUDA=13.0
	export CUDNNVM_TEST_DRIVER_VERSION_FILE="$T/no-driver"
	unset CUDNNVM_OVERRIDE_DRIVER_CUDA CUDA_PATH
}

# fix_of: the text after "fix:" in $output (the first one).
fix_of() {
	sed -n 's/^fix: *//p; s/^  fix: //p' <<<"$output" | head -1
}

# run_fix FIX: run it in a fresh bash as a user would paste it, then
# print the version it left active.
run_fix() {
	run bash -c "$1"' && echo "active=$CUDNNVM_ACTIVE"' </dev/null
	echo "fix: $1" >&2
	echo "$output" >&2
	[ "$status" -eq 0 ]
}

@test "explain: TensorFlow's compiled-with message on a CUDA 13 machine with the cuda12 8.9 installed" {
	cudnnvm -q install 8.9 --cuda 12
	run cudnnvm doctor --explain "Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.  CuDNN library needs to have matching major version and equal or higher minor version."
	[ "$status" -eq 0 ]
	fix=$(fix_of)
	[ "$fix" = 'eval "$(cudnnvm env 8.9.7.29-cuda12)"' ]
	run_fix "$fix"
	[[ $output == *"active=8.9.7.29-cuda12"* ]]
}

@test "explain: a cuDNN 8 sub-library names cuDNN 8, not the newest 9" {
	cudnnvm -q install 9.20 --cuda 13
	cudnnvm -q install 8.9 --cuda 12
	run cudnnvm doctor --explain "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory"
	fix=$(fix_of)
	[[ $fix == 'eval "$(cudnnvm env 8.9.7.29-cuda12)" && cudnnvm validate' ]]
	# the mirror's archives hold no loadable library: run the switch
	run_fix "${fix% && cudnnvm validate}"
	[[ $output == *"active=8.9.7.29-cuda12"* ]]
}

@test "explain: torch's message when the version it needs is installed switches to it" {
	cudnnvm -q install 9.20 --cuda 13
	run cudnnvm doctor --explain "RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (9, 13, 0) but found runtime version (9, 8, 0)"
	fix=$(fix_of)
	[ "$fix" = 'eval "$(cudnnvm env 9.20.0.48-cuda13)"' ]
	run_fix "$fix"
	[[ $output == *"active=9.20.0.48-cuda13"* ]]
}

@test "explain: nothing installed: the fix installs a build this machine's CUDA has, then switches" {
	run cudnnvm doctor --explain "libcudnn.so.8: cannot open shared object file: No such file or directory"
	fix=$(fix_of)
	run_fix "$fix"
	[[ $output == *"active=8."*"-cuda"* ]]
	# the release has no cuda13 build: the cached manifest says so, and
	# the next fix names the variant it has
	rm -rf "$CUDNNVM_STORE"/8.*
	run cudnnvm doctor --explain "libcudnn.so.8: cannot open shared object file: No such file or directory"
	fix=$(fix_of)
	[[ $fix == *"--cuda 12"* ]]
	run_fix "$fix"
	[[ $output == *"active=8.9.7.29-cuda12"* ]]
}

@test "explain: the message of a GPU too old for 9.11 and newer" {
	run cudnnvm doctor --explain "CUDNN_STATUS_ARCH_MISMATCH"
	fix=$(fix_of)
	# 9.10 is not on the test mirror: only the form is checked here
	[[ $fix == "cudnnvm install 9.10 && eval \"\$(cudnnvm env 9.10)\"" ]]
}

@test "doctor: a toolkit of another major than the active build" {
	cudnnvm -q install 9.20 --cuda 13
	cudnnvm -q global 9.20.0.48-cuda13
	export CUDNNVM_OVERRIDE_CUDA=12.8
	run cudnnvm doctor
	[[ $output == *"the CUDA toolkit is 12"* ]]
	fix=$(sed -n 's/^  fix: //p' <<<"$output" | grep cuda12 | head -1)
	[ -n "$fix" ]
	run_fix "$fix"
	[[ $output == *"active=9.20.0.48-cuda12"* ]]
}

@test "doctor: a driver too old for the active build: the fix switches to the variant it runs" {
	cudnnvm -q install 9.20 --cuda 13
	cudnnvm -q global 9.20.0.48-cuda13
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n' >"$T/old-driver"
	export CUDNNVM_TEST_DRIVER_VERSION_FILE="$T/old-driver"
	unset CUDNNVM_OVERRIDE_CUDA
	run cudnnvm doctor
	[[ $output == *"the NVIDIA driver 535.104.05 is too old for 9.20.0.48-cuda13"* ]]
	fix=$(grep -A3 'is too old' <<<"$output" | sed -n 's/^  fix: //p' | head -1)
	[ -n "$fix" ]
	run_fix "$fix"
	[[ $output == *"active=9.20.0.48-cuda12"* ]]
}

@test "list-remote marks the builds that fit this machine and says why in --json" {
	run --separate-stderr cudnnvm list-remote 9.20 --platform linux-x86_64
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "9.20.0.48-cuda13 "*"  fits" ]]
	[[ ${lines[1]} == "9.20.0.48-cuda12 "* && ${lines[1]} != *fits* ]]
	run --separate-stderr cudnnvm list-remote 9.20 --platform linux-x86_64 --json
	python3 -c '
import json, sys
rows = {r["cuda"]: r["fits"] for r in json.loads(sys.argv[1])}
assert rows[13]["ok"] is True and "CUDNNVM_OVERRIDE_CUDA" in rows[13]["reason"], rows
assert rows[12]["ok"] is False and "CUDA is 13" in rows[12]["reason"], rows
' "$output"
	# no toolkit, a driver for CUDA 12.4: the cuda13 build cannot run
	CUDNNVM_OVERRIDE_CUDA= CUDNNVM_OVERRIDE_DRIVER_CUDA=12.4 \
		run --separate-stderr cudnnvm list-remote 9.20 --platform linux-x86_64 --json
	python3 -c '
import json, sys
rows = {r["cuda"]: r["fits"] for r in json.loads(sys.argv[1])}
assert rows[13]["ok"] is False and "needs a driver for CUDA 13" in rows[13]["reason"], rows
assert rows[12]["ok"] is True, rows
' "$output"
}

@test "doctor: no version active: the fix installs or picks one, and works as printed" {
	# nothing listed yet: no build is named that nothing confirmed
	run cudnnvm doctor
	[[ "$output" != *"install latest"* ]]
	[[ "$output" == *"'cudnnvm list-remote' shows what the mirror has"* ]]
	cudnnvm list-remote 9.20 >/dev/null
	run cudnnvm doctor
	fix=$(sed -n 's/^  fix: //p' <<<"$output" | grep 'global' | head -1)
	[ "$fix" = "cudnnvm install 9.20.0.48-cuda13 && cudnnvm global 9.20.0.48-cuda13" ]
	run bash -c "$fix" </dev/null
	[ "$status" -eq 0 ]
	[ "$(cudnnvm global)" = 9.20.0.48-cuda13 ]
	cudnnvm -q global --unset
	run cudnnvm doctor
	fix=$(sed -n 's/^  fix: //p' <<<"$output" | grep 'global' | head -1)
	[ "$fix" = "cudnnvm global 9.20.0.48-cuda13" ]
	run bash -c "$fix" </dev/null
	[ "$status" -eq 0 ]
}
