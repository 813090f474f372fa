#!/usr/bin/env bats
# What cuDNN loads beside itself (cuBLASLt, nvrtc): installed once per
# release into <store>/deps/ from an NVIDIA-shaped CUDA redist tree on the
# loopback mirror, shared, put on every activation path right after the
# cuDNN folder, and removed with its last user.
load remote

setup_file() {
	mirror_start
	# NVIDIA's layout: .../compute/cudnn/redist/ beside .../compute/cuda/
	# redist/; the cuDNN tree is the mirror's root
	CUDA_TREE="$MIRROR_DIR/root/compute/cuda/redist"
	mkdir -p "$MIRROR_DIR/root/compute/cudnn"
	ln -s ../.. "$MIRROR_DIR/root/compute/cudnn/redist"
	python3 "$FIXTURES/mkcuda.py" build "$CUDA_TREE" 12.4.1 --pad-mb 2 \
		>"$MIRROR_DIR/cuda-12.4.1.json"
	python3 "$FIXTURES/mkcuda.py" build "$CUDA_TREE" 12.8.1 --pad-mb 2 \
		>"$MIRROR_DIR/cuda-12.8.1.json"
	python3 "$FIXTURES/mkcuda.py" build "$CUDA_TREE" 13.0.2 --pad-mb 1 \
		>"$MIRROR_DIR/cuda-13.0.2.json"
	export CUDA_TREE
	# a stub cuDNN 9 whose libraries are real ELF objects (system mode
	# reads their SONAMEs)
	stub_archives <<-EOF
		v9 9.19.0.56 13
	EOF
	python3 "$FIXTURES/mkarchive.py" nvidia --out "$STUBS/arch2" \
		--version 9.19.0.57 --cuda 13 --libdir "$STUBS/v9/lib" --preset 0 |
		python3 -c 'import json,sys; j=json.load(sys.stdin)
print("%s %s %s" % (j["path"], j["sha256"], j["id"]))' >"$STUBS/v9b.arch"
}

setup() {
	REMOTE_DEPS=auto remote_setup
	# a machine where no cuBLASLt or nvrtc is findable
	export CUDNNVM_TEST_CUDA_LIBDIRS="$T/nolibs"
	mkdir -p "$T/nolibs"
	export CUDNNVM_OVERRIDE_DRIVER_CUDA=12.8
	sed -i "s|^mirror = .*|mirror = https://127.0.0.1:$MIRROR_PORT/compute/cudnn/redist/|" \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
}

field() { # field RELEASE COMPONENT KEY
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]])' \
		"$MIRROR_DIR/cuda-$1.json" "$2" "$3"
}

dep_gets() { grep -c 'compute/cuda/redist/.*archive.tar.xz' "$MIRROR_DIR/root/requests.log" || true; }

@test "install puts cuBLAS and nvrtc once into the store beside cuDNN, from the CUDA tree next to the cuDNN one" {
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"cuDNN loads libcublas 12.8.4.1 (CUDA 12) beside itself"* ]]
	[ -f "$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib/libcublasLt.so.12.8.4.1" ]
	[ -L "$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib/libcublasLt.so.12" ]
	[ -L "$CUDNNVM_STORE/deps/cuda_nvrtc-12.8.61/lib/libnvrtc.so.12" ]
	# only the shared libraries and the license are kept
	[ -z "$(find "$CUDNNVM_STORE/deps" -name '*_static.a' -o -name include -o -name stubs)" ]
	[ -f "$CUDNNVM_STORE/deps/libcublas-12.8.4.1/LICENSE" ]
	run du -sk "$CUDNNVM_STORE/deps/libcublas-12.8.4.1"
	[ "${output%%[[:space:]]*}" -lt 200 ]
	# the version records them, with the manifest's sha256
	python3 - "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json" "$(field 12.8.1 libcublas sha256)" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
d = {x["name"]: x for x in m["deps"]}
assert d["libcublas"]["dir"] == "deps/libcublas-12.8.4.1", d
assert d["libcublas"]["sha256"] == sys.argv[2], d
assert d["cuda_nvrtc"]["version"] == "12.8.61", d
PY
	[ "$(dep_gets)" -eq 2 ]
	# list --json shows them
	run cudnnvm list --json
	[[ "$output" == *'"deps/libcublas-12.8.4.1"'* ]]
}

@test "dependencies are announced before they download: what, why, how big, and how to skip them" {
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	file=$(basename "$(field 12.8.1 libcublas relative_path)")
	[[ "$stderr" == *"cuDNN loads libcublas 12.8.4.1 (CUDA 12) beside itself: downloading $file ("[0-9.]*" MiB) into the store first (--deps never skips it)"* ]]
	[[ "$stderr" == *"cuDNN loads cuda_nvrtc 12.8.61 (CUDA 12) beside itself"* ]]
	# the way to skip them, as announced
	log_mark
	run --separate-stderr cudnnvm install 9.20 --cuda 13 --deps never
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"beside itself"* ]]
	[ "$(dep_gets)" -eq 0 ]
}

@test "a dependency's download draws its progress on a terminal, as the main download does" {
	command -v script >/dev/null || skip "script(1) is not installed"
	file=$(basename "$(field 12.8.1 libcublas relative_path)")
	run script -qec "cudnnvm install 9.13 --cuda 12" /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *"downloading $file ("[0-9]*"iB)"*"100%"* ]]
}

@test "footprint: one install with its dependencies keeps one copy of each archive (the store's)" {
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$T/cache/downloads" 2>/dev/null)" ]
	store=$(du -sk "$CUDNNVM_STORE" | cut -f1)
	cache=$(du -sk "$T/cache" | cut -f1)
	echo "store ${store} KiB, cache ${cache} KiB" >&3
	# --keep keeps them, for a reinstall without the network
	run cudnnvm install 9.20 --cuda 13 --keep
	[ "$status" -eq 0 ]
	[ "$(ls "$T/cache/downloads/"*.archive | wc -l)" -ge 2 ]
}

@test "a second cuDNN of the same CUDA major reuses the store's copy" {
	cudnnvm install 9.13 --cuda 12
	log_mark
	run cudnnvm install 9.20 --cuda 12
	[ "$status" -eq 0 ]
	[ "$(dep_gets)" -eq 0 ]
	grep -q '"deps/libcublas-12.8.4.1"' "$CUDNNVM_STORE/9.20.0.48-cuda12/cudnnvm.json"
	[ "$(ls "$CUDNNVM_STORE/deps" | wc -l)" -eq 2 ]
}

@test "exec and env make libcublasLt.so.12 load from the store's copy, right after the cuDNN folder" {
	cudnnvm install 9.13 --cuda 12
	run cudnnvm exec 9.13.0.50-cuda12 -- python3 -c '
import ctypes, os
ctypes.CDLL("libcublasLt.so.12")
ctypes.CDLL("libnvrtc.so.12")
print([l.split()[-1] for l in open("/proc/self/maps") if "libcublasLt" in l][0])
print(os.environ["LD_LIBRARY_PATH"])'
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib/libcublasLt.so.12.8.4.1" ]]
	[[ "${lines[1]}" == "$CUDNNVM_STORE/9.13.0.50-cuda12/lib:$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib:$CUDNNVM_STORE/deps/cuda_nvrtc-12.8.61/lib"* ]]
	# env in each shell, and switching away removes all three entries
	eval "$(cudnnvm env 9.13.0.50-cuda12 --shell bash)"
	[[ "$LD_LIBRARY_PATH" == "$CUDNNVM_STORE/9.13.0.50-cuda12/lib:$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib:"* ]]
	# switching to a version without dependencies drops all three
	cudnnvm install 9.20 --cuda 12 --deps never
	eval "$(cudnnvm env 9.20.0.48-cuda12 --shell bash)"
	[[ "$LD_LIBRARY_PATH" == "$CUDNNVM_STORE/9.20.0.48-cuda12/lib" ]]
	run fish -c "cudnnvm env 9.13.0.50-cuda12 --shell fish | source; echo \$LD_LIBRARY_PATH"
	[[ "$output" == *"$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib"* ]]
}

@test "uninstalling the last cuDNN that needs a dependency removes it" {
	cudnnvm install 9.13 --cuda 12
	cudnnvm install 9.20 --cuda 12
	cudnnvm uninstall 9.13.0.50-cuda12
	[ -d "$CUDNNVM_STORE/deps/libcublas-12.8.4.1" ]
	cudnnvm uninstall 9.20.0.48-cuda12
	[ ! -e "$CUDNNVM_STORE/deps/libcublas-12.8.4.1" ]
	[ ! -e "$CUDNNVM_STORE/deps/cuda_nvrtc-12.8.61" ]
}

@test "uninstall's collection parked after its list of versions while an install publishes one needing the same dependency keeps it (H20)" {
	cudnnvm install 9.13 --cuda 12
	mkfifo "$T/resume"
	# the collection has read which versions there are (9.13 gone: none
	# needs libcublas 12.8.4.1) and waits there
	CUDNNVM_TEST_CHECKPOINT=deps-collect-listed CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		CUDNNVM_TEST_CHECKPOINT_RESUME="$T/resume" \
		cudnnvm uninstall 9.13.0.50-cuda12 >"$T/u.out" 2>&1 3>&- &
	pid=$!
	wait_for_file "$T/parked"
	# meanwhile a version of the same CUDA major takes the store's copy
	run --separate-stderr cudnnvm install 9.20 --cuda 12
	[ "$status" -eq 0 ]
	[ "$(dep_gets)" -eq 2 ]
	timeout 20 sh -c 'echo go >"$1"' sh "$T/resume"
	wait "$pid"
	pid=
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	# decided again under the dependency's lock: the new version needs it
	[ -d "$CUDNNVM_STORE/deps/libcublas-12.8.4.1" ]
	[ -d "$CUDNNVM_STORE/deps/cuda_nvrtc-12.8.61" ]
	run --separate-stderr cudnnvm env 9.20.0.48-cuda12 --shell sh
	[ "$status" -eq 0 ]
	[[ $output == *"$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib"* ]]
}

@test "a store's dependency folder whose libraries are not what its record says is not shared again: the next install replaces it (H23)" {
	cudnnvm install 9.13 --cuda 12
	F="$CUDNNVM_STORE/deps/libcublas-12.8.4.1"
	# older code filed nvrtc's archive under cuBLAS's record
	rm -rf "$F/lib"
	cp -a "$CUDNNVM_STORE/deps/cuda_nvrtc-12.8.61/lib" "$F/lib"
	[ "$(dep_gets)" -eq 2 ]
	run --separate-stderr cudnnvm install 9.20 --cuda 12
	[ "$status" -eq 0 ]
	# downloaded again and exchanged for the folder both versions record
	[ "$(dep_gets)" -eq 3 ]
	[ -f "$F/lib/libcublasLt.so.12.8.4.1" ]
	[ ! -e "$F/lib/libnvrtc.so.12" ]
	grep -q '"deps/libcublas-12.8.4.1"' "$CUDNNVM_STORE/9.20.0.48-cuda12/cudnnvm.json"
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
	# the release the store's newest folder claims but its files are not
	B="$CUDNNVM_STORE/deps/libcublas-12.9.9.9"
	mv "$F" "$B"
	sed -i 's/12\.8\.4\.1/12.9.9.9/g' "$B/cudnnvm-dep.json" \
		"$CUDNNVM_STORE"/9.13.0.50-cuda12/cudnnvm.json "$CUDNNVM_STORE"/9.20.0.48-cuda12/cudnnvm.json
	run --separate-stderr cudnnvm install 9.13 --cuda 12 --deps always
	[ "$status" -eq 0 ]
	[[ "$output$stderr" == *"loads libcublas from deps/libcublas-12.8.4.1"* ]]
	grep -q '"deps/libcublas-12.8.4.1"' "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
	[ -f "$F/lib/libcublasLt.so.12.8.4.1" ]
}

@test "the driver decides the release: CUDA 12.4's driver gets 12.4's cuBLAS" {
	export CUDNNVM_OVERRIDE_DRIVER_CUDA=12.4
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/deps/libcublas-12.4.4.1" ]
	[ ! -e "$CUDNNVM_STORE/deps/libcublas-12.8.4.1" ]
}

@test "a tampered dependency archive is exit 65 with nothing published" {
	local a="$CUDA_TREE/$(field 12.8.1 libcublas relative_path)"
	cp "$a" "$T/good"
	printf 'x' | dd of="$a" bs=1 seek=5000 conv=notrunc 2>/dev/null
	before=$(store_snapshot)
	# auto (the default) too: bad bytes are no dependency it may skip
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	cp "$T/good" "$a"
	[ "$status" -eq 65 ]
	[[ "$stderr" == *"sha256 mismatch"* ]]
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	[ ! -e "$CUDNNVM_STORE/deps/libcublas-12.8.4.1" ]
}

@test "found on the machine: auto records where and installs nothing; always installs anyway" {
	mkdir -p "$T/tk"
	cc -shared -fPIC -o "$T/tk/libcublasLt.so.12" -Wl,-soname,libcublasLt.so.12 -x c /dev/null
	cc -shared -fPIC -o "$T/tk/libnvrtc.so.12" -Wl,-soname,libnvrtc.so.12 -x c /dev/null
	export CUDNNVM_TEST_CUDA_LIBDIRS="$T/tk"
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ ! -e "$CUDNNVM_STORE/deps" ] || [ -z "$(ls -A "$CUDNNVM_STORE/deps")" ]
	grep -q "\"found\": \"$T/tk\"" "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
	[ "$(dep_gets)" -eq 0 ]
	# the fix doctor and validation print: record store copies instead
	run cudnnvm install 9.13.0.50-cuda12 --deps always
	[ "$status" -eq 0 ]
	[[ "$output" == *"already installed"* ]]
	[ -d "$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib" ]
	grep -q '"deps/libcublas-12.8.4.1"' "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
}

@test "--deps never records nothing; a mirror without the CUDA tree warns and still installs (auto)" {
	run cudnnvm install 9.13 --cuda 12 --deps never
	[ "$status" -eq 0 ]
	! grep -q '"deps"' "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
	sed -i "s|^mirror = .*|mirror = https://127.0.0.1:$MIRROR_PORT/|" \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run --separate-stderr cudnnvm install 9.20 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"warning: cannot tell where the CUDA redist tree"* ]]
	[[ "$stderr" == *"hint: cudnnvm install 9.20.0.48-cuda12 --deps always"* ]]
	# [remote] cuda_mirror names it, and the fix works as printed
	sed -i "s|^\[remote\]$|[remote]\ncuda_mirror = https://127.0.0.1:$MIRROR_PORT/compute/cuda/redist/|" \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm install 9.20.0.48-cuda12 --deps always
	[ "$status" -eq 0 ]
	grep -q '"deps/libcublas-12.8.4.1"' "$CUDNNVM_STORE/9.20.0.48-cuda12/cudnnvm.json"
}

@test "a recorded dependency that is gone is one error with the fix, for env and exec" {
	cudnnvm install 9.13 --cuda 12
	mv "$CUDNNVM_STORE/deps/libcublas-12.8.4.1" "$T/moved"
	run --separate-stderr cudnnvm env 9.13.0.50-cuda12 --shell bash
	[ "$status" -ne 0 ]
	[[ "$stderr" == "cudnnvm: libcublas 12.8.4.1, which cuDNN 9.13.0.50-cuda12 loads, is missing from"* ]]
	[[ "$stderr" == *"hint: cudnnvm install 9.13.0.50-cuda12 --deps always"* ]]
	run cudnnvm install 9.13.0.50-cuda12 --deps always
	[ "$status" -eq 0 ]
	run cudnnvm env 9.13.0.50-cuda12 --shell bash
	[ "$status" -eq 0 ]
}

@test "module files put the dependency folders right after the version's lib/" {
	cudnnvm install 9.13 --cuda 12
	run cudnnvm modulefiles --format lua
	[ "$status" -eq 0 ]
	f="$CUDNNVM_STORE/modulefiles/cudnn/9.13.0.50-cuda12.lua"
	grep -q "$CUDNNVM_STORE/9.13.0.50-cuda12/lib:$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib:$CUDNNVM_STORE/deps/cuda_nvrtc-12.8.61/lib" "$f"
}

@test "system mode names the dependency folders after current/lib, and a switch rewrites them" {
	needs_namespace
	read -r path sha id <"$STUBS/v9.arch"
	read -r path2 sha2 _ <"$STUBS/v9b.arch"
	export CUDNNVM_OVERRIDE_DRIVER_CUDA=13.0
	in_namespace "
		cudnnvm install --archive '$path' --sha256 $sha --deps always >/dev/null 2>&1
		cudnnvm install --archive '$path2' --sha256 $sha2 --deps never >/dev/null 2>&1
		cudnnvm global --system $id
		cat /etc/ld.so.conf.d/cudnnvm.conf
		ldconfig -p | grep -c 'libcublasLt.so.13 .*/mnt/store/deps/libcublas-13.0.4.1/lib/libcublasLt.so.13'
		echo ==
		cudnnvm global --system 9.19.0.57-cuda13
		cat /etc/ld.so.conf.d/cudnnvm.conf
		ldconfig -p | grep -c 'libcublasLt.so.13 .*/mnt/store/deps/' || true
	"
	[ "$status" -eq 0 ]
	[ "${lines[2]}" = "/mnt/store/current/lib" ]
	[ "${lines[3]}" = "/mnt/store/deps/libcublas-13.0.4.1/lib" ]
	[ "${lines[4]}" = "/mnt/store/deps/cuda_nvrtc-13.0.61/lib" ]
	[ "${lines[5]}" = "1" ]
	[ "${lines[6]}" = "==" ]
	[ "${lines[9]}" = "/mnt/store/current/lib" ]
	[ "${lines[10]}" = "0" ]
}

@test "the venv .pth hook loads the store's cuBLASLt before cuDNN on a framework's first import" {
	python3 -m venv --without-pip "$T/ve" 2>/dev/null || skip "python3 -m venv does not work here"
	read -r path sha id <"$STUBS/v9.arch"
	export CUDNNVM_OVERRIDE_DRIVER_CUDA=13.0
	cudnnvm install --archive "$path" --sha256 "$sha" --deps always
	cudnnvm -q venv "$id" --path "$T/ve" --force
	mkdir -p "$T/site/torch"
	echo 'import sys' >"$T/site/torch/__init__.py"
	run --separate-stderr env PYTHONPATH="$T/site" "$T/ve/bin/python" -c '
import torch
print("".join(sorted(set(l.split()[-1] + "\n" for l in open("/proc/self/maps") if "libcublasLt" in l or "libnvrtc.so" in l))), end="")'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$CUDNNVM_STORE/deps/cuda_nvrtc-13.0.61/lib/libnvrtc.so.13.0.61
$CUDNNVM_STORE/deps/libcublas-13.0.4.1/lib/libcublasLt.so.13.0.4.1" ]
	# nothing at a start that imports none
	run env PYTHONPATH="$T/site" "$T/ve/bin/python" -c 'print(sum("libcublasLt" in l for l in open("/proc/self/maps")))'
	[ "$output" = "0" ]
}

@test "lock records the dependencies' releases from the CUDA tree, and a fresh store installs exactly those" {
	export CUDNNVM_OVERRIDE_DRIVER_CUDA=12.4
	mkdir -p "$T/proj" && cd "$T/proj"
	echo 9.13-cuda12 >.cudnn-version
	run cudnnvm lock
	[ "$status" -eq 0 ]
	python3 - "$T/proj/cudnnvm.lock" "$(field 12.4.1 libcublas sha256)" \
		"$(field 12.4.1 libcublas relative_path)" <<'PY'
import json, sys
d = {x["name"]: x for x in json.load(open(sys.argv[1]))["platforms"]["linux-x86_64"]["deps"]}
assert d["libcublas"]["version"] == "12.4.4.1", d
assert d["libcublas"]["sha256"] == sys.argv[2], d
assert d["libcublas"]["url"] == sys.argv[3], d
assert d["cuda_nvrtc"]["version"] == "12.4.61", d
PY
	# no archive was downloaded to lock
	[ "$(dep_gets)" -eq 0 ]
	# on a machine whose driver runs 12.8 the lock's 12.4 release comes
	export CUDNNVM_OVERRIDE_DRIVER_CUDA=12.8
	run cudnnvm install --frozen
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/deps/libcublas-12.4.4.1/lib" ]
	[ ! -e "$CUDNNVM_STORE/deps/libcublas-12.8.4.1" ]
	# a second fresh store from the same lock holds the same bytes
	a=$(cd "$CUDNNVM_STORE/deps" && find . -type f ! -name cudnnvm-dep.json | sort | xargs sha256sum)
	CUDNNVM_STORE="$T/store2" run cudnnvm install --frozen
	[ "$status" -eq 0 ]
	b=$(cd "$T/store2/deps" && find . -type f ! -name cudnnvm-dep.json | sort | xargs sha256sum)
	[ "$a" = "$b" ]
	# a dependency archive that differs from the lock is exit 65 (the
	# verified copies in the download cache would answer first)
	rm -rf "$T/cache/downloads"
	local f="$CUDA_TREE/$(field 12.4.1 libcublas relative_path)"
	cp "$f" "$T/good"
	printf 'x' | dd of="$f" bs=1 seek=4000 conv=notrunc 2>/dev/null
	CUDNNVM_STORE="$T/store3" run cudnnvm install --frozen
	cp "$T/good" "$f"
	[ "$status" -eq 65 ]
	[ ! -e "$T/store3/9.13.0.50-cuda12" ]
	[ -z "$(ls -A "$T/store3/deps" 2>/dev/null)" ]
}

# the lock of the 12.4 releases, written for project $T/proj
lock_124() {
	export CUDNNVM_OVERRIDE_DRIVER_CUDA=12.4
	mkdir -p "$T/proj" && cd "$T/proj"
	echo 9.13-cuda12 >.cudnn-version
	cudnnvm -q lock
	export CUDNNVM_OVERRIDE_DRIVER_CUDA=12.8
}

@test "a lock's dependency entry naming another release than its archive is refused before anything is installed (65) (H4)" {
	lock_124
	python3 - cudnnvm.lock <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))
for d in l["platforms"]["linux-x86_64"]["deps"]:
    if d["name"] == "libcublas":
        d["version"] = "12.9.9.9"
json.dump(l, open(sys.argv[1], "w"))
PY
	run --separate-stderr cudnnvm install --frozen
	echo "$stderr"
	[ "$status" -eq 65 ]
	[[ $stderr == *"cudnnvm.lock: "*"deps[0].url"* ]]
	[ ! -e "$CUDNNVM_STORE/deps/libcublas-12.9.9.9" ]
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "a lock naming an older dependency release than the store's newest uses the store's copy of that release (H9)" {
	lock_124
	run cudnnvm install --frozen
	[ "$status" -eq 0 ]
	d="$CUDNNVM_STORE/deps"
	[ -d "$d/libcublas-12.4.4.1" ]
	# another version keeps 12.4's folder; a newer 12.x release is there
	# too, as another project's install leaves it
	python3 - "$CUDNNVM_STORE" <<'PY'
import json, os, shutil, sys
s = sys.argv[1]
m = json.load(open(os.path.join(s, "9.13.0.50-cuda12", "cudnnvm.json")))
m["id"] = "9.1.0.70-cuda12"
os.makedirs(os.path.join(s, "9.1.0.70-cuda12", "lib"))
json.dump(m, open(os.path.join(s, "9.1.0.70-cuda12", "cudnnvm.json"), "w"))
shutil.rmtree(os.path.join(s, "9.13.0.50-cuda12"))
src, dst = os.path.join(s, "deps", "libcublas-12.4.4.1"), os.path.join(s, "deps", "libcublas-12.8.4.1")
shutil.copytree(src, dst, symlinks=True)
r = json.load(open(os.path.join(dst, "cudnnvm-dep.json")))
r["version"], r["dir"] = "12.8.4.1", "deps/libcublas-12.8.4.1"
json.dump(r, open(os.path.join(dst, "cudnnvm-dep.json"), "w"))
PY
	[ -d "$d/libcublas-12.4.4.1" ] && [ -d "$d/libcublas-12.8.4.1" ]
	run --separate-stderr cudnnvm install --frozen
	echo "$stderr"
	[ "$status" -eq 0 ]
	grep -q '"deps/libcublas-12.4.4.1"' "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
}

@test "a library of a dependency archive whose SONAME is not the component's is not kept (H10)" {
	# a mirror's libcublasLt.so.12 that is really another library
	mkdir -p "$T/evil"
	echo 'int deflate(void) { return 0; }' >"$T/evil/z.c"
	cc -shared -fPIC -o "$T/evil/libcublasLt.so.12" -Wl,-soname,libz.so.1 "$T/evil/z.c"
	echo 'int cublasCreate(void) { return 0; }' >"$T/evil/b.c"
	cc -shared -fPIC -o "$T/evil/libcublas.so.12" -Wl,-soname,libcublas.so.12 "$T/evil/b.c"
	python3 "$FIXTURES/mkcuda.py" build "$CUDA_TREE" 12.6.3 --libdir "$T/evil" >"$T/cuda-12.6.3.json"
	export CUDNNVM_OVERRIDE_DRIVER_CUDA=12.6
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	echo "$status $stderr"
	python3 "$FIXTURES/mkcuda.py" build "$CUDA_TREE" 12.6.3 >/dev/null
	[ -d "$CUDNNVM_STORE/deps/libcublas-12.6.4.1/lib" ]
	for f in "$CUDNNVM_STORE"/deps/libcublas-12.6.4.1/lib/*; do
		[ -L "$f" ] && continue
		readelf -d "$f" | grep -q 'SONAME.*\[libcublas' || { echo "kept $f"; false; }
	done
	[ -f "$CUDNNVM_STORE/deps/libcublas-12.6.4.1/lib/libcublas.so.12.6.4.1" ]
	[ ! -e "$CUDNNVM_STORE/deps/libcublas-12.6.4.1/lib/libcublasLt.so.12" ]
}

@test "a relative LD_LIBRARY_PATH entry at install time is not recorded: the version stays listed (H8)" {
	mkdir -p "$T/w/lib" && cd "$T/w"
	echo 'int f(void) { return 0; }' >"$T/w/f.c"
	cc -shared -fPIC -o lib/libcublasLt.so.12 -Wl,-soname,libcublasLt.so.12 f.c
	cc -shared -fPIC -o lib/libnvrtc.so.12 -Wl,-soname,libnvrtc.so.12 f.c
	export CUDNNVM_TEST_CUDA_LIBDIRS=lib
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	echo "$stderr"
	[ "$status" -eq 0 ]
	run cudnnvm list
	[[ $output == *"9.13.0.50-cuda12"* ]]
	! grep -q '"found": "lib"' "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
}

# ---- cuBLAS's own channel (compute/cublas/redist/, beside cudnn/ and cuda/)

CHANNEL_DIR() { echo "$MIRROR_DIR/root/compute/cublas/redist"; }
# channel RELEASE [mkcuda.py channel options]: a release on the channel
channel() {
	local rel=$1
	shift
	# the cached manifests and downloads would answer for the channel's
	rm -rf "$T/cache"
	python3 "$FIXTURES/mkcuda.py" channel "$(CHANNEL_DIR)" "$rel" --pad-mb 1 "$@" \
		>"$T/chan-$rel.json"
}
chan_field() { # RELEASE KEY
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["libcublas"][sys.argv[2]])' \
		"$T/chan-$1.json" "$2"
}
# chan_edit RELEASE PYTHON: PYTHON edits `e`, the release's linux-x86_64
# cuda12 entry of its manifest
chan_edit() {
	python3 - "$(CHANNEL_DIR)/redistrib_$1.json" "$2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
e = m["libcublas"]["linux-x86_64"]["cuda12"]
exec(sys.argv[2])
json.dump(m, open(sys.argv[1], "w"), indent=4)
PY
}
nothing_published() {
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ] &&
		[ -z "$(ls -A "$CUDNNVM_STORE/deps" 2>/dev/null)" ]
}

# every test leaves the mirror without the channel, as setup_file made it
teardown() {
	rm -rf "$MIRROR_DIR/root/compute/cublas"
	[ -z "${pid:-}" ] || kill "$pid" 2>/dev/null || true
}

@test "cuBLAS comes from its own channel first: the newest release of the CUDA major the driver runs; nvrtc still from the CUDA tree" {
	channel 12.8.7
	channel 12.9.3
	channel 13.1.2
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"cuDNN loads libcublas 12.8.7.1 (CUDA 12) beside itself"* ]]
	[[ "$stderr" != *"CUDA redist tree instead"* ]]
	[ -L "$CUDNNVM_STORE/deps/libcublas-12.8.7.1/lib/libcublasLt.so.12" ]
	[ -L "$CUDNNVM_STORE/deps/cuda_nvrtc-12.8.61/lib/libnvrtc.so.12" ]
	[ ! -e "$CUDNNVM_STORE/deps/libcublas-12.8.4.1" ]
	grep -q "compute/cublas/redist/$(chan_field 12.8.7 relative_path)" "$MIRROR_DIR/root/requests.log"
	! grep -q 'compute/cuda/redist/libcublas/' "$MIRROR_DIR/root/requests.log"
	python3 - "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json" "$(chan_field 12.8.7 sha256)" <<'PY'
import json, sys
d = {x["name"]: x for x in json.load(open(sys.argv[1]))["deps"]}
assert d["libcublas"]["sha256"] == sys.argv[2], d
PY
	# a driver of CUDA 12.9 runs the 12.9 line
	CUDNNVM_OVERRIDE_DRIVER_CUDA=12.9 CUDNNVM_STORE="$T/s129" run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ -d "$T/s129/deps/libcublas-12.9.3.1/lib" ]
}

@test "without cuBLAS's channel, or without a release of it that fits, the CUDA tree serves cuBLAS, said once on one line" {
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'cuBLAS comes from the CUDA redist tree instead' <<<"$stderr")" -eq 1 ]
	[[ "$stderr" == *"no cuBLAS from its own channel ("*"compute/cublas/redist/"*"); cuBLAS comes from the CUDA redist tree instead"* ]]
	[ -d "$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib" ]
	# a channel whose only CUDA 12 release is newer than the driver runs
	channel 12.9.3
	CUDNNVM_STORE="$T/s2" run --separate-stderr cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ "$(grep -c 'CUDA redist tree instead' <<<"$stderr")" -eq 1 ]
	[[ "$stderr" == *"has no libcublas for CUDA 12 on linux-x86_64 that this driver runs"* ]]
	[ -d "$T/s2/deps/libcublas-12.8.4.1/lib" ]
}

@test "a cuBLAS channel manifest that lies is exit 65 with nothing published: size, sha256, another library's SONAME, another component's archive (C1)" {
	local a
	# a size the archive does not have
	channel 12.8.7
	chan_edit 12.8.7 'e["size"] = str(int(e["size"]) + 1)'
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	echo "size: $status $stderr"
	[ "$status" -eq 65 ]
	nothing_published
	# a sha256 of other bytes
	channel 12.8.7
	chan_edit 12.8.7 'e["sha256"] = "ab" * 32'
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	echo "sha256: $status $stderr"
	[ "$status" -eq 65 ]
	[[ "$stderr" == *"sha256"* ]]
	nothing_published
	# libcublasLt.so.12 that is really another library
	mkdir -p "$T/evil"
	echo 'int deflate(void) { return 0; }' >"$T/evil/z.c"
	cc -shared -fPIC -o "$T/evil/libcublasLt.so.12" -Wl,-soname,libz.so.1 "$T/evil/z.c"
	cc -shared -fPIC -o "$T/evil/libcublas.so.12" -Wl,-soname,libcublas.so.12 "$T/evil/z.c"
	channel 12.8.7 --libdir "$T/evil"
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	echo "soname: $status $stderr"
	[ "$status" -eq 65 ]
	[[ "$stderr" == *"no library whose SONAME is libcublasLt.so.12"* ]]
	nothing_published
	# the entry names nvrtc's archive (its bytes, sha256 and size)
	channel 12.8.7
	a=$(field 12.8.1 cuda_nvrtc relative_path)
	mkdir -p "$(CHANNEL_DIR)/$(dirname "$a")"
	cp "$CUDA_TREE/$a" "$(CHANNEL_DIR)/$a"
	chan_edit 12.8.7 "e.update(relative_path='$a', sha256='$(field 12.8.1 cuda_nvrtc sha256)', size='$(field 12.8.1 cuda_nvrtc size)')"
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	echo "component path: $status $stderr"
	[ "$status" -eq 65 ]
	[[ "$stderr" == *"not that release's archive"* ]]
	nothing_published
	# nvrtc's archive under cuBLAS's name: its top folder gives it away
	# (nvrtc found on the machine: its own download of the same bytes
	# does not run beside)
	channel 12.8.7
	cp "$CUDA_TREE/$a" "$(CHANNEL_DIR)/$(chan_field 12.8.7 relative_path)"
	chan_edit 12.8.7 "e.update(sha256='$(field 12.8.1 cuda_nvrtc sha256)', size='$(field 12.8.1 cuda_nvrtc size)')"
	mkdir -p "$T/tk"
	cc -shared -fPIC -o "$T/tk/libnvrtc.so.12" -Wl,-soname,libnvrtc.so.12 -x c /dev/null
	CUDNNVM_TEST_CUDA_LIBDIRS="$T/tk" run --separate-stderr cudnnvm install 9.13 --cuda 12
	echo "component bytes: $status $stderr"
	[ "$status" -eq 65 ]
	[[ "$stderr" == *"top folder"* ]]
	nothing_published
}

@test "a channel listing the CUDA tree's cuBLAS release with other bytes: the channel's own, held to its own manifest, is what installs (C2)" {
	# 12.8.4 on the channel is libcublas 12.8.4.1, the tree's release
	channel 12.8.4
	[ "$(chan_field 12.8.4 version)" = "$(field 12.8.1 libcublas version)" ]
	[ "$(chan_field 12.8.4 sha256)" != "$(field 12.8.1 libcublas sha256)" ]
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	grep -q "\"sha256\": \"$(chan_field 12.8.4 sha256)\"" "$CUDNNVM_STORE/deps/libcublas-12.8.4.1/cudnnvm-dep.json"
	! grep -q 'compute/cuda/redist/libcublas/' "$MIRROR_DIR/root/requests.log"
}

@test "lock records each dependency's channel; install --frozen takes cuBLAS from that channel, and a lock without the field reads as the CUDA tree's (C3)" {
	channel 12.8.7
	mkdir -p "$T/proj" && cd "$T/proj"
	echo 9.13-cuda12 >.cudnn-version
	run cudnnvm lock
	[ "$status" -eq 0 ]
	python3 - "$T/proj/cudnnvm.lock" "$(chan_field 12.8.7 relative_path)" <<'PY'
import json, sys
d = {x["name"]: x for x in json.load(open(sys.argv[1]))["platforms"]["linux-x86_64"]["deps"]}
assert d["libcublas"]["channel"] == "cublas", d
assert d["libcublas"]["url"] == sys.argv[2], d
assert d["libcublas"]["version"] == "12.8.7.1", d
assert d["cuda_nvrtc"]["channel"] == "cuda", d
PY
	CUDNNVM_STORE="$T/s1" run cudnnvm install --frozen
	[ "$status" -eq 0 ]
	[ -d "$T/s1/deps/libcublas-12.8.7.1/lib" ]
	# the lock's channel is not left for another: without it, exit 69
	cp cudnnvm.lock "$T/cublas.lock"
	rm -rf "$(CHANNEL_DIR)" "$T/cache/downloads" "$T/cache/manifests"
	CUDNNVM_STORE="$T/s2" run cudnnvm install --frozen --deps always
	[ "$status" -ne 0 ]
	[ ! -e "$T/s2/deps/libcublas-12.8.4.1" ]
	# a lock written before the field: its deps are the CUDA tree's
	rm cudnnvm.lock
	cudnnvm -q lock
	python3 - cudnnvm.lock <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))
for d in l["platforms"]["linux-x86_64"]["deps"]:
    assert d.pop("channel") == "cuda", d
json.dump(l, open(sys.argv[1], "w"))
PY
	CUDNNVM_STORE="$T/s3" run cudnnvm install --frozen
	[ "$status" -eq 0 ]
	[ -d "$T/s3/deps/libcublas-12.8.4.1/lib" ]
	# a channel the format does not have, nvrtc from cuBLAS's channel, and
	# a cublas url of the CUDA tree's form are refused (65)
	for edit in 'd0["channel"] = "ftp"' 'd1["channel"] = "cublas"' 'd0["channel"] = "cublas"'; do
		python3 - cudnnvm.lock "$T/bad.lock" "$edit" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))
d = {x["name"]: x for x in l["platforms"]["linux-x86_64"]["deps"]}
d0, d1 = d["libcublas"], d["cuda_nvrtc"]
exec(sys.argv[3])
json.dump(l, open(sys.argv[2], "w"))
PY
		cp cudnnvm.lock "$T/good.lock"
		cp "$T/bad.lock" cudnnvm.lock
		CUDNNVM_STORE="$T/s4" run --separate-stderr cudnnvm install --frozen
		cp "$T/good.lock" cudnnvm.lock
		echo "$edit: $status $stderr"
		[ "$status" -eq 65 ]
		[[ "$stderr" == *"cudnnvm.lock: "*"deps["* ]]
		[ ! -e "$T/s4/9.13.0.50-cuda12" ]
	done
}

@test "mirror --from-lock copies the dependency archives the lock names beside the cuDNN copy: served alone, install --frozen gets cuDNN and its deps (C4)" {
	channel 12.8.7
	mkdir -p "$T/proj" && cd "$T/proj"
	echo 9.13-cuda12 >.cudnn-version
	cudnnvm -q lock
	# a folder that is no .../cudnn/redist has no place for them: 64
	run -64 --separate-stderr cudnnvm mirror --from-lock cudnnvm.lock "$T/flat"
	[[ "$stderr" == *"cudnn/redist"* ]]
	[ ! -e "$T/flat" ]
	run cudnnvm mirror --from-lock cudnnvm.lock "$T/air/compute/cudnn/redist"
	echo "$output"
	[ "$status" -eq 0 ]
	cmp "$T/air/compute/cublas/redist/$(chan_field 12.8.7 relative_path)" \
		"$(CHANNEL_DIR)/$(chan_field 12.8.7 relative_path)"
	cmp "$T/air/compute/cuda/redist/$(field 12.8.1 cuda_nvrtc relative_path)" \
		"$CUDA_TREE/$(field 12.8.1 cuda_nvrtc relative_path)"
	# serve the copy alone, on a port of its own
	python3 "$FIXTURES/mirror.py" serve "$T/air" --cert "$MIRROR_DIR/certs/server.pem" \
		--key "$MIRROR_DIR/certs/server.key" --port-file "$T/air.port" \
		>"$T/air.log" 2>&1 3>&- &
	echo $! >"$T/air.pid"
	wait_for_file "$T/air.port"
	sed -i "s|^mirror = .*|mirror = https://127.0.0.1:$(cat "$T/air.port")/compute/cudnn/redist/|" \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	log_mark
	CUDNNVM_STORE="$T/s1" run --separate-stderr cudnnvm install --frozen
	kill "$(cat "$T/air.pid")"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -d "$T/s1/9.13.0.50-cuda12" ]
	[ -L "$T/s1/deps/libcublas-12.8.7.1/lib/libcublasLt.so.12" ]
	[ -L "$T/s1/deps/cuda_nvrtc-12.8.61/lib/libnvrtc.so.12" ]
	[ ! -s "$MIRROR_DIR/root/requests.log" ]
	# other bytes under a locked dependency's name: 65
	sed -i "s|^mirror = .*|mirror = https://127.0.0.1:$MIRROR_PORT/compute/cudnn/redist/|" \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	printf 'x' | dd of="$(CHANNEL_DIR)/$(chan_field 12.8.7 relative_path)" bs=1 seek=3000 conv=notrunc 2>/dev/null
	run -65 cudnnvm mirror --from-lock cudnnvm.lock "$T/air2/compute/cudnn/redist"
	[ ! -e "$T/air2/compute/cublas/redist/$(chan_field 12.8.7 relative_path)" ]
}

@test "list-remote --deps shows what an install would add: component, version, channel, size" {
	channel 12.8.7
	run --separate-stderr cudnnvm list-remote 9.13 --cuda 12 --deps
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"install 9.13.0.50-cuda12 adds:"* ]]
	[[ "$output" =~ libcublas\ +12\.8\.7\.1\ +cublas\ +[0-9.]+\ MiB ]]
	[[ "$output" =~ cuda_nvrtc\ +12\.8\.61\ +cuda\ +[0-9.]+\ MiB ]]
	run cudnnvm list-remote 9.13 --cuda 12 --deps --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys
rows = json.loads(sys.argv[1])
d = {x["name"]: x for x in rows[0]["deps"]}
assert d["libcublas"]["channel"] == "cublas" and d["libcublas"]["size"] > 0, d
assert d["cuda_nvrtc"]["channel"] == "cuda", d' "$output"
	# nothing is downloaded to say so, and once the store has them, none
	[ "$(archive_gets)" -eq 0 ]
	cudnnvm -q install 9.13 --cuda 12
	run cudnnvm list-remote 9.13 --cuda 12 --deps
	[[ "$output" == *"adds no dependency"* ]]
}

@test "mirror of a spec copies, beside the cuDNN copy, cuBLAS's channel manifest and archive and the CUDA tree's for nvrtc: the copy serves a plain install (C4)" {
	channel 12.8.7
	run cudnnvm mirror "$T/m/compute/cudnn/redist" 9.13 --cuda 12
	echo "$output"
	[ "$status" -eq 0 ]
	cmp "$T/m/compute/cublas/redist/redistrib_12.8.7.json" "$(CHANNEL_DIR)/redistrib_12.8.7.json"
	cmp "$T/m/compute/cublas/redist/$(chan_field 12.8.7 relative_path)" \
		"$(CHANNEL_DIR)/$(chan_field 12.8.7 relative_path)"
	cmp "$T/m/compute/cuda/redist/redistrib_12.8.1.json" "$CUDA_TREE/redistrib_12.8.1.json"
	cmp "$T/m/compute/cuda/redist/$(field 12.8.1 cuda_nvrtc relative_path)" \
		"$CUDA_TREE/$(field 12.8.1 cuda_nvrtc relative_path)"
	# only what the build needs: no CUDA-tree cuBLAS
	[ ! -e "$T/m/compute/cuda/redist/libcublas" ]
	log_mark
	CUDNNVM_STORE="$T/s1" run --separate-stderr cudnnvm install 9.13 --cuda 12 \
		--mirror "file://$T/m/compute/cudnn/redist/"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -L "$T/s1/deps/libcublas-12.8.7.1/lib/libcublasLt.so.12" ]
	[ -L "$T/s1/deps/cuda_nvrtc-12.8.61/lib/libnvrtc.so.12" ]
	[ "$(archive_gets)" -eq 0 ]
}

# The dependency went into the store: a copy the loader would not load was
# not trusted as found on the machine (H21).
installed_not_found() {
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(grep -c '"found"' "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json")" -eq 0 ]
	grep -q '"deps/libcublas-12.8.4.1"' "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
	[ -f "$CUDNNVM_STORE/deps/libcublas-12.8.4.1/lib/libcublasLt.so.12" ]
}

@test "a libcublasLt.so.12 of another ELF class or machine is not found on the machine: auto installs it (H21)" {
	mkdir -p "$T/tk32" "$T/tkarm"
	# a 32-bit x86 shared object's header, and a 64-bit library whose
	# e_machine says AArch64: the loader refuses both ("wrong ELF class")
	python3 -c 'import struct,sys
open(sys.argv[1], "wb").write(b"\x7fELF\x01\x01\x01" + b"\0" * 9 +
    struct.pack("<HHI", 3, 3, 1) + b"\0" * 32)' "$T/tk32/libcublasLt.so.12"
	cc -shared -fPIC -o "$T/tkarm/libcublasLt.so.12" -Wl,-soname,libcublasLt.so.12 -x c /dev/null
	printf '\267\000' | dd of="$T/tkarm/libcublasLt.so.12" bs=1 seek=18 conv=notrunc status=none
	export CUDNNVM_TEST_CUDA_LIBDIRS="$T/tk32:$T/tkarm"
	installed_not_found
	[ "$(dep_gets)" -eq 2 ]
}

@test "a libcublasLt.so.12 that is a dangling link or cannot be read is not found on the machine: auto installs it (H21)" {
	mkdir -p "$T/dangle" "$T/notfile/libcublasLt.so.12" "$T/noread"
	ln -s libcublasLt.so.12.8.4.1 "$T/dangle/libcublasLt.so.12"
	dirs="$T/dangle:$T/notfile"
	# root reads a file of mode 000; anyone else cannot
	if [ "$(id -u)" -ne 0 ]; then
		cc -shared -fPIC -o "$T/noread/libcublasLt.so.12" -Wl,-soname,libcublasLt.so.12 -x c /dev/null
		chmod 000 "$T/noread/libcublasLt.so.12"
		dirs="$dirs:$T/noread"
	fi
	export CUDNNVM_TEST_CUDA_LIBDIRS="$dirs"
	installed_not_found
}

@test "a libcublasLt.so.12 only in a relative LD_LIBRARY_PATH folder is not found on the machine: auto installs it (H21)" {
	mkdir -p "$T/w/lib" && cd "$T/w"
	cc -shared -fPIC -o lib/libcublasLt.so.12 -Wl,-soname,libcublasLt.so.12 -x c /dev/null
	LD_LIBRARY_PATH=lib:./lib installed_not_found
}

@test "the finder passes over a copy the loader would not load to the next folder, as the loader does (H21)" {
	mkdir -p "$T/bad" "$T/good"
	echo 'not a library' >"$T/bad/libcublasLt.so.12"
	cc -shared -fPIC -o "$T/good/libcublasLt.so.12" -Wl,-soname,libcublasLt.so.12 -x c /dev/null
	CUDNNVM_TEST_CUDA_LIBDIRS="$T/bad:$T/good" run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	# cuBLAS from the second folder; nvrtc is nowhere, so downloaded
	grep -q "\"found\": \"$T/good\"" "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
	[ "$(grep -c "\"found\": \"$T/bad\"" "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json")" -eq 0 ]
	[ "$(dep_gets)" -eq 1 ]
}
