#!/usr/bin/env bats
# make demo (tests/demo.sh) shows the happy path: the build that fits this
# machine's CUDA, the libraries it needs, and no warning.
load helper

@test "the demo installs the build that fits a CUDA 13 machine and prints no warning" {
	CUDNNVM_OVERRIDE_CUDA=13.0 run "$REPO_ROOT/tests/demo.sh"
	[ "$status" -eq 0 ]
	[[ "$output" != *"warning:"* ]]
	[[ "$output" == *"installed cuDNN 9.13.0.50-cuda13 in"* ]]
	[[ "$output" == *"pinned 9.13 (9.13.0.50-cuda13)"* ]]
}

@test "on a CUDA 12 machine the demo takes the cuda12 build, also with no warning" {
	CUDNNVM_OVERRIDE_CUDA=12.8 run "$REPO_ROOT/tests/demo.sh"
	[ "$status" -eq 0 ]
	[[ "$output" != *"warning:"* ]]
	[[ "$output" == *"installed cuDNN 9.13.0.50-cuda12 in"* ]]
}
