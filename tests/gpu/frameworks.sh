#!/usr/bin/env bash
# tests/gpu/frameworks.sh: the frameworks work on a real GPU with PyTorch.
# Needs the python3 on PATH to be a venv holding a CUDA torch with its
# nvidia-cudnn wheel, and a system cuDNN 9 of an older minor in the loader
# cache (on the H200: torch 2.11 built against 9.19, system 9.14). Packs
# both cuDNN builds as NVIDIA archives (as tests/gpu/run.sh does), installs
# them into a temporary store, then shows:
#  (a) activating the older one is refused, with the gate's message,
#      before torch runs;
#  (b) `exec <torch's build, from the store>` makes torch bind to the
#      store copy: the version torch reports, and every cuDNN sub-library
#      mapped from the store, none from the bundled folder;
#  (c) `exec --force <older>` reproduces torch's own error and
#      `doctor --explain` names the cause;
#  (e) `validate --frameworks` passes for torch's build and fails for the
#      older one, with the reason;
#  (f) `doctor` flags the mixed load a bare LD_LIBRARY_PATH gives (and the
#      maps of that mix are printed);
#  (d) the venv pinned with `cudnnvm venv`, its bin/python run directly
#      with no activation and a bare environment, binds to the store copy.
# (d) runs last: it writes the .pth hook into torch's venv (the machine is
# thrown away after the run; `cudnnvm venv --remove` at the end takes it
# out again). Prints a skip line and exits 0 without a GPU.
#   usage: tests/gpu/frameworks.sh        (CUDNNVM_BIN overrides build/cudnnvm)
set -u
cd "$(dirname "$0")/../.."
. tests/gpu/common.sh
show() { # echo a command (cudnnvm for the binary's path), run it, keep output in $out
	if [ "$1" = "$BIN" ]; then echo "\$ cudnnvm ${*:2}"; else echo "\$ $*"; fi
	out=$("$@" 2>&1)
	rc=$?
	echo "$out"
	echo "(exit $rc)"
}

if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no NVIDIA GPU (nvidia-smi -L failed)"
	exit 0
fi
[ -x "$BIN" ] || make -s >/dev/null || { echo "FAIL: cannot build $BIN"; exit 1; }
nvidia-smi -L
PY=$(command -v python3)
VENV=$(python3 -c 'import sys; print(sys.prefix)')
python3 -c 'import torch; assert torch.cuda.is_available(); print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' ||
	{ echo "FAIL: python3 ($PY) has no CUDA torch"; exit 1; }
echo "torch's environment: $VENV (python3: $PY)"

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export CUDNNVM_STORE="$W/store" XDG_CACHE_HOME="$W/cache"
export XDG_CONFIG_HOME="$W/config" CUDNNVM_SYSCONFDIR="$W/etc"
unset CUDNNVM_VERSION CUDNNVM_ACTIVE LD_LIBRARY_PATH LD_PRELOAD CONDA_PREFIX
export VIRTUAL_ENV="$VENV"

describe() { # "M.m.p cudaN" of a folder's libcudnn.so.9
	python3 - "$1" <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1] + "/libcudnn.so.9")
v, rt = lib.cudnnGetVersion(), lib.cudnnGetCudartVersion()
print("%d.%d.%d %d" % (v // 10000, v // 100 % 100, v % 100, rt // 1000))
PY
}
sys_dir=$(ldconfig -p | awk '/libcudnn.so.9 /{print $NF; exit}')
sys_dir=${sys_dir%/*}
pip_dir=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null)/lib
[ -e "$sys_dir/libcudnn.so.9" ] || { echo "FAIL: no system cuDNN 9 in ldconfig -p"; exit 1; }
[ -e "$pip_dir/libcudnn.so.9" ] || { echo "FAIL: no nvidia.cudnn wheel for python3"; exit 1; }
read -r sys_v sys_cuda < <(describe "$sys_dir")
read -r pip_v pip_cuda < <(describe "$pip_dir")
sys_b=$(dpkg-query -W -f '${Version}\n' 'libcudnn9-cuda-*' 2>/dev/null | sed -n "s/^$sys_v\.\([0-9]*\).*/\1/p" | head -1)
pip_b=$(python3 -c "import importlib.metadata as m
for d in m.distributions():
    n = d.metadata['Name'] or ''
    if n.startswith('nvidia-cudnn-cu'): print(d.version.split('.')[3]); break" 2>/dev/null)
sys_id="$sys_v.${sys_b:-0}-cuda$sys_cuda"
pip_id="$pip_v.${pip_b:-0}-cuda$pip_cuda"
echo "system cuDNN: $sys_dir -> $sys_id"
echo "torch's cuDNN: $pip_dir -> $pip_id"
pip_real=$(realpath "$pip_dir")
store_lib="$CUDNNVM_STORE/$pip_id/lib"

echo "== pack and install both"
for k in sys pip; do
	dir=$sys_dir id=$sys_id cuda=$sys_cuda
	[ $k = pip ] && dir=$pip_dir id=$pip_id cuda=$pip_cuda
	arch=${CUDNNVM_GPU_ARCHIVES:-$W/arch}
	mkdir -p "$arch"
	if [ -s "$arch/$id.json" ]; then
		cp "$arch/$id.json" "$W/$k.json"
	else
		python3 tests/fixtures/mkarchive.py nvidia --out "$arch" --preset 0 \
			--version "${id%-cuda*}" --cuda "$cuda" --libdir "$dir" >"$W/$k.json" || bad "pack $k"
		cp "$W/$k.json" "$arch/$id.json"
	fi
	f() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$W/$k.json" "$1"; }
	"$BIN" -q install --archive "$(f path)" --sha256 "$(f sha256)" || bad "install $id"
done
"$BIN" list
show "$BIN" frameworks

# torch's smallest convolution, then what it bound to
PROBE='import collections, torch
x = torch.randn(1, 3, 16, 16, device="cuda"); w = torch.randn(4, 3, 3, 3, device="cuda")
torch.nn.functional.conv2d(x, w); torch.cuda.synchronize()
print("conv ran; torch.backends.cudnn.version() =", torch.backends.cudnn.version())
maps = collections.Counter(l.split()[-1] for l in open("/proc/self/maps") if "libcudnn" in l)
for p in sorted(maps): print("  map %2d %s" % (maps[p], p))'

echo "== (a) the older build is refused before torch runs"
mkdir -p "$W/proj" && cd "$W/proj"
show "$BIN" exec "$sys_id" -- python3 -c 'print("torch started")'
[ $rc -eq 1 ] && [[ $out == "cudnnvm: not activating $sys_id: torch "*" needs cuDNN 9.x ≥ $(echo "$pip_v" | cut -d. -f1-2) built for CUDA $pip_cuda"$'\n'"hint: cudnnvm exec "* ]] &&
	! grep -qx "torch started" <<<"$out" && ok "(a) exec $sys_id refused with the gate's message" || bad "(a) exec $sys_id"
show "$BIN" use "$sys_id"
[ $rc -eq 1 ] && [ ! -e .cudnn-version ] && ok "(a) use $sys_id refused, nothing written" || bad "(a) use $sys_id"
cd - >/dev/null

echo "== (b) exec of the store copy: torch binds to it alone"
show "$BIN" exec "$pip_id" -- python3 -c "$PROBE"
subs_store=$(grep -c "map .*$store_lib/libcudnn_" <<<"$out")
subs_pip=$(grep -c "map .*$pip_real/libcudnn_\|map .*$pip_dir/libcudnn_" <<<"$out")
if [ $rc -eq 0 ] && [[ $out == *"cudnn.version() = $(echo "$pip_v" | awk -F. '{print $1*10000+$2*100+$3}')"* ]] &&
	[ "$subs_store" -gt 0 ] && [ "$subs_pip" -eq 0 ]; then
	ok "(b) version $pip_v, $subs_store sub-library mappings from the store, none from $pip_dir"
else
	bad "(b) store sub-library mappings: $subs_store, bundled: $subs_pip (exit $rc)"
fi

echo "== (c) --force the older build: torch's own error, and doctor --explain"
show "$BIN" exec --force "$sys_id" -- python3 -c "$PROBE"
line=$(grep -m1 "cuDNN version incompatibility" <<<"$out")
[ -n "$line" ] && ok "(c) torch refuses it: $line" || bad "(c) no torch error under --force"
show "$BIN" doctor --explain "${line:-cuDNN version incompatibility}"
[[ $out == *"cudnnvm frameworks"* ]] && ok "(c) doctor --explain names the cause" || bad "(c) doctor --explain"

echo "== (e) validate --frameworks"
show "$BIN" validate "$pip_id" --frameworks
[ $rc -eq 0 ] && [[ $out == *"framework torch      pass"* ]] && ok "(e) $pip_id passes on torch" || bad "(e) $pip_id"
show "$BIN" validate "$sys_id" --frameworks
[ $rc -eq 1 ] && [[ $out == *"framework torch      fail:"* ]] && ok "(e) $sys_id fails on torch, with the reason" || bad "(e) $sys_id"

echo "== (f) the bare LD_LIBRARY_PATH mix, and doctor"
echo "\$ LD_LIBRARY_PATH=$store_lib python3 -c PROBE   (no cudnnvm)"
LD_LIBRARY_PATH="$store_lib" python3 -c "$PROBE" 2>&1
show env LD_LIBRARY_PATH="$store_lib" "$BIN" doctor
[[ $out == *"mixed cuDNN load in $VENV"* ]] && [[ $out != *"pip uninstall"* ]] &&
	ok "(f) doctor flags the mix, without uninstall advice" || bad "(f) doctor"

echo "== (d) the venv pinned, bin/python run directly with no activation"
show "$BIN" venv "$pip_id" --path "$VENV"
[ $rc -eq 0 ] || bad "(d) venv $pip_id"
show env -i HOME="$HOME" PATH=/usr/bin:/bin "$VENV/bin/python" -c "$PROBE"
subs_store=$(grep -c "map .*$store_lib/libcudnn_" <<<"$out")
subs_pip=$(grep -c "map .*$pip_real/libcudnn_\|map .*$pip_dir/libcudnn_" <<<"$out")
[ $rc -eq 0 ] && [ "$subs_store" -gt 0 ] && [ "$subs_pip" -eq 0 ] &&
	ok "(d) bin/python binds to the pinned store copy ($subs_store sub-library mappings)" ||
	bad "(d) store: $subs_store, bundled: $subs_pip (exit $rc)"
echo "\$ time of an interpreter start with the hook"
for i in 1 2 3; do /usr/bin/time -f "%e s" env -i PATH=/usr/bin:/bin "$VENV/bin/python" -c pass; done
"$BIN" -q venv --remove --path "$VENV"

echo "== bench"
bash bench/bench_frameworks.sh || bad "bench"
echo "== $fails failure(s)"
[ $fails -eq 0 ]
