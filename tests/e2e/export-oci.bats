#!/usr/bin/env bats
# export oci: the build cudnnvm.lock locks as an OCI image layout that
# skopeo and umoci read with every digest checked, that podman mounts
# into a container, and that two fresh stores from the same lock export
# to the same digests.
load fleet

setup() { fleet_setup; }

@test "export oci writes a layout skopeo and umoci read, digests verified, holding the build and its deps" {
	fleet_install
	run --separate-stderr cudnnvm export oci "$T/img"
	[ "$status" -eq 0 ]
	[[ "$output" == sha256:* ]]
	[[ "$stderr" == *"exported cuDNN $ID to $T/img as $ID"* ]]
	[ "$(cat "$T/img/oci-layout")" = '{"imageLayoutVersion":"1.0.0"}' ]
	# skopeo: the config, then a copy that re-hashes every blob
	run skopeo inspect --config "oci:$T/img:$ID"
	[ "$status" -eq 0 ]
	python3 - "$output" "$ID" <<'PY'
import json, sys
c = json.loads(sys.argv[1]); env = dict(e.split("=", 1) for e in c["config"]["Env"])
i = sys.argv[2]
assert env["CUDNN_PATH"] == "/opt/cudnn/" + i, env
assert env["LD_LIBRARY_PATH"] == "/opt/cudnn/%s/lib:/opt/cudnn/deps/libcublas-12.8.4.1/lib:/opt/cudnn/deps/cuda_nvrtc-12.8.61/lib" % i, env
assert c["architecture"] == "amd64" and c["os"] == "linux", c
PY
	run skopeo copy "oci:$T/img:$ID" "dir:$T/copy"
	[ "$status" -eq 0 ]
	# umoci checks each blob's digest while it unpacks
	run umoci unpack --rootless --image "$T/img:$ID" "$T/bundle"
	[ "$status" -eq 0 ]
	local r="$T/bundle/rootfs/opt/cudnn"
	[ -f "$r/$ID/LICENSE" ]
	[ -L "$r/$ID/lib/libcudnn.so.9" ]
	[ -f "$r/deps/libcublas-12.8.4.1/lib/libcublasLt.so.12.8.4.1" ]
	[ -L "$r/deps/cuda_nvrtc-12.8.61/lib/libnvrtc.so.12" ]
	# every file as the store has it (but the machine-local metadata)
	diff -r -x cudnnvm.json "$CUDNNVM_STORE/$ID" "$r/$ID"
	diff -r "$CUDNNVM_STORE/deps/libcublas-12.8.4.1" "$r/deps/libcublas-12.8.4.1"
	# the tar: sorted, uid/gid 0, time 0; the gzip header: no time, no name
	local layer
	layer=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layers"][0]["digest"][7:])' \
		"$T/img/blobs/sha256/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifests"][0]["digest"][7:])' "$T/img/index.json")")
	python3 - "$T/img/blobs/sha256/$layer" <<'PY'
import gzip, sys, tarfile
raw = open(sys.argv[1], "rb").read()
assert raw[:3] == b"\x1f\x8b\x08" and raw[3] & 0x08 == 0, "a name in the gzip header"
assert raw[4:8] == b"\0\0\0\0", "a time in the gzip header"
names = []
with tarfile.open(sys.argv[1]) as t:
    for m in t:
        assert m.uid == 0 and m.gid == 0 and m.mtime == 0, m.name
        names.append(m.name)
assert names[0] == "opt" and names[1] == "opt/cudnn", names[:3]
for d in ("opt/cudnn/9.13.0.50-cuda12", "opt/cudnn/deps"):
    sub = [n for n in names if n.startswith(d + "/")]
    assert sub, d
PY
}

@test "E4: two fresh stores from the same lock export the same digests" {
	fleet_install
	run --separate-stderr cudnnvm export oci "$T/a"
	[ "$status" -eq 0 ]
	local one=$output
	# a second store, another download cache, later: the same lock
	sleep 1
	sed -i "s|^cache = .*|cache = $T/cache2|" "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	# another machine's habits: a private umask, another locale and zone
	export CUDNNVM_STORE="$T/store2"
	(umask 077 && cudnnvm install --frozen >/dev/null)
	[ "$(cat "$T/store2/$ID/cudnnvm.json")" != "$(cat "$T/store/$ID/cudnnvm.json")" ]
	TZ=Asia/Kathmandu LC_ALL=C.UTF-8 run --separate-stderr cudnnvm export oci "$T/b"
	[ "$status" -eq 0 ]
	[ "$output" = "$one" ]
	diff -r "$T/a" "$T/b"
	# and again into the same layout: nothing changes
	run --separate-stderr cudnnvm export oci "$T/b"
	[ "$output" = "$one" ]
	diff -r "$T/a" "$T/b"
}

@test "podman runs a container that mounts the exported image read-only" {
	need_podman
	fleet_install
	cudnnvm export oci "$T/img" --tag fleet >/dev/null
	# into this test's podman storage, skopeo checking every digest
	run skopeo copy "oci:$T/img:fleet" \
		"containers-storage:[vfs@$T/podman/root+$T/podman/run]localhost/cudnn:fleet"
	[ "$status" -eq 0 ]
	local img=localhost/cudnn:fleet
	run podman_t run --rm --network none \
		--mount "type=image,source=$img,destination=/mnt/cudnn" \
		localhost/fleet-base:1 /bin/sh -c \
		"ls /mnt/cudnn/opt/cudnn/$ID/lib; readlink /mnt/cudnn/opt/cudnn/deps/libcublas-12.8.4.1/lib/libcublasLt.so.12; touch /mnt/cudnn/x 2>&1 || echo read-only"
	[ "$status" -eq 0 ]
	[[ "$output" == *libcudnn.so.9* ]]
	[[ "$output" == *libcublasLt.so.12.8.4.1* ]]
	[[ "$output" == *read-only* ]]
}

@test "a layout with other images keeps them; --tag names this one" {
	fleet_install
	cudnnvm export oci "$T/img" --tag one >/dev/null
	cudnnvm export oci "$T/img" --tag two >/dev/null
	run skopeo inspect "oci:$T/img:one"
	[ "$status" -eq 0 ]
	run skopeo inspect "oci:$T/img:two"
	[ "$status" -eq 0 ]
	run -64 cudnnvm export oci "$T/img" --tag 'bad tag'
	[[ "$output" == "cudnnvm: 'bad tag' is no image tag"* ]]
}

@test "E1: a lock whose build is not installed: exit 1 and the install that fixes it" {
	cudnnvm lock >/dev/null
	run -1 --separate-stderr cudnnvm export oci "$T/img"
	[ "$stderr" = "cudnnvm: cuDNN $ID, which $T/proj/cudnnvm.lock locks, is not installed
hint: cudnnvm install --frozen" ]
	[ ! -e "$T/img" ]
	# the hint works as printed
	cudnnvm install --frozen >/dev/null
	run cudnnvm export oci "$T/img"
	[ "$status" -eq 0 ]
}

@test "E2: an output folder that exists and is not an OCI layout is refused, untouched" {
	fleet_install
	mkdir -p "$T/photos" && echo keep >"$T/photos/cat.jpg"
	run -64 --separate-stderr cudnnvm export oci "$T/photos"
	[[ "$stderr" == "cudnnvm: '$T/photos' is not an OCI image layout (no oci-layout file) and not empty"* ]]
	[ "$(ls -A "$T/photos")" = cat.jpg ]
	# an empty folder is fine
	mkdir "$T/empty"
	run cudnnvm export oci "$T/empty" "$ID"
	[ "$status" -eq 0 ]
}

@test "E3: a build installed with other dependencies than the lock names is exit 65: the image would not be the lock's" {
	cudnnvm lock >/dev/null
	cudnnvm install --frozen --deps never >/dev/null
	run -65 --separate-stderr cudnnvm export oci "$T/img"
	[ "$stderr" = "cudnnvm: the installed cuDNN $ID is not what $T/proj/cudnnvm.lock locks: it has 0 dependency folders, the lock names 2
hint: cudnnvm install --frozen --force --deps always" ]
	[ ! -e "$T/img" ]
	# the hint works as printed
	cudnnvm install --frozen --force --deps always >/dev/null
	run cudnnvm export oci "$T/img"
	[ "$status" -eq 0 ]
}
