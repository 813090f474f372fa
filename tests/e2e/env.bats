#!/usr/bin/env bats
# env: the variables of a version, per shell, idempotent, quoted (V3).
load activation

setup() { activation_setup; cudnnvm -q global 9.1; }

VARS="LD_LIBRARY_PATH CPATH LIBRARY_PATH CUDNN_HOME CUDNN_PATH CUDNN_ROOT CUDNN_INCLUDE_DIR CUDNN_LIB_DIR CUDNNVM_ACTIVE"

# Print the version's variables after running $2 in shell $1.
show() {
	local sh=$1 script=$2
	"$sh" -c "$script"'
for v in '"$VARS"'; do eval "printf \"%s=%s\\n\" \$v \"\${$v-<unset>}\""; done'
}

@test "env prints every variable of doc/SPEC.md with resolved paths" {
	run cudnnvm env --shell sh
	[ "$status" -eq 0 ]
	h="$CUDNNVM_STORE/$A"
	[[ $output == *"export LD_LIBRARY_PATH='$h/lib"* ]]
	[[ $output == *"export CPATH='$h/include"* ]]
	[[ $output == *"export LIBRARY_PATH='$h/lib"* ]]
	for v in CUDNN_HOME CUDNN_PATH CUDNN_ROOT; do
		[[ $output == *"export $v='$h'"* ]]
	done
	[[ $output == *"export CUDNN_INCLUDE_DIR='$h/include'"* ]]
	[[ $output == *"export CUDNN_LIB_DIR='$h/lib'"* ]]
	[[ $output == *"export CUDNNVM_ACTIVE='$A'"* ]]
	[[ $output != *current* ]]
}

@test "eval twice in bash, zsh and dash gives the same environment (idempotent)" {
	unset LD_LIBRARY_PATH CPATH LIBRARY_PATH
	export LD_LIBRARY_PATH=/usr/local/lib
	for sh in bash zsh dash; do
		once=$(show "$sh" 'eval "$(cudnnvm env --shell sh)"')
		twice=$(show "$sh" 'eval "$(cudnnvm env --shell sh)"; eval "$(cudnnvm env --shell sh)"')
		[ "$once" = "$twice" ]
		[[ $once == *"LD_LIBRARY_PATH=$CUDNNVM_STORE/$A/lib:/usr/local/lib"* ]]
	done
}

@test "switching removes only the previous version's entries" {
	export LD_LIBRARY_PATH=/usr/local/lib
	out=$(bash -c 'eval "$(cudnnvm env --shell bash)"
		LD_LIBRARY_PATH=/mine:$LD_LIBRARY_PATH
		eval "$(cudnnvm env --shell bash 9.13)"
		echo "$LD_LIBRARY_PATH|$CPATH|$CUDNNVM_ACTIVE"')
	[ "$out" = "$CUDNNVM_STORE/$B/lib:/mine:/usr/local/lib|$CUDNNVM_STORE/$B/include|$B" ]
}

@test "V3: a store path with spaces, quotes, \$, backticks and a newline survives eval in bash, zsh, dash and fish" {
	S="$T/st ore/it's \$HOME \`id\` \"a\" b\\c"
	mkdir -p "$S"
	mkver "$A" linux-x86_64 "$S"
	export CUDNNVM_STORE="$S"
	unset LD_LIBRARY_PATH CPATH LIBRARY_PATH
	for sh in bash zsh dash; do
		got=$("$sh" -c 'eval "$(cudnnvm env --shell sh '"$A"')"; printf %s "$CUDNN_HOME"')
		[ "$got" = "$S/$A" ]
		got=$("$sh" -c 'eval "$(cudnnvm env --shell sh '"$A"')"; printf %s "$LD_LIBRARY_PATH"')
		[ "$got" = "$S/$A/lib" ]
	done
	got=$(fish -c "cudnnvm env --shell fish $A | source; printf %s \"\$CUDNN_HOME\"")
	[ "$got" = "$S/$A" ]
	# cmd.exe cannot carry a double quote: refused with one line
	run --separate-stderr cudnnvm env --shell cmd "$A"
	[ "$status" -eq 65 ]
	one_error_line
}

@test "V3: a store path with a newline is refused with one line, not emitted" {
	S="$T/a
b"
	mkdir -p "$S"
	mkver "$A" linux-x86_64 "$S"
	CUDNNVM_STORE="$S" run --separate-stderr cudnnvm env --shell sh "$A"
	[ "$status" -ne 0 ]
	one_error_line
	[ -z "$output" ]
}

@test "fish, powershell and cmd syntax" {
	run cudnnvm env --shell fish
	[[ $output == *"set -gx CUDNN_HOME '$CUDNNVM_STORE/$A';"* ]]
	run cudnnvm env --shell powershell
	[[ $output == *"\$env:CUDNN_HOME = '$CUDNNVM_STORE/$A'"* ]]
	run cudnnvm env --shell cmd
	[[ $output == *"set \"CUDNN_HOME=$CUDNNVM_STORE/$A\""* ]]
	run cudnnvm env --shell tcsh
	[[ $output == *"setenv CUDNN_HOME '$CUDNNVM_STORE/$A';"* ]]
	run --separate-stderr cudnnvm env --shell nushell
	[ "$status" -eq 64 ]
	one_error_line
}

@test "the shell comes from the process running cudnnvm, not from \$SHELL" {
	# bats runs cudnnvm from bash: bash syntax whatever SHELL says
	SHELL=/usr/bin/fish run cudnnvm env
	[[ $output == *"export CUDNNVM_ACTIVE='$A'"* ]]
	run fish --no-config -c 'cudnnvm env'
	[[ $output == *"set -gx CUDNNVM_ACTIVE '$A';"* ]]
}

@test "env of a version not installed or with nothing active fails with one line" {
	run --separate-stderr cudnnvm env 7
	[ "$status" -eq 1 ]
	one_error_line
	cudnnvm -q global --unset
	run --separate-stderr cudnnvm env
	[ "$status" -eq 1 ]
	one_error_line
}

@test "env to a full disk fails" {
	run bash -c 'cudnnvm env --shell sh >/dev/full'
	[ "$status" -eq 74 ]
}
