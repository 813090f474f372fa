#!/usr/bin/env bats
# PyPI as a second source: NVIDIA's nvidia-cudnn-cuN wheels on a simple
# index (tests/fixtures/pypi_index.py over HTTPS with the tests' CA), built
# from the same NVIDIA-shaped archives mkarchive.py makes.
load helper

setup_file() {
	local d="$BATS_FILE_TMPDIR" a
	mkdir -p "$d/arch" "$d/root/files"
	python3 "$FIXTURES/mirror.py" certs "$d/certs"
	for a in "9.13.0.50 12" "9.1.0.70 12" "9.19.0.56 13" "8.9.7.29 11"; do
		set -- $a
		python3 "$FIXTURES/mkarchive.py" nvidia --out "$d/arch" \
			--version "$1" --cuda "$2" >/dev/null
		python3 "$FIXTURES/pypi_index.py" wheel --out "$d/root/files" \
			--from "$d/arch/cudnn-linux-x86_64-$1_cuda$2-archive.tar.xz" >/dev/null
	done
	# an aarch64 (sbsa) build newer than any x86_64 one
	python3 "$FIXTURES/mkarchive.py" nvidia --out "$d/arch" --version 9.20.0.48 \
		--cuda 13 --platform linux-sbsa >/dev/null
	python3 "$FIXTURES/pypi_index.py" wheel --out "$d/root/files" \
		--tag manylinux_2_28_aarch64 \
		--from "$d/arch/cudnn-linux-sbsa-9.20.0.48_cuda13-archive.tar.xz" >/dev/null
	# the CUDA libraries cuDNN loads, as NVIDIA's wheels: two cuBLAS
	# releases (the driver picks) and one nvrtc for CUDA 12
	for a in "libcublas 12.8.4.1" "libcublas 12.9.1.4" "cuda_nvrtc 12.8.93"; do
		set -- $a
		python3 "$FIXTURES/pypi_index.py" depwheel --component "$1" \
			--cuda 12 --version "$2" --out "$d/root/files" >/dev/null
	done
	index_start "$d/root" "$d/port"
	export PYPI_DIR="$d"
}

teardown_file() {
	# every index this file started (one pid a line): a server left
	# running would hold bats' output open and hang the whole suite
	local p
	if [ -f "$BATS_FILE_TMPDIR/pid" ]; then
		while read -r p; do
			kill "$p" 2>/dev/null
		done <"$BATS_FILE_TMPDIR/pid"
	fi
	true
}

index_start() { # ROOT PORTFILE
	python3 "$FIXTURES/pypi_index.py" serve "$1" \
		--cert "$BATS_FILE_TMPDIR/certs/server.pem" \
		--key "$BATS_FILE_TMPDIR/certs/server.key" \
		--port-file "$2" >"$1/server.log" 2>&1 3>&- &
	echo $! >>"$BATS_FILE_TMPDIR/pid"
	wait_for_file "$2"
}

setup() {
	common_setup
	pypi_config ok
	: >"$PYPI_DIR/root/requests.log"
	rm -f "$PYPI_DIR/root/yanked"
}

# pypi_config MODE [extra [remote] lines]; the index of PYPI_PORT_FILE
# (default: the file's own), the low-speed timeout PYPI_TIMEOUT (5 s)
pypi_config() {
	local mode=$1 url
	shift
	url="https://127.0.0.1:$(cat "${PYPI_PORT_FILE:-$PYPI_DIR/port}")/"
	[ "$mode" = ok ] || url="${url}fault/$mode/"
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY CUDA_HOME
	mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
	{
		echo "[store]"
		echo "cache = $T/cache"
		echo "[remote]"
		echo "source = pypi"
		echo "index = ${url}simple/"
		echo "ca_file = $PYPI_DIR/certs/ca.pem"
		echo "timeout = ${PYPI_TIMEOUT:-5}"
		echo "retries = 0"
		printf '%s\n' "$@"
		echo "[install]"
		echo "validate = no"
		echo "platform = linux-x86_64"
		echo "deps = ${PYPI_DEPS:-never}"
	} >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
}

# hostile_refused MODE PATTERN: the hostile wheel MODE of the test index,
# installed from its file with its true hash, is refused as unsafe (65)
# with a message matching PATTERN (a glob).
hostile_refused() {
	local whl sha
	rm -rf "$T/h"
	whl=$(python3 "$FIXTURES/pypi_index.py" hostile "$1" --out "$T/h")
	sha=$(sha256sum "$whl" | cut -d' ' -f1)
	run cudnnvm install --archive "$whl" --sha256 "$sha"
	echo "$1: $output"
	[ "$status" -eq 65 ]
	# shellcheck disable=SC2053
	[[ "$output" == "cudnnvm: install 9.1.0.70-cuda12: unsafe wheel: "$2* ]]
}

@test "pypi: resolution across cu11/12/13 and platforms, newest first" {
	run cudnnvm install 9 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed cuDNN 9.13.0.50-cuda12"* ]]
	run cudnnvm install 9.1 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *"9.1.0.70-cuda12"* ]]
	run cudnnvm install 9-cuda13
	[ "$status" -eq 0 ]
	[[ "$output" == *"9.19.0.56-cuda13"* ]] # not the aarch64-only 9.20
	run cudnnvm install 9 --cuda 13 --platform linux-sbsa
	[ "$status" -eq 0 ]
	[[ "$output" == *"9.20.0.48-cuda13"* ]]
	run cudnnvm install 8 --cuda 11
	[ "$status" -eq 0 ]
	[[ "$output" == *"8.9.7.29-cuda11"* ]]
	run cudnnvm install 9.2 --cuda 12
	[ "$status" -eq 1 ]
	[[ "$output" == "cudnnvm: no wheel of cuDNN 9.2 for linux-x86_64 cuda12 on the index"* ]]
	run cudnnvm list
	[[ "$output" == *"9.13.0.50-cuda12"*"(from a PyPI wheel)"* ]]
	grep -q '"origin": "pypi"' "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
	# the index was asked for PEP 691 JSON
	grep -q 'GET /simple/nvidia-cudnn-cu12/ - application/vnd.pypi.simple.v1+json' \
		"$PYPI_DIR/root/requests.log"
}

@test "pypi: the machine's CUDA major falls back to an older wheel, with a warning; one the user named does not" {
	# a CUDA 13 machine: 9.13 has only cu12 wheels on the index
	CUDNNVM_OVERRIDE_CUDA=13.0 run --separate-stderr cudnnvm install 9.13
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed cuDNN 9.13.0.50-cuda12"* ]]
	[[ "$stderr" == *"the index has no cuda13 wheel of cuDNN"*"took the cuda12 one"* ]]
	CUDNNVM_OVERRIDE_CUDA=13.0 run --separate-stderr cudnnvm install 9.13 --cuda 13
	[ "$status" -eq 1 ]
	[[ "$stderr" == "cudnnvm: no wheel of cuDNN 9.13 for linux-x86_64 cuda13 on the index"* ]]
}

@test "pypi: a V100 (compute capability 7.0) passes over wheels of 9.11 and newer; a spec of only those is refused with a hint that works" {
	export CUDNNVM_OVERRIDE_GPU_ARCH=7.0
	run --separate-stderr cudnnvm install 9 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed cuDNN 9.1.0.70-cuda12"* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "${stderr_lines[0]}" == *"took cuDNN 9.1.0.70, not 9.13.0.50: it needs compute capability 7.5 or newer; this GPU is 7.0"* ]]
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[[ "${stderr_lines[0]}" == "cudnnvm: cuDNN 9.13.0.50 needs compute capability 7.5 or newer"*"--force installs it anyway" ]]
	[ "${stderr_lines[1]}" = "hint: cudnnvm install 9.1.0.70 --source pypi --cuda 12" ]
	run cudnnvm install 9.13 --cuda 12 --force
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed cuDNN 9.13.0.50-cuda12"* ]]
	# a malformed override is a usage error, never ignored
	CUDNNVM_OVERRIDE_GPU_ARCH=volta run cudnnvm install 9.1 --cuda 12 --force
	[ "$status" -eq 64 ]
	[[ "$output" == *"CUDNNVM_OVERRIDE_GPU_ARCH='volta'"* ]]
}

@test "pypi: list-remote --source pypi lists the wheels of the index" {
	pypi_config ok
	sed -i '/^source = /d' "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm list-remote --source pypi
	[ "$status" -eq 0 ]
	[ "${lines[0]%% *}" = "9.19.0.56-cuda13" ]
	[[ "$output" == *"9.13.0.50-cuda12"*"9.1.0.70-cuda12"*"8.9.7.29-cuda11"* ]]
	[[ "$output" != *"9.20.0.48"* ]]
	run cudnnvm list-remote 9.1 --source pypi --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | python3 -c 'import json,sys; print([w["id"] for w in json.load(sys.stdin)])')" = "['9.1.0.70-cuda12']" ]
	run cudnnvm list-remote --source nuget
	[ "$status" -eq 64 ]
}

@test "pypi: a yanked wheel is never picked" {
	echo nvidia_cudnn_cu12-9.13.0.50-py3-none-manylinux2014_x86_64.whl >"$PYPI_DIR/root/yanked"
	run cudnnvm install 9 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *"9.1.0.70-cuda12"* ]]
	# the same through the HTML page's data-yanked
	pypi_config html
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 1 ]
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "pypi: a PEP 503-only index (HTML, #sha256=, no sizes) installs" {
	pypi_config html
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ -L "$CUDNNVM_STORE/9.13.0.50-cuda12/lib/libcudnn.so.9" ]
	# the size came from a HEAD request
	grep -q '^HEAD /fault/html/files/' "$PYPI_DIR/root/requests.log"
}

@test "pypi: an index with no sizes that refuses HEAD (501 or 405) installs by a plain GET; an installed version asks nothing" {
	local mode
	for mode in nohead nohead405; do
		# nothing kept from the round before: the wheel must be fetched
		rm -rf "$CUDNNVM_STORE" "$T/cache"
		pypi_config $mode
		: >"$PYPI_DIR/root/requests.log"
		run cudnnvm install 9.13 --cuda 12
		echo "$mode: $output"
		[ "$status" -eq 0 ]
		[ -L "$CUDNNVM_STORE/9.13.0.50-cuda12/lib/libcudnn.so.9" ]
		grep -q "^GET /fault/$mode/files/nvidia_cudnn_cu12-9.13.0.50" "$PYPI_DIR/root/requests.log"
		# the version is here now: no HEAD, no GET of a wheel
		: >"$PYPI_DIR/root/requests.log"
		run cudnnvm install 9.13 --cuda 12
		[ "$status" -eq 0 ]
		[[ "$output" == *"already installed"* ]]
		run grep -c '/files/' "$PYPI_DIR/root/requests.log"
		[ "$output" = 0 ]
		# a full version and --cuda: not even the index page
		run cudnnvm install 9.13.0.50 --cuda 12
		[ "$status" -eq 0 ]
		[[ "$output" == *"already installed"* ]]
		run grep -c '/simple/' "$PYPI_DIR/root/requests.log"
		[ "$output" = 1 ]
	done
}

@test "pypi: a wrong sha256 fails with exit 65 and leaves the store unchanged" {
	cudnnvm install 9.1 --cuda 12 >/dev/null
	before=$(store_snapshot)
	pypi_config wronghash
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 65 ]
	[[ "$output" == "cudnnvm: install 9.13.0.50-cuda12: sha256 mismatch for 'nvidia_cudnn_cu12-9.13.0.50"* ]]
	[ "$(store_snapshot)" = "$before" ]
}

@test "pypi: links over http are refused" {
	pypi_config http
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 65 ]
	[[ "$output" == *"insecure scheme"* ]]
	run grep -c '/files/' "$PYPI_DIR/root/requests.log"
	[ "$output" = 0 ]
}

@test "pypi: an interrupted download resumes with a Range request" {
	local whl=nvidia_cudnn_cu12-9.13.0.50-py3-none-manylinux2014_x86_64.whl
	# the page's relative link leads to /fault/truncate/files/: half the
	# body, then the connection closes
	pypi_config truncate
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 69 ]
	ls "$T"/cache/downloads/*.partial
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	pypi_config ok
	: >"$PYPI_DIR/root/requests.log"
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	grep -q "GET /files/$whl bytes=" "$PYPI_DIR/root/requests.log"
}

@test "pypi: an index behind a password takes it from .netrc" {
	pypi_config auth
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 69 ]
	[[ "$output" == *"HTTP 401"* ]]
	printf 'machine 127.0.0.1 login u password sekrit\n' >"$HOME/.netrc"
	chmod 600 "$HOME/.netrc"
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ -e "$CUDNNVM_STORE/9.13.0.50-cuda12/lib/libcudnn.so.9.13.0" ]
}

@test "pypi: both sources install the same release to identical trees" {
	local a="$PYPI_DIR/arch/cudnn-linux-x86_64-9.13.0.50_cuda12-archive.tar.xz"
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	run cudnnvm --store "$T/other" install --archive "$a" --sha256 "$(sha256sum "$a" | cut -d' ' -f1)"
	[ "$status" -eq 0 ]
	# NVIDIA's wheels carry no static libraries; everything else matches,
	# links, modes and bytes
	tree() {
		(cd "$1" && find . ! -name '*_static.a' ! -name cudnnvm.json -printf '%p %y %m %l\n' |
			LC_ALL=C sort && find . -type f ! -name '*_static.a' ! -name cudnnvm.json -exec sha256sum {} + | LC_ALL=C sort)
	}
	[ "$(tree "$CUDNNVM_STORE/9.13.0.50-cuda12")" = "$(tree "$T/other/9.13.0.50-cuda12")" ]
	grep -q '"origin": "nvidia"' "$T/other/9.13.0.50-cuda12/cudnnvm.json"
	# one id, one version: the second source finds it installed
	run cudnnvm --store "$T/other" install 9.13.0.50-cuda12 --source pypi
	[[ "$output" == *"already installed"* ]]
}

@test "pypi: hostile wheels are refused and write nothing" {
	local c whl sha
	cudnnvm install 9.13 --cuda 12 >/dev/null
	before=$(store_snapshot)
	for c in outside dotdot symlink absolute toplevel; do
		rm -rf "$T/h"
		whl=$(python3 "$FIXTURES/pypi_index.py" hostile $c --out "$T/h")
		sha=$(sha256sum "$whl" | cut -d' ' -f1)
		run cudnnvm install --archive "$whl" --sha256 "$sha"
		echo "$c: $output"
		[ "$status" -eq 65 ]
		[[ "$output" == "cudnnvm: install 9.1.0.70-cuda12: unsafe archive: entry '"* ||
			"$output" == "cudnnvm: install 9.1.0.70-cuda12: corrupt"* ]]
		[ "$(store_snapshot)" = "$before" ]
	done
	[ ! -e /tmp/cudnnvm-evil ]
	[ ! -e "$CUDNNVM_STORE/.staging/escape" ]
}

@test "pypi: a wheel whose central directory and local headers disagree is refused, as pip refuses it" {
	local c whl sha
	cudnnvm install 9.13 --cuda 12 >/dev/null
	before=$(store_snapshot)
	for c in "cd-name another name" "cd-outside another name" \
		"cd-size another size" "cd-dir another name"; do
		set -- $c
		hostile_refused "$1" "entry '*' of the central directory has ${*:2} in its local header"
		[ "$(store_snapshot)" = "$before" ]
	done
}

@test "pypi: a wheel whose .dist-info names another project, version or tag than its file name is refused" {
	local c whl sha
	cudnnvm install 9.13 --cuda 12 >/dev/null
	before=$(store_snapshot)
	for c in "di-project its folder 'nvidia_cudnn_cu11-9.1.0.70.dist-info' does not name" \
		"di-version its folder 'nvidia_cudnn_cu12-9.1.0.71.dist-info' does not name" \
		"di-tag its WHEEL file has the tag 'py3-none-manylinux2014_aarch64'" \
		"di-none '"; do
		set -- $c
		hostile_refused "$1" "${*:2}"
		[ "$(store_snapshot)" = "$before" ]
	done
	# the file name's dotted platform is every tag the WHEEL file lists
	rm -rf "$T/h"
	python3 - "$FIXTURES" "$T/h" <<-'PY'
		import os, sys, zipfile
		sys.path.insert(0, sys.argv[1])
		import pypi_index
		tag = "manylinux2014_x86_64.manylinux_2_17_x86_64"
		os.makedirs(sys.argv[2])
		path = os.path.join(sys.argv[2], "nvidia_cudnn_cu12-9.1.0.70-py3-none-%s.whl" % tag)
		with zipfile.ZipFile(path, "w") as z:
		    z.writestr(pypi_index.zinfo("nvidia/cudnn/lib/libcudnn.so.9"), b"\x7fELF")
		    pypi_index.dist_info(z, "nvidia-cudnn-cu12", "9.1.0.70", tag)
	PY
	whl=$(ls "$T"/h/*.whl)
	run cudnnvm install --archive "$whl" --sha256 "$(sha256sum "$whl" | cut -d' ' -f1)"
	echo "$output"
	[[ "$output" != *"unsafe wheel"* ]]
	[ -e "$CUDNNVM_STORE/9.1.0.70-cuda12/lib/libcudnn.so.9" ]
}

# bad_field_wheel OUT FIELD DELTA: a cu12 9.1.0.70 wheel whose
# nvidia/cudnn/include/cudnn.h (deflated) has FIELD (crc or size) changed
# by DELTA in its local header and its directory record alike, so the two
# agree with each other but not with the deflated bytes
bad_field_wheel() {
	python3 - "$FIXTURES" "$1" "$2" "$3" <<-'PY'
		import os, struct, sys, zipfile
		sys.path.insert(0, sys.argv[1])
		import pypi_index
		out, field, delta = sys.argv[2], sys.argv[3], int(sys.argv[4])
		os.makedirs(out, exist_ok=True)
		path = os.path.join(out, "nvidia_cudnn_cu12-9.1.0.70-py3-none-"
		                    "manylinux2014_x86_64.whl")
		name = "nvidia/cudnn/include/cudnn.h"
		with zipfile.ZipFile(path, "w") as z:
		    z.writestr(pypi_index.zinfo("nvidia/cudnn/lib/libcudnn.so.9"),
		               b"\x7fELF" * 1000)
		    z.writestr(pypi_index.zinfo(name), b"/* h */\n" * 1000)
		    pypi_index.dist_info(z, "nvidia-cudnn-cu12", "9.1.0.70")
		with zipfile.ZipFile(path) as z:
		    zi = z.getinfo(name)
		data = bytearray(open(path, "rb").read())
		# CRC-32 at 14 and the size at 22 of a local header; at 16 and
		# 24 of a directory record
		local, cd = zi.header_offset, data.find(b"PK\x01\x02" +
		    bytes(data[zi.header_offset + 4:zi.header_offset + 6]))
		while data[cd + 46:cd + 46 + len(name)] != name.encode():
		    cd = data.find(b"PK\x01\x02", cd + 4)
		for at in ((local + 14, cd + 16) if field == "crc" else
		           (local + 22, cd + 24)):
		    v = struct.unpack("<I", data[at:at + 4])[0]
		    data[at:at + 4] = struct.pack("<I", (v + delta) & 0xffffffff)
		open(path, "wb").write(bytes(data))
		print(path)
	PY
}

@test "pypi: a deflated entry must match its CRC-32 and size, streamed or from the directory" {
	local whl sha case
	cudnnvm install 9.13 --cuda 12 >/dev/null
	before=$(store_snapshot)
	for case in "crc 1 CRC-32 mismatch" \
		"size -1 is larger than its directory entry says" \
		"size 1 smaller than its directory entry says"; do
		set -- $case
		rm -rf "$T/bad"
		whl=$(bad_field_wheel "$T/bad" "$1" "$2")
		sha=$(sha256sum "$whl" | cut -d' ' -f1)
		run cudnnvm install --archive "$whl" --sha256 "$sha"
		echo "$case: $output"
		[ "$status" -eq 65 ]
		shift 2
		[[ "$output" == *"include/cudnn.h"*"$*"* ]]
		[ "$(store_snapshot)" = "$before" ]
	done
	# the same wheel untouched installs
	whl=$(bad_field_wheel "$T/good" crc 0)
	run cudnnvm install --archive "$whl" --sha256 "$(sha256sum "$whl" | cut -d' ' -f1)"
	[ "$status" -eq 0 ]
	[ "$(cat "$CUDNNVM_STORE/9.1.0.70-cuda12/include/cudnn.h" | wc -l)" -eq 1000 ]
}

@test "pypi: a local wheel installs with --archive" {
	local whl="$PYPI_DIR/root/files/nvidia_cudnn_cu13-9.19.0.56-py3-none-manylinux2014_x86_64.whl"
	run cudnnvm install --archive "$whl" --sha256 "$(sha256sum "$whl" | cut -d' ' -f1)"
	[ "$status" -eq 0 ]
	[[ "$output" == *"9.19.0.56-cuda13"* ]]
	[ "$(readlink "$CUDNNVM_STORE/9.19.0.56-cuda13/lib/libcudnn.so")" = libcudnn.so.9 ]
	[ "$(readlink "$CUDNNVM_STORE/9.19.0.56-cuda13/lib/libcudnn.so.9")" = libcudnn.so.9.19.0 ]
	[ -f "$CUDNNVM_STORE/9.19.0.56-cuda13/LICENSE" ]
}

@test "pypi: NVIDIA's real nvidia-cudnn-cu12==8.9.2.26 wheel from the index" {
	real_wheel_8926 ||
		skip "nvidia-cudnn-cu12==8.9.2.26 is not cached and PyPI cannot be reached"
	mkdir -p "$T/real/files"
	ln -s "$WHEEL" "$T/real/files/"
	index_start "$T/real" "$T/real/port"
	# 731 MB through the Python server: on a busy machine (the suites run
	# side by side) it may pause longer than the 5 s low-speed timeout
	PYPI_TIMEOUT=60 pypi_config ok
	sed -i "s|^index = .*|index = https://127.0.0.1:$(cat "$T/real/port")/simple/|" \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm install 8.9.2 --cuda 12
	echo "$output"
	[ "$status" -eq 0 ]
	local lib="$CUDNNVM_STORE/8.9.2.26-cuda12/lib"
	[ "$(readlink "$lib/libcudnn_cnn_infer.so.8")" = libcudnn_cnn_infer.so.8.9.2 ]
	[ "$(stat -c %s "$lib/libcudnn_cnn_infer.so.8.9.2")" = 647553136 ]
	[ -f "$CUDNNVM_STORE/8.9.2.26-cuda12/include/cudnn_version.h" ]
	[ ! -e "$CUDNNVM_STORE/8.9.2.26-cuda12/lib/__init__.py" ]
}

@test "pypi: SIGKILL while a wheel is unpacked leaves nothing visible; the next run sweeps it" {
	CUDNNVM_TEST_CHECKPOINT=mid-extract CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		cudnnvm install 9.13 --cuda 12 3>&- &
	pid=$!
	wait_for_file "$T/parked"
	# parked with a file unpacked and the spooled wheel in staging
	ls "$CUDNNVM_STORE"/.staging/*/.cudnnvm-wheel
	[ -n "$(find "$CUDNNVM_STORE"/.staging/*/ -type f ! -name .cudnnvm-wheel ! -name '*.lock')" ]
	kill -9 "$pid"
	wait "$pid" || true
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12/.cudnnvm-wheel" ]
}

@test "pypi: a wheel is unpacked while it downloads" {
	local d="$T/big" whl
	# a wheel of a few MiB (bytes are handed on in blocks of 256 KiB),
	# from a server that sends half of it and then stalls: a file is
	# written (the worker parks after its first) before the download ends
	whl=$(stalling_big_wheel "$d")
	CUDNNVM_TEST_CHECKPOINT=mid-extract CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		cudnnvm install 9.13 --cuda 12 3>&- &
	pid=$!
	wait_for_file "$T/parked"
	spool=$(ls "$CUDNNVM_STORE"/.staging/*/.cudnnvm-wheel)
	[ "$(stat -c %s "$spool")" -lt "$(stat -c %s "$whl")" ]
	[ -n "$(find "$CUDNNVM_STORE"/.staging/*/ -type f ! -name .cudnnvm-wheel ! -name '*.lock')" ]
	kill -9 "$pid"
	wait "$pid" || true
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

# stalling_big_wheel DIR: a 9.13 cuda12 wheel of a few MiB (bytes are
# handed on in blocks of 256 KiB) on an index in DIR that sends half of it
# and then stalls, the config pointing at it; prints the wheel's path. The
# stall outlasts a test: no low-speed timeout meanwhile.
stalling_big_wheel() {
	local d=$1 whl
	mkdir -p "$d/files"
	head -c 3145728 /dev/urandom >"$T/big.so"
	python3 "$FIXTURES/mkarchive.py" nvidia --out "$T/a" --version 9.13.0.50 \
		--cuda 12 --extra-lib "$T/big.so" >/dev/null
	whl=$(python3 "$FIXTURES/pypi_index.py" wheel --out "$d/files" \
		--from "$T/a/cudnn-linux-x86_64-9.13.0.50_cuda12-archive.tar.xz")
	index_start "$d" "$d/port" >&2
	PYPI_PORT_FILE="$d/port" PYPI_TIMEOUT=60 pypi_config stall >&2
	echo "$whl"
}

# wheel_threads_parked DIR [install args]: how many threads an install of
# the wheel DIR's stalling index serves runs while parked at mid-extract
# (its download stalled, so no worker has run out of work), then SIGKILL
# it; the command runs under `taskset -c 0` when TASKSET is set.
wheel_threads_parked() {
	local d=$1 pid n
	shift
	rm -f "$T/parked"
	CUDNNVM_TEST_CHECKPOINT=mid-extract CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		${TASKSET:+taskset -c 0} cudnnvm install 9.13 --cuda 12 "$@" 3>&- &
	pid=$!
	wait_for_file "$T/parked" || { kill -9 "$pid"; return 1; }
	n=$(ls "/proc/$pid/task" | wc -l)
	kill -9 "$pid"
	wait "$pid" || true
	echo "$n"
}

@test "pypi: a wheel is unpacked on the cores the process may use, or on --jobs N threads" {
	command -v taskset >/dev/null || skip "no taskset"
	[ "$(nproc --all)" -ge 2 ] || skip "one core: affinity cannot narrow it"
	local d="$T/big" whl one jobs1 jobs3
	whl=$(stalling_big_wheel "$d")
	# bound to one core, the default is one worker: what --jobs 1 runs,
	# not one per core of the machine
	one=$(TASKSET=1 wheel_threads_parked "$d")
	jobs1=$(TASKSET=1 wheel_threads_parked "$d" --jobs 1)
	jobs3=$(TASKSET=1 wheel_threads_parked "$d" --jobs 3)
	echo "taskset -c 0: $one threads; --jobs 1: $jobs1; --jobs 3: $jobs3"
	[ -n "$one" ] && [ "$one" -eq "$jobs1" ]
	# --jobs outranks the affinity mask
	[ "$jobs3" -eq $((jobs1 + 2)) ]
}

@test "pypi: a bomb behind a size the index lies about fills no more than 4x what arrived" {
	local d="$T/bomb" whl
	# 300 MiB of zeros (a few hundred KB deflated), then 1 MiB that does
	# not compress; the index says the wheel is 1000 times its size, so
	# the cap from that size would allow the whole bomb before the
	# download ends and the lie shows
	mkdir -p "$d/files"
	whl="$d/files/nvidia_cudnn_cu12-9.13.0.50-py3-none-manylinux2014_x86_64.whl"
	python3 - "$whl" <<-'PY'
		import os, sys, zipfile
		with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
		    z.writestr("nvidia/cudnn/include/cudnn.h", "/* h */\n")
		    with z.open("nvidia/cudnn/lib/libcudnn.so.9", "w", force_zip64=True) as f:
		        for _ in range(300):
		            f.write(bytes(1 << 20))
		    z.writestr("nvidia/cudnn/lib/libcudnn_ops.so.9", os.urandom(1 << 20))
	PY
	index_start "$d" "$d/port"
	# the stall outlasts the test: no low-speed timeout meanwhile
	PYPI_PORT_FILE="$d/port" PYPI_TIMEOUT=60 pypi_config oversize
	cudnnvm install 9.13 --cuda 12 3>&- &
	pid=$!
	# half the wheel has arrived (the bomb with it) and the server stalls
	for _ in $(seq 100); do
		[ -e "$CUDNNVM_STORE"/.staging/*/lib/libcudnn.so.9 ] 2>/dev/null && break
		sleep 0.1
	done
	sleep 3
	used=$(du -sm "$CUDNNVM_STORE/.staging" | cut -f1)
	kill -9 "$pid"
	wait "$pid" || true
	echo "staging holds $used MiB"
	[ "$used" -gt 0 ]
	[ "$used" -le 262 ]
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "pypi: what is unpacked as it arrives is kept only where the central directory agrees" {
	local whl
	# a local entry the directory does not list: unpacked from the
	# stream, then taken back; what installers see is what is installed
	whl=$(python3 "$FIXTURES/pypi_index.py" hostile lh-hidden --out "$T/h")
	run cudnnvm install --archive "$whl" --sha256 "$(sha256sum "$whl" | cut -d' ' -f1)"
	[ "$status" -eq 0 ]
	ls "$CUDNNVM_STORE/9.1.0.70-cuda12/lib/"
	[ -f "$CUDNNVM_STORE/9.1.0.70-cuda12/lib/libcudnn.so.9.1.0" ]
	! ls "$CUDNNVM_STORE/9.1.0.70-cuda12/lib/" | grep -q hid
	# sizes only in data descriptors, after the data: nothing can be
	# dealt out ahead, and the wheel is unpacked from its directory
	whl=$(python3 "$FIXTURES/pypi_index.py" hostile descriptor --out "$T/d")
	run cudnnvm --store "$T/d-store" install --archive "$whl" --sha256 "$(sha256sum "$whl" | cut -d' ' -f1)"
	[ "$status" -eq 0 ]
	[ "$(cat "$T/d-store/9.1.0.70-cuda12/include/cudnn.h")" = "/* h */" ]
	[ "$(cat "$T/d-store/9.1.0.70-cuda12/lib/libcudnn.so.9.1.0")" = "$(printf '\177ELF')" ]
}

@test "pypi: a wheel's lib/ keeps only cuDNN's names (no libz.so.1 in the store)" {
	local whl
	whl=$(python3 "$FIXTURES/pypi_index.py" hostile foreign-lib --out "$T/f")
	run cudnnvm install --archive "$whl" --sha256 "$(sha256sum "$whl" | cut -d' ' -f1)"
	[ "$status" -eq 0 ]
	ls -A "$CUDNNVM_STORE/9.1.0.70-cuda12/lib/"
	[ -f "$CUDNNVM_STORE/9.1.0.70-cuda12/lib/libcudnn.so.9.1.0" ]
	! ls -A "$CUDNNVM_STORE/9.1.0.70-cuda12/lib/" | grep -q libz
}

@test "pypi: source = pypi with no index named is a config error, not a guess" {
	printf '[remote]\nsource = pypi\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 78 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ ${stderr_lines[0]} == "cudnnvm: source = pypi needs a package index"* ]]
	# nothing was installed (the store's own folders may have been made)
	[ -z "$(ls "$CUDNNVM_STORE" 2>/dev/null)" ]
	run --separate-stderr cudnnvm list-remote --source pypi
	[ "$status" -eq 78 ]
}

@test "source pypi: cuBLAS and nvrtc come as NVIDIA's wheels from the same index, for the driver's CUDA minor" {
	PYPI_DEPS=auto pypi_config ok
	export CUDNNVM_TEST_CUDA_LIBDIRS="$T/nolibs" CUDNNVM_OVERRIDE_DRIVER_CUDA=12.8
	mkdir -p "$T/nolibs"
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"cuDNN loads libcublas 12.8.4.1 (CUDA 12) beside itself"* ]]
	[ -f "$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib/libcublasLt.so.12" ]
	[ -f "$CUDNNVM_STORE/deps/cuda_nvrtc-12.8.93/lib/libnvrtc.so.12" ]
	[ -f "$CUDNNVM_STORE/deps/libcublas-12.8.4.1/LICENSE" ]
	# nothing but the libraries and the license from the wheel
	[ -z "$(find "$CUDNNVM_STORE/deps" -name '*.py' -o -name '*.h' -o -name include)" ]
	grep -q '"deps/libcublas-12.8.4.1"' "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
	# side by side: every listing is read first, then the three wheels
	# download together (no wheel waits for another to be unpacked)
	awk '$2 ~ /\/simple\// { page = NR } $2 ~ /\/files\// && !first { first = NR }
		END { exit !(first && page < first) }' "$PYPI_DIR/root/requests.log"
	[ "$(grep -c '^GET /files/' "$PYPI_DIR/root/requests.log")" -eq 3 ]
	run cudnnvm exec 9.13.0.50-cuda12 -- python3 -c '
import ctypes
ctypes.CDLL("libcublasLt.so.12")
print([l.split()[-1] for l in open("/proc/self/maps") if "libcublasLt" in l][0])'
	[ "$status" -eq 0 ]
	[ "$output" = "$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib/libcublasLt.so.12" ]
	# a tampered wheel of it is refused with nothing published
	cudnnvm uninstall 9.13.0.50-cuda12
	[ ! -e "$CUDNNVM_STORE/deps/libcublas-12.8.4.1" ]
	PYPI_DEPS=always pypi_config wronghash
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 65 ]
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	[ -z "$(ls -A "$CUDNNVM_STORE/deps" 2>/dev/null)" ]
}

# the configuration without a source or an index: what --index overrides
no_index_config() {
	sed -i -e '/^source = /d' -e '/^index = /d' "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	INDEX="https://127.0.0.1:$(cat "$PYPI_DIR/port")/simple/"
}

@test "pypi: --index names the index on install and list-remote, as pip's --index-url, and implies --source pypi" {
	no_index_config
	run --separate-stderr cudnnvm list-remote 9 --cuda 12 --index "$INDEX"
	[ "$status" -eq 0 ]
	[[ $output == *"9.1.0.70-cuda12"*pypi* ]]
	run cudnnvm install 9.1.0.70 --cuda 12 --index "$INDEX"
	[ "$status" -eq 0 ]
	grep -q '"origin": *"pypi"' "$CUDNNVM_STORE/9.1.0.70-cuda12/cudnnvm.json"
	# no index anywhere: the error names --index
	run -78 --separate-stderr cudnnvm list-remote --source pypi
	[[ $stderr == *"or pass --index URL"* ]]
}

@test "pypi: --mirror is only the redist mirror and --index only the index; each misuse names the other" {
	no_index_config
	run -64 --separate-stderr cudnnvm install 9 --source nvidia --index "$INDEX"
	[[ $stderr == *"--index names the package index of --source pypi; NVIDIA's redist mirror is --mirror URL"* ]]
	run -64 --separate-stderr cudnnvm install 9 --source pypi --mirror "$INDEX"
	[[ $stderr == *"the package index of --source pypi is --index URL"* ]]
	run -64 --separate-stderr cudnnvm list-remote --source pypi --mirror "$INDEX"
	[[ $stderr == *"--index URL"* ]]
	[ -z "$(ls -A "$CUDNNVM_STORE" 2>/dev/null | grep -v '^\.')" ]
}

@test "pypi: an index URL without /simple/ is told so, with a hint that works as printed" {
	no_index_config
	root="https://127.0.0.1:$(cat "$PYPI_DIR/port")/"
	run --separate-stderr cudnnvm list-remote --index "$root"
	[ "$status" -eq 1 ]
	[[ $stderr == *"the index $root has no nvidia-cudnn-cu11, -cu12 or -cu13; a simple index's URL usually ends in /simple/"* ]]
	[ "${stderr_lines[1]}" = "hint: cudnnvm list-remote --source pypi --index ${root}simple/" ]
	run --separate-stderr ${stderr_lines[1]#hint: }
	[ "$status" -eq 0 ]
	[[ $output == *"-cuda12 "*pypi* ]]
	# with /simple/ there is nothing to hint
	run --separate-stderr cudnnvm list-remote --index "${root}fault/404/simple/"
	[[ $stderr != *"usually ends in /simple/"* ]]
}

@test "pypi: messages about the index call it the index" {
	no_index_config
	run -78 --separate-stderr cudnnvm list-remote --index http://127.0.0.1:1/simple/
	[[ $stderr == "cudnnvm: index 'http://127.0.0.1:1/simple/' "* ]]
	run --separate-stderr cudnnvm list-remote --index https://127.0.0.1:1/simple/
	[ "$status" -ne 0 ]
	[[ $stderr == *"check the network and the index"* ]]
	[[ $stderr != *"mirror"* ]]
}

# doc/reliability.md W7
@test "pypi: W7 a wheel entry whose deflate stream ends early or runs long is refused (65), nothing published" {
	local c whl sha
	cudnnvm install 9.13 --cuda 12 >/dev/null
	before=$(store_snapshot)
	for c in "deflate-early ends before its compressed size does" \
		"deflate-long runs past its compressed size" \
		"deflate-early-small ends before its compressed size does" \
		"deflate-long-small "; do
		set -- $c
		rm -rf "$T/h"
		whl=$(python3 "$FIXTURES/pypi_index.py" hostile "$1" --out "$T/h")
		sha=$(sha256sum "$whl" | cut -d' ' -f1)
		run cudnnvm install --archive "$whl" --sha256 "$sha"
		echo "$1: $output"
		[ "$status" -eq 65 ]
		# shellcheck disable=SC2053
		[[ "$output" == "cudnnvm: install 9.1.0.70-cuda12: corrupt wheel entry 'lib/libcudnn.so.9': "*"${*:2}"* ]]
		[ "$(store_snapshot)" = "$before" ]
		[ ! -e "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
		[ -z "$(ls -A "$CUDNNVM_STORE/.staging" 2>/dev/null)" ]
	done
	# the same from an index, unpacked while it streams in
	mkdir -p "$T/hroot/files"
	python3 "$FIXTURES/pypi_index.py" hostile deflate-early --out "$T/hroot/files" >/dev/null
	index_start "$T/hroot" "$T/hport"
	PYPI_PORT_FILE="$T/hport" pypi_config ok
	run cudnnvm install 9.1 --cuda 12
	echo "$output"
	[ "$status" -eq 65 ]
	[[ "$output" == *"corrupt wheel entry 'lib/libcudnn.so.9': its deflate stream ends before its compressed size does"* ]]
	[ "$(store_snapshot)" = "$before" ]
}

@test "pypi: a 6 MiB deflated entry is inflated in chunks, byte for byte, from a file and from the index" {
	local whl
	mkdir -p "$T/broot/files"
	whl=$(python3 "$FIXTURES/pypi_index.py" hostile deflate-big --out "$T/broot/files")
	run cudnnvm install --archive "$whl" --sha256 "$(sha256sum "$whl" | cut -d' ' -f1)"
	[ "$status" -eq 0 ]
	cmp <(unzip -p "$whl" nvidia/cudnn/lib/libcudnn.so.9) \
		"$CUDNNVM_STORE/9.1.0.70-cuda12/lib/libcudnn.so.9.1.0"
	index_start "$T/broot" "$T/bport"
	PYPI_PORT_FILE="$T/bport" pypi_config ok
	run cudnnvm --store "$T/b-store" install 9.1 --cuda 12
	echo "$output"
	[ "$status" -eq 0 ]
	cmp <(unzip -p "$whl" nvidia/cudnn/lib/libcudnn.so.9) \
		"$T/b-store/9.1.0.70-cuda12/lib/libcudnn.so.9.1.0"
}

@test "pypi: on a terminal the cuDNN wheel and its dependencies' download under one display" {
	command -v script >/dev/null || skip "script(1) is not installed"
	PYPI_DEPS=always pypi_config ok
	export CUDNNVM_OVERRIDE_DRIVER_CUDA=12.8
	run script -qec "cudnnvm install 9.13 --cuda 12" /dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cuDNN loads libcublas 12.8.4.1 (CUDA 12) beside itself"*"cuDNN loads cuda_nvrtc 12.8.93 (CUDA 12) beside itself"*"downloading them side by side with cuDNN ("*" MB in all)"*"100%"* ]]
	# one display: the cuDNN wheel gets no line and bar of its own
	[[ "$output" != *"downloading nvidia_cudnn_cu12-9.13.0.50"* ]]
	[ "$(grep -o "side by side" <<<"$output" | wc -l)" -eq 1 ]
}
