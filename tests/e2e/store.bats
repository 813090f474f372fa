#!/usr/bin/env bats
# The store: where it is (per-user fallback when /opt is not writable),
# permission errors before any work, hostile layouts refused.
load helper

setup() {
	common_setup
	read -r ARCH SHA < <(python3 "$FIXTURES/mkarchive.py" nvidia --version 9.1.0.70 --cuda 12 --out "$T/a" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
}

teardown() {
	[ -n "${NR:-}" ] && rm -rf "$NR"
	return 0
}

# A world-readable folder for an unprivileged user (the bats temp dir is
# private to root), with HOME, config folders and the archive inside.
nobody_setup() {
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	[ "$(id -u)" -eq 0 ] || skip "needs root to drop privileges to uid 65534"
	NR=$(mktemp -d "${TMPDIR:-/tmp}/cudnnvm-nr.XXXXXX")
	chmod 755 "$NR"
	mkdir -p "$NR/home" "$NR/etc" "$NR/a"
	cp "$ARCH" "$NR/a/"
	NARCH="$NR/a/$(basename "$ARCH")"
	chmod -R a+rX "$NR/a" "$NR/etc"
	chown -R 65534:65534 "$NR/home"
	binary_dir=$(dirname "$CUDNNVM_BIN")
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CUDNNVM_BIN" ||
		skip "the binary in $binary_dir is not reachable by uid 65534"
}

as_nobody() {
	env -u CUDNNVM_STORE HOME="$NR/home" XDG_DATA_HOME="$NR/home/.local/share" \
		XDG_CACHE_HOME="$NR/home/.cache" XDG_CONFIG_HOME="$NR/home/.config" \
		CUDNNVM_SYSCONFDIR="$NR/etc" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

@test "a non-root user whose /opt is not writable gets the per-user store" {
	nobody_setup
	if as_nobody sh -c 'test -w /opt/cudnn || { test ! -e /opt/cudnn && test -w /opt; }'; then
		skip "/opt/cudnn is writable by uid 65534 here"
	fi
	cd "$NR"
	run as_nobody "$CUDNNVM_BIN" install --no-validate --archive "$NARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
	[ "$output" = "installed cuDNN 9.1.0.70-cuda12 in $NR/home/.local/share/cudnnvm/9.1.0.70-cuda12" ]
	[ "$(stat -c %u "$NR/home/.local/share/cudnnvm/9.1.0.70-cuda12/lib/libcudnn.so.9.1.0")" -eq 65534 ]
	[ -d "$NR/home/.cache/cudnnvm" ]
	[ ! -e /opt/cudnn/9.1.0.70-cuda12 ]
	run as_nobody "$CUDNNVM_BIN" list
	[ "$status" -eq 0 ]
	[[ "$output" == *9.1.0.70-cuda12* ]]
}

@test "an explicit store the user cannot write is exit 77, before any work" {
	nobody_setup
	mkdir "$NR/rootstore"
	chmod 755 "$NR/rootstore"
	cd "$NR"
	run as_nobody "$CUDNNVM_BIN" --store "$NR/rootstore" install --no-validate --archive "$NARCH" --sha256 "$SHA"
	[ "$status" -eq 77 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cudnnvm: the store '$NR/rootstore' is not writable"* ]]
	[ -z "$(ls -A "$NR/rootstore")" ]
	# a store that cannot even be created: 77 too, nothing left behind
	run as_nobody "$CUDNNVM_BIN" --store "$NR/rootstore/sub/store" install --no-validate --archive "$NARCH" --sha256 "$SHA"
	[ "$status" -eq 77 ]
	[[ "$output" == "cudnnvm: cannot create the store"* ]]
	[ -z "$(ls -A "$NR/rootstore")" ]
}

@test "a read-only command on a missing store lists nothing and creates nothing" {
	run cudnnvm list
	[ "$status" -eq 0 ]
	[ ! -e "$CUDNNVM_STORE" ]
}

@test "a relative --store is made absolute" {
	run cudnnvm --store rel install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
	[[ "$output" == *" in $T/rel/9.1.0.70-cuda12" ]]
	[ -f "$T/rel/9.1.0.70-cuda12/cudnnvm.json" ]
}

@test "F21 .staging as a symlink is refused (exit 73) and nothing is written through it" {
	cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	mkdir "$T/victim"
	rm -rf "$CUDNNVM_STORE/.staging"
	ln -s "$T/victim" "$CUDNNVM_STORE/.staging"
	run cudnnvm install --no-validate --force --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 73 ]
	[[ "$output" == "cudnnvm: '$CUDNNVM_STORE/.staging' is not a folder"* ]]
	[ -z "$(ls -A "$T/victim")" ]
}

@test "F21 current as a real folder is refused (exit 73)" {
	mkdir -p "$CUDNNVM_STORE/current"
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 73 ]
	[[ "$output" == *"current' is not a symlink"* ]]
	[ ! -e "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
}

@test "F21 a version folder that is a symlink is refused (exit 73)" {
	mkdir -p "$CUDNNVM_STORE" "$T/elsewhere"
	ln -s "$T/elsewhere" "$CUDNNVM_STORE/9.1.0.70-cuda12"
	run cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 73 ]
	[[ "$output" == *"9.1.0.70-cuda12' is not a folder"* ]]
	[ -z "$(ls -A "$T/elsewhere")" ]
	# and list does not show it as installed
	run cudnnvm list
	[[ "$output" != *9.1.0.70-cuda12* ]]
}

@test "a version folder without cudnnvm.json is not installed" {
	mkdir -p "$CUDNNVM_STORE/9.1.0.70-cuda12/lib"
	run cudnnvm list --json
	[ "$status" -eq 0 ]
	[ "$output" = "[]" ]
}

@test "leftover lock files from a killed run do not block (flock)" {
	mkdir -p "$CUDNNVM_STORE/.locks"
	touch "$CUDNNVM_STORE/.locks/9.1.0.70-cuda12.lock" "$CUDNNVM_STORE/.locks/store.lock"
	run cudnnvm install --no-validate --no-wait --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
}

@test "F19 a read-only store: install is exit 73, list still works" {
	unshare -m true 2>/dev/null || skip "cannot make a mount namespace here"
	mkdir -p "$T/ro"
	run unshare -m sh -c '
		mount -t tmpfs tmpfs "$1" || exit 99
		cudnnvm --store "$1/s" install --no-validate --archive "$2" --sha256 "$3" >/dev/null || exit 98
		mount -o remount,ro "$1" || exit 99
		cudnnvm --store "$1/s" install --no-validate --force --archive "$2" --sha256 "$3"
		echo "rc=$?"
		cudnnvm --store "$1/s" list
		echo "list=$?"
	' sh "$T/ro" "$ARCH" "$SHA"
	[ "$status" -ne 99 ] || skip "mounting a tmpfs is not permitted here"
	[[ "$output" == *"cudnnvm: the store '$T/ro/s' is read-only"* ]]
	[[ "$output" == *"rc=73"* ]]
	[[ "$output" == *"9.1.0.70-cuda12"*"list=0"* ]]
}
