#!/usr/bin/env bats
# shell <spec> | --unset: needs the integration; prints what it evaluates.
load activation

setup() { activation_setup; }

@test "without the shell integration: one line saying how to set it up" {
	run --separate-stderr cudnnvm shell 9.1
	[ "$status" -eq 1 ]
	one_error_line
	[[ $stderr == *"cudnnvm init bash"* ]]
	[[ $stderr == *"CUDNNVM_VERSION=9.1"* ]]
	run --separate-stderr cudnnvm shell --unset
	[ "$status" -eq 1 ]
	one_error_line
	[[ $stderr == *"unset CUDNNVM_VERSION"* ]]
}

@test "without the integration, a tcsh user is told in tcsh's syntax" {
	run --separate-stderr tcsh -fc 'cudnnvm shell 9.1'
	[ "$status" -eq 1 ]
	one_error_line
	[ "$(hints)" = 'eval "`cudnnvm init tcsh`"
setenv CUDNNVM_VERSION 9.1' ]
	run --separate-stderr tcsh -fc 'cudnnvm shell --unset'
	[ "$(hints)" = 'eval "`cudnnvm init tcsh`"
unsetenv CUDNNVM_VERSION' ]
}

@test "through the integration it prints the override for each shell" {
	run cudnnvm shell --eval bash 9.1
	[ "$output" = "export CUDNNVM_VERSION='9.1'" ]
	run cudnnvm shell --eval fish 9.13
	[ "$output" = "set -gx CUDNNVM_VERSION '9.13';" ]
	run cudnnvm shell --eval bash --unset
	[ "$output" = "unset CUDNNVM_VERSION" ]
}

@test "a bad or missing version prints nothing to evaluate" {
	run --separate-stderr cudnnvm shell --eval bash '9.1;rm'
	[ "$status" -eq 64 ]
	[ -z "$output" ]
	run --separate-stderr cudnnvm shell --eval bash 7
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	one_error_line
	run cudnnvm shell
	[ "$status" -eq 64 ]
}

@test "the override works in a real bash and wins over a pin" {
	mkdir p && echo 8 >p/.cudnn-version
	run bash --norc --noprofile -i 2>/dev/null <<'SH'
eval "$(cudnnvm init bash)"
cd p
cudnnvm shell 9.1
echo "now: $CUDNNVM_ACTIVE"
cudnnvm current
SH
	[[ $output == *"now: $A"* ]]
	[[ $output == *"$A (set by CUDNNVM_VERSION=9.1)"* ]]
}

@test "shell refuses an unknown option and prints nothing to evaluate" {
	run --separate-stderr cudnnvm shell --eval bash --bogus 9.1
	[ "$status" -eq 64 ]
	one_error_line
	[[ $stderr == *"shell: unknown option '--bogus'"* ]]
	[ -z "$output" ]
}
