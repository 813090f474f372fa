#!/usr/bin/env bash
# bench_wheel_memory.sh: peak memory and time of `cudnnvm install --source
# pypi` of one large generated cuDNN wheel, alone (--deps never) and with
# the cuBLAS and nvrtc wheels it loads (--deps always: their downloads run
# side by side with the cuDNN wheel's), against
#   uv pip install --no-deps --no-cache --target DIR   (same wheels, same index)
# from a loopback simple index (tests/fixtures/pypi_index.py over HTTPS)
# that serves each download at a fixed rate, as a real index's link would.
# Cold each run (nothing cached); cudnnvm and uv alternate who goes first.
# Peak RSS and wall time by GNU time (-f '%e %M'). Target: peak RSS <= 150
# MiB whatever the wheel's size, and cudnnvm/uv <= 1.0 in time.
#
# The wheel: `pypi_index.py bigwheel`, nvidia-cudnn-cu12 9.99.0.1 whose
# libcudnn_engines_precompiled.so.9 holds BENCH_ENTRY_MIB (420) MiB, half
# random, deflated (about half that on disk), kept in
# ${XDG_CACHE_HOME:-~/.cache}/cudnnvm-bench/bigwheel, with
# nvidia-cublas-cu12 12.9.1.4 (libcublasLt padded to 300 MiB) and
# nvidia-cuda-nvrtc-cu12 12.8.93 (40 MiB) from `pypi_index.py depwheel`.
# BENCH_RATE_MBPS (100): the index's rate, megabytes a second.
# BENCH_UV: the uv to compare with, else the one `make deps` installs
# (/opt/cudnnvm-tools/bin/uv), else uv on PATH.
# BENCH_BIN: the cudnnvm to measure (default build/cudnnvm); its
# cudnnvm-helper must sit beside it. BENCH_RUNS (3): medians are reported.
set -eu
here=$(dirname "$0")
. "$here/common.sh"
[ -z "${BENCH_BIN:-}" ] || BENCH_BIN=$(bench_abs "$BENCH_BIN")
[ -z "${BENCH_UV:-}" ] || BENCH_UV=$(bench_abs "$BENCH_UV")
cd "$here/.."
bench_bin
W="$PWD/build/bench-wheel-memory"
RUNS=${BENCH_RUNS:-3}
MIB=${BENCH_ENTRY_MIB:-420}
RATE=${BENCH_RATE_MBPS:-100}
BCACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cudnnvm-bench/bigwheel"
[ -x /usr/bin/time ] || { echo "bench: needs GNU time (/usr/bin/time)" >&2; exit 1; }
if [ -n "${BENCH_UV:-}" ]; then
	UV=$BENCH_UV
elif [ -x /opt/cudnnvm-tools/bin/uv ]; then
	UV=/opt/cudnnvm-tools/bin/uv
else
	UV=$(command -v uv) || { echo "bench: no uv (make deps installs one)" >&2; exit 1; }
fi
mkdir -p "$W" "$BCACHE"

WHL="$BCACHE/$MIB/nvidia_cudnn_cu12-9.99.0.1-py3-none-manylinux2014_x86_64.whl"
[ -s "$WHL" ] || python3 tests/fixtures/pypi_index.py bigwheel \
	--out "$BCACHE/$MIB" --version 9.99.0.1 --mib "$MIB" >/dev/null
DEPS="$BCACHE/deps"
if [ ! -s "$DEPS/done" ]; then
	rm -rf "$DEPS" && mkdir -p "$DEPS"
	python3 tests/fixtures/pypi_index.py depwheel --component libcublas --cuda 12 \
		--version 12.9.1.4 --out "$DEPS" --pad-mib 300 >/dev/null
	python3 tests/fixtures/pypi_index.py depwheel --component cuda_nvrtc --cuda 12 \
		--version 12.8.93 --out "$DEPS" --pad-mib 40 >/dev/null
	echo ok >"$DEPS/done"
fi
if [ -x "$W/venv/bin/python" ] || python3 -m venv "$W/venv" >/dev/null 2>&1; then
	PY="$W/venv/bin/python"
else
	rm -rf "$W/venv"
	PY=$(command -v python3)
fi

rm -rf "$W/root" "$W/store" "$W/cache" "$W/home" "$W/t"
mkdir -p "$W/root/files"
ln -s "$WHL" "$W/root/files/$(basename "$WHL")"
for f in "$DEPS"/*.whl; do ln -s "$f" "$W/root/files/$(basename "$f")"; done
bench_certs "$W/certs"
bench_pypi_index "$W" "deps = never" --rate "$RATE"

ours() { "$BIN" -q install 9.99.0 --cuda 12; }
theirs() {
	"$UV" -q pip install --no-deps --no-cache --python "$PY" \
		--index-url "$INDEX" --target "$W/t" nvidia-cudnn-cu12==9.99.0.1
}
ours_deps() { "$BIN" -q install 9.99.0 --cuda 12 --deps always; }
theirs_deps() {
	"$UV" -q pip install --no-deps --no-cache --python "$PY" \
		--index-url "$INDEX" --target "$W/t" nvidia-cudnn-cu12==9.99.0.1 \
		nvidia-cublas-cu12==12.9.1.4 nvidia-cuda-nvrtc-cu12==12.8.93
}
# one cold run of "$1": "wall_s peak_kib" appended to $W/$1.txt
one() {
	rm -rf "$W/store" "$W/cache" "$W/t"
	sync
	/usr/bin/time -f "%e %M" -o "$W/one.txt" bash -c "$1" >/dev/null
	cat "$W/one.txt" >>"$W/$1.txt"
}
# functions, for the bash that GNU time runs
export -f ours theirs ours_deps theirs_deps
export BIN UV PY INDEX W

cat "$WHL" >/dev/null # the page cache, for both
"$BIN" -q list-remote --cuda 12 >/dev/null # the server hashes each wheel once
for p in nvidia-cublas-cu12 nvidia-cuda-nvrtc-cu12; do
	curl -sf --cacert "$W/certs/ca.pem" "$INDEX$p/" >/dev/null
done
rm -f "$W"/ours*.txt "$W"/theirs*.txt
for i in $(seq "$RUNS"); do
	if [ $((i % 2)) -eq 1 ]; then one ours && one theirs; else one theirs && one ours; fi
done
for i in $(seq "$RUNS"); do
	if [ $((i % 2)) -eq 1 ]; then one ours_deps && one theirs_deps; else one theirs_deps && one ours_deps; fi
done
one ours_deps # the trees are checked once
[ -f "$W/store/9.99.0.1-cuda12/lib/libcudnn_engines_precompiled.so.9.99.0" ] &&
	[ -n "$(ls "$W"/store/deps 2>/dev/null)" ] ||
	{ echo "bench: install failed" >&2; exit 1; }
sed -i '$d' "$W/ours_deps.txt"
med() { # column $2 of file $1, median
	cut -d' ' -f"$2" "$1" | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}
awk -v ot="$(med "$W/ours.txt" 1)" -v om="$(med "$W/ours.txt" 2)" \
	-v ut="$(med "$W/theirs.txt" 1)" -v um="$(med "$W/theirs.txt" 2)" \
	-v n="$(stat -L -c %s "$WHL")" -v mib="$MIB" -v rate="$RATE" \
	-v cpus="$(nproc)" -v runs="$RUNS" 'BEGIN {
	printf "wheel nvidia-cudnn-cu12==9.99.0.1 (%d bytes, a %d MiB entry), index at %d MB/s, %d cores, median of %d cold runs\n", n, mib, rate, cpus, runs
	printf "  cudnnvm install --source pypi       %7.2f s  peak RSS %7.1f MiB (target <= 150)\n", ot, om / 1024
	printf "  uv pip install --no-cache --target  %7.2f s  peak RSS %7.1f MiB\n", ut, um / 1024
	printf "  cudnnvm/uv: time %.2fx (target <= 1.0), peak RSS %.2fx\n", ot / ut, om / um
}'
awk -v ot="$(med "$W/ours_deps.txt" 1)" -v om="$(med "$W/ours_deps.txt" 2)" \
	-v ut="$(med "$W/theirs_deps.txt" 1)" -v um="$(med "$W/theirs_deps.txt" 2)" \
	-v n="$(cat "$DEPS"/*.whl | wc -c)" 'BEGIN {
	printf "with its cuBLAS and nvrtc wheels (%d bytes more), --deps always against uv installing the three:\n", n
	printf "  cudnnvm install --deps always       %7.2f s  peak RSS %7.1f MiB (target <= 150)\n", ot, om / 1024
	printf "  uv pip install (three wheels)       %7.2f s  peak RSS %7.1f MiB\n", ut, um / 1024
	printf "  cudnnvm/uv: time %.2fx (target <= 1.0), peak RSS %.2fx\n", ot / ut, om / um
}'
