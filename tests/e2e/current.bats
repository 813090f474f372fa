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
	# marker only: one stat, the same with 3 versions or 43; what puts the
	# version on a path (env, the hook, exec) also reads that one
	# version's cudnnvm.json once, for the dependency folders it names
	for cmd in "current" "which lib" "env --shell bash" "hook-env --shell bash" \
		"exec -- /bin/true"; do
		# shellcheck disable=SC2086
		n=$(meta_reads "$CUDNNVM_BIN" $cmd)
		echo "$cmd: $n" >&2
		case $cmd in
		current | which*) [ "$n" -le 1 ] ;;
		*) [ "$n" -le 2 ] ;;
		esac
	done
	# and only the chosen version's
	n=$(strace -f -qq -e trace=%file,read -o "$T/trace" "$CUDNNVM_BIN" env --shell bash >/dev/null 2>&1
		grep 'cudnnvm\.json' "$T/trace" | grep -vc "$B/cudnnvm.json" || true)
	[ "$n" -eq 0 ]
	run cudnnvm current
	[ "$output" = "$B (set by $T/p/.cudnn-version)" ]
}

@test "a working folder deeper than PATH_MAX: current, which, env, exec, use and hook-env give one answer, the pin" {
	cudnnvm -q global 9.1
	mkdir p && echo 9.13 >p/.cudnn-version
	# 20 levels of 250 bytes: past PATH_MAX (4096), made one cd at a time
	run bash -c '
		cd p || exit 2
		n=$(printf "d%.0s" $(seq 250))
		for i in $(seq 20); do mkdir "$n" && cd "$n" || exit 3; done
		"$1" current; echo "current=$?"
		"$1" which root; echo "which=$?"
		"$1" env --shell sh | grep "^export CUDNNVM_ACTIVE="; echo "env=$?"
		"$1" exec -- sh -c "echo exec:\$CUDNNVM_ACTIVE"; echo "exec=$?"
		"$1" hook-env --shell bash | grep "^export CUDNNVM_ACTIVE="; echo "hook=$?"
		# a pin in the deep part itself, named relative to here
		echo 9.1 >../.cudnn-version
		"$1" current; echo "deep=$?"
		"$1" use --no-validate 9.13; echo "use=$?"
		cat .cudnn-version
		"$1" current' bash "$CUDNNVM_BIN"
	echo "$output"
	# the pin above is named from here: its path does not fit either
	[ "${lines[0]}" = "$B (set by $(printf '../%.0s' $(seq 20)).cudnn-version)" ]
	[ "${lines[1]}" = "current=0" ]
	[ "${lines[2]}" = "$CUDNNVM_STORE/$B" ]
	[ "${lines[3]}" = "which=0" ]
	[ "${lines[4]}" = "export CUDNNVM_ACTIVE='$B'" ]
	[ "${lines[5]}" = "env=0" ]
	[ "${lines[6]}" = "exec:$B" ]
	[ "${lines[7]}" = "exec=0" ]
	[ "${lines[8]}" = "export CUDNNVM_ACTIVE='$B'" ]
	[ "${lines[9]}" = "hook=0" ]
	[ "${lines[10]}" = "$A (set by ../.cudnn-version)" ]
	[ "${lines[11]}" = "deep=0" ]
	[[ "$output" == *"use=0"* ]]
	[ "${lines[-2]}" = "9.13" ]
	[ "${lines[-1]}" = "$B (set by ./.cudnn-version)" ]
}

@test "another user's pin or lock in a parent folder (a shared /tmp) is passed over for current, env and exec, with a notice (H14)" {
	cudnnvm -q global "$A"
	mkdir -p "$T/shared/proj"
	echo "$B" >"$T/shared/.cudnn-version"
	chown 4242 "$T/shared/.cudnn-version"
	cd "$T/shared/proj"
	run --separate-stderr cudnnvm current
	[ "$status" -eq 0 ]
	[ "$output" = "$A (global default)" ]
	run --separate-stderr cudnnvm exec -- sh -c 'echo "$CUDNNVM_ACTIVE"'
	[ "$status" -eq 0 ]
	[ "$output" = "$A" ]
	[ "$(grep -c "passing over $T/shared/.cudnn-version: it belongs to another user (uid 4242)" <<<"$stderr")" -eq 1 ]
	run --separate-stderr cudnnvm env --shell sh
	[[ $output == *"CUDNNVM_ACTIVE='$A'"* ]]
	# a folder another user owns, with a pin file that is ours
	chown 0 "$T/shared/.cudnn-version"
	chown 4242 "$T/shared"
	run --separate-stderr cudnnvm current
	[ "$output" = "$A (global default)" ]
	# this user's own pin still decides
	chown 0 "$T/shared"
	run --separate-stderr cudnnvm current --json
	[ "$(echo "$output" | json id)" = "$B" ]
}

@test "another user's lock beside this user's pin is passed over (H14)" {
	mkdir -p "$T/p" && cd "$T/p"
	echo 9 >.cudnn-version
	python3 - <<PY
import json
json.dump({"format": 1, "id": "$A", "spec": "9",
  "manifest": {"url": "redistrib_9.1.0.json", "sha256": "$(printf 'ab%062d' 0)"},
  "source": "nvidia",
  "platforms": {"linux-x86_64": {"url": "cudnn/linux-x86_64/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz",
     "sha256": "$(printf 'cd%062d' 0)", "size": 1, "deps": []}}}, open("cudnnvm.lock", "w"))
PY
	run --separate-stderr cudnnvm current --json
	[ "$(echo "$output" | json id)" = "$A" ]
	[ "$(echo "$output" | json origin)" = "lock" ]
	chown 4242 cudnnvm.lock
	run --separate-stderr cudnnvm current --json
	[ "$(echo "$output" | json id)" = "$B" ]
}
