#!/usr/bin/env bats
# doc/reliability.md §6.3: hostile archives with a matching sha256 are refused
# with exit 65 naming the entry, leave the store as it was and touch nothing
# outside it; A8 and A14 install.
load helper

setup() {
	common_setup
	A="$T/archives"
	mkdir -p "$A"
	cudnnvm list >/dev/null 2>&1 || true
}

# refused CASE WHAT: build, install, expect 65 + WHAT, no change.
refused() {
	local arch sha before
	read -r arch sha < <(python3 "$FIXTURES/mkarchive.py" hostile "$1" --out "$A" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
	mkdir -p "$CUDNNVM_STORE"
	before=$(store_snapshot)
	run cudnnvm install --no-validate --archive "$arch" --sha256 "$sha"
	[ "$status" -eq 65 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cudnnvm: "* ]]
	[[ "$output" == *"$2"* ]]
	[ ! -e "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
	# same listing (private folders may have been created on first use)
	[ "$(store_snapshot | grep -v '^\./\.\(staging\|cache\|locks\)$')" = "$(echo "$before" | grep -v '^\./\.\(staging\|cache\|locks\)$')" ]
	[ ! -e "$T/evil" ]
	[ ! -e "$T/outside" ]
	[ ! -e /tmp/cudnnvm-evil-abs ]
}

installs() {
	read -r ARCH SHA < <(python3 "$FIXTURES/mkarchive.py" hostile "$1" --out "$A" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
}

@test "A1 dot-dot entry (tar)" { refused a1-dotdot "/../../evil' has a '..' component"; }
@test "A1 dot-dot entry (zip)" { refused a1-dotdot-zip "'..' component"; }
@test "A2 absolute path" { refused a2-absolute "'/tmp/cudnnvm-evil-abs' has an absolute path"; }
@test "A3 absolute symlink target" { refused a3-abs-symlink "/lib/x' is a symlink to an absolute path"; }
@test "A4 escaping relative symlink" { refused a4-escape-symlink "/up' is a symlink that leaves the archive"; }
@test "A5 symlink then an entry through it (tar)" { refused a5-through-symlink "/lnk' is a symlink that leaves the archive"; }
@test "A5 symlink then an entry through it (zip)" { refused a5-through-symlink-zip "lnk/evil"; }
@test "A6 hard link out of the tree" { refused a6-hardlink-out "/lib/hl' is a hard link"; }
@test "A6 hard link to an absolute path" { refused a6-hardlink-abs "/lib/hl' is a hard link"; }
@test "A6 hard link to a symlink" { refused a6-hardlink-symlink "/lib/hl' is a hard link"; }
@test "A6 self hard link" { refused a6-hardlink-self "/lib/self' is a hard link"; }
@test "A7 character device" { refused a7-chr "/lib/null' is a device, FIFO or socket"; }
@test "A7 block device" { refused a7-blk "/lib/blk' is a device, FIFO or socket"; }
@test "A7 FIFO" { refused a7-fifo "/lib/fifo' is a device, FIFO or socket"; }
@test "A9 duplicate names" { refused a9-dup "/lib/libdup.so' is a duplicate"; }
@test "A9 case-fold collision in a Windows zip" { refused a9-case-zip "differs only in case"; }
@test "A16 a Windows device name in a zip (any case, spaces before the extension)" { refused a16-device-zip "/include/AUX .h' uses a name Windows reserves"; }
@test "A16 a character Win32 refuses in a zip's name" { refused a16-chars-zip "/bin/a|b.dll' uses a name Windows reserves"; }
@test "A10 two top-level folders" { refused a10-two-tops "'other/' is outside the archive's single top folder"; }
@test "A10 a file beside the top folder" { refused a10-top-file "'README' is outside the archive's single top folder"; }
@test "A10 top folder naming another version, CUDA and platform" { refused a10-top-other "top folder 'cudnn-linux-sbsa-8.9.7.29_cuda11-archive' holds cuDNN 8.9.7.29-cuda11 for linux-sbsa, not 9.1.0.70-cuda12 for linux-x86_64"; }
@test "A10 top folder not named like an NVIDIA archive" { refused a10-top-unnamed "top folder 'cudnn' is not named like an NVIDIA cuDNN archive"; }
@test "A10 --version and --cuda must agree with the top folder too" {
	read -r arch sha < <(python3 "$FIXTURES/mkarchive.py" hostile a14-legit --out "$A" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
	cp "$arch" "$T/renamed.tar.xz"
	run cudnnvm install --no-validate --archive "$T/renamed.tar.xz" --sha256 "$sha" --version 9.1.0.71 --cuda 12
	[ "$status" -eq 65 ]
	[[ "$output" == *"not 9.1.0.71-cuda12 for linux-x86_64"* ]]
	[ ! -e "$CUDNNVM_STORE/9.1.0.71-cuda12" ]
	run cudnnvm install --no-validate --archive "$T/renamed.tar.xz" --sha256 "$sha" --version 9.1.0.70 --cuda 13
	[ "$status" -eq 65 ]
	run cudnnvm install --no-validate --archive "$T/renamed.tar.xz" --sha256 "$sha" --version 9.1.0.70 --cuda 12
	[ "$status" -eq 0 ]
}
@test "A11 decompression bomb: refused before writing it" { refused a11-bomb "/lib/bomb' makes the archive larger than the limit"; }
@test "A11 decompression bomb through a FIFO: the cap counts the bytes produced" {
	read -r arch sha < <(python3 "$FIXTURES/mkarchive.py" hostile a11-bomb --out "$A" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
	mkfifo "$T/fifo"
	timeout 60 sh -c 'cat "$1" >"$2"' _ "$arch" "$T/fifo" 3>&- &
	run cudnnvm install --no-validate --archive "$T/fifo" --version 9.1.0.70 --cuda 12 --sha256 "$sha"
	[ "$status" -eq 65 ]
	[[ "$output" == *"/lib/bomb' makes the archive larger than the limit"* ]]
	[ ! -e "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
}

@test "a legit archive through a FIFO installs under the same cap" {
	j=$(python3 "$FIXTURES/mkarchive.py" nvidia --version 9.1.0.70 --cuda 12 --fill-mb 40 --out "$A")
	arch=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["path"])' "$j")
	sha=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["sha256"])' "$j")
	mkfifo "$T/fifo"
	timeout 60 sh -c 'cat "$1" >"$2"' _ "$arch" "$T/fifo" 3>&- &
	run cudnnvm install --no-validate --archive "$T/fifo" --version 9.1.0.70 --cuda 12 --sha256 "$sha"
	[ "$status" -eq 0 ]
	[ -f "$CUDNNVM_STORE/9.1.0.70-cuda12/lib/libcudnn_fill.a" ]
}

@test "A13 path over 1024 bytes" { refused a13-long "longer than the limit"; }
@test "A13 more than 32 levels" { refused a13-deep "nested deeper than the limit"; }
@test "A13 newline in a name (reported escaped, on one line)" { refused a13-newline "/lib/bad\\x0aname' has a control character"; }
@test "A13 overlong UTF-8 form in a name" { refused a13-overlong "/lib/bad"; refused a13-overlong "is not valid UTF-8"; }
@test "A13 UTF-16 surrogate in a name" { refused a13-surrogate "is not valid UTF-8"; }
@test "A13 code point above U+10FFFF in a name" { refused a13-above-max "is not valid UTF-8"; }

# Links are resolved against the tree itself, through other links, at the
# depth the version is published at; dangling or not.
@test "A16 r -> . chain escaping to a dangling target" { refused a16-dot-chain "'lib/libcudnn.so.9' leaves the archive"; }
@test "A16 chain whose helper link comes later" { refused a16-dot-chain-later "'lib/libcudnn.so.9' leaves the archive"; }
@test "A16 chain through another link" { refused a16-link-chain "'lib/libcudnn_x' leaves the archive"; }
@test "A16 '..' at the top" { refused a16-top-dotdot "leaves the archive"; }
@test "A16 dangling link" { refused a16-dangling "'lib/libcudnn_x' does not resolve to anything in the archive"; }
@test "A16 link loop" { refused a16-loop "does not resolve to anything in the archive"; }
@test "A16 folder link escaping through r -> ." { refused a16-dir-escape "'lib/libcudnn_d' leaves the archive"; }

@test "A8 setuid, setgid, sticky, 0777 and 0000 modes install normalised" {
	installs a8-modes
	d="$CUDNNVM_STORE/9.1.0.70-cuda12"
	for f in lib/libcudnn_suid lib/libcudnn_sgid lib/libcudnn_world lib/libcudnn_none closed/f; do
		[ "$(stat -c %a "$d/$f")" = 644 ]
	done
	[ "$(stat -c %a "$d/sticky")" = 755 ]
	[ "$(stat -c %a "$d/closed")" = 755 ]
}

@test "A14 a legit cuDNN-like archive with in-tree .so symlinks installs" {
	installs a14-legit
	d="$CUDNNVM_STORE/9.1.0.70-cuda12"
	[ "$(readlink "$d/lib/libcudnn.so")" = libcudnn.so.9 ]
	[ "$(readlink "$d/lib/libcudnn.so.9")" = libcudnn.so.9.1.0 ]
	[ "$(readlink "$d/lib/libcudnn_ops.so.9")" = libcudnn_ops.so.9.1.0 ]
	[ "$(readlink "$d/include/cudnn_v9.h")" = cudnn_version.h ]
	[ "$(cat "$d/lib/libcudnn.so")" = ELF ]
	[ "$(cat "$d/lib/libcudnn_via")" = ELF ]
	[ "$(cat "$d/lib/libcudnn_hdr")" = "$(cat "$d/include/cudnn_version.h")" ]
}

@test "A17 lib/ keeps only cuDNN's names: a libz.so.1 there never reaches the store" {
	installs a17-foreign-lib
	d="$CUDNNVM_STORE/9.1.0.70-cuda12"
	ls -A "$d/lib"
	[ -f "$d/lib/libcudnn.so.9.1.0" ]
	[ "$(readlink "$d/lib/libcudnn.so.9")" = libcudnn.so.9.1.0 ]
	[ ! -e "$d/lib/libz.so.1" ] && [ ! -L "$d/lib/libfoo.so" ] && [ ! -e "$d/lib/sub" ]
}

@test "A15 a second archive cannot plant through an installed version (fresh staging)" {
	installs a14-legit
	# the same content under another version goes into its own fresh folder
	j=$(python3 "$FIXTURES/mkarchive.py" nvidia --version 9.1.0.71 --cuda 12 --out "$A")
	arch=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["path"])' "$j")
	sha=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["sha256"])' "$j")
	run cudnnvm install --no-validate --archive "$arch" --sha256 "$sha"
	[ "$status" -eq 0 ]
	[ "$(readlink "$CUDNNVM_STORE/9.1.0.70-cuda12/lib/libcudnn.so.9")" = libcudnn.so.9.1.0 ]
}
