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

# mkdep ID: a store dependency folder deps/libcublas-12.8.4.1 with its
# record, named in version ID's cudnnvm.json
mkdep() {
	local d="$CUDNNVM_STORE/deps/libcublas-12.8.4.1" sha
	sha=$(printf 'ab%062d' 0)
	mkdir -p "$d/lib"
	echo lt >"$d/lib/libcublasLt.so.12.8.4.1"
	ln -sf libcublasLt.so.12.8.4.1 "$d/lib/libcublasLt.so.12"
	printf '{"name": "libcublas", "version": "12.8.4.1", "cuda": 12, "dir": "deps/libcublas-12.8.4.1", "sha256": "%s", "size": 1}\n' \
		"$sha" >"$d/cudnnvm-dep.json"
	python3 - "$CUDNNVM_STORE/$1/cudnnvm.json" "$sha" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["deps"] = [{"name": "libcublas", "version": "12.8.4.1", "cuda": 12,
              "dir": "deps/libcublas-12.8.4.1", "sha256": sys.argv[2], "size": 1}]
json.dump(m, open(sys.argv[1], "w"))
PY
}

@test "a dependency library others may write or another user owns: env, exec and validate refuse the version (73, naming the file) (H6)" {
	mkdep "$A"
	run cudnnvm env --shell sh
	[ "$status" -eq 0 ]
	[[ $output == *"$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib"* ]]
	f="$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib/libcublasLt.so.12.8.4.1"
	chmod o+w "$f"
	for cmd in "env --shell sh" "exec -- true" "validate $A"; do
		run --separate-stderr cudnnvm $cmd
		echo "$cmd: $status $stderr"
		[ "$status" -eq 73 ]
		[[ $stderr == *"'$f' is writable by other users"* ]]
	done
	chmod o-w "$f"
	chown 4242 "$f"
	run --separate-stderr cudnnvm env --shell sh
	[ "$status" -eq 73 ]
	[[ $stderr == *"'$f' belongs to another user (uid 4242)"* ]]
	# the fix replaces the shared folder, then the version's dependencies
	[[ $stderr == *"rm -rf '$CUDNNVM_STORE/deps/libcublas-12.8.4.1' && cudnnvm install $A --deps always"* ]]
}

@test "a version record whose dependency names a folder with ':' or ';', or another release's folder, is damaged (73) (H5)" {
	m="$CUDNNVM_STORE/$A/cudnnvm.json"
	for dep in '{"name": "libcublas", "version": "12.8.4.1", "cuda": 12, "found": "/opt/cuda:lib"}' \
		'{"name": "libcublas", "version": "12.8.4.1", "cuda": 12, "found": "/opt/cuda;lib"}' \
		'{"name": "libcublas", "version": "12.8.4.1", "cuda": 12, "found": "/opt/cuda/../../tmp"}' \
		"{\"name\": \"libcublas\", \"version\": \"12.8.4.1\", \"cuda\": 12, \"dir\": \"deps/cuda_nvrtc-12.8.61\", \"sha256\": \"$(printf 'ab%062d' 0)\", \"size\": 1}" \
		'{"name": "libz", "version": "1.2", "cuda": 12, "found": "/usr/lib"}'; do
		python3 - "$m" "$dep" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["deps"] = [json.loads(sys.argv[2])]
json.dump(m, open(sys.argv[1], "w"))
PY
		run --separate-stderr cudnnvm env --shell sh "$A"
		echo "$dep: $status $output $stderr"
		[ "$status" -eq 73 ]
		[[ $stderr == *"is damaged (bad 'deps')"* ]]
		[[ $output != *"LD_LIBRARY_PATH"* ]]
	done
}

@test "a store whose path holds ':' or ';' is refused for every path variable: env and exec (73) (H7)" {
	for s in "$T/clone:lib" "$T/clone;lib"; do
		mkver "$A" linux-x86_64 "$s"
		run --separate-stderr env CUDNNVM_STORE="$s" cudnnvm env --shell sh "$A"
		echo "$s: $status $output $stderr"
		[ "$status" -eq 73 ]
		[ -z "$output" ]
		[[ $stderr == *"cannot put '$s/$A' on LD_LIBRARY_PATH"* ]]
		run --separate-stderr env CUDNNVM_STORE="$s" cudnnvm exec "$A" -- sh -c 'echo "$LD_LIBRARY_PATH"'
		[ "$status" -eq 73 ]
		[ -z "$output" ]
	done
}
