#!/usr/bin/env bash
# bench_install_wheel.sh: `cudnnvm install --source pypi` of one
# nvidia-cudnn-cuN wheel (by default NVIDIA's nvidia-cudnn-cu12==8.9.2.26,
# 732 MB) from a loopback simple index (tests/fixtures/pypi_index.py over
# HTTPS), against
#   uv pip install --no-deps --no-cache --target DIR   (same wheel, same index)
# cold (nothing cached) and warm (cudnnvm's download cache, uv's cache), and
# the peak RSS of the cold install (GNU time's, else wait4's). Target:
# cudnnvm <= 1.0x uv, both ways.
#
# The wheel: BENCH_WHEEL, else the one the tests cache
# (tests/e2e/validate.bats fetches it into ~/.cache/cudnnvm-tests/wheels),
# else downloaded there with pip, else (no network) one made from this
# machine's cuDNN: packed as NVIDIA's archive (bench/common.sh) and turned
# into NVIDIA's wheel layout by tests/fixtures/pypi_index.py, kept in
# ${XDG_CACHE_HOME:-~/.cache}/cudnnvm-bench. Project, version and CUDA major
# come from the wheel's file name; the first lines printed name the wheel,
# where it came from and its size.
# uv: BENCH_UV, else uv on PATH, else one installed with pip into
# build/bench-wheel/venv for the bench only. uv's --python: that venv, made
# with python3 -m venv when missing, else python3 itself.
# BENCH_BIN: the cudnnvm to measure (default build/cudnnvm); its
# cudnnvm-helper must sit beside it.
# BENCH_RUNS (3): the median is reported.
set -eu
here=$(dirname "$0")
. "$here/common.sh"
[ -z "${BENCH_BIN:-}" ] || BENCH_BIN=$(bench_abs "$BENCH_BIN")
[ -z "${BENCH_UV:-}" ] || BENCH_UV=$(bench_abs "$BENCH_UV")
[ -z "${BENCH_WHEEL:-}" ] || BENCH_WHEEL=$(bench_abs "$BENCH_WHEEL")
[ -z "${BENCH_CUDNN_LIBDIR:-}" ] || BENCH_CUDNN_LIBDIR=$(bench_abs "$BENCH_CUDNN_LIBDIR")
cd "$here/.."
bench_bin
W="$PWD/build/bench-wheel"
RUNS=${BENCH_RUNS:-3}
BCACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cudnnvm-bench"
TCACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cudnnvm-tests"
mkdir -p "$W"

if [ -n "${BENCH_WHEEL:-}" ]; then
	WHL=$BENCH_WHEEL
	FROM="BENCH_WHEEL"
	[ -s "$WHL" ] || { echo "bench: BENCH_WHEEL $WHL is missing" >&2; exit 1; }
else
	WHL=$TCACHE/wheels/nvidia_cudnn_cu12-8.9.2.26-py3-none-manylinux1_x86_64.whl
	FROM="NVIDIA's, cached by the tests"
	if [ ! -s "$WHL" ]; then
		mkdir -p "$(dirname "$WHL")"
		FROM="NVIDIA's, downloaded with pip"
		if ! python3 -m pip download -q --no-deps --retries 0 --timeout 10 \
			-d "$(dirname "$WHL")" nvidia-cudnn-cu12==8.9.2.26 >/dev/null 2>&1 ||
			[ ! -s "$WHL" ]; then
			echo "bench: NVIDIA's wheel cannot be downloaded; making one from this machine's cuDNN" >&2
			pack_local_cudnn "$BCACHE/packed"
			a=$(basename "$PACKED")
			v=${a#cudnn-linux-x86_64-}
			v=${v%_cuda12-archive.tar.xz}
			WHL="$BCACHE/wheels/nvidia_cudnn_cu12-$v-py3-none-manylinux2014_x86_64.whl"
			FROM="made from the archive $PACKED_FROM"
			if [ ! -s "$WHL" ] || [ "$WHL" -ot "$PACKED" ]; then
				rm -rf "$BCACHE/wheels.tmp"
				python3 tests/fixtures/pypi_index.py wheel --from "$PACKED" \
					--out "$BCACHE/wheels.tmp" >/dev/null
				mkdir -p "$BCACHE/wheels"
				mv "$BCACHE/wheels.tmp/$(basename "$WHL")" "$WHL"
				rm -rf "$BCACHE/wheels.tmp"
			fi
		fi
	fi
fi
# nvidia_cudnn_cu12-8.9.2.26-py3-none-manylinux1_x86_64.whl: project
# nvidia-cudnn-cu12, version 8.9.2.26, CUDA 12, installed as 8.9.2.26-cuda12
NAME=$(basename "$WHL")
DIST=${NAME%%-*}
VER=${NAME#*-}
VER=${VER%%-*}
PROJECT=$(echo "$DIST" | tr 'A-Z_' 'a-z-')
CUDA=${PROJECT##*-cu}
case $PROJECT/$CUDA/$VER in
nvidia-cudnn-cu*/[0-9]*/[0-9]*.[0-9]*.[0-9]*.[0-9]*) ;;
*)
	echo "bench: $NAME is not named nvidia_cudnn_cu<N>-<version>-....whl" >&2
	exit 1
	;;
esac
ID="$VER-cuda$CUDA"
# installed by its major.minor.patch, as a user would ask (8.9.2): the only
# release of that on the index
SPEC=${VER%.*}

if [ -n "${BENCH_UV:-}" ]; then
	UV=$BENCH_UV
elif command -v uv >/dev/null; then
	UV=$(command -v uv)
else
	UV="$W/venv/bin/uv"
	if [ ! -x "$UV" ]; then
		[ -x "$W/venv/bin/pip" ] || { rm -rf "$W/venv" && python3 -m venv "$W/venv"; }
		"$W/venv/bin/pip" install -q uv
	fi
fi
[ -x "$UV" ] || { echo "bench: $UV is not an executable" >&2; exit 1; }
if [ -x "$W/venv/bin/python" ] || python3 -m venv "$W/venv" >/dev/null 2>&1; then
	PY="$W/venv/bin/python"
else
	rm -rf "$W/venv"
	PY=$(command -v python3)
fi

rm -rf "$W/root" "$W/store" "$W/cache" "$W/home" "$W/t" "$W/uvcache"
mkdir -p "$W/root/files"
ln -s "$WHL" "$W/root/files/$NAME"
bench_certs "$W/certs"
bench_pypi_index "$W" "keep_archives = yes"

ours() { "$BIN" -q install "$SPEC" --cuda "$CUDA"; }
uv_cold() {
	"$UV" -q pip install --no-deps --no-cache --python "$PY" \
		--index-url "$INDEX" --target "$W/t" "$PROJECT==$VER"
}
uv_warm() {
	"$UV" -q pip install --no-deps --cache-dir "$W/uvcache" \
		--python "$PY" --index-url "$INDEX" \
		--target "$W/t" "$PROJECT==$VER"
}
# median wall seconds of RUNS runs of "$1" after "$2" (the reset)
measure() {
	local t=() i s e
	for i in $(seq "$RUNS"); do
		$2
		sync
		s=$(date +%s%N)
		$1 >/dev/null
		e=$(date +%s%N)
		t+=("$(((e - s) / 1000000))")
	done
	printf '%s\n' "${t[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p" |
		awk '{ printf "%.3f", $1 / 1000 }'
}
cold() { rm -rf "$W/store" "$W/cache" "$W/t"; }
warm() { rm -rf "$W/store" "$W/t"; } # keeps the caches

cat "$WHL" >/dev/null # the page cache, for both
"$BIN" -q list-remote --cuda "$CUDA" >/dev/null # the server hashes the wheel once
t_ours=$(measure ours cold)
t_uv=$(measure uv_cold cold)
ours >/dev/null && uv_warm >/dev/null # fill both caches
t_ours_w=$(measure ours warm)
t_uv_w=$(measure uv_warm warm)
cold
rss=$(peak_rss_kib "$BIN" -q install "$SPEC" --cuda "$CUDA")
[ -L "$W/store/$ID/lib/libcudnn.so.${VER%%.*}" ] || { echo "bench: install failed" >&2; exit 1; }

awk -v o="$t_ours" -v u="$t_uv" -v ow="$t_ours_w" -v uw="$t_uv_w" -v rss="$rss" \
	-v n="$(stat -L -c %s "$WHL")" -v cpus="$(nproc)" -v p="$PROJECT==$VER" \
	-v name="$NAME" -v from="$FROM" 'BEGIN {
	printf "wheel %s (%d bytes), %d cores, median of runs\n", p, n, cpus
	printf "  %s (%s)\n", name, from
	printf "cold (nothing cached):\n"
	printf "  cudnnvm install --source pypi      %7.3f s\n", o
	printf "  uv pip install --no-cache --target %7.3f s   cudnnvm/uv = %.2fx (target <= 1.0)\n", u, o / u
	printf "warm (download cache / uv cache):\n"
	printf "  cudnnvm install --source pypi      %7.3f s\n", ow
	printf "  uv pip install --target            %7.3f s   cudnnvm/uv = %.2fx (target <= 1.0)\n", uw, ow / uw
	printf "peak RSS of cudnnvm install          %7.1f MiB (target <= 64)\n", rss / 1024
}'
