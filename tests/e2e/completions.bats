#!/usr/bin/env bats
# Completions: bash through complete -p and COMP_WORDS, fish through
# complete -C, zsh loaded by compinit.
load activation

setup() { activation_setup; }

# complete_bash WORDS...: what the bash completion offers for the last word
complete_bash() {
	bash --norc --noprofile -c '
source <(cudnnvm completions bash)
spec=$(complete -p cudnnvm)
[[ $spec == *"-F _cudnnvm"* ]] || { echo "not registered: $spec"; exit 1; }
COMP_WORDS=("$@")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE="${COMP_WORDS[*]}"
COMP_POINT=${#COMP_LINE}
_cudnnvm
printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}

@test "bash: commands, versions, flags and shells" {
	run complete_bash cudnnvm ""
	[ "$status" -eq 0 ]
	for c in $(cudnnvm commands); do
		grep -qx "$c" <<<"$output"
	done
	run complete_bash cudnnvm us
	[ "$output" = "use" ]
	run complete_bash cudnnvm use 9.1
	[[ $output == *"$A"* ]]
	[[ $output == *"$B"* ]]
	[[ $output != *"$C"* ]]
	run complete_bash cudnnvm global --
	[[ $output == *"--unset"* ]]
	[[ $output == *"--no-validate"* ]]
	run complete_bash cudnnvm init ""
	[ "$(echo "$output" | sort | tr '\n' ' ')" = "bash fish powershell tcsh zsh " ]
	# completion scripts exist for three shells only
	run complete_bash cudnnvm completions ""
	[ "$(echo "$output" | sort | tr '\n' ' ')" = "bash fish zsh " ]
	run complete_bash cudnnvm env --shell f
	[ "$output" = "fish" ]
	run complete_bash cudnnvm --store "$T" li
	[ "$(echo "$output" | sort | tr '\n' ' ')" = "list list-remote " ]
	run complete_bash cudnnvm --no
	[ "$(echo "$output" | sort | tr '\n' ' ')" = "--no-color --no-wait " ]
}

@test "fish: commands and versions" {
	run fish --no-config -c 'cudnnvm completions fish | source; complete -C "cudnnvm "'
	for c in $(cudnnvm commands); do
		grep -q "^$c" <<<"$output"
	done
	run fish --no-config -c 'cudnnvm completions fish | source; complete -C "cudnnvm use "'
	[[ $output == *"$A"* ]]
	run fish --no-config -c 'cudnnvm completions fish | source; complete -C "cudnnvm global --"'
	[[ $output == *"--unset"* ]]
}

@test "zsh: the completion function loads and registers" {
	mkdir -p "$T/zfunc"
	cudnnvm completions zsh >"$T/zfunc/_cudnnvm"
	run zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -D; print -r -- ${_comps[cudnnvm]}' _ "$T/zfunc"
	[ "$status" -eq 0 ]
	[ "$output" = "_cudnnvm" ]
}

@test "unknown shells are usage errors" {
	run cudnnvm completions tcsh
	[ "$status" -eq 64 ]
}
