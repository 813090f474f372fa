#!/usr/bin/env bats
# global: the atomic <store>/current link (doc/reliability.md F3, F9, F13, F14,
# F21).
load activation

setup() { activation_setup; }
teardown() { touch "$T/stop" 2>/dev/null || true; }

@test "global with nothing set says how to set one" {
	run --separate-stderr cudnnvm global
	[ "$status" -eq 1 ]
	one_error_line
	[ "$(hints)" = "cudnnvm global $B" ]
}

@test "global <spec> points current at the newest match, relatively" {
	run cudnnvm global 9
	[ "$status" -eq 0 ]
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$B" ]
	run cudnnvm global
	[ "$output" = "$B" ]
	cudnnvm global 9.1
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$A" ]
	cudnnvm global "$C"
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$C" ]
	# the store stays movable: the link is relative
	mv "$CUDNNVM_STORE" "$T/moved"
	[ -f "$T/moved/current/lib/libcudnn.so.8" ]
}

@test "global of a version not installed changes nothing and hints at install" {
	cudnnvm global 9.1
	before=$(store_snapshot)
	run --separate-stderr cudnnvm global 9.2
	[ "$status" -eq 1 ]
	one_error_line
	[[ $stderr == *"cudnnvm install 9.2"* ]]
	[ "$(store_snapshot)" = "$before" ]
}

@test "global with a bad spec is a usage error" {
	for bad in ../9 9.x newest "9.1 " "9;ls"; do
		run --separate-stderr cudnnvm global "$bad"
		[ "$status" -eq 64 ]
		one_error_line
	done
	[ ! -e "$CUDNNVM_STORE/current" ]
}

@test "global --unset removes the link, and unset twice is fine" {
	cudnnvm global 9.1
	run cudnnvm global --unset
	[ "$status" -eq 0 ]
	[ ! -L "$CUDNNVM_STORE/current" ]
	run cudnnvm global --unset
	[ "$status" -eq 0 ]
	run cudnnvm global --unset 9.1
	[ "$status" -eq 64 ]
}

@test "F21: current as a real folder is refused and left alone" {
	mkdir "$CUDNNVM_STORE/current"
	touch "$CUDNNVM_STORE/current/keep"
	run --separate-stderr cudnnvm global 9.1
	[ "$status" -ne 0 ]
	one_error_line
	[ -f "$CUDNNVM_STORE/current/keep" ]
	[ ! -L "$CUDNNVM_STORE/current" ]
	# the hint moves it aside (nothing is deleted), then global works
	run bash -c "$(hints)"
	[ "$status" -eq 0 ]
	[ -f "$CUDNNVM_STORE/current.moved/keep" ]
	run cudnnvm global 9.1
	[ "$status" -eq 0 ]
}

@test "F21: a version folder that is a symlink is not activated" {
	ln -s /etc "$CUDNNVM_STORE/9.4.0.1-cuda12"
	run --separate-stderr cudnnvm global 9.4.0.1-cuda12
	[ "$status" -ne 0 ]
	[ ! -e "$CUDNNVM_STORE/current" ]
}

@test "F9: SIGKILL between symlink and rename leaves the old link; the stray is swept" {
	cudnnvm global 9.1
	export CUDNNVM_TEST_CHECKPOINT=global-before-rename
	export CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked"
	cudnnvm global 9.13 &
	pid=$!
	wait_for_file "$T/parked"
	kill -9 "$pid"
	wait "$pid" || true
	unset CUDNNVM_TEST_CHECKPOINT CUDNNVM_TEST_CHECKPOINT_FILE
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$A" ]
	run ls -A "$CUDNNVM_STORE"
	[[ $output == *".current."* ]]
	cudnnvm global 8
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$C" ]
	run ls -A "$CUDNNVM_STORE"
	[[ $output != *".current."* ]]
}

@test "F13: concurrent switches end on one of them, never dangling" {
	cudnnvm global 8
	(for i in $(seq 40); do cudnnvm -q global 9.1 || echo FAIL; done) >"$T/a" &
	(for i in $(seq 40); do cudnnvm -q global 9.13 || echo FAIL; done) >"$T/b" &
	wait
	run ! grep -q FAIL "$T/a" "$T/b"
	t=$(readlink "$CUDNNVM_STORE/current")
	[ "$t" = "$A" ] || [ "$t" = "$B" ]
	[ -f "$CUDNNVM_STORE/current/lib/libcudnn.so.9" ]
	run ls -A "$CUDNNVM_STORE"
	[[ $output != *".current."* ]]
}

@test "F14: a reader of current/lib sees no missing file during 1000 switches" {
	cudnnvm global 9.1
	python3 - "$CUDNNVM_STORE" "$T/stop" >"$T/reader" <<'PY' &
import os, sys
store, stop = sys.argv[1], sys.argv[2]
f = os.path.join(store, "current", "lib", "libcudnn.so.9")
reads = missing = 0
while not os.path.exists(stop) or reads == 0:
    reads += 1
    try:
        os.stat(f)
    except FileNotFoundError:
        missing += 1
print(reads, missing)
PY
	reader=$!
	for i in $(seq 500); do
		cudnnvm -q global 9.13
		cudnnvm -q global 9.1
	done
	touch "$T/stop"
	wait "$reader"
	read -r reads missing <"$T/reader"
	echo "# $reads reads, $missing missing" >&3
	[ "$reads" -gt 0 ]
	[ "$missing" -eq 0 ]
}

@test "F3: no room for the new link leaves current unchanged" {
	mkdir "$T/small"
	if ! mount -t tmpfs -o size=1m,nr_inodes=64 tmpfs "$T/small" 2>/dev/null; then
		skip "cannot mount a tmpfs here (needs root and mount rights)"
	fi
	s="$T/small/store"
	mkdir -p "$s"
	mkver "$A" linux-x86_64 "$s"
	mkver "$B" linux-x86_64 "$s"
	CUDNNVM_STORE=$s cudnnvm global 9.1
	i=0
	while touch "$T/small/fill$i" 2>/dev/null; do i=$((i + 1)); done
	run --separate-stderr env CUDNNVM_STORE="$s" cudnnvm global 9.13
	umount_status=0
	[ "$status" -ne 0 ] || umount_status=1
	[ "$(readlink "$s/current")" = "$A" ] || umount_status=1
	umount "$T/small"
	[ "$umount_status" -eq 0 ]
}

@test "global validates the version first and keeps the old one when it fails" {
	cudnnvm global 9.1
	printf '[install]\nvalidate = yes\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run --separate-stderr cudnnvm global 9.13
	[ "$status" -ne 0 ]
	one_error_line
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$A" ]
	run cudnnvm global --no-validate 9.13
	[ "$status" -eq 0 ]
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$B" ]
}

@test "global refuses options it does not take, shell's --eval included" {
	for opt in --bogus --eval; do
		run --separate-stderr cudnnvm global "$opt" bash
		[ "$status" -eq 64 ]
		one_error_line
		[[ $stderr == *"global: unknown option '$opt'"* ]]
	done
	[ ! -e "$CUDNNVM_STORE/current" ]
}
