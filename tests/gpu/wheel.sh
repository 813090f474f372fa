#!/usr/bin/env bash
# tests/gpu/wheel.sh: the release wheel on a GPU machine that has neither
# libarchive nor libinih: pip installs it into a fresh venv, offline, and
# the cudnnvm it gives installs the machine's own cuDNN 9 (packed as an
# NVIDIA archive), activates it and validates it with a real convolution.
# Nothing is built and no other library is added to the machine.
#   usage: tests/gpu/wheel.sh WHEEL      (a wheel from make wheel / make dist)
# Needs python3 with venv and pip, xz; prints a skip line and exits 0
# without a GPU.
set -u
whl=$(realpath "${1:?usage: tests/gpu/wheel.sh cudnnvm-VERSION-py3-none-manylinux_*.whl}") || exit 1
cd "$(dirname "$0")/../.." || exit 1
. tests/gpu/common.sh
run() { echo "\$ $*" >&2 && "$@"; }

if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no NVIDIA GPU (nvidia-smi -L failed)"
	exit 0
fi
nvidia-smi -L
. /etc/os-release && echo "machine: $PRETTY_NAME, $(ldd --version | head -1)"
for l in libarchive.so.13 libinih.so.1 libinih.so.0; do
	ldconfig -p | grep -q " $l " && echo "note: this machine has $l" || echo "this machine has no $l"
done

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export CUDNNVM_STORE="$W/store" XDG_CACHE_HOME="$W/cache" HOME="$W/home"
export XDG_CONFIG_HOME="$W/config" CUDNNVM_SYSCONFDIR="$W/etc"
unset CUDNNVM_VERSION LD_LIBRARY_PATH
mkdir -p "$HOME"

echo "== pip install the wheel into a fresh venv (offline)"
python3 -m venv "$W/venv" || { bad "python3 -m venv"; exit 1; }
if run "$W/venv/bin/pip" install --no-index --no-cache-dir "$whl" >"$W/pip.log" 2>&1; then
	ok "pip install --no-index ${whl##*/}"
else
	cat "$W/pip.log"
	bad "pip install --no-index ${whl##*/}"
	exit 1
fi
BIN=$W/venv/bin/cudnnvm
run "$BIN" --version && ok "cudnnvm --version" || bad "cudnnvm --version"
helper=$(ls "$W"/venv/lib/python3*/site-packages/cudnnvm.scripts/cudnnvm-helper)
if ldd "$helper" | grep -q 'not found'; then
	ldd "$helper"
	bad "the helper's libraries: some not found"
else
	ok "the helper finds every library it needs ($(ldd "$helper" | grep -c 'cudnnvm.libs/') from the wheel)"
fi

echo "== pack the machine's cuDNN 9 as an NVIDIA archive"
dir=$(ldconfig -p | awk '/libcudnn.so.9 /{print $NF; exit}')
dir=${dir%/*}
[ -e "$dir/libcudnn.so.9" ] ||
	dir=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null)/lib
[ -e "$dir/libcudnn.so.9" ] || { bad "no cuDNN 9 here (ldconfig -p, python3's nvidia.cudnn)"; exit 1; }
read -r ver cuda < <(python3 - "$dir" <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1] + "/libcudnn.so.9")
v, rt = lib.cudnnGetVersion(), lib.cudnnGetCudartVersion()
print("%d.%d.%d.0 %d" % (v // 10000, v // 100 % 100, v % 100, rt // 1000))
PY
)
id=$ver-cuda$cuda
echo "cuDNN: $dir -> $id"
python3 tests/fixtures/mkarchive.py nvidia --out "$W/arch" --preset 0 \
	--version "$ver" --cuda "$cuda" --libdir "$dir" >"$W/arch.json" || { bad "pack $dir"; exit 1; }
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

echo "== install (validates), use, validate on the GPU"
if run "$BIN" install --archive "$(field "$W/arch.json" path)" --sha256 "$(field "$W/arch.json" sha256)"; then
	ok "install $id from an NVIDIA-shaped archive with the wheel's cudnnvm"
else
	bad "install $id"
fi
mkdir -p "$W/project" && cd "$W/project" || exit 1
# outside torch's environment (python3 on PATH may be torch's venv, whose
# frameworks gate refuses a cuDNN it does not bundle: frameworks.sh checks that)
PATH=/usr/bin:/bin:$PATH run "$BIN" use "$ver" && "$BIN" current | grep -q "$id" &&
	ok "use pins $id" || bad "use $ver"
out=$(run "$BIN" validate 2>&1)
rc=$?
echo "$out"
if [ $rc -eq 0 ] && echo "$out" | grep -q "5 gpu *pass"; then
	ok "validate $id: convolution on the GPU matches"
else
	bad "validate $id (exit $rc)"
fi
cd "$W" || exit 1
run "$W/venv/bin/pip" uninstall -y cudnnvm >/dev/null && [ ! -e "$BIN" ] &&
	ok "pip uninstall removes it" || bad "pip uninstall"

echo "== $fails failure(s)"
[ $fails -eq 0 ]
