#!/usr/bin/env bash
# bench_frameworks.sh: what the framework check costs, in one run (what the
# .pth hook costs an interpreter is bench_preload.sh).
#  - exec in a virtualenv of 150+ installed distributions (torch among
#    them, with its nvidia-cudnn wheel) against exec outside any Python
#    environment; target <= 1.3x. Also the worst case: a cuDNN wheel no
#    known framework asked for, which makes the check read every METADATA.
# Versions are made by hand in a private store; environments are laid out
# by tests/fixtures/mkpyenv.py from the real METADATA fixtures.
set -eu
cd "$(dirname "$0")/.."
BIN="${CUDNNVM_BIN:-$PWD/build/cudnnvm}"
[ -x "$BIN" ] || { echo "build/cudnnvm missing: run make"; exit 1; }
command -v hyperfine >/dev/null || { echo "skip: hyperfine is not installed"; exit 0; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export HOME="$W/home" XDG_CONFIG_HOME="$W/home/.config" XDG_DATA_HOME="$W/home/.local/share"
export XDG_CACHE_HOME="$W/home/.cache" CUDNNVM_STORE="$W/store" CUDNNVM_SYSCONFDIR="$W/etc"
unset CUDNNVM_VERSION CUDNNVM_ACTIVE CUDNNVM_CONFIG VIRTUAL_ENV CONDA_PREFIX LD_LIBRARY_PATH
mkdir -p "$HOME/.config/cudnnvm" "$W/etc" "$W/nopy"
printf '[install]\nvalidate = no\n' >"$HOME/.config/cudnnvm/config.ini"
tests/fixtures/build_stubs.sh "$W/stubs" >/dev/null
id=9.19.0.56-cuda13
d="$CUDNNVM_STORE/$id"
mkdir -p "$d/include"
cp -r "$W/stubs/v9/lib" "$d/lib"
printf '{"id": "%s", "version": "%s", "cuda": 13, "platform": "linux-x86_64", "sha256": "%064d", "size": 1, "source": "bench", "installed_at": "2026-01-01T00:00:00Z"}\n' \
	"$id" "${id%-cuda*}" 0 >"$d/cudnnvm.json"
MK=tests/fixtures/mkpyenv.py
python3 "$MK" "$W/big" --filler 150 torch-2.11.0 torchvision-0.19.0 jax-0.4.35 --bundled 13:9.19.0.56 >/dev/null
sp=$(python3 "$MK" "$W/worst" --filler 150 --bundled 13:9.19.0.56)
mkdir -p "$sp/mynet-0.1.dist-info"
printf 'Metadata-Version: 2.1\nName: mynet\nVersion: 0.1\nRequires-Dist: nvidia-cudnn-cu13>=9.1\n\n' >"$sp/mynet-0.1.dist-info/METADATA"
n=$(ls -d "$W"/big/lib/python3*/site-packages/*.dist-info | wc -l)
echo "-- exec: $n distributions in the venv vs no Python environment (hyperfine -N)"
# the same env(1) front for each, so only the environment differs
hyperfine -N --warmup 20 --min-runs 300 --export-json "$W/e.json" \
	"env PATH=$W/nopy $BIN exec $id -- /bin/true" \
	"env PATH=$W/nopy VIRTUAL_ENV=$W/big $BIN exec $id -- /bin/true" \
	"env PATH=$W/nopy VIRTUAL_ENV=$W/worst $BIN exec $id -- /bin/true" >"$W/e.log" 2>&1 ||
	{ cat "$W/e.log"; exit 1; }
python3 - "$W/e.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
names = ["exec, no Python environment", "exec, venv with torch (150+ dists)",
         "exec, venv, unknown framework (reads all)"]
cpu = [x["user"] + x["system"] for x in r]
for n, x, c in zip(names, r, cpu):
    print("%-44s %7.3f ms wall  %7.3f ms cpu" % (n, x["mean"] * 1e3, c * 1e3))
# on a shared machine the wall clock carries other processes' load; the
# CPU time (user + system) is this process's own cost
print("ratio venv/none:  %.2f wall, %.2f cpu (target <= 1.3)" % (r[1]["mean"] / r[0]["mean"], cpu[1] / cpu[0]))
print("ratio worst/none: %.2f wall, %.2f cpu" % (r[2]["mean"] / r[0]["mean"], cpu[2] / cpu[0]))
PY

