#!/usr/bin/env bats
# mirror: an offline copy of the redist tree, built from the HTTPS test
# mirror, then used as `mirror = file:///dir` with no network.
load remote

setup() { remote_setup; }

@test "mirror copies manifests and verified archives; the copy installs offline" {
	run cudnnvm mirror "$T/off" 9.13 9.20 --cuda 12 --platform linux-x86_64
	echo "$output"
	[ "$status" -eq 0 ]
	[ -f "$T/off/redistrib_9.13.0.json" ]
	cmp "$T/off/redistrib_9.20.0.json" "$MIRROR_DIR/root/redistrib_9.20.0.json"
	rel=$(archive_field 9.13.0 linux-x86_64 12 relative_path)
	cmp "$T/off/$rel" "$MIRROR_DIR/root/$rel"
	# only the CUDA 12 builds were asked for
	[ -z "$(find "$T/off" -name '*cuda13*')" ]
	[ ! -e "$T/off/.cudnnvm-partial" ]
	# the copy is a mirror of its own: stop using the server
	sed -i "s#^mirror = .*#mirror = file://$T/off#" "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	log_mark
	run cudnnvm install 9.13 --cuda 12
	echo "$output"
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	[ ! -s "$MIRROR_DIR/root/requests.log" ]
}

@test "a second run fetches only what is missing; --verify re-hashes" {
	cudnnvm mirror "$T/off" 9.13 --cuda 12 --platform linux-x86_64 >/dev/null
	log_mark
	run cudnnvm mirror "$T/off" 9.13 9.20 --cuda 12 --platform linux-x86_64
	[ "$status" -eq 0 ]
	[[ $output == *"present  cudnn/linux-x86_64/cudnn-linux-x86_64-9.13.0.50_cuda12"* ]]
	[[ $output == *"fetched  cudnn/linux-x86_64/cudnn-linux-x86_64-9.20.0"* ]]
	[ "$(archive_gets)" -eq 1 ]
	run cudnnvm mirror "$T/off" --verify
	[ "$status" -eq 0 ]
	rel=$(archive_field 9.13.0 linux-x86_64 12 relative_path)
	printf 'X' | dd of="$T/off/$rel" bs=1 seek=100 conv=notrunc 2>/dev/null
	run --separate-stderr cudnnvm mirror "$T/off" --verify
	[ "$status" -eq 65 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "cudnnvm: 1 archive in $T/off differs from the manifests"* ]]
	[[ $output == *"BAD      $rel"* ]]
}

@test "a mirror run killed midway leaves no archive under its final name; the next run completes it" {
	rel=$(archive_field 9.13.0 linux-x86_64 12 relative_path)
	CUDNNVM_TEST_CHECKPOINT=mirror-midway CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		cudnnvm mirror "$T/off" 9.13 --cuda 12 --platform linux-x86_64 >/dev/null 2>&1 3>&- &
	pid=$!
	wait_for_file "$T/parked"
	kill -9 "$pid"
	wait "$pid" || true
	[ ! -e "$T/off/$rel" ]
	[ -n "$(find "$T/off/.cudnnvm-partial" -name '*.partial')" ]
	run cudnnvm mirror "$T/off" 9.13 --cuda 12 --platform linux-x86_64
	[ "$status" -eq 0 ]
	cmp "$T/off/$rel" "$MIRROR_DIR/root/$rel"
}

@test "a corrupt archive on the server is not published" {
	remote_config wronghash
	run --separate-stderr cudnnvm mirror "$T/off" 9.13 --cuda 12 --platform linux-x86_64
	[ "$status" -eq 65 ]
	[ -z "$(find "$T/off" -name '*.tar.xz')" ]
}

@test "mirror usage errors" {
	run --separate-stderr cudnnvm mirror "$T/off"
	[ "$status" -eq 64 ]
	run --separate-stderr cudnnvm mirror "$T/off" 9.x
	[ "$status" -eq 64 ]
	run --separate-stderr cudnnvm mirror "$T/off" 9.13 --platform nope
	[ "$status" -eq 64 ]
	run --separate-stderr cudnnvm mirror "$T/off" 7.1 --platform linux-x86_64
	[ "$status" -eq 1 ]
}

@test "mirror keeps an existing archive only when its hash matches, and retries a damaged partial download once" {
	local rel sha size
	rel=$(archive_field 9.13.0 linux-x86_64 12 relative_path)
	sha=$(archive_field 9.13.0 linux-x86_64 12 sha256)
	size=$(stat -c %s "$MIRROR_DIR/root/$rel")
	# a file of the right name but other bytes is not trusted by its name
	mkdir -p "$(dirname "$T/off/$rel")"
	head -c "$size" /dev/zero >"$T/off/$rel"
	run cudnnvm mirror "$T/off" 9.13 --cuda 12 --platform linux-x86_64
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"BAD      $rel"* ]]
	[[ $output == *"fetched  $rel"* ]]
	cmp "$T/off/$rel" "$MIRROR_DIR/root/$rel"
	# a damaged partial download: dropped and fetched again, once
	rm -rf "$T/off"
	mkdir -p "$T/off/.cudnnvm-partial/downloads"
	head -c $((size / 2)) /dev/urandom >"$T/off/.cudnnvm-partial/downloads/$sha.partial"
	run cudnnvm mirror "$T/off" 9.13 --cuda 12 --platform linux-x86_64
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"retry    $rel"* ]]
	cmp "$T/off/$rel" "$MIRROR_DIR/root/$rel"
	[ ! -e "$T/off/.cudnnvm-partial" ]
}

# edited_mirror DIR FIELD VALUE: a copy of the test mirror in DIR whose
# 9.13.0 manifest sets FIELD of the linux-x86_64 cuda12 entry
edited_mirror() {
	cp -r "$MIRROR_DIR/root" "$1"
	python3 - "$1/redistrib_9.13.0.json" "$2" "$3" <<-'PY'
		import json, sys
		path, field, value = sys.argv[1:]
		m = json.load(open(path))
		m["cudnn"]["linux-x86_64"]["cuda12"][field] = value
		json.dump(m, open(path, "w"), indent=2)
	PY
}

@test "mirror says why it refused a manifest entry; an entry named like the manifest is refused" {
	edited_mirror "$T/src" relative_path redistrib_9.13.0.json
	run cudnnvm mirror "$T/off" 9.13 --cuda 12 --platform linux-x86_64 --mirror "file://$T/src/"
	echo "$output"
	[ "$status" -eq 65 ]
	[[ $output == *"refused  redistrib_9.13.0.json: relative_path: the manifest's own name"* ]]
	[[ $output == *"cudnnvm: release 9.13.0 has no usable linux-x86_64 build: redistrib_9.13.0.json: relative_path: the manifest's own name"* ]]
	cmp "$T/off/redistrib_9.13.0.json" "$T/src/redistrib_9.13.0.json"
	# another mirror (the first one's manifests are in the index cache)
	rm -rf "$T/off"
	edited_mirror "$T/src2" sha256 not-a-hash
	run cudnnvm mirror "$T/off" 9.13 --cuda 12 --platform linux-x86_64 --mirror "file://$T/src2/"
	echo "$output"
	[ "$status" -eq 65 ]
	[[ $output == *"refused  redistrib_9.13.0.json: "*"sha256: expected 64 hex digits"* ]]
}
