#!/usr/bin/env bats
# What a user of nvm, pyenv or mise types first: their short command names,
# a typo, `latest`, a .tool-versions, shims with nothing active.
load activation

setup() { activation_setup; }

@test "ls, ls-remote and rm run list, list-remote and uninstall" {
	run cudnnvm ls
	[ "$status" -eq 0 ]
	[ "$output" = "$(cudnnvm list)" ]
	run cudnnvm ls-remote --help
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "usage: cudnnvm list-remote "* ]]
	run cudnnvm rm 9.1
	[ "$status" -eq 0 ]
	[ ! -e "$CUDNNVM_STORE/$A" ]
	# help names each alias once, beside its command
	run cudnnvm help
	[ "$(grep -c 'alias: ls)' <<<"$output")" -eq 1 ]
	[[ $(cudnnvm commands) == *$'\nrm'* ]]
}

@test "a mistyped command gets the command it was close to" {
	run -64 --separate-stderr cudnnvm instal 9
	one_error_line
	[[ $stderr == *"did you mean 'install'?"* ]]
	run -64 --separate-stderr cudnnvm lsit
	[[ $stderr == *"did you mean 'list'?"* ]]
	run -64 --separate-stderr cudnnvm globl
	[[ $stderr == *"did you mean 'global'?"* ]]
	# nothing close: no guess
	run -64 --separate-stderr cudnnvm frobnicate
	one_error_line
	[[ $stderr != *"did you mean"* ]]
	run -64 --separate-stderr cudnnvm x
	[[ $stderr != *"did you mean"* ]]
}

@test "use in a folder whose .tool-versions has a cudnn line updates that line" {
	mkdir proj && cd proj
	printf 'python 3.12.1\n  cudnn 8.9   # team default\nnodejs 20\n' >.tool-versions
	chmod 0640 .tool-versions
	run --separate-stderr cudnnvm use 9.13
	[ "$status" -eq 0 ]
	[[ $stderr == *"in ./.tool-versions"* ]]
	[ ! -e .cudnn-version ]
	[ "$(cat .tool-versions)" = "$(printf 'python 3.12.1\n  cudnn 9.13 # team default\nnodejs 20')" ]
	[ "$(stat -c %a .tool-versions)" = 640 ]
	run cudnnvm current
	[[ $output == "$B"* ]]
	# without a cudnn line, .tool-versions is left alone
	printf 'python 3.12.1\n' >.tool-versions
	run cudnnvm use 9.1
	[ "$status" -eq 0 ]
	[ "$(cat .tool-versions)" = "python 3.12.1" ]
	[ "$(cat .cudnn-version)" = 9.1 ]
	# and a .cudnn-version beside one, read first, is the one updated
	printf 'cudnn 8.9\n' >.tool-versions
	run cudnnvm use 9.13
	[ "$(cat .cudnn-version)" = 9.13 ]
	[ "$(cat .tool-versions)" = "cudnn 8.9" ]
}

shim_setup() {
	SHIMS="$XDG_DATA_HOME/cudnnvm/shims"
	mkdir -p "$T/realbin"
	printf '#!/bin/sh\necho "probe: ${CUDNNVM_ACTIVE:-none} ${LD_LIBRARY_PATH:-unset} args:$*"\n' >"$T/realbin/cudnn-probe"
	chmod +x "$T/realbin/cudnn-probe"
	export PATH="$T/realbin:$PATH"
	cudnnvm -q shim add cudnn-probe
	export PATH="$SHIMS:$PATH"
}

@test "a shim with no version active anywhere runs the program as if cudnnvm were not there" {
	shim_setup
	unset LD_LIBRARY_PATH
	mkdir other && cd other
	run --separate-stderr cudnn-probe x
	[ "$status" -eq 0 ]
	[ "$output" = "probe: none unset args:x" ]
	[ -z "$stderr" ]
	# not even a store yet
	rm -rf "$CUDNNVM_STORE"
	run cudnn-probe y
	[ "$status" -eq 0 ]
	[ "$output" = "probe: none unset args:y" ]
}

@test "a shim under a pin naming a version that is not installed fails with the fix" {
	shim_setup
	mkdir proj && cd proj
	echo 9.8 >.cudnn-version
	run -1 --separate-stderr cudnn-probe
	[ -z "$output" ]
	one_error_line
	[[ $stderr == *".cudnn-version: "*"not installed"*"cudnnvm install 9.8"* ]]
}

@test "shim add of a program that is not on PATH warns" {
	run --separate-stderr cudnnvm shim add no-such-program-here
	[ "$status" -eq 0 ]
	[[ $stderr == *"warning: 'no-such-program-here' is not on PATH"* ]]
	mkdir -p "$T/realbin"
	printf '#!/bin/sh\n' >"$T/realbin/there"
	chmod +x "$T/realbin/there"
	PATH="$T/realbin:$PATH" run --separate-stderr cudnnvm shim add there
	[[ $stderr != *warning* ]]
}

@test "latest names the newest installed version for this CUDA major" {
	mkver 9.20.0.48-cuda13
	mkdir -p "$T/cudabin"
	printf '#!/bin/sh\necho "Cuda compilation tools, release 12.8, V12.8.1"\n' >"$T/cudabin/nvcc"
	chmod +x "$T/cudabin/nvcc"
	export PATH="$T/cudabin:$PATH"
	# the toolkit is the nvcc on PATH, nothing named before it
	unset CUDNNVM_OVERRIDE_CUDA CUDA_HOME CUDA_PATH
	# CUDA 12 here: 9.13 is the newest cuda12 build, not the cuda13 9.20
	run cudnnvm global latest
	[ "$status" -eq 0 ]
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$B" ]
	run cudnnvm env --shell sh latest
	[[ $output == *"CUDNNVM_ACTIVE='$B'"* ]] || [[ $output == *"$B"* ]]
	run cudnnvm global latest-cuda13
	[ "$(readlink "$CUDNNVM_STORE/current")" = 9.20.0.48-cuda13 ]
	# use pins what latest means today, not a moving target
	mkdir proj && cd proj
	run cudnnvm use latest
	[ "$status" -eq 0 ]
	[ "$(cat .cudnn-version)" = "$B" ]
	run cudnnvm shell --eval bash latest
	[[ $output == *"CUDNNVM_VERSION="*"$B"* ]]
	run -64 cudnnvm use latest9
}
