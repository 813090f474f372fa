#!/usr/bin/env bats
# list-remote: what the mirror offers, from its listing and manifests.
load remote

setup() { remote_setup; }

@test "list-remote lists every build for the platform, newest first" {
	run --separate-stderr cudnnvm list-remote --platform linux-x86_64
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 7 ]
	[[ "${lines[0]}" == "9.20.0.48-cuda13 "* ]]
	[[ "${lines[1]}" == "9.20.0.48-cuda12 "* ]]
	[[ "${lines[6]}" == "8.9.7.29-cuda12 "* ]]
	[[ "$output" == *"9.8.0.87-cuda11"* ]]
	# nothing but the listing and manifests was fetched
	[ "$(archive_gets)" -eq 0 ]
}

@test "a spec, --cuda and the spec suffix filter" {
	run cudnnvm list-remote 9.13 --platform linux-x86_64
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	run cudnnvm list-remote 9 --cuda 11 --platform linux-x86_64
	[ "$status" -eq 0 ]
	[ "$output" = "$(cudnnvm list-remote 9-cuda11 --platform linux-x86_64)" ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "9.8.0.87-cuda11 "* ]]
	run cudnnvm list-remote 8.9.7.29 --platform linux-x86_64
	[ "${#lines[@]}" -eq 1 ]
}

@test "--platform linux-aarch64 shows Jetson builds only" {
	run cudnnvm list-remote --platform linux-aarch64
	[ "$status" -eq 0 ]
	[[ "$output" == *"9.20.0.48-cuda12"* ]]
	[[ "$output" != *"9.20.0.48-cuda13"* ]]
	[[ "$output" == *"9.13.0.50-cuda13"* ]]
	[[ "$output" != *"8.9.7.29"* ]]
}

@test "installed builds are marked" {
	cudnnvm install 9.20 --cuda 12 >/dev/null
	run cudnnvm list-remote 9.20 --platform linux-x86_64
	[[ "${lines[0]}" != *installed* ]]
	[[ "${lines[1]}" == "9.20.0.48-cuda12 "*"installed" ]]
}

@test "--json is valid JSON with id, sha256, size and url" {
	run --separate-stderr cudnnvm list-remote 9.13 --json --platform linux-sbsa
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json, sys
a = json.load(sys.stdin)
assert len(a) == 2, a
for e in a:
    assert e["platform"] == "linux-sbsa"
    assert e["release"] == "9.13.0" and e["version"] == "9.13.0.50"
    assert len(e["sha256"]) == 64 and e["size"] > 0
    assert e["url"].startswith("https://127.0.0.1:")
    assert e["installed"] is False
assert [e["cuda"] for e in a] == [13, 12]
'
}

@test "--json with no match is an empty array" {
	run cudnnvm list-remote 7 --json
	[ "$status" -eq 0 ]
	[ "$output" = "[]" ]
}

@test "no match: exit 1; bad spec or flags: 64" {
	run cudnnvm list-remote 7 --platform linux-x86_64
	[ "$status" -eq 1 ]
	[[ "$output" == "cudnnvm: "* ]]
	run cudnnvm list-remote '9;id'
	[ "$status" -eq 64 ]
	run cudnnvm list-remote --platform nope
	[ "$status" -eq 64 ]
	run cudnnvm list-remote --cuda 0
	[ "$status" -eq 64 ]
	run cudnnvm list-remote 9 10
	[ "$status" -eq 64 ]
}

@test "a bad manifest is reported, the others are still listed (65)" {
	remote_config m-truncated
	run cudnnvm list-remote --platform linux-x86_64
	[ "$status" -eq 65 ]
	[[ "$output" == *"redistrib_9.13.0.json"* ]]
	[[ "$output" == *"9.20.0.48-cuda12"* ]]
	[[ "$output" == *"8.9.7.29-cuda12"* ]]
}

@test "an unreachable mirror: 69" {
	sed -i "s|^mirror = .*|mirror = https://127.0.0.1:1/|" \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm list-remote
	[ "$status" -eq 69 ]
	[[ "$output" == "cudnnvm: "*"127.0.0.1:1"* ]]
}

@test "CUDNNVM_MIRROR overrides the config" {
	sed -i "s|^mirror = .*|mirror = https://127.0.0.1:1/|" \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	CUDNNVM_MIRROR="https://127.0.0.1:$MIRROR_PORT/" run cudnnvm list-remote 9.20
	[ "$status" -eq 0 ]
}

@test "a listing older than a day is read again" {
	cudnnvm list-remote 9.20 >/dev/null
	touch -d '2 days ago' "$T"/cache/manifests/*/listing
	cudnnvm list-remote 9.20 >/dev/null
	[ "$(grep -c '^GET / ' "$MIRROR_DIR/root/requests.log")" -eq 2 ]
}

@test "latest-cuda11 that the cached listing has no build for reads it once more" {
	cudnnvm list-remote >/dev/null
	# the cached listing predates the one release with a cuda11 build
	sed -i '/redistrib_9.8.0/d' "$T"/cache/manifests/*/listing
	run cudnnvm list-remote latest-cuda11
	[ "$status" -eq 0 ]
	[[ $output == *"9.8.0."*"-cuda11"* ]]
	[ "$(grep -c '^GET / ' "$MIRROR_DIR/root/requests.log")" -eq 2 ]
}

@test "--refresh reads a fresh listing again; manifests stay cached" {
	cudnnvm list-remote 9.20 >/dev/null
	cudnnvm list-remote 9.20 >/dev/null
	[ "$(grep -c '^GET / ' "$MIRROR_DIR/root/requests.log")" -eq 1 ]
	cudnnvm list-remote 9.20 --refresh >/dev/null
	[ "$(grep -c '^GET / ' "$MIRROR_DIR/root/requests.log")" -eq 2 ]
	[ "$(grep -c 'redistrib_9.20.0.json' "$MIRROR_DIR/root/requests.log")" -eq 1 ]
}

@test "install -v says what the spec resolved to" {
	run --separate-stderr cudnnvm -v install 9.20 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"9.20 resolves to cuDNN 9.20.0.48-cuda12 for linux-x86_64: https://127.0.0.1:$MIRROR_PORT/cudnn/linux-x86_64/"* ]]
}

@test "a cold list-remote asks for the manifests at once, with the same answer" {
	want=$(cudnnvm list-remote --platform linux-x86_64)
	rm -rf "$T/cache" "$MIRROR_DIR/root/inflight.max"
	remote_config delay
	log_mark
	run --separate-stderr cudnnvm list-remote --platform linux-x86_64
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
	# sequential fetching never has two requests waiting at once
	[ "$(cat "$MIRROR_DIR/root/inflight.max")" -ge 3 ]
	[ "$(grep -c 'GET .*redistrib_' "$MIRROR_DIR/root/requests.log")" -eq 4 ]
	# warm: nothing but the cached listing and manifests
	log_mark
	run cudnnvm list-remote --platform linux-x86_64
	[ "$output" = "$want" ]
	[ ! -s "$MIRROR_DIR/root/requests.log" ]
}

@test "list-remote <spec> fetches only the manifests the spec can match" {
	remote_config delay
	run cudnnvm list-remote 9.13 --platform linux-x86_64
	[ "$status" -eq 0 ]
	[ "$(grep -c 'GET .*redistrib_' "$MIRROR_DIR/root/requests.log")" -eq 1 ]
	grep -q 'redistrib_9.13.0.json' "$MIRROR_DIR/root/requests.log"
}

@test "a V100 (compute capability 7.0): rows of 9.11 and newer say what they need; --json says why" {
	export CUDNNVM_OVERRIDE_GPU_ARCH=7.0 CUDNNVM_OVERRIDE_CUDA=12.4
	run --separate-stderr cudnnvm list-remote --platform linux-x86_64
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == "9.20.0.48-cuda12 "*"  needs cc 7.5" ]]
	[[ "${lines[1]}" != *fits* ]]
	[[ "$output" == *"9.8.0.87-cuda12 "*"  fits"* ]]
	[[ "$output" != *"9.8.0.87-cuda12 "*"needs cc"* ]]
	run --separate-stderr cudnnvm list-remote --platform linux-x86_64 --json
	python3 -c '
import json, sys
rows = {r["id"]: r["fits"] for r in json.loads(sys.argv[1])}
f = rows["9.13.0.50-cuda12"]
assert f["ok"] is False and "needs compute capability 7.5" in f["reason"] and "9.10 is the last release" in f["reason"], f
f = rows["9.8.0.87-cuda12"]
assert f["ok"] is True and "GPU" not in f["reason"], f
' "$output"
	# no GPU known: nothing ruled out for it, and the reason says so
	unset CUDNNVM_OVERRIDE_GPU_ARCH
	run --separate-stderr cudnnvm list-remote 9.13 --platform linux-x86_64 --json
	python3 -c '
import json, sys
rows = {r["id"]: r["fits"] for r in json.loads(sys.argv[1])}
f = rows["9.13.0.50-cuda12"]
assert f["ok"] is True and "no GPU compute capability known" in f["reason"], f
' "$output"
}

@test "list-remote --deps: the wheels' source is a usage error (64); a mirror whose CUDA tree cannot be told is one error with the key to set" {
	run -64 --separate-stderr cudnnvm list-remote 9.13 --deps --source pypi --index "https://127.0.0.1:$MIRROR_PORT/simple/"
	[[ "$stderr" == *"--deps shows NVIDIA's redist trees"* ]]
	# this mirror is no .../cudnn/redist: neither tree can be derived
	export CUDNNVM_TEST_CUDA_LIBDIRS="$T/nolibs"
	mkdir -p "$T/nolibs"
	run --separate-stderr cudnnvm list-remote 9.13 --cuda 12 --deps --platform linux-x86_64
	echo "$status $stderr"
	[ "$status" -eq 78 ]
	[[ "$stderr" == *"no cuBLAS from its own channel (cannot tell where cuBLAS's own channel is"*"cuBLAS comes from the CUDA redist tree instead"* ]]
	[[ "$stderr" == *"cudnnvm: cannot tell where the CUDA redist tree"*"set [remote] cuda_mirror"* ]]
	[ "$(archive_gets)" -eq 0 ]
}
