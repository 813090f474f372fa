#!/usr/bin/env bats
# doc/reliability.md M1-M9: hostile manifests from the mirror. The mirror's
# /fault/m-*/ modes spoil redistrib_9.13.0.json; nothing may be downloaded
# and the store must not change.
load remote

setup() {
	remote_setup
	seed_store
	before=$(store_snapshot)
}

# bad_manifest MODE: install 9.13 fails with 65, one line, no change.
bad_manifest() {
	remote_config "$1"
	run cudnnvm install 9.13 --cuda 12
	echo "status=$status output=$output"
	[ "$status" -eq 65 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cudnnvm: "*"redistrib_9.13.0.json"* ]]
	[ "$(archive_gets)" -eq 0 ]
	[ "$(store_snapshot)" = "$before" ]
}

@test "M1: truncated JSON: 65 with the byte offset" {
	bad_manifest m-truncated
	[[ "$output" == *"invalid JSON at byte "* ]]
}

@test "M1: empty file, BOM, UTF-16: 65" {
	bad_manifest m-empty
	[[ "$output" == *"empty"* ]]
	bad_manifest m-bom
	bad_manifest m-utf16
}

@test "M2: wrong types: the field path is named" {
	bad_manifest m-types
	[[ "$output" == *"cudnn.linux-x86_64.cuda12.size: expected a decimal string"* ]]
}

@test "M3: a hostile number for size: refused" {
	bad_manifest m-size
	[[ "$output" == *"cudnn.linux-x86_64.cuda12.size: expected a decimal string"* ]]
}

@test "M4: a sha256 that is not 64 hex digits: refused" {
	bad_manifest m-sha
	[[ "$output" == *"cudnn.linux-x86_64.cuda12.sha256: expected 64 hex digits"* ]]
}

@test "M5: deep nesting: a clean error, no crash" {
	bad_manifest m-deep
}

@test "M6: an endless manifest is cut at 16 MiB" {
	bad_manifest m-huge
	[[ "$output" == *"larger than"* ]]
}

@test "M7: duplicate keys are refused" {
	bad_manifest m-dupkey
	[[ "$output" == *"duplicate"* ]]
}

@test "M8: a relative_path that leaves the mirror is refused" {
	bad_manifest m-path
	[[ "$output" == *"relative_path"* ]]
}

@test "M8: other entries of a manifest with one bad entry still install" {
	remote_config m-path
	run cudnnvm install 9.13 --cuda 13
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda13" ]
}

@test "a bad cached manifest is dropped and fetched again" {
	cudnnvm list-remote 9.13 >/dev/null
	f=$(ls "$T"/cache/manifests/*/redistrib_9.13.0.json)
	echo '{"broken' >"$f"
	run cudnnvm list-remote 9.13
	[ "$status" -eq 65 ]
	run cudnnvm list-remote 9.13
	[ "$status" -eq 0 ]
	[[ "$output" == *"9.13.0.50-cuda12"* ]]
}
