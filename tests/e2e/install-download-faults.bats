#!/usr/bin/env bats
# doc/reliability.md D1-D20: hostile or broken servers, against the real HTTPS
# mirror. Each failure: one "cudnnvm: " line, the documented exit code, an
# unchanged store.
load remote

setup() {
	remote_setup
	seed_store
	before=$(store_snapshot)
	SHA=$(big_sha)
	PARTIAL="$T/cache/downloads/$SHA.partial"
	SIZE=$(stat -c %s "$(big_archive)")
}

# fails_cleanly STATUS: the last run failed with STATUS, one error line,
# the store unchanged and nothing left in .staging.
fails_cleanly() {
	echo "status=$status output=$output"
	[ "$status" -eq "$1" ]
	[[ "${lines[0]}" == "cudnnvm: "* ]]
	# one error line, and the hint lines that name the setting
	[ "$(grep -vc '^hint: ' <<<"$output")" -eq 1 ]
	[ "$(store_snapshot)" = "$before" ]
	[ ! -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging" 2>/dev/null)" ]
}

# install_fails STATUS MODE [INI lines...]: install 9.13 against the fault
# MODE fails cleanly with STATUS.
install_fails() {
	local want=$1
	shift
	remote_config "$@"
	run cudnnvm install 9.13 --cuda 12
	fails_cleanly "$want"
}

@test "D1: sha256 mismatch: 65, URL and both hashes named, cache deleted" {
	install_fails 65 wronghash
	[[ "$output" == *"sha256 mismatch"* ]]
	[[ "$output" == *"expected $SHA"* ]]
	[[ "$output" == *"https://127.0.0.1:$MIRROR_PORT/fault/wronghash/cudnn/"* ]]
	[ ! -e "$PARTIAL" ]
	[ ! -e "$T/cache/downloads/$SHA.archive" ]
}

@test "D2: Content-Length larger than the manifest size: refused, 65" {
	install_fails 65 bigcl
	[[ "$output" == *"larger than"* || "$output" == *"more than"* ]]
}

@test "D3: endless body: cut at the manifest size, 65, no disk growth" {
	install_fails 65 endless
	[[ "$output" == *"more than the $SIZE bytes"* ]]
	[ ! -e "$PARTIAL" ] || [ "$(stat -c %s "$PARTIAL")" -le "$SIZE" ]
}

@test "D4: truncated with Content-Length: 69, partial kept, next run resumes" {
	install_fails 69 truncate
	[ -s "$PARTIAL" ]
	[ "$(stat -c %s "$PARTIAL")" -lt "$SIZE" ]
	remote_config ok
	log_mark
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	grep -q 'archive.tar.xz bytes=[1-9]' "$MIRROR_DIR/root/requests.log"
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	[ ! -e "$PARTIAL" ]
}

@test "D5: truncated, close-delimited (curl says OK): size check, 65" {
	install_fails 65 closedelim
}

@test "D6: an HTML page with 200: 65 with a hint" {
	install_fails 65 html
	[[ "$output" == *"HTML"* ]]
}

@test "D7: 404: 69, HTTP 404 and the URL, no retry" {
	install_fails 69 404 "retries = 3"
	[[ "$output" == *"HTTP 404 for https://127.0.0.1:$MIRROR_PORT/fault/404/cudnn/"* ]]
	[ "$(archive_gets)" -eq 1 ]
}

@test "D8: 500: bounded retries with back-off, then 69" {
	install_fails 69 500 "retries = 2"
	[[ "$output" == *"HTTP 500"* ]]
	[ "$(archive_gets)" -eq 3 ]
}

@test "D8: a flapping 503 server succeeds within the retries" {
	remote_config flap "retries = 3"
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	[ "$(archive_gets)" -ge 2 ]
}

@test "D9: redirect to http:// is refused: 69" {
	install_fails 69 redirhttp
	[[ "$output" == *"insecure redirect"* ]]
}

@test "D10: redirect loop: 69" {
	install_fails 69 redirloop
	[[ "$output" == *"redirect"* ]]
	[ "$(archive_gets)" -le 6 ]
}

@test "D11: redirect to file:// is refused: 69" {
	install_fails 69 redirfile
	[[ "$output" == *"insecure redirect"* ]]
	[ ! -e "$PARTIAL" ] || ! grep -q root: "$PARTIAL"
}

@test "D12: a certificate from another CA: 69, no insecure fallback" {
	remote_config ok
	sed -i "s|^ca_file = .*|ca_file = $MIRROR_DIR/certs/other-ca.pem|" \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm install 9.13 --cuda 12 --refresh
	fails_cleanly 69
	[[ "$output" == *"TLS verification failed"* ]]
	[[ "$output" == *"ca_file"* ]]
	# and with the system CAs only
	sed -i "/^ca_file/d" "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm install 9.13 --cuda 12 --refresh
	fails_cleanly 69
}

@test "D13: a stalled server times out: 69" {
	install_fails 69 stall "timeout = 2"
	[[ "$output" == *"timed out"* ]]
}

@test "D14: no server at all: 69; installed versions still work" {
	sed -i "s|^mirror = .*|mirror = https://127.0.0.1:1/|" \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm install 9.13 --cuda 12
	fails_cleanly 69
	[[ "$output" == *"127.0.0.1:1"* ]]
	run cudnnvm install 9.20.0.48-cuda12
	[ "$status" -eq 0 ]
	[[ "$output" == *"already installed"* ]]
}

@test "D15: the server ignores Range: restart from 0, then success" {
	mkdir -p "$T/cache/downloads"
	head -c $((SIZE / 2)) "$(big_archive)" >"$PARTIAL"
	remote_config norange
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	grep -q 'archive.tar.xz bytes=' "$MIRROR_DIR/root/requests.log"
	[ "$(archive_gets)" -eq 2 ]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "D16: the bytes changed since the partial: partial dropped, one clean retry" {
	mkdir -p "$T/cache/downloads"
	head -c $((SIZE / 2)) /dev/urandom >"$PARTIAL"
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *"downloading it again"* ]]
	[ "$(archive_gets)" -eq 2 ]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "D16: still bad after the clean retry: 65, cache empty" {
	mkdir -p "$T/cache/downloads"
	head -c $((SIZE / 2)) /dev/urandom >"$PARTIAL"
	remote_config wronghash
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 65 ]
	[ "$(store_snapshot)" = "$before" ]
	[ "$(archive_gets)" -eq 2 ]
	[ ! -e "$PARTIAL" ]
}

@test "D17: a complete partial is verified and installed without a request" {
	mkdir -p "$T/cache/downloads"
	cp "$(big_archive)" "$PARTIAL"
	remote_config 404
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ "$(archive_gets)" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "D18: a partial larger than the manifest size is discarded" {
	mkdir -p "$T/cache/downloads"
	head -c $((SIZE + 4096)) /dev/urandom >"$PARTIAL"
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	run ! grep -q 'archive.tar.xz bytes=' "$MIRROR_DIR/root/requests.log"
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "D18: a partial that is a symlink is not followed" {
	mkdir -p "$T/cache/downloads"
	echo keep >"$T/victim"
	ln -s "$T/victim" "$PARTIAL"
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -ne 0 ]
	[ "$(cat "$T/victim")" = keep ]
	[ "$(store_snapshot)" = "$before" ]
}

@test "D19: SIGINT during the download: 130, partial kept, resumed later" {
	remote_config slow
	cudnnvm install 9.13 --cuda 12 >"$T/out" 2>&1 3>&- &
	pid=$!
	for i in $(seq 200); do
		[ -s "$PARTIAL" ] && break
		sleep 0.1
	done
	[ -s "$PARTIAL" ]
	kill -INT "$pid"
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 130 ]
	grep -q '^cudnnvm: .*interrupted' "$T/out"
	[ -s "$PARTIAL" ]
	[ "$(store_snapshot)" = "$before" ]
	remote_config ok
	log_mark
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	grep -q 'archive.tar.xz bytes=[1-9]' "$MIRROR_DIR/root/requests.log"
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "D20: https_proxy is used and named in the error; NO_PROXY is honoured" {
	https_proxy=http://127.0.0.1:1 run cudnnvm install 9.13 --cuda 12 --refresh
	fails_cleanly 69
	[[ "$output" == *"proxy http://127.0.0.1:1"* ]]
	# credentials are not printed
	https_proxy=http://user:secret@127.0.0.1:1 run cudnnvm install 9.13 --cuda 12 --refresh
	[ "$status" -eq 69 ]
	[[ "$output" != *secret* ]]
	https_proxy=http://127.0.0.1:1 NO_PROXY=127.0.0.1 run cudnnvm install 9.13 --cuda 12 --refresh
	[ "$status" -eq 0 ]
}

@test "D20: [remote] proxy in the config beats the environment" {
	remote_config ok "proxy = http://127.0.0.1:1"
	run cudnnvm install 9.13 --cuda 12 --refresh
	fails_cleanly 69
	[[ "$output" == *"via proxy http://127.0.0.1:1"* ]]
}

@test "D18: a partial owned by another user is not resumed" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to chown the partial"
	mkdir -p "$T/cache/downloads"
	head -c $((SIZE / 2)) "$(big_archive)" >"$PARTIAL"
	chown 65534:65534 "$PARTIAL"
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	run ! grep -q 'archive.tar.xz bytes=' "$MIRROR_DIR/root/requests.log"
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "D26: the download cache fills up mid-download: 74 naming it, the store unchanged" {
	if ! unshare -m true 2>/dev/null; then
		skip "cannot make a mount namespace here (needs root or user namespaces)"
	fi
	remote_config ok
	mkdir -p "$T/cache/downloads"
	# 1 MiB for a 2 MiB archive: the partial is written a pipe buffer
	# (256 KiB) at a time, so the write that fails is one of those
	run unshare -m sh -c '
		mount -t tmpfs -o size=1m tmpfs "$1" || exit 99
		cudnnvm install 9.13 --cuda 12
	' sh "$T/cache/downloads"
	[ "$status" -ne 99 ] || skip "mounting a tmpfs is not permitted here"
	fails_cleanly 74
	[[ "${lines[0]}" == "cudnnvm: "*"cannot write the download cache $PARTIAL: No space left on device"* ]]
	# with room again the same command installs it
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}
