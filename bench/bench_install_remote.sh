#!/usr/bin/env bash
# bench_install_remote.sh: `cudnnvm install` of a >= 300 MB archive from the
# loopback HTTPS mirror (tests/fixtures/mirror.py), against
#   curl -o F && sha256sum F && tar -xJf F     (the same work, one by one)
#   tar -xJf F                                 (decode and write alone)
# and, with the server throttled to ~50 MB/s, against
#   max(curl -o /dev/null alone, tar -xJf alone).
# Also the peak RSS of the install. Targets: install <= 1.05x
# tar -xJf unthrottled; <= 1.1x max(download, decode) throttled; <= 64 MiB.
#
# Knobs: BENCH_ARCHIVE_MB (default 320), BENCH_RATE (bytes/s, 50000000),
# BENCH_RUNS (3; the median is reported), BENCH_KIND (random: incompressible
# content, so decoding is almost free and every other cost shows;
# compressible: 4-bit-entropy content, so xz decoding dominates as with
# real cuDNN archives). The archive is generated once and kept under
# build/bench-remote/ (compressing it takes minutes on 2 cores).
set -eu
cd "$(dirname "$0")/.."
BIN="$PWD/build/cudnnvm"
W="$PWD/build/bench-remote"
MB=${BENCH_ARCHIVE_MB:-320}
RATE=${BENCH_RATE:-50000000}
RUNS=${BENCH_RUNS:-3}
KIND=${BENCH_KIND:-random}
TOP=cudnn-linux-x86_64-9.13.0.50_cuda12-archive
DATA="$W/data-$KIND"
A="$DATA/$TOP.tar.xz"

[ -x "$BIN" ] || { echo "bench: build first (make)" >&2; exit 1; }
mkdir -p "$DATA"

# ---- the archive: NVIDIA's layout, mostly incompressible like real libs
if [ ! -s "$A" ] || [ "$(cat "$DATA/mb" 2>/dev/null)" != "$MB" ]; then
	echo "generating a ${MB} MB archive (once)..." >&2
	rm -rf "$DATA/src" "$A"
	s="$DATA/src/$TOP"
	mkdir -p "$s/include" "$s/lib"
	echo "test license" >"$s/LICENSE"
	echo "/* cudnn.h */" >"$s/include/cudnn.h"
	echo "#define CUDNN_MAJOR 9" >"$s/include/cudnn_version.h"
	head -c 100000 /dev/urandom >"$s/lib/libcudnn.so.9.13.0"
	ln -s libcudnn.so.9.13.0 "$s/lib/libcudnn.so.9"
	ln -s libcudnn.so.9 "$s/lib/libcudnn.so"
	if [ "$KIND" = compressible ]; then
		# compresses to about 0.57: MB*7/4 MB of 4-bit symbols
		python3 -c '
import os, sys
tab = bytes((b & 0x0f) | 0x40 for b in range(256))
n = int(sys.argv[1]) * 7 // 4
with open(sys.argv[2], "wb") as f:
    for _ in range(n):
        f.write(os.urandom(1000000).translate(tab))
' "$MB" "$s/lib/libcudnn_engines_precompiled.so.9.13.0"
	else
		head -c $((MB * 1000 * 1000)) /dev/urandom \
			>"$s/lib/libcudnn_engines_precompiled.so.9.13.0"
	fi
	tar -C "$DATA/src" -cf - "$TOP" | xz -T0 -0 >"$A.tmp"
	mv "$A.tmp" "$A"
	rm -rf "$DATA/src"
	sha256sum "$A" | cut -d' ' -f1 >"$DATA/sha"
	echo "$MB" >"$DATA/mb"
fi
SHA=$(cat "$DATA/sha")
SIZE=$(stat -c %s "$A")

# ---- the mirror
rm -rf "$W/root" "$W/store" "$W/cache" "$W/home" "$W/x" "$W/F"
[ -s "$W/certs/ca.pem" ] || python3 tests/fixtures/mirror.py certs "$W/certs"
python3 tests/fixtures/mirror.py build "$W/root" \
	tests/fixtures/manifests/redistrib_9.13.0.json
REL=cudnn/linux-x86_64/$TOP.tar.xz
ln -f "$A" "$W/root/$REL" 2>/dev/null || cp "$A" "$W/root/$REL"
python3 - "$W/root/redistrib_9.13.0.json" "$SHA" "$SIZE" <<'EOF'
import json, sys
p, sha, size = sys.argv[1:]
m = json.load(open(p))
m["cudnn"]["linux-x86_64"]["cuda12"].update(sha256=sha, size=size)
json.dump(m, open(p, "w"), indent=4)
EOF
rm -f "$W/port"
python3 tests/fixtures/mirror.py serve "$W/root" --cert "$W/certs/server.pem" \
	--key "$W/certs/server.key" --port-file "$W/port" --rate "$RATE" \
	>"$W/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.1; done
PORT=$(cat "$W/port")
URL="https://127.0.0.1:$PORT/$REL"
TURL="https://127.0.0.1:$PORT/fault/throttle/$REL"

export HOME="$W/home" XDG_CONFIG_HOME="$W/home/.config" CUDNNVM_STORE="$W/store"
unset CUDNNVM_CONFIG CUDNNVM_MIRROR http_proxy https_proxy HTTPS_PROXY all_proxy
mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
config() {
	cat >"$XDG_CONFIG_HOME/cudnnvm/config.ini" <<EOF
[store]
cache = $W/cache
[remote]
mirror = $1
ca_file = $W/certs/ca.pem
verify_pins = no
[install]
validate = no
keep_archives = yes
EOF
}

fresh() { rm -rf "$W/store" "$W/cache/downloads" "$W/x" "$W/F"; mkdir -p "$W/x"; }

# median wall seconds of RUNS runs of "$@", each after `fresh`
measure() {
	local t=() i s e
	for i in $(seq "$RUNS"); do
		fresh
		sync
		s=$(date +%s%N)
		"$@" >/dev/null
		e=$(date +%s%N)
		t+=("$(((e - s) / 1000000))")
	done
	printf '%s\n' "${t[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p" |
		awk '{ printf "%.3f", $1 / 1000 }'
}

install_unthrottled() {
	config "https://127.0.0.1:$PORT/"
	"$BIN" -q install 9.13 --cuda 12
}
install_throttled() {
	config "https://127.0.0.1:$PORT/fault/throttle/"
	"$BIN" -q install 9.13 --cuda 12
}
chain() {
	curl -sS --fail --cacert "$W/certs/ca.pem" -o "$W/F" "$URL" &&
		sha256sum "$W/F" >/dev/null && tar -xJf "$W/F" -C "$W/x"
}
tar_alone() { tar -xJf "$A" -C "$W/x"; }
download_unthrottled() {
	curl -sS --fail --cacert "$W/certs/ca.pem" -o /dev/null "$URL"
}
download_throttled() {
	curl -sS --fail --cacert "$W/certs/ca.pem" -o /dev/null "$TURL"
}

# warm the manifest caches and the page cache
config "https://127.0.0.1:$PORT/" && "$BIN" -q list-remote 9.13 >/dev/null
config "https://127.0.0.1:$PORT/fault/throttle/" && "$BIN" -q list-remote 9.13 >/dev/null
cat "$A" >/dev/null

echo "archive ($KIND): $SIZE bytes (sha256 ${SHA:0:12}...), $RUNS runs each, median"
t_inst=$(measure install_unthrottled)
t_chain=$(measure chain)
t_tar=$(measure tar_alone)
t_udl=$(measure download_unthrottled)
t_tinst=$(measure install_throttled)
t_dl=$(measure download_throttled)

fresh
config "https://127.0.0.1:$PORT/"
rss=$(/usr/bin/time -f %M "$BIN" -q install 9.13 --cuda 12 2>&1 >/dev/null | tail -1)
[ -d "$W/store/9.13.0.50-cuda12" ] || { echo "bench: install failed" >&2; exit 1; }

awk -v i="$t_inst" -v u="$t_udl" -v c="$t_chain" -v t="$t_tar" -v ti="$t_tinst" \
	-v d="$t_dl" -v rss="$rss" -v rate="$RATE" 'BEGIN {
	m = d > t ? d : t
	printf "unthrottled:\n"
	printf "  cudnnvm install                    %7.3f s\n", i
	printf "  curl -o F && sha256sum && tar -xJf %7.3f s   install/chain = %.2fx\n", c, i / c
	printf "  tar -xJf alone                     %7.3f s   install/tar   = %.2fx (target <= 1.05)\n", t, i / t
	printf "  download alone (curl -o /dev/null) %7.3f s   install/max(download, tar) = %.2fx\n", u, i / (u > t ? u : t)
	printf "throttled to %.0f MB/s:\n", rate / 1e6
	printf "  cudnnvm install                    %7.3f s\n", ti
	printf "  download alone (curl -o /dev/null) %7.3f s\n", d
	printf "  decode alone (tar -xJf)            %7.3f s\n", t
	printf "  install/max(download, decode)      %7.2fx (target <= 1.1)\n", ti / m
	printf "peak RSS of cudnnvm install          %7.1f MiB (target <= 64)\n", rss / 1024
}'
