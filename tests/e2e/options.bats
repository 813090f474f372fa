#!/usr/bin/env bats
# Options are accepted before or after the operands in every command, and
# `--` ends them, as getopt-style tools do.
load activation

setup() {
	activation_setup
	cudnnvm -q global 8
}

@test "uninstall: --force after the version (the order its usage shows) and before it" {
	run --separate-stderr cudnnvm uninstall 8
	[ "$status" -eq 1 ]
	[[ $stderr == *"--force"* ]]
	run cudnnvm uninstall 8 --force
	[ "$status" -eq 0 ]
	[ ! -e "$CUDNNVM_STORE/$C" ]
	mkver "$C"
	cudnnvm -q global 8
	run cudnnvm uninstall --force 8
	[ "$status" -eq 0 ]
	[ ! -e "$CUDNNVM_STORE/$C" ]
}

@test "use, global: options on either side of the version, and -- ends them" {
	mkdir p1 p2 p3
	(cd p1 && cudnnvm -q use 9.1 --no-validate)
	(cd p2 && cudnnvm -q use --no-validate 9.13)
	(cd p3 && cudnnvm -q use -- 9.13)
	[ "$(cat p1/.cudnn-version)" = 9.1 ]
	[ "$(cat p2/.cudnn-version)" = 9.13 ]
	[ "$(cat p3/.cudnn-version)" = 9.13 ]
	run cudnnvm global 9.13 --no-validate
	[ "$status" -eq 0 ]
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$B" ]
	run cudnnvm global --no-validate 9.1
	[ "$status" -eq 0 ]
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$A" ]
}

@test "env, shell: --shell and --eval on either side of the version" {
	run cudnnvm env "$A" --shell fish
	[[ $output == *"set -gx CUDNNVM_ACTIVE '$A';"* ]]
	run cudnnvm env --shell fish "$A"
	[[ $output == *"set -gx CUDNNVM_ACTIVE '$A';"* ]]
	run cudnnvm shell 9.13 --eval bash
	[ "$status" -eq 0 ]
	[[ $output == *"CUDNNVM_VERSION='9.13'"* ]]
	run cudnnvm shell --eval bash 9.13
	[ "$status" -eq 0 ]
	[[ $output == *"CUDNNVM_VERSION='9.13'"* ]]
}

@test "list, current, validate, doctor: flags anywhere" {
	run cudnnvm list --json
	[ "$status" -eq 0 ]
	[[ $output == "["* || $output == "{"* ]]
	run cudnnvm current --json
	[ "$status" -eq 0 ]
	[[ $output == "{"* ]]
	run cudnnvm validate "$A" --no-gpu --json
	a=$status out1=$output
	run cudnnvm validate --json --no-gpu "$A"
	[ "$status" -eq "$a" ]
	[ "$output" = "$out1" ]
	[[ $output == *"\"id\":\"$A\""* ]]
	run cudnnvm validate --no-gpu -- "$A"
	[ "$status" -eq "$a" ]
	run cudnnvm doctor --explain 'CUDNN_STATUS_NOT_INITIALIZED' --json
	b=$status out2=$output
	run cudnnvm doctor --json --explain 'CUDNN_STATUS_NOT_INITIALIZED'
	[ "$status" -eq "$b" ]
	[ "$output" = "$out2" ]
	[[ $output == "{"* || $output == "["* ]]
}

@test "venv: --path on either side of the version" {
	mkdir -p v1/bin v2/bin
	printf 'home = /usr/bin\n' >v1/pyvenv.cfg
	printf 'home = /usr/bin\n' >v2/pyvenv.cfg
	printf 'deactivate () {\n    :\n}\n' >v1/bin/activate
	printf 'deactivate () {\n    :\n}\n' >v2/bin/activate
	run cudnnvm venv 9.1 --path v1
	[ "$status" -eq 0 ]
	run cudnnvm venv --path v2 9.13
	[ "$status" -eq 0 ]
	grep -q "$A" v1/bin/activate
	grep -q "$B" v2/bin/activate
}
