#!/usr/bin/env bats
# cdi: a CDI spec (kind cudnnvm.dev/cudnn), one device per installed
# version, that podman reads from /var/run/cdi to mount the version and
# its deps read-only into a container and set its paths.
load fleet

setup() {
	fleet_setup
	# a device name and spec file of this run alone: two runs at once
	# never see each other's device, and nothing stays behind
	DEV="t$$r$RANDOM-"
	SPEC=/var/run/cdi/cudnnvm-test-$DEV$BATS_TEST_NUMBER.json
	CDI_MADE=
	[ -d /var/run/cdi ] || CDI_MADE=1
}

teardown() {
	rm -f "$SPEC"
	# the folder too when this test made it and no one else uses it
	[ -z "$CDI_MADE" ] || rmdir /var/run/cdi 2>/dev/null || true
}

@test "cdi prints one device per installed version, mounting it and its deps read-only" {
	fleet_install
	cudnnvm install 9.20 --cuda 12 >/dev/null
	run --separate-stderr cudnnvm cdi
	[ "$status" -eq 0 ]
	python3 - "$output" "$CUDNNVM_STORE" <<'PY'
import json, sys
s = json.loads(sys.argv[1]); st = sys.argv[2]
assert s["kind"] == "cudnnvm.dev/cudnn" and s["cdiVersion"] == "0.5.0", s
d = {x["name"]: x["containerEdits"] for x in s["devices"]}
assert sorted(d) == ["9.13.0.50-cuda12", "9.20.0.48-cuda12"], d
e = d["9.13.0.50-cuda12"]
m = {x["containerPath"]: x for x in e["mounts"]}
assert m["/opt/cudnn/9.13.0.50-cuda12"]["hostPath"] == st + "/9.13.0.50-cuda12", m
assert m["/opt/cudnn/deps/libcublas-12.8.4.1"]["hostPath"] == st + "/deps/libcublas-12.8.4.1", m
assert all("ro" in x["options"] for x in e["mounts"]), e
assert "CUDNN_PATH=/opt/cudnn/9.13.0.50-cuda12" in e["env"], e
assert any(v.startswith("LD_LIBRARY_PATH=/opt/cudnn/9.13.0.50-cuda12/lib:/opt/cudnn/deps/") for v in e["env"]), e
PY
}

@test "podman adds the CDI device: the version is there read-only, its paths set" {
	need_podman
	[ -w /var/run ] || skip "podman reads CDI specs from /var/run/cdi, not writable here"
	fleet_install
	mkdir -p /var/run/cdi
	run --separate-stderr cudnnvm cdi --output "$SPEC" --prefix "$DEV"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"wrote 1 CDI device (cudnnvm.dev/cudnn) to $SPEC"* ]]
	run podman_t run --rm --network none --device "cudnnvm.dev/cudnn=$DEV$ID" \
		localhost/fleet-base:1 /bin/sh -c \
		'echo "$CUDNN_PATH|$LD_LIBRARY_PATH"; ls "$CUDNN_PATH/lib"; ls /opt/cudnn/deps; touch "$CUDNN_PATH/x" 2>/dev/null || echo read-only'
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "/opt/cudnn/$ID|/opt/cudnn/$ID/lib:/opt/cudnn/deps/libcublas-12.8.4.1/lib:/opt/cudnn/deps/cuda_nvrtc-12.8.61/lib" ]]
	[[ "$output" == *libcudnn.so.9* ]]
	[[ "$output" == *cuda_nvrtc-12.8.61* ]]
	[ "${lines[-1]}" = read-only ]
}

@test "E5: a device name CDI refuses is exit 64 and nothing is written" {
	fleet_install
	run -64 --separate-stderr cudnnvm cdi --output "$T/spec.json" --prefix 'site/a '
	[[ "$stderr" == "cudnnvm: 'site/a 9.13.0.50-cuda12' is no CDI device name"* ]]
	[[ "$stderr" == *"hint: cudnnvm cdi --prefix site-"* ]]
	[ ! -e "$T/spec.json" ]
	# the hint's name works
	run cudnnvm cdi --prefix site-
	[ "$status" -eq 0 ]
	[[ "$output" == *'"name": "site-9.13.0.50-cuda12"'* ]]
}

@test "cdi with nothing installed says what to install, exit 1" {
	run -1 --separate-stderr cudnnvm cdi
	[ "$stderr" = "cudnnvm: no Linux build is installed
hint: cudnnvm install 9" ]
}
