#!/usr/bin/env bats
# import: adopting hand installs (a CUDA toolkit with cuDNN copied in, a
# wheel's site-packages/nvidia/cudnn) built from the stub libraries.
load helper

setup_file() {
	export STUBS="$BATS_FILE_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
}

setup() {
	common_setup
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nodev"
}

# hand_lib STUB DEST VERSION: copy a stub's libraries the way NVIDIA's
# tarball and the install guides lay them out: libX.so.VERSION, with
# libX.so.MAJOR -> libX.so.VERSION and libX.so -> libX.so.MAJOR.
hand_lib() {
	local f base major
	mkdir -p "$2"
	for f in "$STUBS/$1/lib"/libcudnn*.so.*; do
		base=${f##*/} major=${base##*.so.}
		base=${base%.so.*}
		cp "$f" "$2/$base.so.$3"
		ln -sf "$base.so.$3" "$2/$base.so.$major"
		ln -sf "$base.so.$major" "$2/$base.so"
	done
}

hand_header() { # DIR MAJOR MINOR PATCH
	mkdir -p "$1"
	printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' \
		"$2" "$3" "$4" >"$1/cudnn_version.h"
	echo '/* cudnn */' >"$1/cudnn.h"
}

# a CUDA 13 toolkit with cuDNN 9.19.0 copied in, plus files not cuDNN's
toolkit() {
	local d=$T/cuda
	hand_lib v9 "$d/lib64" 9.19.0
	hand_header "$d/include" 9 19 0
	echo blas >"$d/lib64/libcublas.so.13"
	echo rt >"$d/include/cuda_runtime.h"
	printf '{"cuda": {"name": "CUDA SDK", "version": "13.0.1"}}\n' >"$d/version.json"
}

@test "import of a toolkit folder copies only cuDNN's files, hashes them, validates" {
	toolkit
	run cudnnvm import "$T/cuda"
	echo "$output"
	[ "$status" -eq 0 ]
	id=9.19.0.0-cuda13 d=$CUDNNVM_STORE/9.19.0.0-cuda13
	[[ $output == *"imported cuDNN $id from $T/cuda"* ]]
	[[ $output == *"validated"* || $output == *"pass"* ]]
	[ -f "$d/lib/libcudnn.so.9.19.0" ]
	[ "$(readlink "$d/lib/libcudnn.so.9")" = libcudnn.so.9.19.0 ]
	[ "$(readlink "$d/lib/libcudnn.so")" = libcudnn.so.9 ]
	[ -f "$d/include/cudnn_version.h" ]
	[ ! -e "$d/lib/libcublas.so.13" ]
	[ ! -e "$d/include/cuda_runtime.h" ]
	want=$(sha256sum "$T/cuda/lib64/libcudnn_ops.so.9.19.0" | cut -d' ' -f1)
	python3 - "$d/import.json" "$T/cuda" "$want" <<-'PY'
		import json, sys
		j = json.load(open(sys.argv[1]))
		assert j["imported_from"] == sys.argv[2], j
		assert j["nvidia_checksum"] is False
		assert j["files"]["lib/libcudnn_ops.so.9.19.0"] == sys.argv[3]
		assert "lib/libcublas.so.13" not in j["files"]
	PY
	grep -q "\"source\": \"import:$T/cuda\"" "$d/cudnnvm.json"
	run cudnnvm validate "$id"
	[ "$status" -eq 0 ]
	run cudnnvm list
	[[ $output == *"$id"* ]]
}

@test "import of a wheel's site-packages/nvidia/cudnn reads CUDA from the dist-info; --version adds the build" {
	sp=$T/venv/lib/python3.11/site-packages
	hand_lib v9 "$sp/nvidia/cudnn/lib" 9.19.0
	hand_header "$sp/nvidia/cudnn/include" 9 19 0
	mkdir -p "$sp/nvidia_cudnn_cu13-9.19.0.56.dist-info"
	run cudnnvm import "$sp/nvidia/cudnn" --version 9.19.0.56
	[ "$status" -eq 0 ]
	[ -f "$CUDNNVM_STORE/9.19.0.56-cuda13/lib/libcudnn.so.9.19.0" ]
	run --separate-stderr cudnnvm import "$sp/nvidia/cudnn" --version 9.18
	[ "$status" -eq 64 ]
	[[ $stderr == *"does not match"* ]]
}

@test "import of a wheel's cuDNN takes the build number from its dist-info" {
	sp=$T/venv/lib/python3.11/site-packages
	hand_lib v9 "$sp/nvidia/cudnn/lib" 9.19.0
	hand_header "$sp/nvidia/cudnn/include" 9 19 0
	mkdir -p "$sp/nvidia_cudnn_cu13-9.19.0.56.dist-info"
	run cudnnvm import "$sp/nvidia/cudnn"
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.19.0.56-cuda13" ]
	[ ! -e "$CUDNNVM_STORE/9.19.0.0-cuda13" ]
	# a dist-info of another release says nothing about this one
	rm -rf "$CUDNNVM_STORE/9.19.0.56-cuda13" "$sp"/nvidia_cudnn_cu13-*
	mkdir -p "$sp/nvidia_cudnn_cu13-9.18.1.3.dist-info"
	run cudnnvm import "$sp/nvidia/cudnn"
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.19.0.0-cuda13" ]
}

@test "import refuses no cuDNN, two majors, a broken chain, disagreeing headers; the store is unchanged" {
	mkdir -p "$T/empty/lib"
	echo x >"$T/empty/lib/libfoo.so.1"
	toolkit
	# the first write creates the store's own folders; after that a
	# refused import must leave it as it was
	run cudnnvm import "$T/empty"
	before=$(store_snapshot)

	run --separate-stderr cudnnvm import "$T/empty"
	[ "$status" -eq 1 ]
	[[ $stderr == "cudnnvm: "*"no cuDNN in '$T/empty'"* ]]

	hand_lib v8 "$T/two/lib" 8.9.7
	hand_lib v9 "$T/two/lib" 9.19.0
	run --separate-stderr cudnnvm import "$T/two" --cuda 12
	[ "$status" -eq 65 ]
	[[ $stderr == *"two cuDNN majors (8 and 9)"* ]]

	cp -a "$T/cuda" "$T/broken"
	rm "$T/broken/lib64/libcudnn_ops.so.9.19.0"
	run --separate-stderr cudnnvm import "$T/broken"
	[ "$status" -eq 65 ]
	[[ $stderr == *"/broken/lib64/libcudnn_ops.so"*"' is a broken symlink chain"* ]]

	cp -a "$T/cuda" "$T/mixed"
	hand_header "$T/mixed/include" 9 14 0
	run --separate-stderr cudnnvm import "$T/mixed"
	[ "$status" -eq 65 ]
	[[ $stderr == *"the headers say cuDNN 9.14.0 but the library is 9.19.0"* ]]

	# no file says the CUDA major and the library does not load
	cp -a "$T/cuda" "$T/noload"
	rm "$T/noload/version.json"
	for f in "$T/noload/lib64"/libcudnn.so.9.19.0; do echo "not ELF" >"$f"; done
	run --separate-stderr cudnnvm import "$T/noload"
	[ "$status" -eq 64 ]
	[[ $stderr == *"pass --cuda N"* ]]
	[ "$(store_snapshot)" = "$before" ]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging" 2>/dev/null)" ]
}

@test "a toolkit folder without version.json: the library says its CUDA" {
	toolkit
	rm "$T/cuda/version.json"
	run cudnnvm import "$T/cuda" --no-validate
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.19.0.0-cuda13" ]
	grep -q '"cuda_from": "cudnnGetCudartVersion() = 13010"' \
		"$CUDNNVM_STORE/9.19.0.0-cuda13/import.json"
	# the folder's cuda.h says it without loading anything
	cudnnvm -q uninstall 9.19.0.0-cuda13
	printf '#define CUDA_VERSION 13000\n' >"$T/cuda/include/cuda.h"
	run cudnnvm import "$T/cuda" --no-validate
	[ "$status" -eq 0 ]
	grep -q '"cuda_from": ".*/cuda/include/cuda.h"' \
		"$CUDNNVM_STORE/9.19.0.0-cuda13/import.json"
}

@test "import of a chain leading out of the folder is refused" {
	toolkit
	mkdir -p "$T/elsewhere"
	mv "$T/cuda/lib64/libcudnn_cnn.so.9.19.0" "$T/elsewhere/"
	ln -sf "$T/elsewhere/libcudnn_cnn.so.9.19.0" "$T/cuda/lib64/libcudnn_cnn.so.9.19.0"
	run --separate-stderr cudnnvm import "$T/cuda"
	[ "$status" -eq 65 ]
	[[ $stderr == *"leads out of its folder"* ]]
}

@test "doctor suggests import for a toolkit holding its own cuDNN, and the fix works as printed" {
	toolkit
	CUDA_HOME="$T/cuda" run cudnnvm doctor
	[[ $output == *"info: the CUDA toolkit folder $T/cuda/lib64 holds its own cuDNN (libcudnn.so.9)"* ]]
	# adopted, never removed: the toolkit is NVIDIA's layout
	[[ $output == *"fix: cudnnvm import '$T/cuda'"* ]]
	[[ $output != *"sudo rm"* ]]
	run bash -c "cudnnvm import '$T/cuda'"
	[ "$status" -eq 0 ]
	[ -d "$T/cuda/lib64" ] && [ -n "$(ls "$T/cuda/lib64"/libcudnn*)" ]
}

@test "a header link out of the folder, or an include folder that is a link out of it, is refused; nothing is copied" {
	mkdir -p "$T/outside"
	echo 'secret' >"$T/outside/secret"
	chmod 600 "$T/outside/secret"
	toolkit
	ln -s "$T/outside/secret" "$T/cuda/include/cudnn_shadow.h"
	run --separate-stderr cudnnvm import "$T/cuda" --no-validate
	echo "$stderr"
	[ "$status" -eq 65 ]
	[[ $stderr == "cudnnvm: "*"'$T/cuda/include/cudnn_shadow.h' leads out of its folder"* ]]
	[ ! -e "$CUDNNVM_STORE/9.19.0.0-cuda13" ]
	# the whole include folder a link to another one
	rm "$T/cuda/include/cudnn_shadow.h"
	mv "$T/cuda/include" "$T/outside/include"
	echo 'secret' >"$T/outside/include/cudnn_secret.h"
	ln -s "$T/outside/include" "$T/cuda/include"
	run --separate-stderr cudnnvm import "$T/cuda" --no-validate
	echo "$stderr"
	[ "$status" -eq 65 ]
	[[ $stderr == *"'$T/cuda/include' leads out of the folder (to $T/outside/include)"* ]]
	[ -z "$(find "$CUDNNVM_STORE" -name 'cudnn*.h')" ]
	# a lib64 that is a link out of the folder
	rm "$T/cuda/include"
	mv "$T/outside/include" "$T/cuda/include"
	mv "$T/cuda/lib64" "$T/outside/lib64"
	ln -s "$T/outside/lib64" "$T/cuda/lib64"
	run --separate-stderr cudnnvm import "$T/cuda" --no-validate
	[ "$status" -eq 65 ]
	[[ $stderr == *"leads out of the folder (to $T/outside/lib64)"* ]]
	[ ! -e "$CUDNNVM_STORE/9.19.0.0-cuda13" ]
}

@test "a FIFO header or library is refused at once, not read; a FIFO version.json is passed over" {
	toolkit
	cp -a "$T/cuda" "$T/fifolib"
	rm "$T/cuda/include/cudnn_version.h"
	mkfifo "$T/cuda/include/cudnn_version.h"
	run --separate-stderr timeout 20 cudnnvm import "$T/cuda" --no-validate
	echo "$status $stderr"
	[ "$status" -eq 65 ]
	[[ $stderr == *"'$T/cuda/include/cudnn_version.h' is not a regular file (a FIFO, a device or a folder)"* ]]
	rm "$T/fifolib/lib64/libcudnn_ops.so.9.19.0"
	mkfifo "$T/fifolib/lib64/libcudnn_ops.so.9.19.0"
	run --separate-stderr timeout 20 cudnnvm import "$T/fifolib" --no-validate
	echo "$status $stderr"
	[ "$status" -eq 65 ]
	[[ $stderr == *"libcudnn_ops.so"*"is not a regular file"* ]]
	[[ $stderr != *"broken symlink chain"* ]]
	# version.json is only a hint: a FIFO there neither hangs nor counts
	rm -rf "$T/cuda" && toolkit
	rm "$T/cuda/version.json"
	mkfifo "$T/cuda/version.json"
	run timeout 20 cudnnvm import "$T/cuda" --no-validate --cuda 13
	echo "$status $output"
	[ "$status" -eq 0 ]
	[ ! -p "$CUDNNVM_STORE/9.19.0.0-cuda13/version.json" ]
}

@test "imported files are 0644 and folders 0755 whatever the umask; every file is synced before it is published" {
	toolkit
	for m in 077 000; do
		rm -rf "$CUDNNVM_STORE"
		(umask $m && cudnnvm import "$T/cuda" --no-validate >/dev/null)
		d=$CUDNNVM_STORE/9.19.0.0-cuda13
		echo "$m: $(find "$d" -printf '%m %p\n')"
		[ -z "$(find "$d" -type f ! -perm 0644)" ]
		[ -z "$(find "$d" -type d ! -perm 0755)" ]
	done
	command -v strace >/dev/null || skip "strace is not installed"
	rm -rf "$CUDNNVM_STORE"
	# the helper runs import; -y names each synced file
	strace -f -y -e trace=fsync -o "$T/trace" "$CUDNNVM_BIN" import "$T/cuda" --no-validate >/dev/null
	d=$CUDNNVM_STORE/9.19.0.0-cuda13
	for f in $(cd "$d" && find . -type f | sed 's|^\./||'); do
		echo "$f"
		grep -q "fsync([0-9]*</.*/\.staging/[^/]*/$f>" "$T/trace"
	done
}
