#!/usr/bin/env bats
# Two stores, one view: root installs into the system store (the system
# config's [store] path); an ordinary user (uid 65534, HOME in a temp
# folder) sees it beside their own store, installs into their own, prefers
# the system store's copy of an id, and can change nothing in it.
load helper

setup_file() {
	# one NVIDIA-shaped archive per stub: name version cuda
	stub_archives <<-EOF
		v9 9.19.0.56 13
		v8 8.9.7.29 12
	EOF
}

setup() {
	common_setup
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	[ "$(id -u)" -eq 0 ] || skip "needs root to drop privileges to uid 65534"
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CUDNNVM_BIN" ||
		skip "the binary in $(dirname "$CUDNNVM_BIN") is not reachable by uid 65534"
	# a world-readable folder (the bats temp dir is private to root)
	NR=$(mktemp -d "${TMPDIR:-/tmp}/cudnnvm-2s.XXXXXX")
	chmod 755 "$NR"
	mkdir -p "$NR/home" "$NR/etc" "$NR/a" "$NR/proj"
	SYS="$NR/sys"
	USR="$NR/home/.local/share/cudnnvm"
	printf '[store]\npath = %s\n' "$SYS" >"$NR/etc/config.ini"
	for name in v9 v8; do
		read -r path sha _ <"$STUBS/$name.arch"
		cp "$path" "$NR/a/"
		eval "${name}_ARCH=\$NR/a/\$(basename \"\$path\")"
		eval "${name}_SHA=\$sha"
	done
	cp -r "$STUBS/cuda-nodev" "$NR/cuda"
	chmod -R a+rX "$NR/a" "$NR/etc" "$NR/cuda"
	chown -R 65534:65534 "$NR/home" "$NR/proj"
	V9=9.19.0.56-cuda13
	V8=8.9.7.29-cuda12
	export CUDNNVM_TEST_CUDA_LIBDIRS="$NR/cuda"
	unset CUDNNVM_STORE
}

teardown() {
	[ -n "${NR:-}" ] && rm -rf "$NR"
	return 0
}

# the admin: root, with the system config of $NR/etc
as_admin() {
	env HOME="$T/home" CUDNNVM_SYSCONFDIR="$NR/etc" "$@"
}

as_user() {
	env HOME="$NR/home" XDG_DATA_HOME="$NR/home/.local/share" \
		XDG_CACHE_HOME="$NR/home/.cache" XDG_CONFIG_HOME="$NR/home/.config" \
		CUDNNVM_SYSCONFDIR="$NR/etc" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# everything under a folder, with owners, modes, link targets and sizes
tree_state() {
	(cd "$1" && find . -printf '%p %u %m %s %l\n' | LC_ALL=C sort)
}

admin_install() { # admin_install v9|v8
	local a s
	eval "a=\$${1}_ARCH s=\$${1}_SHA"
	as_admin cudnnvm install --no-validate --archive "$a" --sha256 "$s" >/dev/null
}

@test "root writes the system store; a user sees it, marked, in list and list --json" {
	admin_install v9
	[ -d "$SYS/$V9" ]
	cd "$NR/proj"
	run as_user cudnnvm list
	[ "$status" -eq 0 ]
	[ "$output" = "   $V9     linux-x86_64    system $SYS/$V9" ]
	run as_user cudnnvm list --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[0]["store"], d[0]["path"])')" = "system $SYS/$V9" ]
}

@test "a user's install goes to their own store; list marks each version's store" {
	admin_install v9
	cd "$NR/proj"
	run as_user cudnnvm install --no-validate --archive "$v8_ARCH" --sha256 "$v8_SHA"
	[ "$status" -eq 0 ]
	[ "$output" = "installed cuDNN $V8 in $USR/$V8" ]
	[ "$(stat -c %u "$USR/$V8")" -eq 65534 ]
	[ ! -e "$SYS/$V8" ]
	run as_user cudnnvm list --json
	[ "$(echo "$output" | python3 -c 'import json,sys; print(" ".join(e["id"]+":"+e["store"] for e in json.load(sys.stdin)))')" = "$V9:system $V8:user" ]
	run as_user cudnnvm list
	[ "${lines[1]}" = "   $V8      linux-x86_64    user   $USR/$V8" ]
}

@test "installing a version the system store holds downloads nothing and writes nothing" {
	admin_install v9
	cd "$NR/proj"
	run as_user cudnnvm install --no-validate --archive "$v9_ARCH" --sha256 "$v9_SHA"
	[ "$status" -eq 0 ]
	[ "$output" = "cuDNN $V9 is already installed in $SYS/$V9" ]
	[ ! -e "$USR/$V9" ]
	run as_user cudnnvm install --force --no-validate --archive "$v9_ARCH" --sha256 "$v9_SHA"
	[ "$status" -eq 77 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cudnnvm: cuDNN $V9 is owned by the system store $SYS; ask its admin"* ]]
	[ ! -e "$USR/$V9" ]
}

@test "uninstall of a system version is exit 77 and changes nothing" {
	admin_install v9
	as_admin cudnnvm global "$V9" --no-validate >/dev/null
	before=$(tree_state "$SYS")
	cd "$NR/proj"
	run as_user cudnnvm uninstall 9.19
	[ "$status" -eq 77 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "cudnnvm: cuDNN $V9 is owned by the system store $SYS; ask its admin" ]
	run as_user cudnnvm uninstall --force --even-if-in-use "$V9"
	[ "$status" -eq 77 ]
	[ "$(tree_state "$SYS")" = "$before" ]
}

@test "resolution prefers the system store's copy of an id; the user may remove their own copy" {
	cd "$NR/proj"
	# the user installed it before the admin did
	as_user cudnnvm install --no-validate --archive "$v9_ARCH" --sha256 "$v9_SHA" >/dev/null
	[ -d "$USR/$V9" ]
	admin_install v9
	as_user cudnnvm use 9.19 --no-validate >/dev/null
	run as_user cudnnvm which root
	[ "$status" -eq 0 ]
	[ "$output" = "$SYS/$V9" ]
	run as_user cudnnvm env --shell sh
	[[ "$output" == *"LD_LIBRARY_PATH='$SYS/$V9/lib'"* ]]
	run as_user cudnnvm exec -- sh -c 'echo "$CUDNN_HOME"'
	[ "$output" = "$SYS/$V9" ]
	# their own copy is listed, as hidden
	run as_user cudnnvm list
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *"system $SYS/$V9" ]]
	[[ "${lines[1]}" == *"user   $USR/$V9  (hidden: the system store's copy is used)" ]]
	run as_user cudnnvm list --json
	[[ "$output" == *"\"hidden_user_copy\": \"$USR/$V9\""* ]]
	# their own hidden copy is theirs to remove; the system copy stays
	before=$(tree_state "$SYS")
	run --separate-stderr as_user cudnnvm uninstall "$V9"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"that was your own copy, hidden by the system store's; $SYS/$V9 stays"* ]]
	[ ! -e "$USR/$V9" ]
	[ "$(tree_state "$SYS")" = "$before" ]
	run as_user cudnnvm which root
	[ "$output" = "$SYS/$V9" ]
}

@test "a user's global is their own; without one the system store's default applies" {
	admin_install v9
	admin_install v8
	as_admin cudnnvm global "$V8" --no-validate >/dev/null
	before=$(tree_state "$SYS")
	cd "$NR/proj"
	run as_user cudnnvm current
	[ "$status" -eq 0 ]
	[ "$output" = "$V8 (the system store's default)" ]
	run as_user cudnnvm current --json
	[[ "$output" == *'"origin": "system"'* ]]
	run as_user cudnnvm global
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "$V8" ]
	run as_user cudnnvm global 9.19 --no-validate
	[ "$status" -eq 0 ]
	[ "$(readlink "$USR/current")" = "$SYS/$V9" ]
	[ -e "$USR/current/lib" ]
	run as_user cudnnvm current
	[ "$output" = "$V9 (global default)" ]
	run as_user cudnnvm list
	[[ "${lines[0]}" == ">* $V9 "* ]]
	[ "$(tree_state "$SYS")" = "$before" ]
	run as_user cudnnvm global --unset
	[ "$status" -eq 0 ]
	run as_user cudnnvm current
	[ "$output" = "$V8 (the system store's default)" ]
	run as_user cudnnvm global --system 9.19
	[ "$status" -eq 77 ]
	[ "$(tree_state "$SYS")" = "$before" ]
}

@test "doctor: a user's global in the system store is normal; removed by the admin, said once per shell" {
	admin_install v9
	admin_install v8
	cd "$NR/proj"
	as_user cudnnvm global 9.19 --no-validate >/dev/null
	run as_user cudnnvm doctor
	[[ $output != *"foreign current link"* ]]
	[[ $output != *"current"* ]]
	as_admin cudnnvm uninstall --force "$V9" >/dev/null
	run as_user cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ $output != *"foreign"* ]]
	[[ $output == *"warning: the global version $V9 is no longer in the system store"* ]]
	[[ $output == *"administrator removed"* ]]
	[[ $output == *"fix: cudnnvm global $V8"* ]]
	run --separate-stderr as_user cudnnvm current
	[ "$status" -eq 1 ]
	[[ $stderr == *"administrator removed it"* ]]
	[[ $stderr == *"hint: cudnnvm global --unset"* ]]
	# the prompt hook says it once, not at every cd
	mkdir -p "$NR/proj/a" "$NR/proj/b"
	chown 65534:65534 "$NR/proj/a" "$NR/proj/b"
	bin=$(readlink -f "$CUDNNVM_BIN")
	as_user bash --norc --noprofile -i >/dev/null 2>"$NR/err" <<SH
eval "\$("$bin" init bash)"
cd a
cd ../b
cd ..
:
SH
	[ "$(grep -c 'no longer in the system store' "$NR/err")" -eq 1 ]
}

@test "a user's module tree holds only their own store; the admin's tree the system's" {
	admin_install v9
	as_admin cudnnvm modulefiles --format lua >/dev/null
	[ -f "$SYS/modulefiles/cudnn/$V9.lua" ]
	cd "$NR/proj"
	as_user cudnnvm install --no-validate --archive "$v8_ARCH" --sha256 "$v8_SHA" >/dev/null
	as_user cudnnvm global 9.19 --no-validate >/dev/null
	run as_user cudnnvm modulefiles --format lua
	[ "$status" -eq 0 ]
	[ -f "$USR/modulefiles/cudnn/$V8.lua" ]
	[ ! -e "$USR/modulefiles/cudnn/$V9.lua" ]
	# the default it names is the admin's tree's to set
	[ ! -e "$USR/modulefiles/cudnn/.version" ]
}

@test "per-user state never goes into the system store" {
	admin_install v9
	before=$(tree_state "$SYS")
	cd "$NR/proj"
	run as_user cudnnvm validate --no-gpu 9.19
	[ "$status" -eq 0 ]
	[ -n "$(ls -A "$NR/home/.cache/cudnnvm/validate")" ]
	as_user cudnnvm shim add python3 >/dev/null
	as_user cudnnvm use 9.19 >/dev/null
	as_user cudnnvm list >/dev/null
	[ "$(tree_state "$SYS")" = "$before" ]
}

@test "doctor: a user with no store of their own yet is not an error" {
	admin_install v9
	cd "$NR/proj"
	run as_user cudnnvm doctor
	[[ "$output" != *"cannot read the store"* ]]
	[ ! -e "$USR" ]
}

@test "root's commands do not read a store a user can write" {
	admin_install v9
	as_user cudnnvm install --no-validate --archive "$v8_ARCH" --sha256 "$v8_SHA" >/dev/null
	# root, even with the user's HOME and data folder
	run env XDG_DATA_HOME="$NR/home/.local/share" HOME="$NR/home" \
		CUDNNVM_SYSCONFDIR="$NR/etc" cudnnvm list --json
	[ "$status" -eq 0 ]
	[[ "$output" == *"$V9"* ]]
	[[ "$output" != *"$V8"* ]]
	run env XDG_DATA_HOME="$NR/home/.local/share" HOME="$NR/home" \
		CUDNNVM_SYSCONFDIR="$NR/etc" cudnnvm exec 8.9 -- true
	[ "$status" -eq 1 ]
}

@test "--store and CUDNNVM_STORE still mean exactly one store" {
	admin_install v9
	cd "$NR/proj"
	run as_user cudnnvm --store "$NR/home/only" list --json
	[ "$status" -eq 0 ]
	[ "$output" = "[]" ]
	run as_user env CUDNNVM_STORE="$NR/home/only" cudnnvm exec 9.19 -- true
	[ "$status" -eq 1 ]
	run as_user env CUDNNVM_STORE="$NR/home/only" cudnnvm install --no-validate --archive "$v9_ARCH" --sha256 "$v9_SHA"
	[ "$status" -eq 0 ]
	[ -d "$NR/home/only/$V9" ]
}

@test "the prompt hook reads one more folder at most" {
	command -v strace >/dev/null || skip "strace is not installed"
	admin_install v9
	cd "$NR/proj"
	as_user cudnnvm install --no-validate --archive "$v8_ARCH" --sha256 "$v8_SHA" >/dev/null
	as_user cudnnvm use 9.19 --no-validate >/dev/null
	# root passes over a pin another user owns (H14): root's own pin,
	# which the user follows too, makes both runs resolve it
	chown 0 . .cudnn-version
	# the version is already applied, as at a prompt inside the project:
	# the frameworks check of a switch (which reads the Python
	# environment on PATH, another for root than for the user) stays out
	export CUDNNVM_ACTIVE="$V9"
	count() {
		strace -f -e trace=getdents64,openat,readlink,readlinkat -o "$NR/trace.$1" "${@:2}" >/dev/null 2>&1
		grep -c 'getdents64(' "$NR/trace.$1" || true
	}
	one=$(count one env CUDNNVM_STORE="$SYS" CUDNNVM_SYSCONFDIR="$NR/etc" cudnnvm hook-env --shell bash)
	two=$(count two env HOME="$NR/home" XDG_DATA_HOME="$NR/home/.local/share" \
		XDG_CACHE_HOME="$NR/home/.cache" XDG_CONFIG_HOME="$NR/home/.config" CUDNNVM_SYSCONFDIR="$NR/etc" \
		setpriv --reuid=65534 --regid=65534 --clear-groups cudnnvm hook-env --shell bash)
	echo "one store: $one getdents64 calls, two stores: $two" >&3
	# one listing of a folder is two getdents64 calls (entries, then end)
	[ "$two" -le $((one + 2)) ]
}
