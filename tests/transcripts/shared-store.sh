#!/bin/bash
# shared-store.sh: a session transcript of an admin and a user sharing one
# system store. Run as root from the repository (after `make`); it builds
# stub cuDNN archives, points the system configuration at a temporary
# system store, and prints each command with its output:
#   admin (root): install two versions into the system store, set the
#                 machine default, write module files;
#   user (uid 65534, HOME in the temporary folder): list, install a third
#                 version into their own store, use, current, which, and an
#                 uninstall of a system version that is refused.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin="$repo/build/cudnnvm"
[ "$(id -u)" -eq 0 ] || { echo "run as root (it drops to uid 65534 for the user)" >&2; exit 1; }
[ -x "$bin" ] || { echo "build first: make" >&2; exit 1; }

W=$(mktemp -d "${TMPDIR:-/tmp}/cudnnvm-shared.XXXXXX")
trap 'rm -rf "$W"' EXIT
chmod 755 "$W"
mkdir -p "$W/etc" "$W/home" "$W/a" "$W/home/proj"
"$repo/tests/fixtures/build_stubs.sh" "$W/stubs" >/dev/null
pack() { # pack STUB VERSION CUDA -> "path sha256"
	python3 "$repo/tests/fixtures/mkarchive.py" nvidia --out "$W/a" \
		--version "$2" --cuda "$3" --libdir "$W/stubs/$1/lib" --preset 0 |
		python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["path"], j["sha256"])'
}
read -r A9 S9 < <(pack v9 9.19.0.56 13)
read -r A8 S8 < <(pack v8 8.9.7.29 12)
read -r A7 S7 < <(pack v7 7.6.5.32 10)
printf '[store]\npath = %s/opt/cudnn\n' "$W" >"$W/etc/config.ini"
chmod -R a+rX "$W/a" "$W/etc" "$W/stubs"
chown -R 65534:65534 "$W/home"
# a copy the user can reach, whatever the permissions above the checkout
cp "$bin" "$W/cudnnvm"
chmod 755 "$W/cudnnvm"
export PATH="$W:$PATH" CUDNNVM_SYSCONFDIR="$W/etc" CUDNNVM_TEST_CUDA_LIBDIRS="$W/stubs/cuda-nodev"
unset CUDNNVM_STORE CUDNNVM_VERSION CUDNNVM_CONFIG
short() { sed -e "s|$W|<tmp>|g"; }

# each command's own exit status is shown when it is not 0
user() {
	local out rc
	printf '\nuser$ %s\n' "$*" | short
	out=$(cd "$W/home/proj" && env HOME="$W/home" XDG_DATA_HOME="$W/home/.local/share" \
		XDG_CACHE_HOME="$W/home/.cache" XDG_CONFIG_HOME="$W/home/.config" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@" 2>&1) && rc=0 || rc=$?
	[ -z "$out" ] || printf '%s\n' "$out" | short
	[ "$rc" -eq 0 ] || printf '[exit %d]\n' "$rc"
}
admin() {
	local out rc
	printf '\nadmin# %s\n' "$*" | short
	out=$(cd "$W" && env HOME="$W/root-home" "$@" 2>&1) && rc=0 || rc=$?
	[ -z "$out" ] || printf '%s\n' "$out" | short
	[ "$rc" -eq 0 ] || printf '[exit %d]\n' "$rc"
}

echo "# system config $W/etc/config.ini:" | short
sed 's/^/#   /' "$W/etc/config.ini" | short
admin cudnnvm install --no-validate --archive "$A9" --sha256 "$S9"
admin cudnnvm install --no-validate --archive "$A8" --sha256 "$S8"
admin cudnnvm validate --no-gpu 9.19
admin cudnnvm global 9.19
admin cudnnvm modulefiles
admin cudnnvm list
user cudnnvm list
user cudnnvm current
user cudnnvm install 9.19.0.56-cuda13
user cudnnvm install --no-validate --archive "$A7" --sha256 "$S7"
user cudnnvm list
user cudnnvm use 8.9
user cudnnvm current
user cudnnvm which lib
user cudnnvm validate --no-gpu
user cudnnvm global 7.6
user cudnnvm list --json
user cudnnvm uninstall 9.19
user cudnnvm install --force --no-validate --archive "$A9" --sha256 "$S9"
user cudnnvm global --system 8.9
user cudnnvm uninstall 7.6 --force
admin cudnnvm list
