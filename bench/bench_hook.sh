#!/usr/bin/env bash
# bench_hook.sh: activation speed, in one run, in bash.
#  - the prompt hook at an unchanged prompt (no process), entering a pinned
#    project and leaving it, against direnv doing the same job;
#  - exec against running the program directly;
#  - env, current and which against /bin/true;
#  - a global switch;
#  - hook-env entering a pinned project with 2, 40 and 200 versions
#    installed, against /bin/true: resolving a spec must not cost more as
#    the store grows (shared cluster stores hold dozens of versions times
#    CUDA variants).
# Versions are made by hand in a private store (activation only), with the
# folder and cudnnvm.json an install leaves.
# Targets: unchanged prompt <= 0.05 ms; enter <= 1 ms; exec overhead
# <= 1 ms; env/current/which <= 1.5x /bin/true; global <= 1 ms; hook-env
# entering a project <= 2x /bin/true with 200 versions installed.
set -eu
cd "$(dirname "$0")/.."
BIN="${CUDNNVM_BIN:-$PWD/build/cudnnvm}"
[ -x "$BIN" ] || { echo "build/cudnnvm missing: run make"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export HOME="$W/home" XDG_CONFIG_HOME="$W/home/.config" XDG_DATA_HOME="$W/home/.local/share"
export XDG_CACHE_HOME="$W/home/.cache" CUDNNVM_STORE="$W/store" CUDNNVM_SYSCONFDIR="$W/etc"
unset CUDNNVM_VERSION CUDNNVM_ACTIVE CUDNNVM_CONFIG XDG_RUNTIME_DIR
export PATH="$(dirname "$BIN"):$PATH"
mkdir -p "$HOME/.config/cudnnvm" "$W/etc" "$W/proj/src" "$W/plain"
printf '[install]\nvalidate = no\n' >"$HOME/.config/cudnnvm/config.ini"
# make_version STORE ID: a store entry as an install publishes it
make_version() {
	local d="$1/$2" v="${2%-cuda*}"
	mkdir -p "$d/include" "$d/lib"
	ln -s lib "$d/lib64"
	echo x >"$d/lib/libcudnn.so.${v%%.*}"
	printf '{"id": "%s", "version": "%s", "cuda": %s, "platform": "linux-x86_64", "sha256": "%064d", "size": 1, "source": "bench", "installed_at": "2026-01-01T00:00:00Z"}\n' \
		"$2" "$v" "${2##*-cuda}" 0 >"$d/cudnnvm.json"
}
for id in 9.1.0.70-cuda12 9.13.0.50-cuda12; do
	make_version "$CUDNNVM_STORE" "$id"
done
# stores of 2, 40 and 200 versions; each holds the pinned 9.13.0.50-cuda12
# and older ones, so the pin (9.13) matches one version among many
for n in 2 40 200; do
	make_version "$W/store$n" 9.13.0.50-cuda12
	k=1
	for minor in $(seq 0 12); do
		for patch in 0 1 2 3 4 5 6 7; do
			for cuda in 11 12; do
				[ "$k" -lt "$n" ] || break 3
				make_version "$W/store$n" "9.$minor.$patch.$((10 + k))-cuda$cuda"
				k=$((k + 1))
			done
		done
	done
done
# --force: these hand-made versions cannot load, and a framework of the
# machine's own Python (a torch venv first on PATH) would refuse them
cudnnvm -q global --force 9.1
echo 9.13 >"$W/proj/.cudnn-version"
N=${BENCH_N:-2000}
NE=${BENCH_NE:-200}

# µs per call of a bash snippet, measured inside one bash with EPOCHREALTIME
per_call() { # setup, body, count
	bash --norc --noprofile -c "$1"'
s=$EPOCHREALTIME
for ((i = 0; i < '"$3"'; i++)); do '"$2"'; done
e=$EPOCHREALTIME
echo $(( (${e/./} - ${s/./}) / '"$3"' ))'
}

echo "-- prompt hook (bash), microseconds per prompt"
base=$(per_call 'f() { local s=$?; return $s; }' f "$N")
unchanged=$(per_call 'eval "$(cudnnvm init bash)"; cd "'"$W"'/proj/src"; _cudnnvm_hook; sleep 0.05' _cudnnvm_hook "$N")
# count processes at unchanged prompts through strace when there is one;
# the marker is a process of its own, since strace shows only execve here
procs="n/a (no strace)"
if command -v strace >/dev/null; then
	procs=$(strace -f -e trace=execve -o "$W/trace" bash --norc --noprofile -c '
eval "$(cudnnvm init bash)"; cd "'"$W"'/proj/src"; _cudnnvm_hook; sleep 0.05
/bin/true cudnnvm-bench-mark; for i in 1 2 3 4 5 6 7 8 9 10; do _cudnnvm_hook; done' >/dev/null 2>&1 &&
		awk 'm && /execve\(/ { n++ } /execve\(.*"cudnnvm-bench-mark"\]/ { m = 1 }
			END { if (m) print n + 0; else print "?" }' "$W/trace")
	procs="$procs processes started in 10 unchanged prompts"
fi
enter=$(per_call 'eval "$(cudnnvm init bash)"; cd "'"$W"'/plain"; _cudnnvm_hook' 'cd "'"$W"'/proj/src"; _cudnnvm_hook; cd "'"$W"'/plain"; _cudnnvm_hook' "$NE")
# the same job with direnv: its hook runs `direnv export` at every prompt
cat >"$W/proj/.envrc" <<ENVRC
export LD_LIBRARY_PATH="$CUDNNVM_STORE/9.13.0.50-cuda12/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export CPATH="$CUDNNVM_STORE/9.13.0.50-cuda12/include" LIBRARY_PATH="$CUDNNVM_STORE/9.13.0.50-cuda12/lib"
export CUDNN_HOME="$CUDNNVM_STORE/9.13.0.50-cuda12" CUDNN_PATH="$CUDNNVM_STORE/9.13.0.50-cuda12" CUDNN_ROOT="$CUDNNVM_STORE/9.13.0.50-cuda12"
ENVRC
d_unchanged=n/a d_enter=n/a
if command -v direnv >/dev/null; then
	(cd "$W/proj" && direnv allow . >/dev/null 2>&1)
	d_unchanged=$(per_call 'eval "$(direnv hook bash)"; cd "'"$W"'/proj/src"; _direnv_hook 2>/dev/null' '_direnv_hook 2>/dev/null' "$NE")
	d_enter=$(per_call 'eval "$(direnv hook bash)"; cd "'"$W"'/plain"; _direnv_hook 2>/dev/null' 'cd "'"$W"'/proj/src"; _direnv_hook 2>/dev/null; cd "'"$W"'/plain"; _direnv_hook 2>/dev/null' "$NE")
fi
printf '%-44s %8s us\n' "empty prompt function (baseline)" "$base"
printf '%-44s %8s us  (%s)\n' "cudnnvm hook, unchanged prompt" "$unchanged" "$procs"
printf '%-44s %8s us\n' "cudnnvm hook, enter project + leave it" "$enter"
printf '%-44s %8s us\n' "direnv hook, unchanged prompt" "$d_unchanged"
printf '%-44s %8s us\n' "direnv hook, enter project + leave it" "$d_enter"
if [ "$d_unchanged" != n/a ]; then
	awk -v a="$unchanged" -v b="$d_unchanged" -v c="$enter" -v d="$d_enter" 'BEGIN {
		printf "ratio unchanged prompt cudnnvm/direnv: %.3f\n", a / b
		printf "ratio enter+leave     cudnnvm/direnv: %.3f\n", c / d }'
fi
echo "mise: skipped (not packaged for Debian and not on PyPI; nothing downloaded)"

echo "-- commands against /bin/true (hyperfine, no shell)"
cd "$W/proj/src"
# -N: no intermediate shell, so sub-millisecond commands are measured as
# they are (with a shell, hyperfine cannot subtract its start-up precisely)
if ! hyperfine -N --warmup 20 --min-runs 300 --export-json "$W/h.json" \
	'/bin/true' \
	"$BIN --version" \
	"$BIN exec -- /bin/true" \
	"$BIN env --shell bash" \
	"$BIN current" \
	"$BIN which lib" \
	"$BIN -q global --force 9.1" >"$W/hf.log" 2>&1; then
	cat "$W/hf.log"
	exit 1
fi
python3 - "$W/h.json" "$(dirname "$BIN")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]["mean"]
for x in r:
    name = x["command"].replace(sys.argv[2] + "/", "")
    print("%-34s %8.3f ms  %5.2fx /bin/true  (+%.3f ms)" % (name, x["mean"] * 1e3, x["mean"] / base, (x["mean"] - base) * 1e3))
PY
echo "(cudnnvm --version shows the start-up floor; libcurl, libarchive and"
echo " libcrypto are linked only into cudnnvm-helper, which runs install,"
echo " list-remote, import and mirror)"

echo "-- entering a pinned project, by versions installed (hyperfine)"
# the stamp a shell would pass back, so every run does the same work
stamp=$(cd "$W/proj/src" && "$BIN" --store "$W/store2" hook-env --shell bash |
	sed -n "s/^_CUDNNVM_STAMP='\{0,1\}\([^']*\)'\{0,1\}\$/\1/p")
[ -n "$stamp" ] || { echo "hook-env printed no stamp"; exit 1; }
if ! hyperfine -N --warmup 20 --min-runs 300 --export-json "$W/s.json" \
	'/bin/true' \
	"$BIN --store $W/store2 hook-env --shell bash --stamp $stamp" \
	"$BIN --store $W/store40 hook-env --shell bash --stamp $stamp" \
	"$BIN --store $W/store200 hook-env --shell bash --stamp $stamp" \
	"$BIN --store $W/store200 env --shell bash" \
	"$BIN --store $W/store200 current" \
	"$BIN --store $W/store200 which lib" \
	"$BIN --store $W/store200 exec -- /bin/true" \
	>"$W/hs.log" 2>&1; then
	cat "$W/hs.log"
	exit 1
fi
python3 - "$W/s.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]["mean"]
print("%-34s %8.3f ms" % ("/bin/true", base * 1e3))
names = ["hook-env, %d versions installed" % n for n in (2, 40, 200)]
names += ["%s, 200 versions" % c for c in ("env", "current", "which lib", "exec")]
for x, name in zip(r[1:], names):
    print("%-34s %8.3f ms  %5.2fx /bin/true  (median %5.2fx, +%.3f ms)" % (
        name, x["mean"] * 1e3, x["mean"] / base,
        x["median"] / r[0]["median"], (x["median"] - r[0]["median"]) * 1e3))
PY
