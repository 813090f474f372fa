#!/usr/bin/env bash
# bench_preload.sh: what the .pth preload hook of `cudnnvm venv` costs an
# interpreter, in one run.
#  - `python -c pass` in a venv with the hook against the same venv
#    without it: the hook only adds its finder to sys.meta_path, so a
#    start that imports no framework should cost <= 1 ms more.
#  - `python -c 'import torch'` (a stand-in package, stub cuDNN libraries):
#    the load the hook now makes on a framework's first import, against
#    the same import without the hook.
# Runs alternate between the two interpreters (so a load on the machine
# falls on both alike); each figure is the median of BENCH_RUNS (41) runs,
# wall clock and CPU (user + system, from wait4), and the fastest run.
set -eu
cd "$(dirname "$0")/.."
. bench/common.sh
bench_bin
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export HOME="$W/home" XDG_CONFIG_HOME="$W/home/.config" XDG_DATA_HOME="$W/home/.local/share"
export XDG_CACHE_HOME="$W/home/.cache" CUDNNVM_STORE="$W/store" CUDNNVM_SYSCONFDIR="$W/etc"
unset CUDNNVM_VERSION CUDNNVM_ACTIVE CUDNN_LIB_DIR CUDNNVM_CONFIG VIRTUAL_ENV CONDA_PREFIX LD_LIBRARY_PATH
mkdir -p "$HOME/.config/cudnnvm" "$W/etc"
printf '[install]\nvalidate = no\n' >"$HOME/.config/cudnnvm/config.ini"
python3 -m venv --without-pip "$W/hooked" 2>/dev/null && python3 -m venv --without-pip "$W/bare" ||
	{ echo "skip: python3 -m venv does not work here"; exit 0; }
tests/fixtures/build_stubs.sh "$W/stubs" >/dev/null
id=9.19.0.56-cuda13
d="$CUDNNVM_STORE/$id"
mkdir -p "$d/include"
cp -r "$W/stubs/v9/lib" "$d/lib"
printf '{"id": "%s", "version": "%s", "cuda": 13, "platform": "linux-x86_64", "sha256": "%064d", "size": 1, "source": "bench", "installed_at": "2026-01-01T00:00:00Z"}\n' \
	"$id" "${id%-cuda*}" 0 >"$d/cudnnvm.json"
"$BIN" -q venv "$id" --path "$W/hooked" --force
for v in hooked bare; do
	sp=$(echo "$W/$v"/lib/python3*/site-packages)
	mkdir -p "$sp/torch"
	: >"$sp/torch/__init__.py"
done
python3 - "$W" "${BENCH_RUNS:-41}" <<'PY'
import os, statistics, sys, time
w, runs = sys.argv[1], int(sys.argv[2])

def once(argv):
    t = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t
    if status:
        sys.exit("bench: %s failed" % " ".join(argv))
    return wall * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3

def pair(code):
    got = {"bare": [], "hooked": []}
    for i in range(runs + 3):
        for v in ("bare", "hooked") if i % 2 else ("hooked", "bare"):
            r = once([w + "/" + v + "/bin/python", "-c", code])
            if i >= 3:  # the first runs warm the page cache
                got[v].append(r)
    return [(statistics.median(x[0] for x in got[v]), statistics.median(x[1] for x in got[v]),
             min(x[0] for x in got[v])) for v in ("bare", "hooked")]

for what, code, target in (("python -c pass", "pass", " (target <= 1 ms)"),
                           ("python -c 'import torch'", "import torch", "")):
    bare, hooked = pair(code)
    for name, r in (("without the hook", bare), ("with cudnnvm.pth", hooked)):
        print("%-44s %7.2f ms wall  %7.2f ms cpu  (fastest %.2f ms)" % (what + ", " + name, r[0], r[1], r[2]))
    # on a loaded machine the median carries other processes' time; the
    # fastest run of each is the start with the least of it
    print("added by the hook: %.2f ms wall, %.2f ms cpu, %.2f ms fastest to fastest; ratio %.3f wall%s"
          % (hooked[0] - bare[0], hooked[1] - bare[1], hooked[2] - bare[2], hooked[0] / bare[0], target))
PY
