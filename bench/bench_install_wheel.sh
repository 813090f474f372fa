#!/usr/bin/env bash
# bench_install_wheel.sh: `cudnnvm install --source pypi` of NVIDIA's
# nvidia-cudnn-cu12==8.9.2.26 wheel (732 MB) from a loopback simple index
# (tests/fixtures/pypi_index.py over HTTPS), against
#   uv pip install --no-deps --no-cache --target DIR   (same wheel, same index)
# cold (nothing cached) and warm (cudnnvm's download cache, uv's cache), and
# the peak RSS of the cold install. Target: cudnnvm <= 1.0x uv, both ways.
#
# uv is installed from PyPI into build/bench-wheel/venv for the bench only.
# The wheel is the one the tests cache (tests/e2e/validate.bats fetches it
# into ~/.cache/cudnnvm-tests/wheels); BENCH_WHEEL names another.
# BENCH_RUNS (3): the median is reported.
set -eu
cd "$(dirname "$0")/.."
BIN="$PWD/build/cudnnvm"
W="$PWD/build/bench-wheel"
RUNS=${BENCH_RUNS:-3}
NAME=nvidia_cudnn_cu12-8.9.2.26-py3-none-manylinux1_x86_64.whl
WHL=${BENCH_WHEEL:-${XDG_CACHE_HOME:-$HOME/.cache}/cudnnvm-tests/wheels/$NAME}

[ -x "$BIN" ] || { echo "bench: build first (make)" >&2; exit 1; }
if [ ! -s "$WHL" ]; then
	mkdir -p "$(dirname "$WHL")"
	python3 -m pip download -q --no-deps -d "$(dirname "$WHL")" \
		nvidia-cudnn-cu12==8.9.2.26 ||
		{ echo "bench: no $NAME and PyPI cannot be reached" >&2; exit 1; }
fi
mkdir -p "$W"
if [ ! -x "$W/venv/bin/uv" ]; then
	python3 -m venv "$W/venv"
	"$W/venv/bin/pip" install -q uv
fi
UV="$W/venv/bin/uv"

rm -rf "$W/root" "$W/store" "$W/cache" "$W/home" "$W/t" "$W/uvcache"
mkdir -p "$W/root/files"
ln -s "$WHL" "$W/root/files/$NAME"
[ -s "$W/certs/ca.pem" ] || python3 tests/fixtures/mirror.py certs "$W/certs"
rm -f "$W/port"
python3 tests/fixtures/pypi_index.py serve "$W/root" --cert "$W/certs/server.pem" \
	--key "$W/certs/server.key" --port-file "$W/port" >"$W/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.1; done
INDEX="https://127.0.0.1:$(cat "$W/port")/simple/"

export HOME="$W/home" XDG_CONFIG_HOME="$W/home/.config" CUDNNVM_STORE="$W/store"
export SSL_CERT_FILE="$W/certs/ca.pem" UV_NO_PROGRESS=1
unset CUDNNVM_CONFIG CUDNNVM_MIRROR http_proxy https_proxy HTTPS_PROXY all_proxy
mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
cat >"$XDG_CONFIG_HOME/cudnnvm/config.ini" <<EOF
[store]
cache = $W/cache
[remote]
source = pypi
index = $INDEX
ca_file = $W/certs/ca.pem
[install]
validate = no
keep_archives = yes
platform = linux-x86_64
EOF

ours() { "$BIN" -q install 8.9.2 --cuda 12; }
uv_cold() {
	"$UV" -q pip install --no-deps --no-cache --python "$W/venv/bin/python" \
		--index-url "$INDEX" --target "$W/t" nvidia-cudnn-cu12==8.9.2.26
}
uv_warm() {
	"$UV" -q pip install --no-deps --cache-dir "$W/uvcache" \
		--python "$W/venv/bin/python" --index-url "$INDEX" \
		--target "$W/t" nvidia-cudnn-cu12==8.9.2.26
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
"$BIN" -q list-remote --cuda 12 >/dev/null # the server hashes the wheel once
t_ours=$(measure ours cold)
t_uv=$(measure uv_cold cold)
ours >/dev/null && uv_warm >/dev/null # fill both caches
t_ours_w=$(measure ours warm)
t_uv_w=$(measure uv_warm warm)
cold
rss=$(/usr/bin/time -f %M "$BIN" -q install 8.9.2 --cuda 12 2>&1 >/dev/null | tail -1)
[ -L "$W/store/8.9.2.26-cuda12/lib/libcudnn.so.8" ] || { echo "bench: install failed" >&2; exit 1; }

awk -v o="$t_ours" -v u="$t_uv" -v ow="$t_ours_w" -v uw="$t_uv_w" -v rss="$rss" \
	-v n="$(stat -L -c %s "$WHL")" -v cpus="$(nproc)" 'BEGIN {
	printf "wheel nvidia-cudnn-cu12==8.9.2.26 (%d bytes), %d cores, median of runs\n", n, cpus
	printf "cold (nothing cached):\n"
	printf "  cudnnvm install --source pypi      %7.3f s\n", o
	printf "  uv pip install --no-cache --target %7.3f s   cudnnvm/uv = %.2fx (target <= 1.0)\n", u, o / u
	printf "warm (download cache / uv cache):\n"
	printf "  cudnnvm install --source pypi      %7.3f s\n", ow
	printf "  uv pip install --target            %7.3f s   cudnnvm/uv = %.2fx (target <= 1.0)\n", uw, ow / uw
	printf "peak RSS of cudnnvm install          %7.1f MiB (target <= 64)\n", rss / 1024
}'
