#!/usr/bin/env bats
# Colour: on a terminal only, never with NO_COLOR or --no-color, always
# with CLICOLOR_FORCE; errors, warnings, doctor's levels, validation's
# pass/fail/skip and list's marks.
load helper

ESC=$'\033['

setup() {
	common_setup
	read -r arch sha < <(python3 "$FIXTURES/mkarchive.py" nvidia --version 9.1.0.70 --cuda 12 --out "$T/a" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
	cudnnvm -q install --no-validate --archive "$arch" --sha256 "$sha"
	ln -s 9.1.0.70-cuda12 "$CUDNNVM_STORE/current"
}

@test "a terminal gets colour: the error prefix, hints and list's marks" {
	command -v script >/dev/null || skip "script(1) is not installed"
	run script -qec "cudnnvm lisst" /dev/null
	[[ "$output" == *"${ESC}1m${ESC}31mcudnnvm:${ESC}0m no such command"* ]]
	run script -qec "cudnnvm list" /dev/null
	[[ "$output" == *"${ESC}1m${ESC}32m>${ESC}0m${ESC}1m${ESC}32m*${ESC}0m 9.1.0.70-cuda12"* ]]
	# and the helper, which the front binary hands install to
	run script -qec "cudnnvm install --archive /nonexistent.tar.xz --sha256 00" /dev/null
	[[ "$output" == *"${ESC}1m${ESC}31mcudnnvm:${ESC}0m"* ]]
}

@test "a pipe or a file gets none; TERM=dumb gets none" {
	run cudnnvm lisst
	[[ "$output" == "cudnnvm: no such command"* ]]
	[[ "$output" != *"$ESC"* ]]
	run cudnnvm list
	[[ "$output" == ">* 9.1.0.70-cuda12"* ]]
	command -v script >/dev/null || skip "script(1) is not installed"
	TERM=dumb run script -qec "cudnnvm list" /dev/null
	[[ "$output" == *">* 9.1.0.70-cuda12"* ]]
	[[ "$output" != *"$ESC"* ]]
}

@test "NO_COLOR and --no-color turn it off on a terminal" {
	command -v script >/dev/null || skip "script(1) is not installed"
	NO_COLOR=1 run script -qec "cudnnvm list" /dev/null
	[[ "$output" == *">* 9.1.0.70-cuda12"* ]]
	[[ "$output" != *"$ESC"* ]]
	run script -qec "cudnnvm --no-color lisst" /dev/null
	[[ "$output" == *"cudnnvm: no such command"* ]]
	[[ "$output" != *"$ESC"* ]]
	# NO_COLOR set but empty is not set (no-color.org)
	NO_COLOR= run script -qec "cudnnvm list" /dev/null
	[[ "$output" == *"$ESC"* ]]
}

@test "CLICOLOR_FORCE colours a pipe, unless NO_COLOR or --no-color; 0 forces nothing" {
	CLICOLOR_FORCE=1 run cudnnvm list
	[[ "$output" == *"${ESC}1m${ESC}32m*${ESC}0m"* ]]
	CLICOLOR_FORCE=1 NO_COLOR=1 run cudnnvm list
	[[ "$output" != *"$ESC"* ]]
	CLICOLOR_FORCE=1 run cudnnvm list --no-color
	[[ "$output" != *"$ESC"* ]]
	CLICOLOR_FORCE=0 run cudnnvm list
	[[ "$output" != *"$ESC"* ]]
}

@test "doctor's levels and warnings are coloured by what they say" {
	rm "$CUDNNVM_STORE/current"
	ln -s 9.99.0.1-cuda12 "$CUDNNVM_STORE/current"
	CLICOLOR_FORCE=1 run cudnnvm doctor
	[[ "$output" =~ $'\033'\[(1m$'\033'\[31m|33m|36m)(error|warning|info)$'\033'\[0m: ]]
	run cudnnvm doctor
	[[ "$output" != *"$ESC"* ]]
}
