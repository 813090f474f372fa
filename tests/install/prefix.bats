#!/usr/bin/env bats
# `make install` gives a copy that works without the build tree: run by
# `make check-install`, which builds one apart from build/, installs it
# into $CUDNNVM_PREFIX (where its front binary also looks for the helper,
# as PREFIX says) and removes that build tree first.
load ../e2e/remote

setup_file() {
	[ -x "${CUDNNVM_PREFIX:-}/bin/cudnnvm" ] || {
		echo "CUDNNVM_PREFIX names no installed copy; run: make check-install" >&2
		return 1
	}
	mirror_start
	export STUBS="$BATS_FILE_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
	# the good 9.x stub, packed as an NVIDIA archive
	python3 "$FIXTURES/mkarchive.py" nvidia --out "$STUBS/arch" \
		--version 9.19.0.56 --cuda 13 --libdir "$STUBS/v9/lib" --preset 0 >"$STUBS/v9.json"
	# the last test moves it away: make check-install makes one per run
	export P="$CUDNNVM_PREFIX"
}

setup() {
	remote_setup
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nodev"
}

@test "ldd: the installed front binary lists none of libcurl, libarchive, libcrypto; its helper all three" {
	assert_split_binary "$P/bin/cudnnvm" \
		"$P/libexec/cudnnvm/cudnnvm-helper"
}

@test "an installed copy without its build tree installs, validates and reads the mirror" {
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
