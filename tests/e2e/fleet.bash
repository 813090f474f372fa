# fleet.bash: what the fleet suites (export-oci, cdi, env-formats,
# install-easybuild) share: the loopback mirror with NVIDIA's CUDA redist
# tree beside the cuDNN one (so a build gets cuBLAS and nvrtc in
# <store>/deps/), a project locked to 9.13 for CUDA 12, and real
# container engines from Debian (podman with runc, skopeo, umoci).
load remote

setup_file() {
	mirror_start
	CUDA_TREE="$MIRROR_DIR/root/compute/cuda/redist"
	mkdir -p "$MIRROR_DIR/root/compute/cudnn"
	ln -s ../.. "$MIRROR_DIR/root/compute/cudnn/redist"
	python3 "$FIXTURES/mkcuda.py" build "$CUDA_TREE" 12.8.1 --pad-mb 1 \
		>"$MIRROR_DIR/cuda-12.8.1.json"
	export CUDA_TREE
}

fleet_setup() {
	REMOTE_DEPS=always remote_setup
	export CUDNNVM_TEST_CUDA_LIBDIRS="$T/nolibs"
	mkdir -p "$T/nolibs"
	export CUDNNVM_OVERRIDE_DRIVER_CUDA=12.8
	sed -i "s|^mirror = .*|mirror = https://127.0.0.1:$MIRROR_PORT/compute/cudnn/redist/|" \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	mkdir -p "$T/proj"
	cd "$T/proj"
	echo 9.13-cuda12 >.cudnn-version
}

# The project's lock, and its build installed into $CUDNNVM_STORE.
fleet_install() {
	[ -f cudnnvm.lock ] || cudnnvm lock >/dev/null
	cudnnvm install --frozen >/dev/null
}
ID=9.13.0.50-cuda12

# podman in a private storage of this test (two runs never share one),
# with runc (crun cannot run here) and no default ulimits.
podman_t() {
	podman --root "$T/podman/root" --runroot "$T/podman/run" \
		--storage-driver vfs --tmpdir "$T/podman/tmp" "$@"
}

# Skip, with the one line bats prints, unless podman can run a container
# here; else a busybox base image (podman import of busybox-static).
need_podman() {
	local why
	command -v podman >/dev/null || skip "podman is not installed (tests/deps.sh)"
	[ -x /bin/busybox ] || skip "busybox-static is not installed (tests/deps.sh)"
	mkdir -p "$T/podman/tmp" "$T/base/bin"
	cat >"$T/podman/containers.conf" <<-EOC
		[containers]
		default_ulimits = []
		[engine]
		runtime = "runc"
	EOC
	export CONTAINERS_CONF="$T/podman/containers.conf"
	cp /bin/busybox "$T/base/bin/busybox"
	for t in sh ls cat env readlink; do ln -s busybox "$T/base/bin/$t"; done
	tar -C "$T/base" -cf "$T/base.tar" .
	why=$(podman_t import "$T/base.tar" localhost/fleet-base:1 2>&1) ||
		skip "podman cannot import an image here: ${why##*$'\n'}"
	why=$(podman_t run --rm --network none localhost/fleet-base:1 /bin/sh -c 'echo ok' 2>&1) ||
		skip "podman cannot run a container here: ${why##*$'\n'}"
	[ "$why" = ok ] || skip "podman cannot run a container here: $why"
}
