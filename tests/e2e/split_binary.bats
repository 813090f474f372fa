#!/usr/bin/env bats
# The two executables: cudnnvm, linked without libcurl, libarchive and
# libcrypto, hands install and list-remote to cudnnvm-helper, which links
# them; `make install` gives a copy that works without the build tree.
load remote

setup_file() {
	mirror_start
	export STUBS="$BATS_FILE_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
	# the good and the hanging 9.x stub, packed as NVIDIA archives
	python3 "$FIXTURES/mkarchive.py" nvidia --out "$STUBS/arch" \
		--version 9.19.0.56 --cuda 13 --libdir "$STUBS/v9/lib" --preset 0 >"$STUBS/v9.json"
	python3 "$FIXTURES/mkarchive.py" nvidia --out "$STUBS/arch" \
		--version 9.19.0.65 --cuda 13 --libdir "$STUBS/hang/lib" --preset 0 >"$STUBS/hang.json"
	# an installed copy, built apart from build/ and left without its build
	# tree; PREFIX is also where its front binary looks for the helper
	export P="$BATS_FILE_TMPDIR/prefix"
	make -s -C "$REPO_ROOT" BUILD="$BATS_FILE_TMPDIR/build" PREFIX="$P" \
		install >"$BATS_FILE_TMPDIR/make.log" 2>&1
	rm -rf "$BATS_FILE_TMPDIR/build"
}

setup() {
	remote_setup
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nodev"
}

# stub NAME FIELD: path, sha256 or id of a packed stub
stub() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$STUBS/$1.json" "$2"
}

@test "ldd: the front binary lists none of libcurl, libarchive, libcrypto; the helper all three" {
	for front in "$CUDNNVM_BIN" "$P/bin/cudnnvm"; do
		run ldd "$front"
		[ "$status" -eq 0 ]
		[[ "$output" == *libjansson* ]]
		[[ "$output" != *libcurl* ]]
		[[ "$output" != *libarchive* ]]
		[[ "$output" != *libcrypto* ]]
		# nor does it name them to dlopen later
		run grep -c -a -E 'lib(curl|archive|crypto)\.so' "$front"
		[ "$output" = 0 ]
	done
	for helper in "$(dirname "$CUDNNVM_BIN")/cudnnvm-helper" "$P/libexec/cudnnvm/cudnnvm-helper"; do
		run ldd "$helper"
		[ "$status" -eq 0 ]
		[[ "$output" == *"libcurl.so.4 => /"* ]]
		[[ "$output" == *"libarchive.so.13 => /"* ]]
		[[ "$output" == *"libcrypto.so.3 => /"* ]]
	done
}

@test "an installed copy without its build tree installs, validates and reads the mirror" {
	[ ! -e "$BATS_FILE_TMPDIR/build" ]
	sed -i 's/^validate = no$/validate = yes/' "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run "$P/bin/cudnnvm" install --archive "$(stub v9 path)" --sha256 "$(stub v9 sha256)"
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed cuDNN 9.19.0.56-cuda13 in $CUDNNVM_STORE/9.19.0.56-cuda13"* ]]
	[[ "$output" == *"validated 9.19.0.56-cuda13: files, version and library provenance pass"* ]]
	run "$P/bin/cudnnvm" list-remote 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *9.13.0.50* ]]
	run "$P/bin/cudnnvm" install 9.13 --cuda 12 --no-validate
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed cuDNN 9.13.0.50-cuda12"* ]]
	run "$P/bin/cudnnvm" global 9.19
	[ "$status" -eq 0 ]
	run "$P/bin/cudnnvm" list
	[ "$status" -eq 0 ]
	[[ "$output" == *"* 9.19.0.56-cuda13"* ]]
	[[ "$output" == *"9.13.0.50-cuda12"* ]]
	run "$P/bin/cudnnvm" validate
	[ "$status" -eq 0 ]
}

@test "arguments, exit status and the one error line come through the handover" {
	# global flags before and after the command reach the helper
	run --separate-stderr cudnnvm -q --store "$T/other" install --no-validate \
		--archive "$(stub v9 path)" --sha256 "$(stub v9 sha256)" --config "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -d "$T/other/9.19.0.56-cuda13/lib" ]
	run --separate-stderr cudnnvm install --archive "$(stub v9 path)" --sha256 "$(printf '0%.0s' {1..64})"
	[ "$status" -eq 65 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "cudnnvm: "*sha256* ]]
}

@test "validation's probe child, started by the helper, is the front binary" {
	sed -i 's/^validate = no$/validate = yes/' "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	# the hanging stub keeps the probe alive long enough to look at it
	CUDNNVM_VALIDATE_TIMEOUT=20 cudnnvm install --archive "$(stub hang path)" \
		--sha256 "$(stub hang sha256)" >"$T/out" 2>&1 &
	inst=$!
	pid=
	for _ in $(seq 150); do
		pid=$(pgrep -f -- "validate-probe --libdir $CUDNNVM_STORE/" | head -n 1)
		[ -n "$pid" ] && break
		sleep 0.1
	done
	[ -n "$pid" ]
	exe=$(readlink "/proc/$pid/exe")
	maps=$(cat "/proc/$pid/maps")
	kill "$pid"
	run wait "$inst"
	[ "$exe" = "$(readlink -f "$CUDNNVM_BIN")" ]
	[[ "$maps" != *libcurl* ]]
	[[ "$maps" != *libcrypto* ]]
	[[ "$maps" == *libcudnn.so* ]]
}

# last: it moves the installed copy
@test "a moved prefix finds its own helper; a missing helper is one clear error" {
	mv "$P" "$T/moved"
	run "$T/moved/bin/cudnnvm" list-remote 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *9.13.0.50* ]]
	rm "$T/moved/libexec/cudnnvm/cudnnvm-helper"
	run --separate-stderr "$T/moved/bin/cudnnvm" install 9.13
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "cudnnvm: cannot find cudnnvm-helper, which runs 'install' (looked in $T/moved/bin, "*"; reinstall cudnnvm" ]]
	# the commands that need no helper still work
	run "$T/moved/bin/cudnnvm" list
	[ "$status" -eq 0 ]
}
