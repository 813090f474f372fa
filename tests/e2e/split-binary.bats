#!/usr/bin/env bats
# The two executables: cudnnvm, linked without libcurl, libarchive and
# libcrypto, hands install and list-remote to cudnnvm-helper, which links
# them. That an installed copy works without the build tree is checked by
# `make check-install` (tests/install/).
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
}

setup() {
	remote_setup
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nodev"
}

@test "ldd: the front binary lists none of libcurl, libarchive, libcrypto; the helper all three" {
	assert_split_binary "$CUDNNVM_BIN" \
		"$(dirname "$CUDNNVM_BIN")/cudnnvm-helper"
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

# doc/reliability.md R3
@test "a missing helper is one line naming where it looked; one not executable names itself" {
	local p="$T/pre fix"
	[ ! -e "/usr/local/libexec/cudnnvm/cudnnvm-helper" ] || skip "a cudnnvm is installed under /usr/local"
	mkdir -p "$p/bin" "$p/libexec/cudnnvm"
	cp "$CUDNNVM_BIN" "$p/bin/cudnnvm"
	run --separate-stderr "$p/bin/cudnnvm" install --archive "$(stub v9 path)" --sha256 "$(stub v9 sha256)"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "cudnnvm: cannot find cudnnvm-helper, which runs 'install' (looked in $p/bin, $p/bin/../libexec/cudnnvm and "*"); reinstall cudnnvm" ]]
	install -m 644 "$(dirname "$CUDNNVM_BIN")/cudnnvm-helper" "$p/libexec/cudnnvm/cudnnvm-helper"
	run --separate-stderr "$p/bin/cudnnvm" install --archive "$(stub v9 path)" --sha256 "$(stub v9 sha256)"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "$stderr" = "cudnnvm: the helper '$p/bin/../libexec/cudnnvm/cudnnvm-helper' is not executable; reinstall cudnnvm" ]
	# made executable, the same copy runs the command
	chmod 755 "$p/libexec/cudnnvm/cudnnvm-helper"
	run "$p/bin/cudnnvm" install --no-validate --archive "$(stub v9 path)" --sha256 "$(stub v9 sha256)"
	[ "$status" -eq 0 ]
}
