#!/usr/bin/env bash
# bench_install_archive.sh: `cudnnvm install --archive` (hash and extract in
# one pass) against `sha256sum FILE && tar -xJf FILE`, on one archive of at
# least 300 MB: the real cuDNN libraries of this machine when present
# (/usr/local/cuda/lib64/libcudnn*.so*), else synthetic data (half
# incompressible, half compressible). The archive is built once and cached
# in ${XDG_CACHE_HOME:-~/.cache}/cudnnvm-bench. Prints wall time and peak
# RSS (largest single process, from getrusage(RUSAGE_CHILDREN)) of each,
# and the ratio. Target: ratio <= 1.0, cudnnvm peak <= 64 MB.
# BENCH_SYNTHETIC=1 uses the synthetic archive even where cuDNN exists.
set -eu
cd "$(dirname "$0")/.."
BIN=${CUDNNVM_BIN:-$PWD/build/cudnnvm}
[ -x "$BIN" ] || make -s all
cache="${XDG_CACHE_HOME:-$HOME/.cache}/cudnnvm-bench"
mkdir -p "$cache"
libs=/usr/local/cuda/lib64
min_mb=300
if [ -e "$libs/libcudnn.so.9" ] && [ -z "${BENCH_SYNTHETIC:-}" ]; then
	kind="real cuDNN libraries from $libs"
	name=cudnn-linux-x86_64-9.99.0.1_cuda12-archive.tar.xz
	args=(--libdir "$libs")
else
	kind="synthetic: incompressible + compressible data"
	name=cudnn-linux-x86_64-9.98.0.1_cuda12-archive.tar.xz
	args=(--fake --pad-mb 310 --fill-mb 400)
fi
arch="$cache/$name"
ver=$(echo "$name" | sed 's/.*x86_64-\(.*\)_cuda.*/\1/')
if [ ! -f "$arch" ]; then
	echo "building $arch (once) ..."
	python3 tests/fixtures/mkarchive.py nvidia --out "$cache" \
		--version "$ver" --cuda 12 \
		--preset 0 "${args[@]}" >/dev/null
	mb=$(($(stat -c %s "$arch") >> 20))
	if [ "$mb" -lt "$min_mb" ]; then
		# top up with incompressible data to reach the minimum size
		rm -f "$arch"
		python3 tests/fixtures/mkarchive.py nvidia --out "$cache" \
			--version "$ver" --cuda 12 \
			--preset 0 "${args[@]}" --pad-mb $((min_mb - mb + 8)) >/dev/null
	fi
fi
size=$(stat -c %s "$arch")
sha=$(sha256sum "$arch" | cut -d' ' -f1)
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnvm-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "archive: $name, $((size >> 20)) MB ($kind)"

# measure LABEL CMD...: best wall time of 2 runs, peak RSS in MB.
measure() {
	python3 - "$@" <<'PY'
import resource, subprocess, sys, time, shutil, os
label, setup, cmd = sys.argv[1], sys.argv[2], sys.argv[3]
best = None
for i in range(2):
    subprocess.run(["sh", "-c", setup], check=True)
    t = time.monotonic()
    subprocess.run(["sh", "-c", cmd], check=True, stdout=subprocess.DEVNULL)
    d = time.monotonic() - t
    best = d if best is None else min(best, d)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("%s %.3f %.1f" % (label, best, rss))
PY
}
cat "$arch" >/dev/null # warm the page cache for both
read -r _ base_t base_m < <(measure baseline "rm -rf '$work/x' && mkdir '$work/x'" \
	"sha256sum '$arch' && tar -xJf '$arch' -C '$work/x'")
read -r _ cv_t cv_m < <(measure cudnnvm "rm -rf '$work/s'" \
	"'$BIN' -q --store '$work/s' install --no-validate --archive '$arch' --sha256 $sha")
[ -f "$work/s/$ver-cuda12/cudnnvm.json" ]
printf 'sha256sum + tar -xJf : %7.2f s  peak %6.1f MB\n' "$base_t" "$base_m"
printf 'cudnnvm install      : %7.2f s  peak %6.1f MB\n' "$cv_t" "$cv_m"
python3 -c "import sys; t=float(sys.argv[1])/float(sys.argv[2]); print('ratio (cudnnvm / baseline): %.2f (target <= 1.0); cudnnvm peak %s MB (target <= 64)' % (t, sys.argv[3]))" "$cv_t" "$base_t" "$cv_m"
