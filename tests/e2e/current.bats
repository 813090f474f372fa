#!/usr/bin/env bats
# current [--json]: the active id and why.
load activation

setup() { activation_setup; }

json() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get(sys.argv[1], "-"))' "$1"; }

@test "nothing active: exit 1 and a hint" {
	run --separate-stderr cudnnvm current
	[ "$status" -eq 1 ]
	one_error_line
	# the newest installed build becomes the default, as printed
	[ "$(hints)" = "cudnnvm global $B" ]
	run bash -c "$(hints)"
	[ "$status" -eq 0 ]
	[[ "$(cudnnvm current)" == "$B"* ]]
}

@test "global origin" {
	cudnnvm -q global 9.1
	run cudnnvm current
	[ "$output" = "$A (global default)" ]
	run cudnnvm current --json
	[ "$(echo "$output" | json id)" = "$A" ]
	[ "$(echo "$output" | json origin)" = "global" ]
}

@test "file origin names the file" {
	mkdir p && echo 9.13 >p/.cudnn-version && cd p
	run cudnnvm current --json
	[ "$(echo "$output" | json id)" = "$B" ]
	[ "$(echo "$output" | json origin)" = "file" ]
	[ "$(echo "$output" | json file)" = "$T/p/.cudnn-version" ]
	[ "$(echo "$output" | json spec)" = "9.13" ]
}

@test "env origin" {
	CUDNNVM_VERSION=8 run cudnnvm current --json
	[ "$(echo "$output" | json id)" = "$C" ]
	[ "$(echo "$output" | json origin)" = "env" ]
}

@test "the global version removed behind our back is reported" {
	cudnnvm -q global 9.1
	rm -rf "${CUDNNVM_STORE:?}/$A"
	run --separate-stderr cudnnvm current
	[ "$status" -eq 1 ]
	one_error_line
	[[ $stderr == *"no longer installed"* ]]
	[ "$(hints)" = "cudnnvm install $A" ]
}

@test "unknown flags are usage errors" {
	run cudnnvm current --bogus
	[ "$status" -eq 64 ]
}

# How many times a command touches any version's cudnnvm.json (strace).
meta_reads() {
	strace -f -qq -e trace=%file,read -o "$T/trace" "$@" >/dev/null 2>&1 || true
	grep -c 'cudnnvm\.json' "$T/trace" || true
}

@test "resolving a pinned spec reads no version's metadata, however many are installed" {
	command -v strace >/dev/null || skip "strace is not installed (tests/deps.sh installs it)"
	for i in $(seq 1 40); do mkver "9.$((i % 13)).$i.$((100 + i))-cuda$((11 + i % 2))"; done
	mkdir p && echo 9.13 >p/.cudnn-version && cd p
	# the hot path looks at folder names, then at the chosen version's
	# marker only: one stat, the same with 3 versions or 43
	for cmd in "current" "which lib" "env --shell bash" "hook-env --shell bash" \
		"exec -- /bin/true"; do
		# shellcheck disable=SC2086
		n=$(meta_reads "$CUDNNVM_BIN" $cmd)
		echo "$cmd: $n" >&2
		[ "$n" -le 1 ]
	done
	run cudnnvm current
	[ "$output" = "$B (set by $T/p/.cudnn-version)" ]
}
