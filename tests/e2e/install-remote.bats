#!/usr/bin/env bats
# install <spec> against a real HTTPS mirror on 127.0.0.1: resolution,
# download, verification, the cache, and clear failures.
load remote

setup() { remote_setup; }

@test "install 9.13 resolves, downloads, verifies and installs, keeping no second copy; --keep caches it" {
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	# the store holds the one copy (keep_archives = no by default)
	[ -z "$(ls -A "$T/cache/downloads" 2>/dev/null)" ]
	cudnnvm -q uninstall 9.13.0.50-cuda12
	log_mark
	run --separate-stderr cudnnvm install 9.13 --cuda 12 --keep
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed cuDNN 9.13.0.50-cuda12"* ]]
	# not a terminal: nothing extra on stderr
	[ -z "$stderr" ]
	[ -f "$CUDNNVM_STORE/9.13.0.50-cuda12/include/cudnn.h" ]
	[ -L "$CUDNNVM_STORE/9.13.0.50-cuda12/lib/libcudnn.so.9" ]
	grep -q "https://127.0.0.1:$MIRROR_PORT/cudnn/linux-x86_64/" \
		"$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
	grep -q "$(big_sha)" "$CUDNNVM_STORE/9.13.0.50-cuda12/cudnnvm.json"
	[ -f "$T/cache/downloads/$(big_sha).archive" ]
	[ ! -e "$T/cache/downloads/$(big_sha).partial" ]
	[ "$(archive_gets)" -eq 1 ]
}

@test "an installed version is reported, not downloaded again" {
	cudnnvm install 9.13 --cuda 12
	log_mark
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *"already installed"* ]]
	run cudnnvm install 9.13.0.50-cuda12
	[ "$status" -eq 0 ]
	[[ "$output" == *"already installed"* ]]
	[ "$(archive_gets)" -eq 0 ]
}

@test "--force reinstalls from the verified cache without the network" {
	cudnnvm install 9.13 --cuda 12 --keep
	remote_config 404
	log_mark
	run cudnnvm install 9.13 --cuda 12 --force
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed cuDNN 9.13.0.50-cuda12"* ]]
	[ "$(archive_gets)" -eq 0 ]
}

@test "keep_archives = no leaves no archive in the cache" {
	sed -i 's/^\[install\]$/[install]\nkeep_archives = yes/' \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm config set install.keep_archives no
	[ "$status" -eq 0 ]
	run cudnnvm install 9.20 --cuda 13
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda13" ]
	[ -z "$(ls -A "$T/cache/downloads")" ]
}

@test "keep_archives = yes keeps the verified archive" {
	sed -i 's/^\[install\]$/[install]\nkeep_archives = yes/' \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm install 9.20 --cuda 13
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda13" ]
	[ -n "$(ls "$T/cache/downloads/"*.archive)" ]
}

@test "cache: dir, what it holds, prune and clean; uninstall removes its own archive unless keep_archives = always" {
	run cudnnvm cache dir
	[ "$status" -eq 0 ]
	[ "$output" = "$T/cache" ]
	cudnnvm -q install 9.13 --cuda 12 --keep
	cudnnvm -q install 9.20 --cuda 13 --keep
	a13=$(ls "$T/cache/downloads/"*.archive | grep -F "$(big_sha)")
	[ "$(ls "$T/cache/downloads/"*.archive | wc -l)" -eq 2 ]
	# uninstall takes its own archive along, and no other
	run --separate-stderr cudnnvm uninstall 9.13.0.50-cuda12
	[ "$status" -eq 0 ]
	[[ $stderr == *"removed its archive from the cache"* ]]
	[ ! -e "$a13" ]
	[ "$(ls "$T/cache/downloads/"*.archive | wc -l)" -eq 1 ]
	# keep_archives = always keeps it; prune removes it later
	cudnnvm -q install 9.13 --cuda 12 --keep
	sed -i 's/^\[install\]$/[install]\nkeep_archives = always/' \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run --separate-stderr cudnnvm uninstall 9.13.0.50-cuda12
	[ "$status" -eq 0 ]
	[[ $stderr != *"archive"* ]]
	[ -f "$a13" ]
	run cudnnvm cache
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$T/cache" ]
	[[ $output == *"1 archive of versions no longer installed"* ]]
	run cudnnvm cache prune
	[ "$status" -eq 0 ]
	[[ $output == "removed 1 file, "* ]]
	[ ! -e "$a13" ]
	# the installed version's archive stays
	[ "$(ls "$T/cache/downloads/"*.archive | wc -l)" -eq 1 ]
	run cudnnvm cache clean
	[ "$status" -eq 0 ]
	[ ! -e "$T/cache/downloads" ] && [ ! -e "$T/cache/manifests" ]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda13" ]
	run cudnnvm cache frob
	[ "$status" -eq 64 ]
}

@test "8.x manifests (platform -> file) install too" {
	run cudnnvm install 8 --cuda 12
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/8.9.7.29-cuda12/lib" ]
}

@test "the variant comes from the spec suffix, and the platform from --platform" {
	run cudnnvm install 9.8-cuda11
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.8.0.87-cuda11" ]
	run cudnnvm install 9 --platform linux-sbsa --cuda 13
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda13" ]
	grep -q '"linux-sbsa"' "$CUDNNVM_STORE/9.20.0.48-cuda13/cudnnvm.json"
	grep -q 'cudnn/linux-sbsa/' "$CUDNNVM_STORE/9.20.0.48-cuda13/cudnnvm.json"
}

@test "the newest release with that variant wins (9 --cuda 11 is 9.8)" {
	run cudnnvm install 9 --cuda 11
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.8.0.87-cuda11" ]
}

@test "config [install] cuda and platform are used" {
	sed -i 's/^\[install\]$/[install]\ncuda = 12\nplatform = linux-aarch64/' \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm install 9.20
	[ "$status" -eq 0 ]
	grep -q '"linux-aarch64"' "$CUDNNVM_STORE/9.20.0.48-cuda12/cudnnvm.json"
}

@test "M9: no build for that variant: clear message, exit 1, nothing fetched" {
	seed_store
	before=$(store_snapshot)
	run cudnnvm install 9.13 --cuda 11
	[ "$status" -eq 1 ]
	[[ "$output" == "cudnnvm: cuDNN 9.13.0 has no build for cuda11 on linux-x86_64; builds exist for: cuda12, cuda13"* ]]
	[ "$(store_snapshot)" = "$before" ]
	[ "$(archive_gets)" -eq 0 ]
	run cudnnvm install 9.20 --platform linux-aarch64 --cuda 13
	[ "$status" -eq 1 ]
	[[ "$output" == *"cuDNN 9.20.0 has no build for cuda13 on linux-aarch64; builds exist for: cuda12"* ]]
	run cudnnvm install 8 --platform linux-aarch64
	[ "$status" -eq 1 ]
	[[ "$output" == *"has no build for"* ]]
}

@test "a release the mirror does not have: exit 1 with a hint" {
	run cudnnvm install 7.6 --cuda 12
	[ "$status" -eq 1 ]
	[[ "$output" == *"list-remote"* ]]
	run cudnnvm install 9.13.0.49 --cuda 12
	[ "$status" -eq 1 ]
}

@test "bad specs and flags are usage errors (64)" {
	for s in '../../etc' '9.1.0;id' '9..1' ''; do
		run cudnnvm install "$s"
		[ "$status" -eq 64 ]
	done
	run cudnnvm install 9 --platform linux-bogus
	[ "$status" -eq 64 ]
	run cudnnvm install 9 --cuda x
	[ "$status" -eq 64 ]
	run cudnnvm install 9-cuda12 --cuda 13
	[ "$status" -eq 64 ]
	[ "$(archive_gets)" -eq 0 ]
}

@test "the CUDA toolkit is detected from nvcc" {
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "Cuda compilation tools, release 11.8, V11.8.89"\n' >"$T/bin/nvcc"
	chmod +x "$T/bin/nvcc"
	PATH="$T/bin:$PATH" run cudnnvm install 9
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.8.0.87-cuda11" ]
	PATH="$T/bin:$PATH" run cudnnvm install 9.13
	[ "$status" -eq 1 ]
	[[ "$output" == *"cuda11 from nvcc"* ]]
}

@test "the CUDA toolkit is detected from \$CUDA_HOME/version.json" {
	mkdir -p "$T/cuda"
	echo '{"cuda":{"name":"CUDA SDK","version":"12.4.1"}}' >"$T/cuda/version.json"
	# a PATH without any real nvcc
	PATH="$(dirname "$CUDNNVM_BIN"):/usr/bin:/bin" CUDA_HOME="$T/cuda" \
		run cudnnvm install 9.13
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "without any toolkit the newest variant is installed" {
	if command -v nvcc >/dev/null || [ -e /usr/local/cuda ]; then
		skip "a CUDA toolkit is installed on this machine"
	fi
	run cudnnvm install 9.13
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda13" ]
}

@test "--mirror overrides the configured mirror" {
	remote_config 404
	run cudnnvm install 9.20 --cuda 12 --mirror "https://127.0.0.1:$MIRROR_PORT/"
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda12" ]
	run cudnnvm install 9.20 --cuda 13 --mirror "http://127.0.0.1:$MIRROR_PORT/"
	[ "$status" -eq 78 ]
	[[ "$output" == *"plain http is refused"* ]]
}

@test "a file:// mirror works for air-gapped sites" {
	run cudnnvm install 9.20 --cuda 12 --mirror "file://$MIRROR_DIR/root/"
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda12" ]
	grep -q "file://" "$CUDNNVM_STORE/9.20.0.48-cuda12/cudnnvm.json"
}

@test "the listing is cached for a day; --refresh reads it again" {
	cudnnvm list-remote >/dev/null
	cudnnvm list-remote >/dev/null
	[ "$(grep -c '^GET / ' "$MIRROR_DIR/root/requests.log")" -eq 1 ]
	# manifests never change: fetched once
	[ "$(grep -c 'redistrib_9.13.0.json' "$MIRROR_DIR/root/requests.log")" -eq 1 ]
	cudnnvm install 9.20 --cuda 12 --refresh
	[ "$(grep -c '^GET / ' "$MIRROR_DIR/root/requests.log")" -eq 2 ]
	[ "$(grep -c 'redistrib_9.13.0.json' "$MIRROR_DIR/root/requests.log")" -eq 1 ]
}

@test "install latest re-reads a fresh listing: a release published since is found" {
	cudnnvm list-remote >/dev/null
	# the cached listing is from before 9.20 was published
	sed -i '/redistrib_9.20.0/d' "$T"/cache/manifests/*/listing
	run cudnnvm install latest --cuda 12
	[ "$status" -eq 0 ]
	[[ $output == *"installed cuDNN 9.20.0.48-cuda12"* ]]
	[ "$(grep -c '^GET / ' "$MIRROR_DIR/root/requests.log")" -eq 2 ]
}

@test "install --archive without --sha256 takes the checksum from a cached manifest" {
	cp "$(big_archive)" "$T/"
	file=$T/$(basename "$(big_archive)")
	run --separate-stderr cudnnvm install --archive "$file"
	[ "$status" -eq 64 ]
	[[ $stderr == *"no cached manifest lists this file name"* ]]
	cudnnvm list-remote 9.13 >/dev/null
	run --separate-stderr cudnnvm install --archive "$file"
	[ "$status" -eq 0 ]
	[[ $stderr == *"sha256 $(big_sha), from the cached manifest "*"redistrib_9.13.0.json"* ]]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	# other bytes under that name are refused, as with --sha256
	cudnnvm -q uninstall 9.13.0.50-cuda12
	head -c 100000 "$(big_archive)" >"$file"
	run cudnnvm install --archive "$file"
	[ "$status" -eq 65 ]
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "pins: a pinned manifest with other bytes is refused (65)" {
	# the test mirror's manifests carry the test archives' hashes, so with
	# pins on (the default) every pinned name is refused
	seed_store
	remote_config ok "verify_pins = yes"
	before=$(store_snapshot)
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 65 ]
	[[ "$output" == *"redistrib_9.13.0.json"*"tampering"* ]]
	[ "$(store_snapshot)" = "$before" ]
	[ "$(archive_gets)" -eq 0 ]
}

@test "a progress bar is drawn on a terminal" {
	command -v script >/dev/null || skip "script(1) is not installed"
	run script -qec "cudnnvm install 9.13 --cuda 12" /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *"100%"* ]]
	[[ "$output" == *"ETA"* ]]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "a slow download redraws 4+ times a second with a measured rate; nothing without a terminal" {
	# 64 KiB/s (fault mode 'slow'): the reader gets a 256 KiB buffer every
	# 4 s, and the line must move between them
	remote_config slow
	run python3 - <<'PY'
import os, pty, re, select, signal, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp("cudnnvm", ["cudnnvm", "install", "9.13", "--cuda", "12"])
out, t0 = b"", time.monotonic()
while time.monotonic() - t0 < 3.0:
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            out += os.read(fd, 65536)
        except OSError:
            break
os.kill(pid, signal.SIGINT)
os.waitpid(pid, 0)
frames = [f for f in out.decode(errors="replace").split("\r") if "ETA" in f]
print("frames", len(frames))
rates = [m.group(1) for f in frames for m in [re.search(r"  ([0-9.]+ [KM]?i?B)/s", f)] if m]
print("rates", rates[-3:])
print("last", frames[-1] if frames else "")
PY
	echo "$output"
	# 3 s at 4+ redraws a second (the first half second has no rate yet)
	n=$(sed -n 's/^frames //p' <<<"$output")
	[ "$n" -ge 10 ]
	[[ $output == *"KiB/s"* ]]
	[[ $output != *" 0 B/s"* ]]
	[[ $output != *"ETA 00:00"* ]]
	# not a terminal: no progress line at all
	remote_config ok
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[[ $stderr != *$'\r'* ]]
	[[ $stderr != *"ETA"* ]]
}

@test "a V100 (compute capability 7.0): install 9 passes over 9.11 and newer with one warning line" {
	export CUDNNVM_OVERRIDE_GPU_ARCH=7.0
	run --separate-stderr cudnnvm install 9 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed cuDNN 9.8.0.87-cuda12"* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "${stderr_lines[0]}" == *"took cuDNN 9.8.0, not 9.20.0 to 9.13.0: 9.13.0 needs compute capability 7.5 or newer; this GPU is 7.0 (from CUDNNVM_OVERRIDE_GPU_ARCH), and 9.10 is the last release for it; --force takes them" ]]
	# a Hopper (9.0) takes the newest
	CUDNNVM_OVERRIDE_GPU_ARCH=9.0 run --separate-stderr cudnnvm install 9 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed cuDNN 9.20.0.48-cuda12"* ]]
	[ -z "$stderr" ]
}

@test "a V100: install 9.13 is refused before any download, the hint installs what runs, --force overrides" {
	seed_store
	export CUDNNVM_OVERRIDE_GPU_ARCH=7.0
	before=$(store_snapshot)
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = "cudnnvm: cuDNN 9.13.0 needs compute capability 7.5 or newer; this GPU is 7.0 (from CUDNNVM_OVERRIDE_GPU_ARCH), and 9.10 is the last release for it; --force installs it anyway" ]
	[ "${stderr_lines[1]}" = "hint: cudnnvm install 9.8.0 --cuda 12" ]
	[ "$(store_snapshot)" = "$before" ]
	[ "$(archive_gets)" -eq 0 ]
	run bash -c "${stderr_lines[1]#hint: }"
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.8.0.87-cuda12/lib" ]
	run --separate-stderr cudnnvm install 9.13 --cuda 12 --force
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12/lib" ]
	# a malformed override is a usage error, never ignored
	CUDNNVM_OVERRIDE_GPU_ARCH=volta run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 64 ]
	[[ "$output" == *"CUDNNVM_OVERRIDE_GPU_ARCH='volta'"* ]]
}

@test "no GPU known (no override): nothing is passed over for it" {
	unset CUDNNVM_OVERRIDE_GPU_ARCH
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "a terminal is told what is downloaded, and sees no bar when nothing is fetched" {
	command -v script >/dev/null || skip "script(1) is not installed"
	file=$(basename "$(archive_field 9.13.0 linux-x86_64 12 relative_path)")
	run script -qec "cudnnvm install 9.13 --cuda 12 --keep" /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *"downloading $file ("[0-9]*"iB)"*"100%"* ]]
	# installed: neither the line nor an empty bar
	run script -qec "cudnnvm install 9.13 --cuda 12" /dev/null
	[[ "$output" == *"already installed"* ]]
	[[ "$output" != *"downloading"* ]]
	[[ "$output" != *"%"* && "$output" != *"ETA"* ]]
	# a verified archive in the cache: nothing is fetched, nothing shown
	run script -qec "cudnnvm install 9.13 --cuda 12 --force" /dev/null
	[ "$status" -eq 0 ]
	[[ "$output" != *"downloading"* ]]
	[[ "$output" != *"%"* && "$output" != *"ETA"* ]]
}

@test "a host that accepts and never answers: after a second the terminal is told whom it waits for" {
	command -v script >/dev/null || skip "script(1) is not installed"
	# the archive request
	remote_config silent
	run script -qec "cudnnvm install 9.13 --cuda 12" /dev/null
	[ "$status" -ne 0 ]
	[[ "$output" == *"waiting for 127.0.0.1:$MIRROR_PORT to answer ("[1-9]" s)"* ]]
	# the listing, before anything can be drawn
	remote_config mute
	run script -qec "cudnnvm install 9.13 --cuda 12" /dev/null
	[ "$status" -ne 0 ]
	[[ "$output" == *"cudnnvm: waiting for 127.0.0.1:$MIRROR_PORT to answer (the release listing and manifest)"* ]]
	run script -qec "cudnnvm list-remote 9" /dev/null
	[ "$status" -ne 0 ]
	[[ "$output" == *"cudnnvm: waiting for 127.0.0.1:$MIRROR_PORT to answer (its release listing)"* ]]
	# not a terminal: only the error
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	[ "$status" -ne 0 ]
	[[ "$stderr" != *"waiting"* ]]
}
