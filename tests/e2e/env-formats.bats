#!/usr/bin/env bats
# env --format pyxis|apptainer|k8s: the mount flags of Slurm's Pyxis,
# Apptainer and a Kubernetes Pod for a version, each putting it where the
# image and the CDI device do. Apptainer's --bind SRC:DST:ro is podman's
# -v syntax too, so podman proves the quoting of a store path with spaces;
# a path an engine would split is refused, never split.
load fleet

setup() { fleet_setup; }

@test "pyxis: one line of srun flags, the mounts read-only and the paths set" {
	fleet_install
	run --separate-stderr cudnnvm env "$ID" --format pyxis
	[ "$status" -eq 0 ]
	local s=$CUDNNVM_STORE
	[ "$output" = "--container-mounts=$s/$ID:/opt/cudnn/$ID:ro,$s/deps/libcublas-12.8.4.1:/opt/cudnn/deps/libcublas-12.8.4.1:ro,$s/deps/cuda_nvrtc-12.8.61:/opt/cudnn/deps/cuda_nvrtc-12.8.61:ro --export=ALL,CUDNN_PATH=/opt/cudnn/$ID,CUDNN_HOME=/opt/cudnn/$ID,LD_LIBRARY_PATH=/opt/cudnn/$ID/lib:/opt/cudnn/deps/libcublas-12.8.4.1/lib:/opt/cudnn/deps/cuda_nvrtc-12.8.61/lib --container-env=CUDNN_PATH,CUDNN_HOME,LD_LIBRARY_PATH" ]
	# no spec: the version active here (the lock's)
	run --separate-stderr cudnnvm env --format pyxis
	[[ "$output" == "--container-mounts=$s/$ID:/opt/cudnn/$ID:ro,"* ]]
}

@test "apptainer: --bind and --env words; with spaces in the store path they reach a container whole" {
	need_podman
	export CUDNNVM_STORE="$T/my store"
	fleet_install
	run --separate-stderr cudnnvm env "$ID" --format apptainer
	[ "$status" -eq 0 ]
	[[ "$output" == "--bind '$T/my store/$ID:/opt/cudnn/$ID:ro' --bind "* ]]
	[[ "$output" == *" --env 'CUDNN_PATH=/opt/cudnn/$ID'"* ]]
	# the words as a shell reads them, run through podman's same syntax
	eval "set -- $output"
	local args=() w
	for w in "$@"; do
		case $w in --bind) args+=(-v) ;; *) args+=("$w") ;; esac
	done
	run podman_t run --rm --network none "${args[@]}" localhost/fleet-base:1 \
		/bin/sh -c 'echo "$CUDNN_PATH"; ls "$CUDNN_PATH/lib"; ls /opt/cudnn/deps/libcublas-12.8.4.1/lib'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "/opt/cudnn/$ID" ]
	[[ "$output" == *libcudnn.so.9* ]]
	[[ "$output" == *libcublasLt.so.12* ]]
}

@test "k8s: a Pod's image volume, its read-only mount and the variables, as YAML" {
	fleet_install
	run --separate-stderr cudnnvm env "$ID" --format k8s --image registry.example/cudnn:9.13
	[ "$status" -eq 0 ]
	python3 - "$output" "$ID" <<'PY'
import sys, yaml
y = yaml.safe_load(sys.argv[1]); i = sys.argv[2]
v = y["volumes"][0]
assert v == {"name": "cudnn", "image": {"reference": "registry.example/cudnn:9.13", "pullPolicy": "IfNotPresent"}}, v
m = y["volumeMounts"][0]
assert m == {"name": "cudnn", "mountPath": "/opt/cudnn", "subPath": "opt/cudnn", "readOnly": True}, m
env = {e["name"]: e["value"] for e in y["env"]}
assert env["CUDNN_PATH"] == "/opt/cudnn/" + i, env
assert env["LD_LIBRARY_PATH"].startswith("/opt/cudnn/%s/lib:/opt/cudnn/deps/" % i), env
PY
	# the default reference is the tag export oci gives
	run --separate-stderr cudnnvm env "$ID" --format k8s
	[[ "$output" == *"reference: \"cudnn:$ID\""* ]]
	run -64 cudnnvm env "$ID" --image x
	[[ "$output" == "cudnnvm: env: --image goes with --format k8s"* ]]
}

@test "E6: a store path with a space or a colon is refused for pyxis, a colon for apptainer, never split" {
	export CUDNNVM_STORE="$T/my store"
	fleet_install
	run -64 --separate-stderr cudnnvm env "$ID" --format pyxis
	[ "$stderr" = "cudnnvm: Pyxis splits mount strings where '$T/my store/$ID' has a space: the mount would break
hint: cudnnvm cdi --output /etc/cdi/cudnnvm.json" ]
	[ -z "$output" ]
	export CUDNNVM_STORE="$T/a:b"
	fleet_install
	for f in pyxis apptainer; do
		run -64 --separate-stderr cudnnvm env "$ID" --format $f
		[[ "$stderr" == "cudnnvm: "*" splits mount strings where '$T/a:b/$ID' has ':'"* ]]
		[ -z "$output" ]
	done
	run -64 cudnnvm env "$ID" --format docker
	[[ "$output" == "cudnnvm: unknown format 'docker'"* ]]
}
