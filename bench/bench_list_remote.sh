#!/usr/bin/env bash
# bench_list_remote.sh: a cold `cudnnvm list-remote` against the loopback
# HTTPS mirror (tests/fixtures/mirror.py) holding BENCH_MANIFESTS manifests
# (default 40), every answer delayed by 100 ms as from a mirror far away,
# against one request of one manifest with curl. Fetching the manifests
# one by one costs a round trip each (about 4 s for 40); fetched together
# the whole listing should cost a few round trips: target <= 4x one
# request, whatever the count.
#
# Knobs: BENCH_MANIFESTS (40), BENCH_RUNS (5; the median is reported).
set -eu
cd "$(dirname "$0")/.."
BIN="$PWD/build/cudnnvm"
W="$PWD/build/bench-list-remote"
N=${BENCH_MANIFESTS:-40}
RUNS=${BENCH_RUNS:-5}

[ -x "$BIN" ] || { echo "bench: build first (make)" >&2; exit 1; }
rm -rf "$W/root" "$W/home" "$W/cache" "$W/store"
mkdir -p "$W"
[ -s "$W/certs/ca.pem" ] || python3 tests/fixtures/mirror.py certs "$W/certs"
python3 tests/fixtures/mirror.py build "$W/root" \
	tests/fixtures/manifests/redistrib_9.13.0.json >/dev/null
# N releases: the one real manifest under N version numbers (list-remote
# reads manifests only; their archives are never fetched)
python3 - "$W/root" "$N" <<'PY'
import json, os, sys
root, n = sys.argv[1], int(sys.argv[2])
base = json.load(open(os.path.join(root, "redistrib_9.13.0.json")))
os.remove(os.path.join(root, "redistrib_9.13.0.json"))
names = []
for i in range(n):
    label = "9.%d.%d" % (i // 10 + 1, i % 10)
    m = json.loads(json.dumps(base))
    m["release_label"] = label
    m["cudnn"]["version"] = label + ".%d" % (10 + i)
    name = "redistrib_%s.json" % label
    json.dump(m, open(os.path.join(root, name), "w"), indent=4)
    names.append(name)
with open(os.path.join(root, "index.html"), "w") as f:
    f.write("<html><body><pre>\n")
    for name in names:
        f.write('<a href="%s">%s</a>\n' % (name, name))
    f.write("</pre></body></html>\n")
PY
rm -f "$W/port"
python3 tests/fixtures/mirror.py serve "$W/root" --cert "$W/certs/server.pem" \
	--key "$W/certs/server.key" --port-file "$W/port" >"$W/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.1; done
PORT=$(cat "$W/port")
MIRROR="https://127.0.0.1:$PORT/fault/delay/"

export HOME="$W/home" XDG_CONFIG_HOME="$W/home/.config" CUDNNVM_STORE="$W/store"
unset CUDNNVM_CONFIG CUDNNVM_MIRROR http_proxy https_proxy HTTPS_PROXY all_proxy
mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
cat >"$XDG_CONFIG_HOME/cudnnvm/config.ini" <<INI
[store]
cache = $W/cache
[remote]
mirror = $MIRROR
ca_file = $W/certs/ca.pem
verify_pins = no
INI

# median wall seconds of RUNS runs of "$@", each from a cold cache
measure() {
	local t=() i s e
	for i in $(seq "$RUNS"); do
		rm -rf "$W/cache"
		s=$(date +%s%N)
		"$@" >/dev/null
		e=$(date +%s%N)
		t+=("$(((e - s) / 1000000))")
	done
	printf '%s\n' "${t[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p" |
		awk '{ printf "%.3f", $1 / 1000 }'
}
one_request() {
	curl -sS --fail --cacert "$W/certs/ca.pem" -o /dev/null "${MIRROR}redistrib_9.1.0.json"
}
list_remote() { "$BIN" -q list-remote --platform linux-x86_64 --cuda 12; }

shown=$(list_remote | wc -l)
[ "$shown" -eq "$N" ] || { echo "bench: list-remote showed $shown of $N" >&2; exit 1; }
t_one=$(measure one_request)
t_list=$(measure list_remote)
awk -v o="$t_one" -v l="$t_list" -v n="$N" 'BEGIN {
	printf "mirror: %d manifests, 100 ms added to every answer, median of runs\n", n
	printf "  one request (curl, one manifest)   %7.3f s\n", o
	printf "  cold cudnnvm list-remote           %7.3f s   list-remote/request = %.2fx (target <= 4)\n", l, l / o
}'
