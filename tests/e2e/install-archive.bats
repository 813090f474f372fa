#!/usr/bin/env bats
# install --archive: NVIDIA-shaped tar.xz and zip archives built by
# tests/fixtures/mkarchive.py, verified in one pass; failures leave the
# store as it was.
load helper

setup() {
	common_setup
	A="$T/archives"
	mkdir -p "$A"
}

# mk nvidia|hostile ARGS...: build an archive; sets ARCH, SHA, ID.
mk() {
	local j
	j=$(python3 "$FIXTURES/mkarchive.py" "$@" --out "$A") || return 1
	ARCH=$(jq_get "$j" path)
	SHA=$(jq_get "$j" sha256)
	ID=$(jq_get "$j" id)
}
jq_get() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

@test "a 9.x tar.xz installs with its .so chains, metadata and modes" {
	mk nvidia --version 9.13.0.50 --cuda 12
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
	[ "$output" = "installed cuDNN 9.13.0.50-cuda12 in $CUDNNVM_STORE/9.13.0.50-cuda12" ]
	d="$CUDNNVM_STORE/9.13.0.50-cuda12"
	for l in libcudnn libcudnn_adv libcudnn_cnn libcudnn_engines_precompiled \
		libcudnn_engines_runtime_compiled libcudnn_graph libcudnn_heuristic libcudnn_ops; do
		[ -f "$d/lib/$l.so.9.13.0" ]
		[ ! -L "$d/lib/$l.so.9.13.0" ]
		[ "$(readlink "$d/lib/$l.so.9")" = "$l.so.9.13.0" ]
		[ "$(readlink "$d/lib/$l.so")" = "$l.so.9" ]
		[ "$(stat -c %a "$d/lib/$l.so.9.13.0")" = 644 ]
		[ -f "$d/lib/${l}_static.a" ]
	done
	[ "$(readlink "$d/lib64")" = lib ]
	grep -q 'CUDNN_MAJOR 9' "$d/include/cudnn_version.h"
	[ -f "$d/LICENSE" ]
	[ -f "$d/include/cudnn.h" ]
	[ "$(stat -c %a "$d/lib")" = 755 ]
	[ "$(stat -c %a "$d/include")" = 755 ]
	# nothing but what the archive holds, plus lib64 and cudnnvm.json
	[ "$(ls "$d" | tr '\n' ' ')" = "LICENSE cudnnvm.json include lib lib64 " ]
	[ "$(ls "$d/lib" | wc -l)" -eq 32 ]
	python3 - "$d/cudnnvm.json" "$SHA" "$ARCH" <<'PY'
import json, os, sys
m = json.load(open(sys.argv[1]))
assert m["id"] == "9.13.0.50-cuda12" and m["version"] == "9.13.0.50", m
assert m["cuda"] == 12 and m["platform"] == "linux-x86_64", m
assert m["sha256"] == sys.argv[2] and m["size"] == os.path.getsize(sys.argv[3]), m
assert m["source"] == os.path.realpath(sys.argv[3]) and m["installed_at"].endswith("Z"), m
PY
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
}

@test "an 8.x tar.xz (cuda11) installs" {
	mk nvidia --version 8.9.7.29 --cuda 11
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
	d="$CUDNNVM_STORE/8.9.7.29-cuda11"
	[ "$(readlink "$d/lib/libcudnn_cnn_infer.so.8")" = libcudnn_cnn_infer.so.8.9.7 ]
	[ "$(readlink "$d/lib/libcudnn.so")" = libcudnn.so.8 ]
}

@test "a Windows zip installs with its own layout (bin, lib/x64, no lib64)" {
	mk nvidia --version 9.13.0.50 --cuda 12 --platform windows-x86_64
	[[ "$ARCH" == *.zip ]]
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
	d="$CUDNNVM_STORE/9.13.0.50-cuda12"
	[ -f "$d/bin/cudnn64_9.dll" ]
	[ -f "$d/bin/cudnn_ops64_9.dll" ]
	[ -f "$d/lib/x64/cudnn.lib" ]
	[ ! -e "$d/lib64" ]
	grep -q '"platform": "windows-x86_64"' "$d/cudnnvm.json"
}

@test "a Windows zip from 9.18 installs with its DLLs in bin/x64; one that keeps them elsewhere is refused" {
	mk nvidia --version 9.20.0.48 --cuda 13 --platform windows-x86_64
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
	d="$CUDNNVM_STORE/9.20.0.48-cuda13"
	[ -f "$d/bin/x64/cudnn64_9.dll" ]
	[ -f "$d/lib/x64/cudnn.lib" ]
	[ -f "$d/include/cudnn.h" ]
	# 9.20 with the DLLs where 9.13 had them: not NVIDIA's layout
	mk nvidia --version 9.20.0.48 --cuda 12 --platform windows-x86_64 --win-bin bin
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 65 ]
	[ "$output" = "cudnnvm: install 9.20.0.48-cuda12: the archive 'cudnn-windows-x86_64-9.20.0.48_cuda12-archive.zip' has no bin/x64/cudnn64_9.dll and include/cudnn.h (NVIDIA's Windows layout for cuDNN 9.20); it was not installed" ]
	[ ! -e "$CUDNNVM_STORE/9.20.0.48-cuda12" ]
}

@test "the old .tgz layout (cuda/include, cuda/lib64) is normalised; its old name or --version/--cuda name it" {
	mk nvidia --version 7.6.5.32 --cuda 10 --layout cuda
	# NVIDIA's old name (cudnn-10.0-linux-x64-v7.6.5.32.tgz) says it all
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
	[ -f "$CUDNNVM_STORE/7.6.5.32-cuda10/lib/libcudnn.so.7.6.5" ]
	run cudnnvm uninstall 7.6.5.32-cuda10
	[ "$status" -eq 0 ]
	# a renamed file does not: then --version and --cuda do
	mv "$ARCH" "$T/cudnn-old.tgz"
	ARCH="$T/cudnn-old.tgz"
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 64 ]
	[[ "$output" == *"--version V --cuda N"* ]]
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA" --version 7.6.5.32 --cuda 10
	[ "$status" -eq 0 ]
	d="$CUDNNVM_STORE/7.6.5.32-cuda10"
	[ -f "$d/include/cudnn_version.h" ]
	[ -f "$d/lib/libcudnn.so.7.6.5" ]
	[ "$(readlink "$d/lib/libcudnn.so.7")" = libcudnn.so.7.6.5 ]
	[ "$(readlink "$d/lib64")" = lib ]
	[ ! -e "$d/cuda" ]
}

@test "a wrong sha256 exits 65 and leaves the store exactly as it was" {
	mk nvidia --version 9.1.0.70 --cuda 12
	cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	mk nvidia --version 9.2.0.82 --cuda 12
	before=$(store_snapshot)
	bad=$(printf '%064d' 0)
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$bad"
	[ "$status" -eq 65 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cudnnvm: "*"sha256 mismatch for 'cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz': expected $bad, got $SHA"* ]]
	[ "$(store_snapshot)" = "$before" ]
	[ ! -e "$CUDNNVM_STORE/9.2.0.82-cuda12" ]
}

@test "a truncated or padded archive is refused (size and hash)" {
	mk nvidia --version 9.2.0.82 --cuda 12
	head -c 300 "$ARCH" > "$A/cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz.cut"
	cp "$A/cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz.cut" "$T/cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz"
	run cudnnvm install --no-validate --archive "$T/cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz" --sha256 "$SHA"
	[ "$status" -eq 65 ]
	[[ "$output" == *"sha256 mismatch"* ]]
	cp "$ARCH" "$T/cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz"
	printf 'junk' >> "$T/cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz"
	run cudnnvm install --no-validate --archive "$T/cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz" --sha256 "$SHA"
	[ "$status" -eq 65 ]
	[[ "$output" == *"sha256 mismatch"* ]]
	[ ! -e "$CUDNNVM_STORE/9.2.0.82-cuda12" ]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
}

@test "installing twice says already installed; --force reinstalls" {
	mk nvidia --version 9.1.0.70 --cuda 12
	cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	touch "$CUDNNVM_STORE/9.1.0.70-cuda12/marker"
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cuDNN 9.1.0.70-cuda12 is already installed"* ]]
	[ -e "$CUDNNVM_STORE/9.1.0.70-cuda12/marker" ]
	run cudnnvm install --no-validate --force --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
	[ ! -e "$CUDNNVM_STORE/9.1.0.70-cuda12/marker" ]
	[ -f "$CUDNNVM_STORE/9.1.0.70-cuda12/cudnnvm.json" ]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
}

@test "usage errors: missing or bad --sha256, unnamed archive, missing file" {
	mk nvidia --version 9.1.0.70 --cuda 12
	run cudnnvm install --archive "$ARCH"
	[ "$status" -eq 64 ]
	[[ "$output" == "cudnnvm: install: --archive needs --sha256"* ]]
	run cudnnvm install --archive "$ARCH" --sha256 abc
	[ "$status" -eq 64 ]
	cp "$ARCH" "$T/renamed.tar.xz"
	run cudnnvm install --archive "$T/renamed.tar.xz" --sha256 "$SHA"
	[ "$status" -eq 64 ]
	run cudnnvm install --no-validate --archive "$T/renamed.tar.xz" --sha256 "$SHA" --version 9.1.0.70 --cuda 12
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
	run cudnnvm install --archive "$T/nope/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz" --sha256 "$SHA"
	[ "$status" -eq 1 ]
	[[ "$output" == "cudnnvm: cannot read the archive"* ]]
	run cudnnvm install --archive "$ARCH" --sha256 "$SHA" --version 9.1 --cuda 12
	[ "$status" -eq 64 ]
	run cudnnvm install --archive "$ARCH" --sha256 "$SHA" --bogus
	[ "$status" -eq 64 ]
}

@test "SIGKILL in the middle of an extract leaves nothing visible; the next run sweeps it" {
	mk nvidia --version 9.1.0.70 --cuda 12
	before=$(store_snapshot)
	CUDNNVM_TEST_CHECKPOINT=mid-extract CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA" 3>&- &
	pid=$!
	wait_for_file "$T/parked"
	# parked with some files already written into staging
	[ -n "$(ls -A "$CUDNNVM_STORE/.staging")" ]
	kill -9 "$pid"
	wait "$pid" || true
	[ ! -e "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
	run cudnnvm list
	[ "$status" -eq 0 ]
	[[ "$output" != *9.1.0.70* ]]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
	[ -f "$CUDNNVM_STORE/9.1.0.70-cuda12/cudnnvm.json" ]
}

@test "SIGKILL just before publishing leaves nothing visible" {
	mk nvidia --version 9.1.0.70 --cuda 12
	CUDNNVM_TEST_CHECKPOINT=before-publish CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA" 3>&- &
	pid=$!
	wait_for_file "$T/parked"
	kill -9 "$pid"
	wait "$pid" || true
	[ ! -e "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
	cudnnvm list >/dev/null
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
}

@test "two concurrent installs of one version: one installs, the other waits, both exit 0" {
	mk nvidia --version 9.1.0.70 --cuda 12
	# The first reads its archive from a FIFO, so it holds the version lock
	# until the test feeds it.
	fifo="$T/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"
	mkfifo "$fifo"
	cudnnvm install --no-validate --archive "$fifo" --sha256 "$SHA" >"$T/a.out" 2>&1 3>&- &
	a=$!
	lock="$CUDNNVM_STORE/.locks/9.1.0.70-cuda12.lock"
	for i in $(seq 200); do
		[ -e "$lock" ] && ! flock -n "$lock" true && break
		sleep 0.1
	done
	run ! flock -n "$lock" true
	cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA" >"$T/b.out" 2>&1 3>&- &
	b=$!
	for i in $(seq 200); do grep -q waiting "$T/b.out" && break; sleep 0.1; done
	grep -q "waiting for another cudnnvm installing or removing 9.1.0.70-cuda12" "$T/b.out"
	cat "$ARCH" > "$fifo"
	wait "$a"
	wait "$b"
	grep -q "^installed cuDNN 9.1.0.70-cuda12" "$T/a.out"
	grep -q "already installed" "$T/b.out"
	[ "$(ls "$CUDNNVM_STORE" | grep -c 9.1.0.70)" -eq 1 ]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
}

@test "--no-wait on a busy version lock exits 75" {
	mk nvidia --version 9.1.0.70 --cuda 12
	CUDNNVM_TEST_CHECKPOINT=after-lock CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA" 3>&- &
	pid=$!
	wait_for_file "$T/parked"
	run cudnnvm install --no-validate --no-wait --archive "$ARCH" --sha256 "$SHA"
	kill -9 "$pid"
	wait "$pid" || true
	[ "$status" -eq 75 ]
	[[ "$output" == "cudnnvm: "*"another cudnnvm is installing or removing 9.1.0.70-cuda12"* ]]
	[ ! -e "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
}

@test "umask 000 and 077 still give files 0644 and folders 0755" {
	mk hostile a8-modes
	for m in 000 077; do
		rm -rf "$CUDNNVM_STORE"
		(umask $m && cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA")
		d="$CUDNNVM_STORE/9.1.0.70-cuda12"
		[ -z "$(find "$d" -type f ! -perm 0644)" ]
		[ -z "$(find "$d" -type d ! -perm 0755)" ]
		[ -n "$(find "$d" -type f)" ]
	done
}

@test "disk full while extracting exits 74 and leaves the store unchanged" {
	if ! unshare -m true 2>/dev/null; then
		skip "cannot make a mount namespace here (needs root or user namespaces)"
	fi
	mk nvidia --version 9.1.0.70 --cuda 12 --pad-mb 3 --preset 0
	mkdir -p "$T/small"
	run unshare -m sh -c '
		mount -t tmpfs -o size=2m tmpfs "$1" || exit 99
		cudnnvm --store "$1/s" install --no-validate --archive "$2" --sha256 "$3" 2>"$4/err"
		echo "rc=$?"
		echo "store=[$(ls -A "$1/s" | tr "\n" " ")]"
		echo "staging=[$(ls -A "$1/s/.staging")]"
	' sh "$T/small" "$ARCH" "$SHA" "$T"
	[ "$status" -ne 99 ] || skip "mounting a tmpfs is not permitted here"
	[[ "$output" == *"rc=74"* ]]
	grep -q "^cudnnvm: .*No space left on device" "$T/err"
	[[ "$output" == *"store=[.cache .locks .staging ]"* ]]
	[[ "$output" == *"staging=[]"* ]]
}

@test "the real cuDNN of this machine, packed NVIDIA-style, installs with every file and link" {
	src=/usr/local/cuda/lib64
	[ -e "$src/libcudnn.so.9" ] || skip "no real cuDNN at $src/libcudnn.so.9"
	real_cudnn9_archive
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
	d="$CUDNNVM_STORE/$VER-cuda13"
	n=0
	for f in "$src"/libcudnn*.so.[0-9]*; do
		[ -L "$f" ] && continue
		b=$(basename "$f"); base=${b%%.so*}; major=${b#*.so.}; major=${major%%.*}
		full=$(readlink "$d/lib/$base.so.$major")
		[ -f "$d/lib/$full" ]
		[ ! -L "$d/lib/$full" ]
		cmp -s "$f" "$d/lib/$full"
		[ "$(readlink "$d/lib/$base.so")" = "$base.so.$major" ]
		[ "$(stat -c %a "$d/lib/$full")" = 644 ]
		n=$((n + 1))
	done
	[ "$n" -ge 1 ]
}
