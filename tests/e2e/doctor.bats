#!/usr/bin/env bats
# doctor: store health, shadowing cuDNN copies, toolkit and cuBLASLt checks,
# Python environments with their own cuDNN, and the message catalogue.
# The machine's own state (ldconfig, /usr/local/cuda) may add findings, so
# the tests look for the findings they cause, not for an empty report.
load helper

setup_file() {
	export STUBS="$BATS_FILE_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
	python3 "$FIXTURES/mkarchive.py" nvidia --out "$STUBS/arch" \
		--version 9.19.0.56 --cuda 13 --libdir "$STUBS/v9/lib" --preset 0 |
		python3 -c 'import json,sys; j=json.load(sys.stdin)
print(j["path"], j["sha256"])' >"$STUBS/v9.arch"
}

setup() {
	common_setup
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda"
	unset LD_LIBRARY_PATH CUDA_HOME CUDA_PATH
	read -r path sha <"$STUBS/v9.arch"
	cudnnvm install --archive "$path" --sha256 "$sha" >/dev/null
	cudnnvm global 9.19.0.56-cuda13 2>/dev/null
	ID=9.19.0.56-cuda13
}

# listed_cuda12: a cached manifest (as list-remote leaves one) that lists
# a cuda12 build of the active release, so a fix may name it
listed_cuda12() {
	local d
	d="$(cudnnvm cache dir)/manifests/0000000000000000"
	mkdir -p "$d"
	sed -e 's/9\.20\.0\.48/9.19.0.56/g' -e 's/"9\.20\.0"/"9.19.0"/g' \
		"$FIXTURES/manifests/redistrib_9.20.0.json" >"$d/redistrib_9.19.0.json"
}
new_driver() {
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Sep 25 2025\n' >"$T/driver"
	export CUDNNVM_TEST_DRIVER_VERSION_FILE="$T/driver"
}

@test "doctor names the store and the active version; --json parses" {
	run --separate-stderr cudnnvm doctor
	[[ "${lines[0]}" == "store:  $CUDNNVM_STORE" ]]
	[[ "${lines[1]}" == "active: $ID" ]]
	[[ "$output" == *"problem"*" found"* ]]
	run --separate-stderr cudnnvm doctor --json
	echo "$output" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["active"] == "9.19.0.56-cuda13", j
assert isinstance(j["findings"], list)
n = sum(1 for f in j["findings"] if f["level"] != "info")
assert j["problems"] == n, j
for f in j["findings"]:
    assert set(f) == {"level", "what", "why", "fix"}, f'
}

@test "abandoned staging is reported with its fix; a locked one is left alone" {
	# Anyone who may sweeps staging on opening the store, so only a user
	# who cannot (here: not the owner) ever sees it.
	command -v setpriv >/dev/null || skip "needs setpriv"
	D=$(mktemp -d /tmp/cudnnvm-doctor.XXXXXX)
	chmod 755 "$D"
	cp -a "$CUDNNVM_STORE" "$D/store"
	cp "$CUDNNVM_BIN" "$D/cudnnvm"
	mkdir -p "$D/store/.staging/old.1" "$D/store/.staging/busy.2"
	: >"$D/store/.staging/busy.2.lock"
	chmod 755 "$D/store/.staging"
	chmod 644 "$D/store/.staging/busy.2.lock"
	mkdir -p "$D/home" && chown 65534:65534 "$D/home"
	exec 8<"$D/store/.staging/busy.2.lock"
	flock -x 8
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups env -i \
		PATH=/usr/bin:/bin HOME="$D/home" CUDNNVM_SYSCONFDIR="$D/etc" \
		CUDNNVM_STORE="$D/store" "$D/cudnnvm" doctor
	exec 8<&-
	rm -rf "$D"
	[ "$status" -eq 1 ]
	[[ "$output" == *"warning: abandoned staging folder $D/store/.staging/old.1"* ]]
	[[ "$output" == *"fix: rm -rf '$D/store/.staging/old.1'"* ]]
	[[ "$output" != *"busy.2"* ]]
	[[ "$stderr" == "cudnnvm: doctor found "*" problem"* ]]
}

@test "a dangling or foreign current link is an error with the fix" {
	ln -sfn 9.99.0.1-cuda12 "$CUDNNVM_STORE/current.new"
	mv -T "$CUDNNVM_STORE/current.new" "$CUDNNVM_STORE/current"
	run cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: dangling current link: $CUDNNVM_STORE/current -> 9.99.0.1-cuda12"* ]]
	[[ "$output" == *"fix: cudnnvm install 9.99.0.1-cuda12"* ]]
	ln -sfn /etc "$CUDNNVM_STORE/current.new"
	mv -T "$CUDNNVM_STORE/current.new" "$CUDNNVM_STORE/current"
	run cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: foreign current link: $CUDNNVM_STORE/current -> /etc"* ]]
}

@test "a current that is a folder is moved aside by the fix, never deleted" {
	rm -f "$CUDNNVM_STORE/current"
	mkdir "$CUDNNVM_STORE/current"
	echo mine >"$CUDNNVM_STORE/current/notes"
	run cudnnvm doctor
	[ "$status" -eq 1 ]
	fix=$(grep -A3 'is not a symbolic link' <<<"$output" | sed -n 's/^ *fix: //p' | head -1)
	[[ "$fix" == "mv "*" && cudnnvm global $ID" ]]
	run bash -c "$fix"
	[ "$status" -eq 0 ]
	[ "$(cat "$CUDNNVM_STORE/current.moved/notes")" = mine ]
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$ID" ]
}

@test "unreadable files (the chmod a+r problem) are found, also as a non-root user" {
	command -v setpriv >/dev/null || skip "needs setpriv"
	chmod 600 "$CUDNNVM_STORE/$ID/lib/libcudnn_cnn.so.9.19.0"
	run cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: unreadable file in $ID: $CUDNNVM_STORE/$ID/lib/libcudnn_cnn.so.9.19.0"* ]]
	[[ "$output" == *"fix: sudo chmod -R a+rX '$CUDNNVM_STORE/$ID'"* ]]
	# the same store seen by another user
	D=$(mktemp -d /tmp/cudnnvm-doctor.XXXXXX)
	chmod 755 "$D"
	cp -a "$CUDNNVM_STORE" "$D/store"
	cp "$CUDNNVM_BIN" "$D/cudnnvm"
	mkdir -p "$D/home" && chown 65534:65534 "$D/home"
	run setpriv --reuid=65534 --regid=65534 --clear-groups env -i \
		PATH=/usr/bin:/bin HOME="$D/home" CUDNNVM_SYSCONFDIR="$D/etc" \
		CUDNNVM_STORE="$D/store" "$D/cudnnvm" doctor
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: unreadable file in $ID: $D/store/$ID/lib/libcudnn_cnn.so.9.19.0"* ]]
	# the fix it gives works
	chmod -R a+rX "$D/store/$ID"
	run setpriv --reuid=65534 --regid=65534 --clear-groups env -i \
		PATH=/usr/bin:/bin HOME="$D/home" CUDNNVM_SYSCONFDIR="$D/etc" \
		CUDNNVM_STORE="$D/store" "$D/cudnnvm" doctor
	rm -rf "$D"
	[[ "$output" != *"unreadable"* ]]
}

@test "another cuDNN on LD_LIBRARY_PATH shadows the active one" {
	export LD_LIBRARY_PATH="$STUBS/v8/lib:$T/nothing"
	run cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: LD_LIBRARY_PATH entry $STUBS/v8/lib holds another cuDNN (libcudnn.so.8)"* ]]
	[[ "$output" == *"fix: export LD_LIBRARY_PATH='$T/nothing'"* ]]
	# after the active version it is a warning only
	export LD_LIBRARY_PATH="$CUDNNVM_STORE/$ID/lib:$STUBS/v7/lib"
	run cudnnvm doctor
	[[ "$output" == *"warning: LD_LIBRARY_PATH entry $STUBS/v7/lib holds another cuDNN (libcudnn.so.7)"* ]]
	[[ "$output" == *"fix: export LD_LIBRARY_PATH='$CUDNNVM_STORE/$ID/lib'"* ]]
}

@test "a CUDA toolkit of another major than the active variant" {
	mkdir -p "$T/cuda12"
	printf '{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}\n' >"$T/cuda12/version.json"
	CUDA_HOME="$T/cuda12" run cudnnvm doctor
	[[ "$output" == *"warning: the CUDA toolkit is 12 ($T/cuda12/version.json) but the active cuDNN $ID is the cuda13 variant"* ]]
	# no listing says a cuda12 build exists: no fix names one
	[[ "$output" != *"-cuda12"* ]]
	listed_cuda12
	CUDA_HOME="$T/cuda12" run cudnnvm doctor
	# the same release, built for the toolkit's major
	[[ "$output" == *"fix: cudnnvm install ${ID%-cuda13}-cuda12 && eval \"\$(cudnnvm env ${ID%-cuda13}-cuda12)\""* ]]
}

@test "a driver too old for the active variant" {
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n' >"$T/version"
	listed_cuda12
	CUDNNVM_TEST_DRIVER_VERSION_FILE="$T/version" run cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: the NVIDIA driver 535.104.05 is too old for $ID"* ]]
	[[ "$output" == *"CUDA 13 needs driver 580.65.06 or newer"* ]]
	# the fix is the same release built for the CUDA this driver runs
	[[ "$output" == *"fix: cudnnvm install ${ID%-cuda13}-cuda12 && eval \"\$(cudnnvm env ${ID%-cuda13}-cuda12)\""* ]]
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Sep 25 2025\n' >"$T/version"
	CUDNNVM_TEST_DRIVER_VERSION_FILE="$T/version" run cudnnvm doctor
	[[ "$output" != *"is too old"* ]]
	[[ "$output" != *"no NVIDIA driver is loaded"* ]]
}

@test "missing cuBLASLt for the active variant" {
	new_driver
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nocublas" run cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ "$output" == *"error: libcublasLt.so.13 is not found"* ]]
	run cudnnvm doctor
	[[ "$output" != *"libcublasLt.so.13 is not found"* ]]
}

@test "missing cuBLASLt: the fix is a variant whose cuBLASLt is here, else cudnnvm installing it beside the version" {
	mkdir -p "$T/cuda12only"
	cp -a "$STUBS/cuda/." "$T/cuda12only/"
	rm "$T/cuda12only/libcublasLt.so.13"
	new_driver
	listed_cuda12
	CUDNNVM_TEST_CUDA_LIBDIRS="$T/cuda12only" run cudnnvm doctor
	[[ "$output" == *"error: libcublasLt.so.13 is not found"* ]]
	fix=$(grep -A3 'libcublasLt.so.13 is not found' <<<"$output" | sed -n 's/^ *fix: //p' | head -1)
	[ "$fix" = "cudnnvm install ${ID%-cuda13}-cuda12 && eval \"\$(cudnnvm env ${ID%-cuda13}-cuda12)\"" ]
	# none anywhere: cudnnvm installs it beside the version (install-deps.bats
	# runs that command against the mirror)
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nocublas" run cudnnvm doctor
	fix=$(grep -A3 'libcublasLt.so.13 is not found' <<<"$output" | sed -n 's/^ *fix: //p' | head -1)
	[ "$fix" = "cudnnvm install $ID --deps always" ]
	# a version that keeps it in the store has no such finding
	mkdir -p "$CUDNNVM_STORE/deps/libcublas-13.0.2.14/lib"
	: >"$CUDNNVM_STORE/deps/libcublas-13.0.2.14/lib/libcublasLt.so.13"
	python3 - "$CUDNNVM_STORE/$ID/cudnnvm.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["deps"] = [{"name": "libcublas", "version": "13.0.2.14", "cuda": 13,
              "dir": "deps/libcublas-13.0.2.14", "sha256": "0" * 64,
              "size": 1}]
json.dump(m, open(sys.argv[1], "w"))
PY
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nocublas" run cudnnvm doctor
	[[ "$output" != *"libcublasLt.so.13 is not found"* ]]
}

@test "a Python environment that bundles its own cuDNN" {
	python3 -m venv --without-pip "$T/venv" 2>/dev/null || skip "python3 -m venv does not work here"
	sp=$("$T/venv/bin/python3" -c 'import site; print(site.getsitepackages()[0])')
	mkdir -p "$sp/nvidia/cudnn/lib" "$sp/torch/lib"
	cp "$STUBS/v9/lib/libcudnn.so.9" "$sp/nvidia/cudnn/lib/"
	cp "$STUBS/v8/lib/libcudnn.so.8" "$sp/torch/lib/"
	PATH="$T/venv/bin:$PATH" run cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ "$output" == *"warning: $T/venv/bin/python3 has its own cuDNN in $sp/nvidia/cudnn/lib (libcudnn.so.9)"* ]]
	# never the advice to remove the copy the framework needs
	[[ "$output" != *"pip uninstall"* ]]
	[[ "$output" == *"warning: $T/venv/bin/python3 has its own cuDNN in $sp/torch/lib (libcudnn.so.8)"* ]]
	# the fix pins the environment, so its interpreter preloads the active
	# version; it runs as printed
	fix=$(grep -m1 -A3 "has its own cuDNN" <<<"$output" | sed -n 's/^ *fix: //p' | head -1)
	[[ "$fix" == "cudnnvm venv --path "*"$T/venv"* ]]
	PATH="$T/venv/bin:$PATH" run bash -c "$fix"
	[ "$status" -eq 0 ]
	[ -e "$sp/_cudnnvm_preload.py" ] || ls "$sp" | grep -q cudnnvm
}

@test "--explain maps the classic messages to a cause and a fix" {
	run cudnnvm doctor --explain "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "matches: Could not load library libcudnn_" ]]
	[[ "$output" == *"fix:     cudnnvm install 8 && eval \"\$(cudnnvm env 8)\" && cudnnvm validate"* ]]
	run cudnnvm doctor --explain "cuDNN error: CUDNN_STATUS_NOT_INITIALIZED"
	[ "$status" -eq 0 ]
	[[ "$output" == *"driver too old"* ]]
	run cudnnvm doctor --json --explain "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH"
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["fix"] == "cudnnvm doctor", j'
	run --separate-stderr cudnnvm doctor --explain "something else entirely"
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "cudnnvm: doctor: no known cause for that message" ]
	[ "${stderr_lines[1]}" = "hint: cudnnvm doctor" ]
	[ "${stderr_lines[2]}" = "hint: cudnnvm validate" ]
}

@test "--explain suggests the major the missing library names" {
	run cudnnvm doctor --explain "libcudnn.so.8: cannot open shared object file: No such file or directory"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cannot find cuDNN"* ]]
	[[ "$output" == *'fix:     cudnnvm install 8 && eval "$(cudnnvm env 8)"'* ]]
	run cudnnvm doctor --explain "Could not load dynamic library 'libcudnn.so.7'; dlerror: libcudnn.so.7: cannot open shared object file"
	[[ "$output" == *'fix:     cudnnvm install 7 && eval "$(cudnnvm env 7)"'* ]]
}

@test "--explain reads versions and names out of the messages people paste" {
	# an unreadable file is not a missing one
	run cudnnvm doctor --explain "OSError: /usr/local/cuda/lib64/libcudnn_cnn.so.9: cannot open shared object file: Permission denied"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cause:   /usr/local/cuda/lib64/libcudnn_cnn.so.9 exists but this user may not read it"* ]]
	[[ "$output" == *"fix:     sudo chmod a+r '/usr/local/cuda/lib64'/libcudnn*   (or adopt it: cudnnvm import '/usr/local/cuda/lib64')"* ]]
	run cudnnvm doctor --explain "cudnnCreate failed: CUDNN_STATUS_VERSION_MISMATCH"
	[ "$status" -eq 0 ]
	[[ "$output" == *"not of the same version as libcudnn.so.8"* ]]
	run cudnnvm doctor --explain "Unable to load any of {libcudnn_cnn.so.9.1.0, libcudnn_cnn.so.9.1, libcudnn_cnn.so.9, libcudnn_cnn.so}"
	[ "$status" -eq 0 ]
	[[ "$output" == *"no libcudnn_cnn.so.9.1 is on the loader path"* ]]
	[[ "$output" == *'fix:     cudnnvm install 9.1 && eval "$(cudnnvm env 9.1)" && cudnnvm validate'* ]]
	run cudnnvm doctor --explain "Loaded runtime CuDNN library: 8.1.0 but source was compiled with: 8.6.0.  CuDNN library needs to have matching major version and equal or higher minor version."
	[ "$status" -eq 0 ]
	[[ "$output" == *"cause:   the framework was compiled with cuDNN 8.6 and needs cuDNN 8.6 or a newer 8.x; the cuDNN it loaded is 8.1"* ]]
	[[ "$output" == *'fix:     cudnnvm install 8.6 && eval "$(cudnnvm env 8.6)"'* ]]
	run cudnnvm doctor --explain "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 19, 0) but found runtime version (9, 14, 0). PyTorch already comes bundled with cuDNN."
	[ "$status" -eq 0 ]
	[[ "$output" == *"needs 9.19 or a newer 9.x, but found 9.14"* ]]
	# 9.19 is installed here: the fix switches to it, installs nothing
	[[ "$output" == *"fix:     eval \"\$(cudnnvm env $ID)\""* ]]
	[[ "$output" != *"<"* ]]
}

@test "doctor usage errors exit 64" {
	run --separate-stderr cudnnvm doctor --bogus
	[ "$status" -eq 64 ]
	[[ "$stderr" == "cudnnvm: doctor: unknown option '--bogus'; usage: cudnnvm doctor"* ]]
}

@test "a cuDNN in the loader cache (ldconfig) is reported with its folder" {
	# a loader cache of our own (test hook), holding one more cuDNN copy
	mkdir -p "$T/sys/lib"
	cp -a "$STUBS/other/lib/." "$T/sys/lib/"
	echo "$T/sys/lib" >"$T/ld.conf"
	ldconfig -X -C "$T/ld.cache" -f "$T/ld.conf" 2>/dev/null ||
		skip "ldconfig cannot build a cache here"
	export CUDNNVM_TEST_LDCACHE="$T/ld.cache"
	run --separate-stderr cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ "$output" == *"warning: system cuDNN in $T/sys/lib (libcudnn.so.9)"* ]]
	# import could not tell its version (no header, no libcudnn.so.9.x.y):
	# no fix that would stop at import
	[[ "$output" != *"cudnnvm import '$T/sys/lib'"* ]]
	printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' >"$T/sys/lib/cudnn_version.h"
	run --separate-stderr cudnnvm doctor
	fix="cudnnvm import '$T/sys/lib' && sudo rm -f '$T/sys/lib'/libcudnn* && sudo ldconfig"
	[[ "$output" == *"fix: $fix"* ]]
	# as printed (root here: sudo, where missing, runs the command)
	mkdir -p "$T/bin"
	command -v sudo >/dev/null || printf '#!/bin/sh\nexec "$@"\n' >"$T/bin/sudo"
	chmod +x "$T/bin/sudo" 2>/dev/null || true
	[ "$(id -u)" -eq 0 ] || skip "the removal needs root"
	PATH="$T/bin:$PATH" run bash -c "${fix% && sudo ldconfig}"
	[ "$status" -eq 0 ]
	[ ! -e "$T/sys/lib/libcudnn.so.9" ]
}

@test "a cuDNN in the CUDA toolkit and in the loader cache, a version active: a note, never a removal" {
	mkdir -p "$T/cuda/lib64" "$T/cuda/include"
	cp "$STUBS/other/lib/libcudnn.so.9" "$T/cuda/lib64/"
	echo "$T/cuda/lib64" >"$T/ld.conf"
	ldconfig -X -C "$T/ld.cache" -f "$T/ld.conf" 2>/dev/null ||
		skip "ldconfig cannot build a cache here"
	export CUDNNVM_TEST_LDCACHE="$T/ld.cache"
	CUDA_HOME="$T/cuda" run --separate-stderr cudnnvm doctor
	[[ "$output" == *"info: the CUDA toolkit folder $T/cuda/lib64 holds its own cuDNN (libcudnn.so.9), which the loader cache lists"* ]]
	[[ "$output" == *"only a program started without it loads the toolkit's"* ]]
	[[ "$output" != *"sudo rm"* ]]
}

@test "a fresh user without a store: every problem comes with a fix, no note with an unconfirmed one" {
	rm -rf "$CUDNNVM_STORE"
	export CUDNNVM_STORE="$T/never-made"
	run --separate-stderr cudnnvm doctor --json
	echo "$output" | python3 -c '
import json, sys
j = json.load(sys.stdin)
for f in j["findings"]:
    assert f["fix"] or f["level"] == "info", f
    assert "install 9" not in f["fix"], f
assert any("does not exist yet" in f["what"] and f["level"] == "info"
           and not f["fix"] for f in j["findings"]), j'
	run --separate-stderr cudnnvm doctor
	[[ "$output" != *"error: cannot read the store"* ]]
}

@test "a store this user may not list is an error that says what to do" {
	command -v setpriv >/dev/null || skip "needs setpriv"
	D=$(mktemp -d /tmp/cudnnvm-doctor.XXXXXX)
	chmod 755 "$D"
	mkdir -m 700 "$D/store"
	cp "$CUDNNVM_BIN" "$D/cudnnvm"
	mkdir -p "$D/home" && chown 65534:65534 "$D/home"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups env -i \
		PATH=/usr/bin:/bin HOME="$D/home" CUDNNVM_SYSCONFDIR="$D/etc" \
		CUDNNVM_STORE="$D/store" "$D/cudnnvm" doctor
	rm -rf "$D"
	[ "$status" -eq 77 ]
	[[ "$stderr" == "cudnnvm: cannot open the store '$D/store' (ask its owner for read access, or use --store DIR): Permission denied" ]]
}

@test "the dependency store deps/ is not reported as a version made by hand (H13)" {
	d="$CUDNNVM_STORE/deps/libcublas-12.8.4.1"
	mkdir -p "$d/lib"
	printf '{"name": "libcublas", "version": "12.8.4.1", "cuda": 12, "dir": "deps/libcublas-12.8.4.1", "sha256": "%s", "size": 1}\n' \
		"$(printf 'ab%062d' 0)" >"$d/cudnnvm-dep.json"
	run --separate-stderr cudnnvm doctor --json
	[[ $output != *"deps has no cudnnvm.json"* ]]
	[[ $output != *"install deps --force"* ]]
	python3 -c 'import json,sys; json.loads(sys.argv[1])' "$output"
}
