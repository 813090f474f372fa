#!/usr/bin/env bats
# `use` in a folder with a cudnnvm.lock: the lock follows the new pin, and
# when it cannot (a version installed from the package index, which the
# redist mirror does not list) the pin stays what the lock locks, with one
# line and a hint that works as printed.
load remote

setup_file() {
	mirror_start
	local d="$BATS_FILE_TMPDIR/index"
	mkdir -p "$d/arch" "$d/root/files"
	python3 "$FIXTURES/mkarchive.py" nvidia --out "$d/arch" \
		--version 9.19.0.56 --cuda 12 >/dev/null
	python3 "$FIXTURES/pypi_index.py" wheel --out "$d/root/files" \
		--from "$d/arch/cudnn-linux-x86_64-9.19.0.56_cuda12-archive.tar.xz" >/dev/null
	python3 "$FIXTURES/pypi_index.py" serve "$d/root" \
		--cert "$MIRROR_DIR/certs/server.pem" --key "$MIRROR_DIR/certs/server.key" \
		--port-file "$d/port" >"$d/server.log" 2>&1 3>&- &
	echo $! >"$d/pid"
	wait_for_file "$d/port"
	export INDEX_DIR="$d"
}
teardown_file() {
	kill "$(cat "$INDEX_DIR/pid")" 2>/dev/null
	mirror_stop
}

setup() {
	remote_setup
	export CUDNNVM_OVERRIDE_CUDA=12.8
	INDEX="https://127.0.0.1:$(cat "$INDEX_DIR/port")/simple/"
	mkdir -p "$T/project"
	cd "$T/project"
}

@test "use of a version from the package index in a locked folder leaves pin and lock agreeing, and says how to go on" {
	cudnnvm -q install 9.13 --cuda 12
	cudnnvm -q use 9.13
	cudnnvm -q lock
	cudnnvm -q install 9.19 --index "$INDEX"
	[ -d "$CUDNNVM_STORE/9.19.0.56-cuda12" ]
	run --separate-stderr cudnnvm use 9.19
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"cudnnvm: use: 'cudnnvm.lock' cannot lock 9.19 (above), so the pin stays 9.13, which it locks"* ]]
	[ "$(cat .cudnn-version)" = 9.13 ]
	run cudnnvm lock --check
	[ "$status" -eq 0 ]
	# the hint, as printed
	hint=$(sed -n 's/^hint: //p' <<<"$stderr" | tail -1)
	[ "$hint" = "rm 'cudnnvm.lock' && cudnnvm use 9.19" ]
	run bash -c "$hint"
	[ "$status" -eq 0 ]
	[ "$(cat .cudnn-version)" = 9.19 ]
	[ "$(cudnnvm current | cut -d' ' -f1)" = 9.19.0.56-cuda12 ]
}

@test "use of a version the mirror lists moves the lock with the pin" {
	cudnnvm -q install 9.13 --cuda 12
	cudnnvm -q use 9.13
	cudnnvm -q lock
	cudnnvm -q install 9.20 --cuda 12
	run cudnnvm use 9.20
	[ "$status" -eq 0 ]
	[ "$(cat .cudnn-version)" = 9.20 ]
	run cudnnvm lock --check
	[ "$status" -eq 0 ]
}
