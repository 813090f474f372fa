#!/bin/sh
# Install the Debian packages cudnnvm builds, tests and benchmarks with.
# As root: apt-get install whatever is missing. Otherwise: print the line.
set -e
PKGS="gcc make pkg-config libarchive-dev libcurl4-openssl-dev libssl-dev liblzma-dev
libdeflate-dev libinih-dev libjansson-dev bats zsh fish dash python3 python3-venv python3-jsonschema openssl
xz-utils zip unzip util-linux lmod tcl slurm-wlm munge mandoc curl ca-certificates procps
hyperfine direnv file binutils strace time bsdutils tcsh clang libclang-rt-14-dev
bash-completion tcl-dev liblua5.3-dev"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "cudnnvm: missing packages; run: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || apt-get update
apt-get install -y -qq --no-install-recommends $missing >/dev/null
