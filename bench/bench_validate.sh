#!/usr/bin/env bash
# bench_validate.sh: wall time of `cudnnvm validate` cold (new process, no
# cached result: loads cuDNN and runs one convolution on the GPU) and cached,
# against `python3 -c 'import torch; one conv'`. GPU only: without one it
# prints a skip line. Targets: cold <= 300 ms, cached <= 5 ms, >= 15x faster
# than the torch check.
#   BENCH_ID=<install id> (default: the active version); CUDNNVM_BIN.
set -u
cd "$(dirname "$0")/.."
BIN=${CUDNNVM_BIN:-$PWD/build/cudnnvm}
N=${BENCH_RUNS:-5}
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: bench_validate needs an NVIDIA GPU"
	exit 0
fi
id=${BENCH_ID:-}
cache=$("$BIN" validate $id --json >/dev/null 2>&1; find "${CUDNNVM_STORE:-/nonexistent}/.cache" "${XDG_CACHE_HOME:-$HOME/.cache}/cudnnvm" -type d -name validate 2>/dev/null | head -1)

ms() { # ms CMD...: best of N wall times in ms
	local best=-1 t0 t1 d
	for _ in $(seq "$N"); do
		[ -n "${PRE:-}" ] && eval "$PRE"
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		d=$(((t1 - t0) / 1000))
		if [ $best -lt 0 ] || [ $d -lt $best ]; then best=$d; fi
	done
	awk -v u="$best" 'BEGIN{printf "%.1f", u/1000}'
}
cold=$(PRE="rm -rf '$cache'" ms "$BIN" validate $id)
cached=$(ms "$BIN" validate $id)
torch=$(N=3 ms python3 -c 'import torch
x = torch.randn(1, 3, 16, 16, device="cuda")
w = torch.randn(4, 3, 3, 3, device="cuda")
torch.nn.functional.conv2d(x, w, padding=1).sum().item()')
echo "validate cold:   $cold ms (best of $N; target <= 300)"
echo "validate cached: $cached ms (best of $N; target <= 5)"
echo "torch check:     $torch ms (best of 3)"
awk -v c="$cold" -v t="$torch" 'BEGIN{ if (c > 0) printf "cold validate is %.1fx faster than the torch check (target >= 15x)\n", t/c }'
