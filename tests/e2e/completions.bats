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

@test "hidden commands and unsupported shells are not offered" {
	run complete_bash cudnnvm ""
	[[ $output != *"hook-env"* ]]
	[[ $output != *"validate-probe"* ]]
	[[ $output != *"commands"* ]]
	run complete_bash cudnnvm help ""
	[[ $output != *"hook-env"* ]]
	run fish --no-config -c 'cudnnvm completions fish | source; complete -C "cudnnvm "'
	[[ $output != *"hook-env"* ]]
	[[ $output != *"validate-probe"* ]]
	run fish --no-config -c 'cudnnvm completions fish | source; complete -C "cudnnvm completions "'
	[ "$(echo "$output" | cut -f1 | sort | tr '\n' ' ')" = "bash fish zsh " ]
	run complete_bash cudnnvm completions ""
	[ "$(echo "$output" | sort | tr '\n' ' ')" = "bash fish zsh " ]
}

@test "install <Tab> offers the cached mirror listing's versions, without the network" {
	# fill the cache the way a user does: one list-remote
	CUDNNVM_MIRROR="file://$FIXTURES/manifests" cudnnvm list-remote >/dev/null
	# then a mirror that cannot answer: the completion never asks it
	export CUDNNVM_MIRROR=https://127.0.0.1:9/
	run complete_bash cudnnvm install ""
	[ "$(echo "$output" | tr '\n' ' ')" = "9.20.0 9.13.0 9.8.0 8.9.7.29 " ]
	run complete_bash cudnnvm install 9.1
	[ "$output" = "9.13.0" ]
	run fish --no-config -c 'cudnnvm completions fish | source; complete -C "cudnnvm install 9.2"'
	[ "$output" = "9.20.0" ]
	# nothing cached: nothing offered, quickly
	rm -rf "$CUDNNVM_STORE/.cache" "$XDG_CACHE_HOME"
	run complete_bash cudnnvm install ""
	[ -z "$output" ]
}

@test "exec -- <Tab> completes a command, then its files" {
	run complete_bash cudnnvm exec 9.1 -- pyth
	[[ $output == *"python3"* ]]
	run complete_bash cudnnvm exec -- bas
	[[ $output == *"bash"* ]]
	[[ $output != *"$A"* ]]
	touch "$T/train.py"
	run complete_bash cudnnvm exec -- python3 "$T/tra"
	[ "$output" = "$T/train.py" ]
	run fish --no-config -c 'cudnnvm completions fish | source; complete -C "cudnnvm exec 9.1 -- pyth"'
	[[ $output == *"python3"* ]]
	[[ $output != *"$A"* ]]
}

@test "zsh and fish show each command's summary" {
	run fish --no-config -c 'cudnnvm completions fish | source; complete -C "cudnnvm "'
	[[ $output == *"$(printf 'install\tdownload, verify and install a cuDNN version')"* ]]
	[[ $output == *"$(printf 'doctor\tdiagnose the store and the environment')"* ]]
	command -v zsh >/dev/null || skip "zsh is not installed"
	# zsh's own completion system in a pseudo-terminal, listing the choices
	run zsh_tab "cudnnvm "
	[[ $output == *"install      -- download, verify and install a cuDNN version"* ]]
	[[ $output == *"doctor       -- diagnose the store and the environment"* ]]
	[[ $output != *"hook-env"* ]]
	# (zsh inserts the common prefix of python3, python3.11, ...)
	run zsh_tab "cudnnvm exec -- pyth"
	[[ $output == *"cudnnvm exec -- python"* ]]
}

# zsh_tab LINE: what zsh -i lists (or inserts) for LINE<Tab>, through zpty
zsh_tab() {
	mkdir -p "$T/zfunc"
	cudnnvm completions zsh >"$T/zfunc/_cudnnvm"
	timeout 30 zsh -f -c '
zmodload zsh/zpty
zpty z "zsh -f -i"
zpty -w z "PS1=\"%% \"; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
sleep 1
zpty -w -n z "$2"$'"'"'\t'"'"'
sleep 2
out=
while zpty -r -t z chunk; do out+=$chunk; done
zpty -d z
print -r -- "$out"' _ "$T/zfunc" "$1"
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

@test "make install puts the bash completion where bash-completion loads it" {
	[ -f /usr/share/bash-completion/bash_completion ] || skip "bash-completion is not installed"
	for prefix in /usr /usr/local; do
		make -s -C "$REPO_ROOT" install PREFIX=$prefix DESTDIR="$T/d" >/dev/null
		run bash --norc --noprofile -c '
XDG_DATA_DIRS=$1 BASH_COMPLETION_USER_DIR=/nonexistent
source /usr/share/bash-completion/bash_completion
__load_completion cudnnvm
complete -p cudnnvm' _ "$T/d$prefix/share"
		[ "$output" = "complete -F _cudnnvm cudnnvm" ]
	done
}

@test "zsh shows each option with its help, from the declaration" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	run zsh_tab "cudnnvm global --"
	[[ $output == *"--unset"*"-- remove the global version"* ]]
	[[ $output == *"--no-validate"*"-- do not validate first"* ]]
	# nothing scraped from prose: no word ends in ':' or ')'
	[[ $output != *"--force:"* && $output != *"--sha256)"* ]]
	run zsh_tab "cudnnvm --no-"
	[[ $output == *"--no-color"*"-- no colour in output"* ]]
	# and fish has them too
	run fish --no-config -c 'cudnnvm completions fish | source; complete -C "cudnnvm global --un"'
	[ "$output" = "$(printf -- '--unset\tremove the global version')" ]
}

@test "list-remote <Tab> offers the cached listing's versions" {
	CUDNNVM_MIRROR="file://$FIXTURES/manifests" cudnnvm list-remote >/dev/null
	export CUDNNVM_MIRROR=https://127.0.0.1:9/
	run complete_bash cudnnvm list-remote 9.
	[ "$(echo "$output" | tr '\n' ' ')" = "9.20.0 9.13.0 9.8.0 " ]
	run complete_bash cudnnvm ls-remote 8
	[ "$output" = "8.9.7.29" ]
	run fish --no-config -c 'cudnnvm completions fish | source; complete -C "cudnnvm list-remote 9.2"'
	[ "$output" = "9.20.0" ]
}

@test "bash: init loads the completion where bash-completion does not look (PREFIX of its own)" {
	# installed under a prefix bash-completion does not search: the init
	# script still completes, from the binary itself, at the first Tab
	make -s -C "$REPO_ROOT" install PREFIX=/opt/cudnnvm DESTDIR="$T/d" >/dev/null
	run bash --norc --noprofile -c '
eval "$("$1" init bash)"
COMP_WORDS=(cudnnvm lis); COMP_CWORD=1
spec=$(complete -p cudnnvm)
_cudnnvm_complete_load cudnnvm lis cudnnvm
printf "%s\n" "${COMPREPLY[@]}"
complete -p cudnnvm' _ "$T/d/opt/cudnnvm/bin/cudnnvm"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "list" ]
	[ "${lines[1]}" = "list-remote" ]
	[ "${lines[2]}" = "complete -F _cudnnvm cudnnvm" ]
	# a completion already registered (bash-completion's) is left alone
	run bash --norc --noprofile -c '
complete -F _mine cudnnvm
eval "$(cudnnvm init bash)"
complete -p cudnnvm'
	[ "$output" = "complete -F _mine cudnnvm" ]
}
