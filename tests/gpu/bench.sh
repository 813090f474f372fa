#!/usr/bin/env bash
# tests/gpu/bench.sh: `cudnnvm bench` on a real NVIDIA GPU with two real
# cuDNN 9 builds (the system one and PyTorch's, installed by builds.sh):
# the default run (ResNet-50's convolutions at batch 64, fp16, NCHW and
# NHWC, both versions) timed against its 60 s budget, the fp32 and bf16
# tables, then one layer cross-checked against PyTorch with
# torch.backends.cudnn.benchmark = True, bound to the same cuDNN build
# (every libcudnn*.so.9 of the install preloaded RTLD_GLOBAL before torch
# is imported), same shape, dtype and layout: the medians must agree
# within 15%. Prints everything a results note needs. Needs python3, xz
# and torch; prints a skip line and exits 0 without a GPU.
#   usage: tests/gpu/bench.sh      (CUDNNVM_BIN overrides build/cudnnvm)
set -u
cd "$(dirname "$0")/../.."
. tests/gpu/builds.sh

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv

echo "== the default run: resnet50 (batch 64), fp16, nchw and nhwc, both versions"
t0=$(date +%s.%N)
run "$BIN" bench >"$W/fp16.txt"
rc=$?
t1=$(date +%s.%N)
cat "$W/fp16.txt"
secs=$(python3 -c "print('%.1f' % ($t1 - $t0))")
echo "default run: $secs s (exit $rc)"
[ $rc -eq 0 ] && ok "bench ran both versions" || bad "bench exit $rc"
python3 -c "import sys; sys.exit(0 if $secs <= 60 else 1)" &&
	ok "default run in $secs s (budget 60 s)" || bad "default run took $secs s (budget 60 s)"
grep -q "^$sys_id: fastest on" "$W/fp16.txt" && grep -q "^$pip_id: fastest on" "$W/fp16.txt" &&
	ok "both versions benchmarked" || bad "a version was not benchmarked"

for dt in fp32 bf16; do
	echo "== $dt"
	run "$BIN" bench --dtype "$dt" || bad "bench --dtype $dt"
done

echo "== --json (fp16): every figure"
run "$BIN" bench --json >"$W/fp16.json" || bad "bench --json"
python3 - "$W/fp16.json" <<'PY' && ok "json: >= 20 timed runs per figure, all layers ran" || bad "json figures"
import json, sys
j = json.load(open(sys.argv[1]))
print("gpu:", j["gpu"])
for v in j["versions"]:
    res = v["results"]
    okc = sum(r["status"] == "ok" for r in res)
    print("%s: %d of %d layers ok, %.1f s" % (v["id"], okc, len(res), v["seconds"]))
    assert v["benchmarked"] and okc == len(res), v["id"]
    assert all(r["runs"] >= 20 for r in res)
    how = {}
    for r in res:
        how[r["chosen_by"]] = how.get(r["chosen_by"], 0) + 1
    print("%s: chosen by %s" % (v["id"], how))
    for l, r in zip(j["layers"], res):
        if r.get("engine_fallback"):
            print("  %s %s %s: engine path gave way: %s" % (l["name"], l["dtype"], l["layout"], r["engine_fallback"]))
PY

echo "== cross-check one layer against PyTorch (cudnn.benchmark = True, same build)"
# res2 3x3 64>64 @56: batch 64, fp16, channels-last, pad 1
printf 'xcheck 64 64 56 56 64 3 3 1 1 1 1 fp16 nhwc\n' >"$W/xcheck.shapes"
run "$BIN" bench "$pip_id" --shapes "$W/xcheck.shapes" --json >"$W/xcheck.json" || bad "bench xcheck"
python3 - "$CUDNNVM_STORE/$pip_id/lib" "$W/xcheck.json" <<'PY'
import ctypes, glob, json, os, sys
libdir, path = sys.argv[1], sys.argv[2]
# bind torch to the install's cuDNN: its libraries first, globally
for so in sorted(glob.glob(os.path.join(libdir, "libcudnn*.so.9"))):
    ctypes.CDLL(so, mode=ctypes.RTLD_GLOBAL)
import torch
import torch.nn.functional as F
torch.backends.cudnn.benchmark = True
maps = open("/proc/self/maps").read()
mine = {l.split()[-1] for l in maps.splitlines() if "libcudnn" in l}
print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version(), "loaded from:", sorted({os.path.dirname(p) for p in mine}))
x = torch.randn(64, 64, 56, 56, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
w = torch.randn(64, 64, 3, 3, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
for _ in range(10):  # the first call autotunes the engine configs
    F.conv2d(x, w, padding=1)
torch.cuda.synchronize()
runs = 30
ev = [torch.cuda.Event(enable_timing=True) for _ in range(runs + 1)]
for i in range(runs):  # back to back, as cudnnvm bench times them
    ev[i].record()
    F.conv2d(x, w, padding=1)
ev[runs].record()
torch.cuda.synchronize()
t = sorted(ev[i].elapsed_time(ev[i + 1]) for i in range(runs))
torch_ms = t[runs // 2]
r = json.load(open(path))["versions"][0]["results"][0]
ours = r["ms"]
diff = abs(ours - torch_ms) / torch_ms
pick = "engine %s" % r["engine"] if r["chosen_by"] == "engines" else "algo %s" % r["algo"]
print("xcheck 64x64x56x56 3x3 64>64 fp16 nhwc: cudnnvm %.4f ms (%s, chosen by %s, %d rejected, q1-q3 %.4f-%.4f), torch %.4f ms (min %.4f max %.4f): %.1f%% apart"
      % (ours, pick, r["chosen_by"], r["rejected"], r["q1_ms"], r["q3_ms"], torch_ms, t[0], t[-1], diff * 100))
if r.get("engine_fallback"):
    print("the engine path gave way to the legacy find:", r["engine_fallback"])
bad = [p for p in mine if not os.path.realpath(p).startswith(os.path.realpath(libdir))]
if bad:
    print("torch loaded cuDNN from elsewhere:", bad)
    sys.exit(1)
sys.exit(0 if diff <= 0.15 else 1)
PY
[ $? -eq 0 ] && ok "cross-check within 15% of torch on the same build" || bad "cross-check against torch"

echo "== $fails failure(s)"
[ $fails -eq 0 ]
