#!/usr/bin/env bash
# bench_list_remote.sh: a cold `cudnnvm list-remote` against the loopback
# HTTPS mirror (tests/fixtures/mirror.py) holding BENCH_MANIFESTS manifests
# (default 40), every answer delayed by 100 ms as from a mirror far away,
# against one request of one manifest with curl. Fetching the manifests
# one by one costs a round trip each (about 4 s for 40); fetched together
# the whole listing should cost a few round trips: target <= 4x one
# request, whatever the count.
#
# The one request is made by curl, or where curl is missing by python3's
# http.client, timed inside python3 (so that its start is not counted).
# Nothing here needs a network: mirror and certificates are local (openssl).
#
# Knobs: BENCH_MANIFESTS (40), BENCH_RUNS (5; the median is reported),
# BENCH_BIN: the cudnnvm to measure (default build/cudnnvm); its
# cudnnvm-helper must sit beside it.
set -eu
here=$(dirname "$0")
. "$here/common.sh"
[ -z "${BENCH_BIN:-}" ] || BENCH_BIN=$(bench_abs "$BENCH_BIN")
cd "$here/.."
W="$PWD/build/bench-list-remote"
N=${BENCH_MANIFESTS:-40}
RUNS=${BENCH_RUNS:-5}

bench_bin
rm -rf "$W/root" "$W/home" "$W/cache" "$W/store"
mkdir -p "$W"
bench_certs "$W/certs"
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
# without curl: RUNS requests, each on a new connection, timed in python3;
# prints the median in seconds as measure does
one_request_python() {
	python3 - "$W/certs/ca.pem" "$PORT" "$RUNS" <<'PY'
import http.client, ssl, sys, time
ca, port, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ctx = ssl.create_default_context(cafile=ca)
t = []
for _ in range(runs):
    s = time.monotonic()
    c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx)
    c.request("GET", "/fault/delay/redistrib_9.1.0.json")
    r = c.getresponse()
    r.read()
    if r.status != 200:
        sys.exit("bench: one request: HTTP %d" % r.status)
    c.close()
    t.append(int((time.monotonic() - s) * 1000))
t.sort()
print("%.3f" % (t[(runs + 1) // 2 - 1] / 1000))
PY
}
list_remote() { "$BIN" -q list-remote --platform linux-x86_64 --cuda 12; }

shown=$(list_remote | wc -l)
[ "$shown" -eq "$N" ] || { echo "bench: list-remote showed $shown of $N" >&2; exit 1; }
if command -v curl >/dev/null; then
	tool=curl
	t_one=$(measure one_request)
else
	tool=python3
	t_one=$(one_request_python)
fi
t_list=$(measure list_remote)
awk -v o="$t_one" -v l="$t_list" -v n="$N" -v tool="$tool" 'BEGIN {
	printf "mirror: %d manifests, 100 ms added to every answer, median of runs\n", n
	printf "  %-35s%7.3f s\n", "one request (" tool ", one manifest)", o
	printf "  cold cudnnvm list-remote           %7.3f s   list-remote/request = %.2fx (target <= 4)\n", l, l / o
}'
