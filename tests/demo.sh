#!/usr/bin/env bash
# demo.sh: the main job end to end, in a temporary store, against a local
# HTTPS mirror laid out like NVIDIA's redist tree:
#   list-remote -> install 9.13, the build for this machine's CUDA
#   (download, verify, extract, validate) -> list -> use 9.13 ...
#   in a project -> current / which / env -> validate, with no warning
# The archive holds stub cuDNN 9.13 libraries built from
# tests/fixtures/fake_cudnn.c (real ELF objects answering cudnnGetVersion
# like 9.13.0), so validation steps 1-3 run for real; without an NVIDIA GPU
# steps 4-5 are skipped, and the demo says so.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
bin=$repo/build/cudnnvm
fx=$repo/tests/fixtures
work=$(mktemp -d "${TMPDIR:-/tmp}/cudnnvm-demo.XXXXXX")
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# each command is echoed as it could be pasted: a word with anything but
# plain characters in single quotes
quoted() {
	local a sep=
	for a in "$@"; do
		if [[ $a =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then
			printf '%s%s' "$sep" "$a"
		else
			printf "%s'%s'" "$sep" "${a//\'/\'\\\'\'}"
		fi
		sep=' '
	done
}
run() {
	printf '$ %s\n' "$(quoted "$@")"
	"$@"
}

step "build stub cuDNN 9.13.0 libraries and pack them as NVIDIA does"
# one build per CUDA major, as NVIDIA ships them: install picks the one
# that fits this machine (its CUDA toolkit, else the newest)
root=$work/root
mkdir -p "$root/cudnn/linux-x86_64"
for cuda in 12 13; do
	libs=$work/libs$cuda
	mkdir -p "$libs"
	so() { cc -shared -fPIC -O1 -w -o "$libs/$1" -Wl,-soname,"$1" "${@:2}" \
		"$fx/fake_cudnn.c" -ldl; }
	so libcudnn.so.9 -DFAKE_SHIM -DFAKE_MAJOR=9 -DFAKE_VERSION=91300 \
		-DFAKE_CUDART=$((cuda * 1000))
	for s in graph ops cnn; do
		so "libcudnn_$s.so.9" -DFAKE_SUB -DFAKE_VERSION=91300
	done
	python3 "$fx/mkarchive.py" nvidia --out "$root/cudnn/linux-x86_64" \
		--version 9.13.0.50 --cuda $cuda --libdir "$libs" >"$work/archive$cuda.json"
done
python3 - "$work" "$fx/manifests/redistrib_9.13.0.json" <<'PY'
import json, os, sys
work, src = sys.argv[1], sys.argv[2]
m = json.load(open(src))
builds = {}
for cuda in ("12", "13"):
    a = json.load(open(os.path.join(work, "archive%s.json" % cuda)))
    e = m["cudnn"]["linux-x86_64"]["cuda" + cuda]
    e["sha256"], e["size"] = a["sha256"], str(a["size"])
    e["relative_path"] = "cudnn/linux-x86_64/" + a["filename"]
    builds["cuda" + cuda] = e
    print("archive %s (%d bytes, sha256 %s)" % (a["filename"], a["size"],
                                                 a["sha256"]))
# keep only the builds this mirror serves
m["cudnn"] = {k: v for k, v in m["cudnn"].items()
              if not isinstance(v, dict) or k == "linux-x86_64"}
m["cudnn"]["linux-x86_64"] = builds
json.dump(m, open(os.path.join(work, "root", "redistrib_9.13.0.json"), "w"),
          indent=4)
with open(os.path.join(work, "root", "index.html"), "w") as f:
    f.write('<html><body><pre>\n<a href="cudnn/">cudnn/</a>\n'
            '<a href="redistrib_9.13.0.json">redistrib_9.13.0.json</a>\n'
            '</pre></body></html>\n')
PY
# NVIDIA's CUDA redist tree beside it (compute/cuda/redist/ next to
# compute/cudnn/redist/), where install gets cuBLAS and nvrtc when this
# machine has none
python3 "$fx/mkcuda.py" build "$root/compute/cuda/redist" 12.8.1 --pad-mb 1 >/dev/null
python3 "$fx/mkcuda.py" build "$root/compute/cuda/redist" 13.0.2 --pad-mb 1 >/dev/null
mkdir -p "$root/compute/cudnn"
ln -s ../.. "$root/compute/cudnn/redist"

step "start an HTTPS mirror on 127.0.0.1 with a CA made for the demo"
python3 "$fx/mirror.py" certs "$work/certs"
python3 "$fx/mirror.py" serve "$work/root" --cert "$work/certs/server.pem" \
	--key "$work/certs/server.key" --port-file "$work/port" \
	>"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
echo "mirror: https://127.0.0.1:$port/compute/cudnn/redist/"

export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config
export XDG_CACHE_HOME=$work/home/.cache XDG_DATA_HOME=$work/home/.local/share
export CUDNNVM_STORE=$work/store
unset CUDNNVM_VERSION CUDNNVM_CONFIG CUDNNVM_MIRROR
mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
cat >"$XDG_CONFIG_HOME/cudnnvm/config.ini" <<INI
[remote]
mirror = https://127.0.0.1:$port/compute/cudnn/redist/
ca_file = $work/certs/ca.pem
; the demo mirror repackages NVIDIA's manifest, so its hash is not NVIDIA's
verify_pins = no
INI
export PATH=$repo/build:$PATH

step "what the mirror offers"
run cudnnvm list-remote 9.13

step "install 9.13: the build that fits, resolved, downloaded, hashed and extracted in one pass, validated"
run cudnnvm install 9.13
run cudnnvm install 9.13

step "installed versions, and where they live"
run cudnnvm list
id=$(cudnnvm list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
run ls -l "$CUDNNVM_STORE/$id/lib"

step "pin it for a project"
mkdir -p "$work/project/src"
cd "$work/project"
run cudnnvm use 9.13
run cat .cudnn-version
cd src
run cudnnvm current
run cudnnvm which lib
run cudnnvm env --shell bash

step "validate the active version"
run cudnnvm validate
run cudnnvm exec -- sh -c 'echo "in exec: CUDNNVM_ACTIVE=$CUDNNVM_ACTIVE"'

step "done"
echo "store: $CUDNNVM_STORE (removed when the demo ends)"
