#!/usr/bin/env bats
# doctor tells the truth: a healthy stock CUDA machine (a toolkit that
# carries its own cuDNN, no GPU) is exit 0; no `sudo rm` of the toolkit's
# cuDNN; no fix for a build that does not exist; no driver is a note; the
# store's own folders are not "made by hand"; and every fix printed here is
# run as printed and must succeed.
load remote

setup_file() {
	mirror_start
	export STUBS="$BATS_FILE_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
}

setup() {
	remote_setup
	unset LD_LIBRARY_PATH CUDA_HOME CUDA_PATH CUDNNVM_OVERRIDE_DRIVER_CUDA
	export CUDNNVM_OVERRIDE_CUDA=13.0
	export CUDNNVM_TEST_DRIVER_VERSION_FILE="$T/no-driver"
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda"
	# the machine's own /usr/local/cuda and loader cache stay out of
	# these findings
	export CUDNNVM_TEST_CUDA_ROOT="$T/no-cuda"
	: >"$T/empty.conf"
	ldconfig -X -C "$T/empty.cache" -f "$T/empty.conf" 2>/dev/null ||
		skip "ldconfig cannot build a cache here"
	export CUDNNVM_TEST_LDCACHE="$T/empty.cache"
}

# stock_toolkit: a CUDA 13 toolkit at $T/cuda with its own cuDNN 9 in
# lib64, which the loader cache (test hook) lists, as NVIDIA's images are.
stock_toolkit() {
	mkdir -p "$T/cuda/lib64" "$T/cuda/include"
	cp -a "$STUBS/v9/lib/." "$T/cuda/lib64/"
	printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' >"$T/cuda/include/cudnn_version.h"
	printf '{"cuda": {"name": "CUDA SDK", "version": "13.0.2"}}\n' >"$T/cuda/version.json"
	echo "$T/cuda/lib64" >"$T/ld.conf"
	ldconfig -X -C "$T/ld.cache" -f "$T/ld.conf" 2>/dev/null ||
		skip "ldconfig cannot build a cache here"
	export CUDNNVM_TEST_LDCACHE="$T/ld.cache" CUDA_HOME="$T/cuda"
}

# run_fixes: each "fix:" line of $output, run in a fresh bash as printed.
run_fixes() {
	local fix fixes
	fixes=$(sed -n 's/^  fix: //p' <<<"$output")
	while IFS= read -r fix; do
		[ -n "$fix" ] || continue
		echo "running fix: $fix" >&2
		bash -c "$fix" </dev/null >&2 || { echo "fix failed: $fix" >&2; return 1; }
	done <<<"$fixes"
}

@test "a stock CUDA box without a GPU is healthy: exit 0, notes only, and each fix works as printed" {
	stock_toolkit
	rm -rf "$CUDNNVM_STORE"
	run --separate-stderr cudnnvm doctor
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 problems found"* ]]
	[[ "$output" != *"warning:"* && "$output" != *"error:"* ]]
	[[ "$output" == *"info: the CUDA toolkit folder $T/cuda/lib64 holds its own cuDNN"* ]]
	[[ "$output" != *"sudo"* ]]
	[[ "$output" != *"--no-gpu"* ]]
	[[ "$output" == *"info: no NVIDIA driver is loaded"* ]]
	run_fixes
	# the toolkit adopted: the fix that follows picks it, and works too
	run --separate-stderr cudnnvm doctor
	[ "$status" -eq 0 ]
	[[ "$output" == *"fix: cudnnvm global 9.19.0"* ]]
	run_fixes
	[[ "$(cudnnvm global)" == 9.19.0* ]]
}

@test "the toolkit's own cuDNN while the store's version is active: a note with no fix, never sudo rm" {
	stock_toolkit
	cudnnvm -q install 9.20 --cuda 13
	cudnnvm -q global 9.20.0.48-cuda13
	run --separate-stderr cudnnvm doctor
	[ "$status" -eq 0 ]
	note=$(grep -A3 "holds its own cuDNN" <<<"$output")
	[[ "$note" == "info: "* ]]
	[[ "$note" != *"fix:"* ]]
	[[ "$output" != *"sudo rm"* ]]
	run_fixes
}

@test "a user without root is never told to sudo rm a cuDNN the loader cache lists" {
	command -v setpriv >/dev/null || skip "needs setpriv"
	D=$(mktemp -d /tmp/cudnnvm-doctor.XXXXXX)
	chmod 755 "$D"
	mkdir -p "$D/sys/lib" "$D/sys/include"
	cp -a "$STUBS/other/lib/." "$D/sys/lib/"
	printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' >"$D/sys/lib/cudnn_version.h"
	echo "$D/sys/lib" >"$D/ld.conf"
	ldconfig -X -C "$D/ld.cache" -f "$D/ld.conf" 2>/dev/null ||
		skip "ldconfig cannot build a cache here"
	chmod -R a+rX "$D"
	cp "$CUDNNVM_BIN" "$D/cudnnvm"
	mkdir -p "$D/home" && chown 65534:65534 "$D/home"
	as_nobody() {
		setpriv --reuid=65534 --regid=65534 --clear-groups env -i \
			PATH=/usr/bin:/bin HOME="$D/home" CUDNNVM_SYSCONFDIR="$D/etc" \
			CUDNNVM_TEST_LDCACHE="$D/ld.cache" CUDNNVM_TEST_CUDA_ROOT="$D/none" \
			CUDNNVM_TEST_DRIVER_VERSION_FILE="$D/no-driver" \
			CUDNNVM_STORE="$D/home/store" PATH="$D:/usr/bin:/bin" "$@"
	}
	run as_nobody "$D/cudnnvm" doctor
	fix=$(sed -n 's/^  fix: //p' <<<"$output" | grep import)
	[[ "$output" == *"system cuDNN in $D/sys/lib"* ]]
	[[ "$output" != *"sudo"* ]]
	[ "$fix" = "cudnnvm import '$D/sys/lib'" ]
	# as printed, as that user (its helper beside it)
	cp "$REPO_ROOT/build/cudnnvm-helper" "$D/"
	run as_nobody bash -c "$fix"
	rm -rf "$D"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the store's deps/ and shims/ are its own, not made or changed by hand" {
	cudnnvm -q install 9.20 --cuda 13
	cudnnvm -q global 9.20.0.48-cuda13
	mkdir -p "$CUDNNVM_STORE/deps/libcublas-13.0.2.14/lib" "$CUDNNVM_STORE/shims"
	run --separate-stderr cudnnvm doctor
	[ "$status" -eq 0 ]
	[[ "$output" != *"by hand"* ]]
	run_fixes
}

@test "no fix names a build the listing does not have: 8.9.7.29 has no cuda13 build" {
	cudnnvm -q install 8.9.7.29 --cuda 12
	cudnnvm -q global 8.9.7.29-cuda12
	run --separate-stderr cudnnvm doctor
	[[ "$output" == *"the CUDA toolkit is 13"*"8.9.7.29-cuda12 is the cuda12 variant"* ]]
	[[ "$output" != *"8.9.7.29-cuda13"* ]]
	[[ "$output" != *"install 8.9 --cuda 13"* ]]
	run_fixes
	# a release the listing has for CUDA 13: that fix, and it works
	cudnnvm -q install 9.20 --cuda 12
	cudnnvm -q global 9.20.0.48-cuda12
	run --separate-stderr cudnnvm doctor
	[[ "$output" == *"fix: cudnnvm install 9.20.0.48-cuda13 && eval"* ]]
	run_fixes
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda13" ]
}

@test "no driver: a missing cuBLASLt is a note, not a failure, and no fix is validate --no-gpu" {
	cudnnvm -q install 9.20 --cuda 13
	cudnnvm -q global 9.20.0.48-cuda13
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nocublas" run --separate-stderr cudnnvm doctor
	[ "$status" -eq 0 ]
	[[ "$output" == *"info: libcublasLt.so.13 is not found"* ]]
	[[ "$output" != *"--no-gpu"* ]]
	# with a driver it is an error, with the fix cudnnvm can make
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Sep 25 2025\n' >"$T/driver"
	CUDNNVM_TEST_DRIVER_VERSION_FILE="$T/driver" CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nocublas" \
		run --separate-stderr cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: libcublasLt.so.13 is not found"* ]]
}

# cuda_tree: NVIDIA's CUDA redist tree (cuBLAS, nvrtc of CUDA 12.8.1) beside
# the cuDNN one on the mirror, and installs that put them into the store.
cuda_tree() {
	mkdir -p "$MIRROR_DIR/root/compute/cudnn"
	[ -e "$MIRROR_DIR/root/compute/cudnn/redist" ] ||
		ln -s ../.. "$MIRROR_DIR/root/compute/cudnn/redist"
	[ -d "$MIRROR_DIR/root/compute/cuda/redist/libcublas" ] ||
		python3 "$FIXTURES/mkcuda.py" build "$MIRROR_DIR/root/compute/cuda/redist" 12.8.1 \
			--pad-mb 1 >/dev/null
	sed -i -e "s|^mirror = .*|mirror = https://127.0.0.1:$MIRROR_PORT/compute/cudnn/redist/|" \
		-e 's|^deps = .*|deps = auto|' "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	export CUDNNVM_OVERRIDE_DRIVER_CUDA=12.8 CUDNNVM_OVERRIDE_CUDA=12.8
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Sep 25 2025\n' >"$T/driver"
	export CUDNNVM_TEST_DRIVER_VERSION_FILE="$T/driver"
	mkdir -p "$T/nolibs"
	export CUDNNVM_TEST_CUDA_LIBDIRS="$T/nolibs"
}

# A store that already holds a dependency folder whose libraries are not
# what its record says (older code filed another component's or release's
# archive under its name): doctor names the folder, and its fix, run as
# printed, replaces it; the fix never records that folder again (H23).
@test "a dependency folder whose libraries disagree with its record is found, and the fix replaces it (H23)" {
	cuda_tree
	cudnnvm -q install 9.13 --cuda 12
	cudnnvm -q install 9.20 --cuda 12
	cudnnvm -q global 9.13.0.50-cuda12
	F="$CUDNNVM_STORE/deps/libcublas-12.8.4.1"
	# nvrtc's libraries under cuBLAS's record: no libcublasLt.so.12
	rm -rf "$F/lib"
	cp -a "$CUDNNVM_STORE/deps/cuda_nvrtc-12.8.61/lib" "$F/lib"
	run --separate-stderr cudnnvm doctor
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"error: the dependency folder $F is not the libcublas 12.8.4.1 its record says: its libcublasLt.so.12 is missing or is not a library the loader loads as libcublasLt.so.12"* ]]
	# not the fix that would record the same folder again
	[[ $output != *"libcublasLt.so.12 is not found"* ]]
	# one fix for the shared folder, with every version that records it
	[[ $output == *"fix: rm -rf '$F' && cudnnvm install 9.20.0.48-cuda12 --deps always && cudnnvm install 9.13.0.50-cuda12 --deps always"* ]]
	run_fixes
	run --separate-stderr cudnnvm doctor
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output != *"dependency folder"* && $output != *"libcublasLt.so.12 is not found"* ]]
	[ -f "$F/lib/libcublasLt.so.12.8.4.1" ]
	run cudnnvm env 9.13.0.50-cuda12 --shell sh
	[[ $output == *"$F/lib"* ]]

	# a folder named and recorded as a release its libraries are not
	# (12.8.4.1's files as 12.9.9.9, the lock attack older code took)
	B="$CUDNNVM_STORE/deps/libcublas-12.9.9.9"
	mv "$F" "$B"
	sed -i 's/12\.8\.4\.1/12.9.9.9/g' "$B/cudnnvm-dep.json" \
		"$CUDNNVM_STORE"/9.13.0.50-cuda12/cudnnvm.json "$CUDNNVM_STORE"/9.20.0.48-cuda12/cudnnvm.json
	run cudnnvm env 9.13.0.50-cuda12 --shell sh
	[ "$status" -eq 0 ]
	run --separate-stderr cudnnvm doctor
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"error: the dependency folder $B is not the libcublas 12.9.9.9 its record says: its libcublasLt.so.12 is libcublasLt.so.12.8.4.1, a file of another release than 12.9.9.9"* ]]
	run_fixes
	[ ! -e "$B" ]
	run --separate-stderr cudnnvm doctor
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output != *"dependency folder"* ]]
	grep -q '"deps/libcublas-12.8.4.1"' "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
	grep -q '"deps/libcublas-12.8.4.1"' "$CUDNNVM_STORE/9.20.0.48-cuda12/cudnnvm.json"
	[ -f "$F/lib/libcublasLt.so.12.8.4.1" ]
}
