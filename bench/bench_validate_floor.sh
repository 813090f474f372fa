#!/usr/bin/env bash
# bench_validate_floor.sh: `cudnnvm validate <id>` cold (a new process, no
# cached result) against bench/minimal_validate.c doing the same work as
# plainly as C allows (cuInit, the primary context, dlopen of the version's
# libcudnn, cudnnCreate, one convolution checked on the CPU), alternating
# who goes first, in one run. GPU only: without one it prints a skip line.
# Target: validate cold <= 1.2x the minimal program.
#   BENCH_ID=<install id> (default: the active version); BENCH_LIBDIR (its
#   lib/, else the store's or `cudnnvm which lib`); CUDNNVM_BIN;
#   BENCH_RUNS (7): the median and the best are reported; CC (cc).
set -u
cd "$(dirname "$0")/.."
BIN=${CUDNNVM_BIN:-$PWD/build/cudnnvm}
N=${BENCH_RUNS:-7}
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: bench_validate_floor needs an NVIDIA GPU"
	exit 0
fi
id=${BENCH_ID:-}
MIN=$PWD/build/bench/minimal_validate
if [ ! -x "$MIN" ] || [ "$MIN" -ot bench/minimal_validate.c ]; then
	mkdir -p build/bench
	"${CC:-cc}" -std=gnu11 -O2 -o "$MIN" bench/minimal_validate.c -ldl -lm ||
		{ echo "bench: cannot build $MIN" >&2; exit 1; }
fi
if [ -n "${BENCH_LIBDIR:-}" ]; then
	lib=$BENCH_LIBDIR
elif [ -n "$id" ] && [ -d "${CUDNNVM_STORE:-/nonexistent}/$id/lib" ]; then
	lib=$CUDNNVM_STORE/$id/lib
elif [ -n "$id" ]; then
	lib=$(CUDNNVM_VERSION=$id "$BIN" which lib) || exit 1
else
	lib=$("$BIN" which lib) || exit 1
fi
# the loader finds cuDNN's sub-libraries beside it and cuBLASLt where
# the CUDA toolkit puts it
ldp=$lib
[ ! -d /usr/local/cuda/lib64 ] || ldp=$ldp:/usr/local/cuda/lib64
so=$(ls "$lib"/libcudnn.so.[0-9]* 2>/dev/null | grep -E '\.so\.[0-9]+$' | head -1)
[ -n "$so" ] || { echo "bench: no libcudnn.so.N in $lib" >&2; exit 1; }
"$BIN" validate $id >/dev/null 2>&1 || { echo "bench: cudnnvm validate $id fails" >&2; exit 1; }
cache=$(find "${CUDNNVM_STORE:-/nonexistent}/.cache" "${XDG_CACHE_HOME:-$HOME/.cache}/cudnnvm" \
	-type d -name validate 2>/dev/null | head -1)
LD_LIBRARY_PATH=$ldp "$MIN" "$so" >/dev/null || { echo "bench: $MIN fails" >&2; exit 1; }

# one CMD...: its wall time in microseconds appended to the file $OUTF
one() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 || echo "bench: $* failed" >&2
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000)) >>"$OUTF"
}
ours() { [ -z "$cache" ] || rm -rf "$cache"; OUTF=$W/ours one "$BIN" validate $id; }
floor() { OUTF=$W/floor LD_LIBRARY_PATH=$ldp one "$MIN" "$so"; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
for i in $(seq "$N"); do
	if [ $((i % 2)) -eq 1 ]; then ours && floor; else floor && ours; fi
done
stat_of() { # median and best of file $1, in ms
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		printf "%.1f %.1f", v[int((NR + 1) / 2)] / 1000, v[1] / 1000 }'
}
read -r om ob < <(stat_of "$W/ours")
read -r fm fb < <(stat_of "$W/floor")
echo "validate ${id:-(active)} on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $N runs each, alternating"
echo "  cudnnvm validate (cold)   median $om ms, best $ob ms"
echo "  minimal C program         median $fm ms, best $fb ms   ($so)"
awk -v o="$om" -v f="$fm" -v ob="$ob" -v fb="$fb" 'BEGIN {
	printf "  validate/minimal: %.2fx median, %.2fx best (target <= 1.2)\n", o / f, ob / fb }'
