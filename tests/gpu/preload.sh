#!/usr/bin/env bash
# tests/gpu/preload.sh: the .pth hook of `cudnnvm venv` with the real cuDNN
# and a real CUDA torch. Needs the python3 on PATH to be a venv holding a
# CUDA torch with its nvidia-cudnn wheel (on the H200: torch 2.11 and
# nvidia-cudnn-cu13 9.19). Packs the wheel's cuDNN as NVIDIA's archive,
# installs it into a temporary store, pins it to torch's venv, then shows:
#  (a) `python -c pass` costs at most 1 ms more with the hook than without
#      (median of 15 starts each, alternating, in one run: the hook's
#      cudnnvm.pth is renamed away and back between the starts), and maps
#      no cuDNN;
#  (b) `import torch` and a convolution, in the main thread and in a
#      thread: torch reports the pinned version, every libcudnn* of the
#      store is mapped, no sub-library of torch's own copy is, and where
#      torch maps its own front library by path, LD_DEBUG=bindings shows
#      no symbol of another object bound to it.
# `cudnnvm venv --remove` takes the hook out at the end. Prints a skip line
# and exits 0 without a GPU.
#   usage: tests/gpu/preload.sh        (CUDNNVM_BIN overrides build/cudnnvm)
set -u
cd "$(dirname "$0")/../.."
. tests/gpu/common.sh

if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no NVIDIA GPU (nvidia-smi -L failed)"
	exit 0
fi
[ -x "$BIN" ] || make -s >/dev/null || { echo "FAIL: cannot build $BIN"; exit 1; }
nvidia-smi -L
VENV=$(python3 -c 'import sys; print(sys.prefix)')
python3 -c 'import torch; assert torch.cuda.is_available(); print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' ||
	{ echo "FAIL: python3 has no CUDA torch"; exit 1; }
W=$(mktemp -d)
export CUDNNVM_STORE="$W/store" XDG_CACHE_HOME="$W/cache"
export XDG_CONFIG_HOME="$W/config" CUDNNVM_SYSCONFDIR="$W/etc"
unset CUDNNVM_VERSION CUDNNVM_ACTIVE CUDNN_LIB_DIR LD_LIBRARY_PATH LD_PRELOAD CONDA_PREFIX
export VIRTUAL_ENV="$VENV"
trap '"$BIN" -q venv --remove --path "$VENV"; rm -rf "$W"' EXIT

pip_dir=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null)/lib
[ -e "$pip_dir/libcudnn.so.9" ] || { echo "FAIL: no nvidia.cudnn wheel for python3"; exit 1; }
read -r v cuda < <(python3 -c 'import ctypes, sys
lib = ctypes.CDLL(sys.argv[1] + "/libcudnn.so.9")
v, rt = lib.cudnnGetVersion(), lib.cudnnGetCudartVersion()
print("%d.%d.%d %d" % (v // 10000, v // 100 % 100, v % 100, rt // 1000))' "$pip_dir")
b=$(python3 -c "import importlib.metadata as m
for d in m.distributions():
    if (d.metadata['Name'] or '').startswith('nvidia-cudnn-cu'): print(d.version.split('.')[3]); break")
id="$v.${b:-0}-cuda$cuda"
pip_real=$(realpath "$pip_dir")
store_lib="$CUDNNVM_STORE/$id/lib"
echo "torch's cuDNN: $pip_dir -> $id"

echo "== pack, install and pin $id"
arch=${CUDNNVM_GPU_ARCHIVES:-$W/arch}
mkdir -p "$arch"
[ -s "$arch/$id.json" ] ||
	python3 tests/fixtures/mkarchive.py nvidia --out "$arch" --preset 0 \
		--version "$v.${b:-0}" --cuda "$cuda" --libdir "$pip_dir" >"$arch/$id.json" ||
	{ echo "FAIL: pack $id"; exit 1; }
f() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$arch/$id.json" "$1"; }
"$BIN" -q install --archive "$(f path)" --sha256 "$(f sha256)" --no-validate || { echo "FAIL: install $id"; exit 1; }
"$BIN" venv "$id" --path "$VENV" || { echo "FAIL: venv $id"; exit 1; }
pth=$(echo "$VENV"/lib/python3*/site-packages/cudnnvm.pth)
[ -f "$pth" ] || { echo "FAIL: no cudnnvm.pth in $VENV"; exit 1; }

echo "== (a) python -c pass: with the hook against without, median of 15"
python3 - "$VENV/bin/python" "$pth" <<'PY' >"$W/a.txt"
import os, statistics, sys, time
py, pth = sys.argv[1], sys.argv[2]
env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/")}
def once():
    t = time.perf_counter()
    pid = os.posix_spawn(py, [py, "-c", "pass"], env)
    _, st, ru = os.wait4(pid, 0)
    if st:
        sys.exit("python -c pass failed")
    return (time.perf_counter() - t) * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3
got = {True: [], False: []}
try:
    for i in range(18):
        for hooked in (True, False) if i % 2 else (False, True):
            if not hooked:
                os.rename(pth, pth + ".off")
            try:
                r = once()
            finally:
                if not hooked:
                    os.rename(pth + ".off", pth)
            if i >= 3:  # the first starts warm the page cache
                got[hooked].append(r)
finally:
    if os.path.exists(pth + ".off"):
        os.rename(pth + ".off", pth)
med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)) for k, v in got.items()}
print("without %.2f %.2f" % med[False])
print("with %.2f %.2f" % med[True])
print("added %.2f %.2f" % (med[True][0] - med[False][0], med[True][1] - med[False][1]))
PY
cat "$W/a.txt"
read -r _ wall cpu < <(grep '^added' "$W/a.txt")
[ -n "${wall:-}" ] && awk -v w="$wall" 'BEGIN { exit !(w <= 1.0) }' &&
	ok "(a) python -c pass: +$wall ms wall, +$cpu ms cpu with the hook (target <= 1 ms)" ||
	bad "(a) python -c pass: +${wall:-?} ms wall with the hook (target <= 1 ms)"
maps=$(env -i PATH=/usr/bin:/bin "$VENV/bin/python" -c 'print(sum("libcudnn" in l for l in open("/proc/self/maps")))')
[ "$maps" = 0 ] && ok "(a) python -c pass maps no cuDNN" || bad "(a) python -c pass maps $maps cuDNN mappings"

echo "== (b) import torch and a convolution bind to the store's cuDNN alone"
PROBE='import collections, sys, threading
def conv():
    import torch
    x = torch.randn(1, 3, 16, 16, device="cuda"); w = torch.randn(4, 3, 3, 3, device="cuda")
    torch.nn.functional.conv2d(x, w); torch.cuda.synchronize()
    print("version", torch.backends.cudnn.version())
if sys.argv[1] == "thread":
    t = threading.Thread(target=conv); t.start(); t.join()
else:
    conv()
for p in sorted(set(l.split()[-1] for l in open("/proc/self/maps") if "libcudnn" in l)): print("map", p)'
want=$(echo "$v" | awk -F. '{print $1*10000+$2*100+$3}')
for how in main thread; do
	out=$(env -i PATH=/usr/bin:/bin HOME="$HOME" LD_DEBUG=bindings LD_DEBUG_OUTPUT="$W/bind.$how" \
		"$VENV/bin/python" -c "$PROBE" "$how" 2>&1)
	rc=$?
	echo "$out" | grep -v "^map" | tail -3
	missing=0
	for l in "$store_lib"/libcudnn*.so.9; do
		grep -qx "map $(realpath "$l")" <<<"$out" || { echo "  not mapped: $l"; missing=$((missing + 1)); }
	done
	n=$(grep -c "^map $CUDNNVM_STORE/$id/lib/libcudnn" <<<"$out")
	own_subs=$(grep -c "^map \($pip_real\|$pip_dir\)/libcudnn_" <<<"$out")
	own_front=$(grep -c "^map \($pip_real\|$pip_dir\)/libcudnn.so" <<<"$out")
	# a binding from another object to torch's own copy (its own copy's
	# references to itself are no mix)
	bound=$(cat "$W/bind.$how".* 2>/dev/null | awk -v a="$pip_real/" -v b="$pip_dir/" '
		$0 ~ /binding file/ {
			from = $0; sub(/.*binding file /, "", from); sub(/ .*/, "", from)
			to = $0; sub(/.* to /, "", to); sub(/ .*/, "", to)
			own = index(to, a) == 1 || index(to, b) == 1
			self = index(from, a) == 1 || index(from, b) == 1
			if (own && !self && to ~ /libcudnn/) n++
		}
		END { print n + 0 }')
	if [ $rc -eq 0 ] && [[ $out == *"version $want"* ]] && [ $missing -eq 0 ] && [ "$own_subs" -eq 0 ] && [ "$bound" -eq 0 ]; then
		ok "(b, $how) torch reports $want; all $n store libcudnn* mapped, none of its own sub-libraries; $own_front own front mapping, no symbol bound to it"
	else
		bad "(b, $how) exit $rc; store files not mapped: $missing; own sub-libraries mapped: $own_subs; symbols bound to its own copy: $bound"
	fi
	rm -f "$W/bind.$how".*
done
echo "== $fails failure(s)"
[ $fails -eq 0 ]
