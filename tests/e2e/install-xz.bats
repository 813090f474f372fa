#!/usr/bin/env bats
# install of xz archives through liblzma's threaded decoder: the same tree
# whether the archive is one xz block or many, as many decoding threads as
# asked for on a many-block archive and one on a one-block archive, a
# corrupt block refused with nothing published, and SIGKILL while the
# threads decode leaving nothing visible.
load helper

setup() {
	common_setup
	A="$T/archives"
	mkdir -p "$A/one" "$A/many"
}

# mk_pair PAD_MB: one NVIDIA-shaped archive, recompressed twice from the
# same tar: $ONE with xz -T1 (one block, no sizes in its header) and
# $MANY with 64 KiB blocks that record their sizes; NAME, ID. Each size
# is made once for the file (the padding is incompressible, so making it
# is slow) and copied into the test's own $A, which it may damage.
mk_pair() {
	local j made="$BATS_FILE_TMPDIR/pair-$1"
	NAME=cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
	ID=9.1.0.70-cuda12
	if [ ! -e "$made/done" ]; then
		rm -rf "$made"
		mkdir -p "$made/one" "$made/many"
		j=$(python3 "$FIXTURES/mkarchive.py" nvidia --version 9.1.0.70 --cuda 12 \
			--pad-mb "$1" --preset 0 --out "$made") || return 1
		[ "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["filename"])' "$j")" = "$NAME" ] ||
			return 1
		xz -dc "$made/$NAME" >"$made/t.tar"
		xz -T1 -0 -c "$made/t.tar" >"$made/one/$NAME"
		xz -T2 -0 --block-size=64KiB -c "$made/t.tar" >"$made/many/$NAME"
		: >"$made/done"
	fi
	cp "$made/$NAME" "$made/t.tar" "$A/"
	cp "$made/one/$NAME" "$A/one/"
	cp "$made/many/$NAME" "$A/many/"
	ONE="$A/one/$NAME"
	MANY="$A/many/$NAME"
}

blocks() { xz -lv --robot "$1" | grep -c '^block'; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

# threads_at_checkpoint ARCHIVE JOBS: how many threads the install runs
# while parked at the mid-xz checkpoint (after the decoder's second
# output buffer), then SIGKILL it.
threads_at_checkpoint() {
	rm -f "$T/parked"
	CUDNNVM_TEST_CHECKPOINT=mid-xz CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		cudnnvm --store "$T/s-threads" install --no-validate --jobs "$2" \
		--archive "$1" --sha256 "$(sha "$1")" 3>&- &
	local pid=$!
	wait_for_file "$T/parked" || { kill -9 "$pid"; return 1; }
	ls "/proc/$pid/task" | wc -l
	kill -9 "$pid"
	wait "$pid" || true
}

@test "one-block and many-block tar.xz of one tree install to identical trees" {
	mk_pair 3
	[ "$(blocks "$ONE")" -eq 1 ]
	[ "$(blocks "$MANY")" -gt 40 ]
	for k in one many; do
		f="$A/$k/$NAME"
		run cudnnvm --store "$T/$k" install --no-validate --archive "$f" --sha256 "$(sha "$f")"
		[ "$status" -eq 0 ]
		[ -f "$T/$k/$ID/lib/libcudnn.so.9.1.0" ]
	done
	# same names, link targets, modes and bytes; only the recorded hash,
	# source and time differ
	run diff -r --no-dereference -x cudnnvm.json "$T/one/$ID" "$T/many/$ID"
	[ "$status" -eq 0 ]
	[ "$(cd "$T/one/$ID" && find . -printf '%p %m %y %l\n' | LC_ALL=C sort)" = \
		"$(cd "$T/many/$ID" && find . -printf '%p %m %y %l\n' | LC_ALL=C sort)" ]
	# and the tree is the tar's, byte for byte
	mkdir "$T/ref"
	tar -xf "$A/t.tar" -C "$T/ref" --strip-components=1
	run diff -r --no-dereference -x cudnnvm.json -x lib64 "$T/ref" "$T/many/$ID"
	[ "$status" -eq 0 ]
}

@test "a many-block archive decodes on --jobs N threads, a one-block archive on one" {
	mk_pair 16
	base=$(threads_at_checkpoint "$ONE" 3)
	[ -n "$base" ]
	# the one-block archive runs no decoding threads beyond its own
	[ "$(threads_at_checkpoint "$ONE" 1)" -eq "$base" ]
	n1=$(threads_at_checkpoint "$MANY" 1)
	n3=$(threads_at_checkpoint "$MANY" 3)
	echo "one-block: $base threads; many-block: $n1 with --jobs 1, $n3 with --jobs 3"
	[ "$n1" -eq $((base + 1)) ]
	[ "$n3" -eq $((base + 3)) ]
	# [install] threads is the default --jobs overrides
	mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
	printf '[install]\nthreads = 2\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	rm -f "$T/parked"
	CUDNNVM_TEST_CHECKPOINT=mid-xz CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		cudnnvm --store "$T/s-cfg" install --no-validate \
		--archive "$MANY" --sha256 "$(sha "$MANY")" 3>&- &
	pid=$!
	wait_for_file "$T/parked"
	n2=$(ls "/proc/$pid/task" | wc -l)
	kill -9 "$pid"
	wait "$pid" || true
	[ "$n2" -eq $((base + 2)) ]
}

@test "a corrupt block in the middle fails with exit 65 and publishes nothing" {
	mk_pair 3
	f="$MANY"
	size=$(stat -c %s "$f")
	# flip one byte half-way through the compressed data: a block's CRC64
	# (or its LZMA2 data) no longer matches
	python3 - "$f" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0x55
open(p, "wb").write(b)
PY
	[ "$(stat -c %s "$f")" -eq "$size" ]
	mkdir -p "$CUDNNVM_STORE"
	before=$(store_snapshot)
	for jobs in 1 2 4; do
		run cudnnvm install --no-validate --jobs "$jobs" --archive "$f" --sha256 "$(sha "$f")"
		[ "$status" -eq 65 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "cudnnvm: install $ID: corrupt or unsupported archive: "* ]]
		echo "$output"
		[ ! -e "$CUDNNVM_STORE/$ID" ]
		[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
	done
}

@test "a truncated many-block archive fails with exit 65 and publishes nothing" {
	mk_pair 3
	head -c $(($(stat -c %s "$MANY") * 2 / 3)) "$MANY" >"$T/cut.tar.xz"
	mv "$T/cut.tar.xz" "$MANY"
	run cudnnvm install --no-validate --jobs 2 --archive "$MANY" --sha256 "$(sha "$MANY")"
	[ "$status" -eq 65 ]
	[[ "$output" == "cudnnvm: install $ID: corrupt or unsupported archive: "* ]]
	[ ! -e "$CUDNNVM_STORE/$ID" ]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
}

@test "SIGKILL while the threads decode leaves nothing visible; the next run sweeps it and installs" {
	mk_pair 16
	CUDNNVM_TEST_CHECKPOINT=mid-xz CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		cudnnvm install --no-validate --jobs 2 --archive "$MANY" --sha256 "$(sha "$MANY")" 3>&- &
	pid=$!
	wait_for_file "$T/parked"
	[ -n "$(ls -A "$CUDNNVM_STORE/.staging")" ]
	kill -9 "$pid"
	wait "$pid" || true
	[ ! -e "$CUDNNVM_STORE/$ID" ]
	run cudnnvm list
	[ "$status" -eq 0 ]
	[[ "$output" != *9.1.0.70* ]]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
	run cudnnvm install --no-validate --jobs 2 --archive "$MANY" --sha256 "$(sha "$MANY")"
	[ "$status" -eq 0 ]
	[ -f "$CUDNNVM_STORE/$ID/cudnnvm.json" ]
}

@test "--jobs and [install] threads refuse what is not a thread count" {
	run cudnnvm install --jobs 0 9
	[ "$status" -eq 64 ]
	[[ "$output" == "cudnnvm: install: --jobs needs a number of threads, 1-1024"* ]]
	run cudnnvm install --jobs 2x 9
	[ "$status" -eq 64 ]
	run cudnnvm install --jobs 1025 9
	[ "$status" -eq 64 ]
	mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
	printf '[install]\nthreads = many\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm list
	[ "$status" -eq 78 ]
	[[ "$output" == *"config.ini:2: threads 'many' must be auto or a number 1-1024" ]]
}

@test "[install] threads takes auto or a count, and validate = no beside it still reads as a boolean" {
	mk_pair 1
	mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
	for v in auto 1 7 1024; do
		printf '[install]\nthreads = %s\nvalidate = no\n' "$v" >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
		run cudnnvm --store "$T/s-$v" install --archive "$MANY" --sha256 "$(sha "$MANY")"
		[ "$status" -eq 0 ]
		[ -f "$T/s-$v/$ID/cudnnvm.json" ]
	done
	printf '[install]\nthreads = 0\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm list
	[ "$status" -eq 78 ]
}

@test "every file and folder of a new version is synced before the rename that publishes it" {
	command -v strace >/dev/null || skip "strace is not installed (tests/deps.sh installs it)"
	mk_pair 1
	strace -f -qq -e trace=fsync,syncfs,renameat2 -o "$T/trace" \
		cudnnvm --store "$T/s" install --no-validate --archive "$MANY" --sha256 "$(sha "$MANY")"
	[ -f "$T/s/$ID/cudnnvm.json" ]
	# one fsync for each file and folder of the tree, all of them before
	# the publishing rename; no syncfs of the whole filesystem
	want=$(find "$T/s/$ID" \( -type f -o -type d \) | wc -l)
	got=$(awk '/renameat2\(.*RENAME_(NOREPLACE|EXCHANGE)/ { exit } /fsync\(/ { n++ } END { print n + 0 }' "$T/trace")
	echo "fsync before publishing: $got, files and folders: $want"
	[ "$got" -ge "$want" ]
	run grep -c 'syncfs(' "$T/trace"
	[ "$output" = 0 ]
}
