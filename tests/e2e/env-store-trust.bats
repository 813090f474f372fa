#!/usr/bin/env bats
# The store as something other users may attack: a store (or a folder
# above it, or one of its own folders) that another user controls is
# refused before anything is written or activated; links planted at
# .locks/.cache are never written through; a symlinked store path works;
# every lock honours --no-wait and says who holds it; modes do not follow
# the umask; and the environment script removes only what it added.
load helper

setup() {
	common_setup
	read -r ARCH SHA < <(python3 "$FIXTURES/mkarchive.py" nvidia --version 9.1.0.70 --cuda 12 --out "$T/a" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
	ID=9.1.0.70-cuda12
}

teardown() {
	local p
	for p in ${HOLDERS:-}; do kill "$p" 2>/dev/null; done
	[ -n "${NR:-}" ] && rm -rf "$NR"
	return 0
}

needs_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to give folders to another user"
}

install_one() {
	cudnnvm install --no-validate --archive "$ARCH" --sha256 "$SHA" >/dev/null
}

# hold FILE: a real holder process (flock(1), pid $HOLDER) keeps an
# exclusive lock on it. -o keeps the lock from its child `sleep`, so that
# killing $HOLDER frees the lock at once, as a holder that dies does; the
# child is killed in teardown (every pid held is in $HOLDERS).
hold() {
	mkdir -p "$(dirname "$1")"
	flock -o "$1" sleep 60 3>&- &
	HOLDER=$!
	HOLDERS="${HOLDERS:-} $HOLDER"
	local i
	for i in $(seq 100); do
		if ! flock -n "$1" true; then
			HOLDERS="$HOLDERS $(pgrep -P "$HOLDER" | tr '\n' ' ')"
			return 0
		fi
		sleep 0.1
	done
	return 1
}

@test "a store another user owns: install, global, exec, env and validate refuse it (73, naming it)" {
	needs_root
	install_one
	chown 65534 "$CUDNNVM_STORE"
	for cmd in "install --no-validate --force --archive $ARCH --sha256 $SHA" \
		"global --no-validate $ID" "exec $ID -- true" "env $ID" "validate $ID --no-gpu"; do
		run cudnnvm $cmd
		echo "$cmd: $status $output"
		[ "$status" -eq 73 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "cudnnvm: '$CUDNNVM_STORE' belongs to another user (uid 65534)"* ]]
	done
	[ ! -L "$CUDNNVM_STORE/current" ]
}

@test "a group- or world-writable store or parent is refused; a sticky parent is allowed" {
	install_one
	chmod 775 "$CUDNNVM_STORE"
	run cudnnvm global --no-validate "$ID"
	[ "$status" -eq 73 ]
	[[ "$output" == "cudnnvm: '$CUDNNVM_STORE' is writable by its group"* ]]
	chmod 755 "$CUDNNVM_STORE"
	# a world-writable folder above the store, without the sticky bit
	mkdir -m 777 "$T/pub"
	chmod 777 "$T/pub"
	run cudnnvm --store "$T/pub/s" install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 73 ]
	[[ "$output" == "cudnnvm: '$T/pub' is writable by every user"* ]]
	[ ! -e "$T/pub/s" ]
	# with the sticky bit (like /tmp) others cannot replace our entries
	chmod 1777 "$T/pub"
	run cudnnvm --store "$T/pub/s" install --no-validate --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 0 ]
}

@test "private and version folders another user controls are refused" {
	needs_root
	install_one
	for d in .locks .staging .cache; do
		mkdir -p "$CUDNNVM_STORE/$d"
		chown 65534 "$CUDNNVM_STORE/$d"
		run cudnnvm install --no-validate --force --archive "$ARCH" --sha256 "$SHA"
		[ "$status" -eq 73 ]
		[[ "$output" == "cudnnvm: '$CUDNNVM_STORE/$d' belongs to another user"* ]]
		chown 0 "$CUDNNVM_STORE/$d"
	done
	chmod 777 "$CUDNNVM_STORE/$ID"
	run cudnnvm exec "$ID" -- true
	[ "$status" -eq 73 ]
	[[ "$output" == "cudnnvm: '$CUDNNVM_STORE/$ID' is writable by every user"* ]]
	chmod 755 "$CUDNNVM_STORE/$ID"
	chown 65534 "$CUDNNVM_STORE/$ID"
	for cmd in "global --no-validate $ID" "exec $ID -- true" "env $ID" "validate $ID --no-gpu"; do
		run cudnnvm $cmd
		echo "$cmd: $status $output"
		[ "$status" -eq 73 ]
		[[ "$output" == "cudnnvm: '$CUDNNVM_STORE/$ID' belongs to another user"* ]]
	done
	# the global link still points at that version: activation through
	# it is refused as well
	chown 0 "$CUDNNVM_STORE/$ID"
	cudnnvm global --no-validate "$ID"
	chown 65534 "$CUDNNVM_STORE/$ID"
	run cudnnvm env
	[ "$status" -eq 73 ]
}

@test "an ordinary user reads a root store but cannot write it" {
	needs_root
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	NR=$(mktemp -d "${TMPDIR:-/tmp}/cudnnvm-nr.XXXXXX")
	chmod 755 "$NR"
	mkdir -p "$NR/home" "$NR/a"
	cp "$ARCH" "$NR/a/"
	chmod -R a+rX "$NR/a"
	chown 65534 "$NR/home"
	cudnnvm --store "$NR/s" install --no-validate --archive "$ARCH" --sha256 "$SHA" >/dev/null
	cudnnvm --store "$NR/s" global --no-validate "$ID"
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CUDNNVM_BIN" ||
		skip "the binary is not reachable by uid 65534"
	nobody() {
		env HOME="$NR/home" XDG_CACHE_HOME="$NR/home/.cache" CUDNNVM_STORE="$NR/s" \
			XDG_CONFIG_HOME="$NR/home/.config" CUDNNVM_SYSCONFDIR="$NR/etc" \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$CUDNNVM_BIN" "$@"
	}
	run nobody list
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$ID"* ]]
	run nobody env --shell sh
	[ "$status" -eq 0 ]
	[[ "$output" == *"CUDNNVM_ACTIVE='$ID'"* ]]
	run nobody install --no-validate --force --archive "$NR/a/$(basename "$ARCH")" --sha256 "$SHA"
	[ "$status" -eq 77 ]
	[[ "$output" == "cudnnvm: the store '$NR/s' is not writable"* ]]
}

@test ".locks and .cache that are links: list, env, validate and list-remote write nothing through them" {
	install_one
	cudnnvm global --no-validate "$ID"
	mkdir -p "$T/outside/locks" "$T/outside/cache"
	rm -rf "$CUDNNVM_STORE/.locks" "$CUDNNVM_STORE/.cache"
	ln -s "$T/outside/locks" "$CUDNNVM_STORE/.locks"
	ln -s "$T/outside/cache" "$CUDNNVM_STORE/.cache"
	python3 "$FIXTURES/mirror.py" build "$T/mirror" "$FIXTURES"/manifests/*.json >/dev/null
	export CUDNNVM_MIRROR="file://$T/mirror/"
	# as root the cache is the store's own .cache
	for cmd in "list" "env --shell sh" "validate --no-gpu" "list-remote 9.1 --cuda 12"; do
		run cudnnvm $cmd
		echo "$cmd: $status $output"
		[ "$status" -eq 73 ]
		[[ "$output" == "cudnnvm: '$CUDNNVM_STORE/."*"' is not a folder (a symlink?)"* ]]
	done
	[ -z "$(find "$T/outside" -mindepth 2)" ]
	# nor do the writers
	run cudnnvm global --unset
	[ "$status" -eq 73 ]
	[ -z "$(find "$T/outside" -mindepth 2)" ]
}

@test "a store path that is a symlink works for install, global, list and env" {
	mkdir -p "$T/real"
	ln -s "$T/real" "$T/link"
	export CUDNNVM_STORE="$T/link"
	install_one
	run cudnnvm global --no-validate "$ID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(readlink "$T/real/current")" = "$ID" ]
	run cudnnvm list
	[ "$status" -eq 0 ]
	[[ "$output" == *"$ID"* ]]
	run cudnnvm env --shell sh
	[ "$status" -eq 0 ]
	[[ "$output" == *"CUDNN_HOME='$T/real/$ID'"* ]]
	run cudnnvm global --unset
	[ "$status" -eq 0 ]
	[ ! -L "$T/real/current" ]
}

@test "--no-wait holds for the store lock, uninstall's version lock and the current lock (75)" {
	install_one
	hold "$CUDNNVM_STORE/.locks/store.lock"
	run timeout 20 cudnnvm --no-wait install --no-validate --force --archive "$ARCH" --sha256 "$SHA"
	echo "$output"
	[ "$status" -eq 75 ]
	[[ "$output" == "cudnnvm: "*"another cudnnvm is using the store"* ]]
	run timeout 20 cudnnvm install --no-validate --no-wait --force --archive "$ARCH" --sha256 "$SHA"
	[ "$status" -eq 75 ]
	kill "$HOLDER"; wait "$HOLDER" 2>/dev/null || true
	hold "$CUDNNVM_STORE/.locks/$ID.lock"
	run timeout 20 cudnnvm uninstall --no-wait "$ID"
	[ "$status" -eq 75 ]
	[[ "$output" == "cudnnvm: another cudnnvm is installing or removing $ID"* ]]
	[ -d "$CUDNNVM_STORE/$ID" ]
	kill "$HOLDER"; wait "$HOLDER" 2>/dev/null || true
	hold "$CUDNNVM_STORE/.locks/current.lock"
	run timeout 20 cudnnvm global --no-validate --no-wait "$ID"
	[ "$status" -eq 75 ]
	[[ "$output" == "cudnnvm: another cudnnvm is changing the global version"* ]]
	[ ! -L "$CUDNNVM_STORE/current" ]
}

@test "a waiting command says what it waits for and who holds it, once" {
	install_one
	hold "$CUDNNVM_STORE/.locks/current.lock"
	holder=$HOLDER
	cudnnvm global --no-validate "$ID" 2>"$T/err" &
	pid=$!
	for i in $(seq 100); do grep -q waiting "$T/err" && break; sleep 0.1; done
	kill "$holder"
	wait "$pid"
	[ "$(grep -c waiting "$T/err")" -eq 1 ]
	grep -qx "cudnnvm: waiting for another cudnnvm changing the global version (held by pid $holder)" "$T/err"
	[ "$(readlink "$CUDNNVM_STORE/current")" = "$ID" ]
	# uninstall waits on the version lock the same way
	hold "$CUDNNVM_STORE/.locks/$ID.lock"
	holder=$HOLDER
	cudnnvm uninstall --force "$ID" >/dev/null 2>"$T/err2" &
	pid=$!
	for i in $(seq 100); do grep -q waiting "$T/err2" && break; sleep 0.1; done
	kill "$holder"
	wait "$pid"
	grep -qx "cudnnvm: waiting for another cudnnvm installing or removing $ID (held by pid $holder)" "$T/err2"
	[ ! -e "$CUDNNVM_STORE/$ID" ]
}

@test "umask 077 and 000: store root, private folders, versions, metadata and locks are 0755/0644" {
	for m in 077 000; do
		rm -rf "$CUDNNVM_STORE"
		(umask $m && install_one && cudnnvm global --no-validate "$ID")
		s="$CUDNNVM_STORE"
		for d in "$s" "$s/.locks" "$s/.staging" "$s/.cache" "$s/$ID" "$s/$ID/lib"; do
			echo "$m $d $(stat -c %a "$d")"
			[ "$(stat -c %a "$d")" = 755 ]
		done
		for f in "$s/$ID/cudnnvm.json" "$s/.locks/store.lock" "$s/.locks/$ID.lock" "$s/.locks/current.lock"; do
			echo "$m $f $(stat -c %a "$f")"
			[ "$(stat -c %a "$f")" = 644 ]
		done
		[ -z "$(find "$s" -path "$s/.cache" -prune -o -type d ! -perm 0755 -print)" ]
		[ -z "$(find "$s" -path "$s/.cache" -prune -o -type f ! -perm 0644 -print)" ]
	done
}

@test "switching with CUDNN_HOME=/usr set by the user keeps /usr/bin and /usr/lib" {
	install_one
	read -r ARCH2 SHA2 < <(python3 "$FIXTURES/mkarchive.py" nvidia --version 9.2.0.82 --cuda 12 --out "$T/b" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
	cudnnvm install --no-validate --archive "$ARCH2" --sha256 "$SHA2" >/dev/null
	run bash -c '
		export PATH=/usr/bin:/bin LD_LIBRARY_PATH=/usr/lib
		eval "$("$1" env --shell bash 9.1)" || exit 2
		export CUDNN_HOME=/usr
		eval "$("$1" env --shell bash 9.2)" || exit 3
		echo "switched PATH=$PATH LD=$LD_LIBRARY_PATH"
		export CUDNN_HOME=/usr
		eval "$("$1" env --shell bash 9.1)" || exit 4
		echo "again PATH=$PATH LD=$LD_LIBRARY_PATH"' bash "$CUDNNVM_BIN"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "switched PATH=/usr/bin:/bin LD="* ]]
	[[ "${lines[0]}" == *" LD=$CUDNNVM_STORE/9.2.0.82-cuda12/lib:/usr/lib" ]]
	[[ "${lines[1]}" == "again PATH=/usr/bin:/bin LD="* ]]
	[[ "${lines[1]}" == *" LD=$CUDNNVM_STORE/$ID/lib:/usr/lib" ]]
}

# a file mirror with the fixture releases, a config that installs from it
# without validation (its libraries are fakes): for fixes that reinstall
mirror_config() {
	python3 "$FIXTURES/mirror.py" build "$T/mirror" "$FIXTURES"/manifests/*.json >/dev/null
	export CUDNNVM_MIRROR="file://$T/mirror/"
	mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
	printf '[remote]\nverify_pins = no\n[install]\nvalidate = no\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
}

# doctor_fix: the fix doctor prints for the first error, run as printed
doctor_fix() {
	run cudnnvm doctor
	echo "$output"
	fix=$(printf '%s\n' "$output" | grep -A2 "^error: $ID2: " | sed -n 's/^  fix: //p' | head -1)
	[ -n "$fix" ]
	echo "fix: $fix"
	eval "$fix"
}

@test "a version's lib/ or library another user owns: env, exec, validate, global, use and hook-env refuse it (73); doctor's fix works as printed" {
	needs_root
	mirror_config
	ID2=9.8.0.87-cuda12 d=$CUDNNVM_STORE/9.8.0.87-cuda12
	cudnnvm install "$ID2" >/dev/null
	chown 65534 "$d/lib"
	for cmd in "env $ID2" "exec $ID2 -- true" "validate $ID2 --no-gpu" \
		"global --no-validate $ID2" "use --no-validate $ID2"; do
		run cudnnvm $cmd
		echo "$cmd: $status $output"
		[ "$status" -eq 73 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "cudnnvm: '$d/lib' belongs to another user (uid 65534), who could have changed cuDNN $ID2; refusing to use it (cudnnvm install --force $ID2)" ]]
	done
	[ ! -e "$T/.cudnn-version" ]
	run env CUDNNVM_VERSION="$ID2" "$CUDNNVM_BIN" hook-env --shell bash
	[ "$status" -eq 73 ]
	[[ "$output" != *"LD_LIBRARY_PATH='$d/lib"* ]]
	doctor_fix
	run cudnnvm env "$ID2"
	[ "$status" -eq 0 ]
	# one library file of another user's, writable by all
	chmod 666 "$d/lib/libcudnn.so.9."*
	chown 65534 "$d/lib/libcudnn.so.9."*
	f=$(ls "$d/lib/libcudnn.so.9."*)
	run cudnnvm exec "$ID2" -- true
	[ "$status" -eq 73 ]
	[[ "$output" == "cudnnvm: '$f' belongs to another user (uid 65534)"* ]]
	doctor_fix
	run cudnnvm exec "$ID2" -- true
	[ "$status" -eq 0 ]
	[ -z "$(find "$d" -uid 65534)" ]
}

@test "a version's lib/ or include/ writable by others, or a link, is refused (73); doctor's chmod works as printed" {
	mirror_config
	ID2=9.8.0.87-cuda12 d=$CUDNNVM_STORE/9.8.0.87-cuda12
	cudnnvm install "$ID2" >/dev/null
	for p in lib include; do
		chmod 777 "$d/$p"
		run cudnnvm env "$ID2"
		echo "$output"
		[ "$status" -eq 73 ]
		[[ "$output" == "cudnnvm: '$d/$p' is writable by other users, who could have changed cuDNN $ID2; refusing to use it (chmod go-w '$d/$p')" ]]
		doctor_fix
		run cudnnvm env "$ID2"
		[ "$status" -eq 0 ]
	done
	chmod 664 "$d/include/cudnn.h"
	run cudnnvm validate "$ID2" --no-gpu
	[ "$status" -eq 73 ]
	[[ "$output" == "cudnnvm: '$d/include/cudnn.h' is writable by other users"* ]]
	chmod 644 "$d/include/cudnn.h"
	# lib/ a link to a folder outside the store
	mv "$d/lib" "$T/elsewhere"
	ln -s "$T/elsewhere" "$d/lib"
	run cudnnvm env "$ID2"
	[ "$status" -eq 73 ]
	[[ "$output" == "cudnnvm: '$d/lib' is not a folder (a symlink?)"* ]]
}
