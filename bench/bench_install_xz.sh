#!/usr/bin/env bash
# bench_install_xz.sh: `cudnnvm install` of one cuDNN release from the
# loopback HTTPS mirror (tests/fixtures/mirror.py), written two ways:
#   many-block tar.xz (NVIDIA's: 1 MiB blocks)  against  xz -T0 -dc F >/dev/null
#   one-block tar.xz (xz -T1, the same tar)     against  xz -dc F >/dev/null
# that is, the whole install (download, sha256, decode, extract, publish)
# against decoding alone with xz's own threads. Also the install's peak RSS
# (GNU time's maximum resident set, else wait4's) against 64 MiB plus what
# liblzma needs per decoding thread (the largest block in and out, plus the
# dictionary). Targets: both ratios <= 1.05.
#
# The release: BENCH_XZ_ARCHIVE, else the real 8.9.2.26 cuda12 archive the
# tests cache (~/.cache/cudnnvm-tests/archives), else one packed from this
# machine's cuDNN (bench/common.sh: BENCH_CUDNN_LIBDIR, /usr/local/cuda/lib64,
# python3's nvidia.cudnn, the folder ldconfig shows) in NVIDIA's layout and
# 1 MiB blocks. The first line printed says which. The packed archive and the
# one-block copy (xz -T1 -0) are made once and kept in
# ${XDG_CACHE_HOME:-~/.cache}/cudnnvm-bench.
# BENCH_BIN: the cudnnvm to measure (default build/cudnnvm, built when
# missing); its cudnnvm-helper must sit beside it. Nothing here needs a
# network.
# BENCH_RUNS (default 3): runs of each, interleaved; the median is printed.
# BENCH_JOBS: --jobs for the install (default: none, the install's own auto).
set -eu
here=$(dirname "$0")
. "$here/common.sh"
[ -z "${BENCH_BIN:-}" ] || BENCH_BIN=$(bench_abs "$BENCH_BIN")
[ -z "${BENCH_XZ_ARCHIVE:-}" ] || BENCH_XZ_ARCHIVE=$(bench_abs "$BENCH_XZ_ARCHIVE")
[ -z "${BENCH_CUDNN_LIBDIR:-}" ] || BENCH_CUDNN_LIBDIR=$(bench_abs "$BENCH_CUDNN_LIBDIR")
cd "$here/.."
bench_bin
W="$PWD/build/bench-xz"
RUNS=${BENCH_RUNS:-3}
BCACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cudnnvm-bench"
TCACHE="${XDG_CACHE_HOME:-$HOME/.cache}/cudnnvm-tests"
mkdir -p "$W" "$BCACHE"

if [ -n "${BENCH_XZ_ARCHIVE:-}" ]; then
	src=$BENCH_XZ_ARCHIVE
	FROM="BENCH_XZ_ARCHIVE $src"
	[ -s "$src" ] || { echo "bench: BENCH_XZ_ARCHIVE $src is missing" >&2; exit 1; }
else
	src=$TCACHE/archives/cudnn-linux-x86_64-8.9.2.26_cuda12-archive.tar.xz
	FROM="NVIDIA's archive, cached by the tests"
	if [ ! -s "$src" ]; then
		pack_local_cudnn "$BCACHE/packed"
		src=$PACKED
		FROM=$PACKED_FROM
	fi
fi
NAME=$(basename "$src")
VER=$(echo "$NAME" | sed 's/^cudnn-linux-x86_64-\(.*\)_cuda12-archive.tar.xz$/\1/')
case $VER in [0-9]*.[0-9]*.[0-9]*.[0-9]*) ;; *)
	echo "bench: $NAME is not named cudnn-linux-x86_64-<version>_cuda12-archive.tar.xz" >&2
	exit 1 ;;
esac
ID="$VER-cuda12"
blocks() { xz -lv --robot "$1" | grep -c '^block'; }

# the many-block archive: the source when it has several blocks already
if [ "$(blocks "$src")" -gt 1 ]; then
	MANY=$src
else
	MANY="$BCACHE/many/$NAME"
	if [ ! -s "$MANY" ]; then
		echo "making a many-block copy of $NAME (once)..." >&2
		mkdir -p "$BCACHE/many"
		xz -dc "$src" | xz -T0 -0 --block-size=1MiB >"$MANY.tmp"
		mv "$MANY.tmp" "$MANY"
	fi
fi
ONE="$BCACHE/one/$NAME"
if [ ! -s "$ONE" ] || [ "$ONE" -ot "$MANY" ]; then
	echo "making a one-block copy of $NAME (once; minutes)..." >&2
	mkdir -p "$BCACHE/one"
	xz -dc "$MANY" | xz -T1 -0 >"$ONE.tmp"
	mv "$ONE.tmp" "$ONE"
fi
[ "$(blocks "$ONE")" -eq 1 ]

# ---- two loopback mirrors, one per archive, each listing this release
bench_certs "$W/certs"
MAJMIN=$(echo "$VER" | cut -d. -f1-3)
sed "s/8\.9\.7\.29/$VER/g; s/8\.9\.7/$MAJMIN/g" \
	tests/fixtures/manifests/redistrib_8.9.7.29.json >"$W/redistrib_$MAJMIN.json"
SERVERS=()
trap 'for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
serve() { # serve KIND ARCHIVE: sets PORT_<KIND>
	local root="$W/root-$1" a=$2 rel sha size
	rm -rf "$root"
	python3 tests/fixtures/mirror.py build "$root" "$W/redistrib_$MAJMIN.json" >/dev/null
	rel=cudnn/linux-x86_64/$NAME
	ln -f "$a" "$root/$rel" 2>/dev/null || ln -sf "$a" "$root/$rel"
	sha=$(sha256sum "$a" | cut -d' ' -f1)
	size=$(stat -c %s "$a")
	python3 - "$root/redistrib_$MAJMIN.json" "$rel" "$sha" "$size" <<'EOF'
import json, sys
p, rel, sha, size = sys.argv[1:]
m = json.load(open(p))
for e in m["cudnn"].values():
    if isinstance(e, dict) and e.get("relative_path") == rel:
        e.update(sha256=sha, size=size)
json.dump(m, open(p, "w"), indent=4)
EOF
	rm -f "$root.port"
	python3 tests/fixtures/mirror.py serve "$root" --cert "$W/certs/server.pem" \
		--key "$W/certs/server.key" --port-file "$root.port" >"$root.log" 2>&1 &
	SERVERS+=($!)
	for _ in $(seq 100); do [ -s "$root.port" ] && break; sleep 0.1; done
	eval "PORT_$1=$(cat "$root.port")"
}
serve many "$MANY"
serve one "$ONE"

export HOME="$W/home" XDG_CONFIG_HOME="$W/home/.config" CUDNNVM_STORE="$W/store"
unset CUDNNVM_CONFIG CUDNNVM_MIRROR http_proxy https_proxy HTTPS_PROXY all_proxy
mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
config() { # config PORT
	cat >"$XDG_CONFIG_HOME/cudnnvm/config.ini" <<EOF
[store]
cache = $W/cache-$1
[remote]
mirror = https://127.0.0.1:$1/
ca_file = $W/certs/ca.pem
verify_pins = no
[install]
validate = no
keep_archives = no
EOF
}
jobs=()
[ -n "${BENCH_JOBS:-}" ] && jobs=(--jobs "$BENCH_JOBS")
# fresh PORT: an empty store, the config for that mirror (the manifest is
# cached); outside the timing, as removing the last run's half a GiB is
# not the install's work
fresh() {
	rm -rf "$W/store"
	config "$1"
}
install_one() { "$BIN" -q install "$VER" --cuda 12 "${jobs[@]}"; }
# wall seconds of "$@"
timed() {
	local s e
	sync
	s=$(date +%s%N)
	"$@" >/dev/null
	e=$(date +%s%N)
	awk -v d=$((e - s)) 'BEGIN { printf "%.3f", d / 1e9 }'
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }

# warm the index caches and the page cache
for p in "$PORT_many" "$PORT_one"; do config "$p" && "$BIN" -q list-remote "$VER" >/dev/null; done
cat "$MANY" "$ONE" >/dev/null

echo "release $ID ($FROM): many-block $(stat -c %s "$MANY") bytes ($(blocks "$MANY") blocks), one-block $(stat -c %s "$ONE") bytes; $RUNS runs each, interleaved, median; $(nproc) cores"
tm=() txm=() to=() txo=() td=()
# the download alone, so that the ratio can also be read against what the
# loopback server allows: on many cores xz -T0 decodes faster than the
# Python test server sends the archive
download() { curl -sS --fail --cacert "$W/certs/ca.pem" -o /dev/null "https://127.0.0.1:$PORT_many/cudnn/linux-x86_64/$NAME"; }
for _ in $(seq "$RUNS"); do
	command -v curl >/dev/null && td+=("$(timed download)")
	fresh "$PORT_many"
	tm+=("$(timed install_one)")
	[ -f "$W/store/$ID/cudnnvm.json" ] || { echo "bench: install failed" >&2; exit 1; }
	txm+=("$(timed xz -T0 -dc "$MANY")")
	fresh "$PORT_one"
	to+=("$(timed install_one)")
	[ -f "$W/store/$ID/cudnnvm.json" ] || { echo "bench: install failed" >&2; exit 1; }
	txo+=("$(timed xz -dc "$ONE")")
done
rm -rf "$W/store"
config "$PORT_many"
rss=$(peak_rss_kib "$BIN" -q install "$VER" --cuda 12 "${jobs[@]}")
rm -rf "$W/store"
# what liblzma holds per decoding thread: the largest block's compressed
# and uncompressed bytes, plus the dictionary it decodes with
per=$(xz -lvv --robot "$MANY" | awk -F'\t' '
	$1 == "block" { if ($7 > c) c = $7; if ($8 > u) u = $8 }
	$1 == "summary" { m = $2 }
	END { printf "%.1f", (c + u + m) / 1048576 }')
# the decoder's threads: --jobs, else its auto rule (extract_tar.c's
# cv_xz_auto_threads: two per core from 4 cores on, 64 at most)
cores=$(nproc)
auto=$((cores >= 4 ? 2 * cores : cores))
threads=${BENCH_JOBS:-$((auto > 64 ? 64 : auto))}

awk -v im="$(median "${tm[@]}")" -v xm="$(median "${txm[@]}")" \
	-v io="$(median "${to[@]}")" -v xo="$(median "${txo[@]}")" \
	-v rss="$rss" -v per="$per" -v th="$threads" -v dl="${td:+$(median "${td[@]}")}" 'BEGIN {
	printf "many-block: cudnnvm install %7.2f s   xz -T0 -dc %7.2f s   ratio %.2f (target <= 1.05)\n", im, xm, im / xm
	if (dl > 0) {
		floor = dl > xm ? dl : xm
		printf "            download alone (curl) %5.2f s   install / max(download, xz -T0 -dc) = %.2f\n", dl, im / floor
	}
	printf "one-block:  cudnnvm install %7.2f s   xz -dc     %7.2f s   ratio %.2f (target <= 1.05)\n", io, xo, io / xo
	printf "peak RSS of the many-block install: %.1f MiB (target <= 64 + %d threads x %.1f MiB liblzma needs each = %.1f MiB)\n", rss / 1024, th, per, 64 + th * per
}'
