#!/usr/bin/env bash
# tests/gpu/frameworks2.sh: every way torch's interpreter starts gets the
# cuDNN that fits it, or one line of reason. Needs the python3 on PATH to be
# a venv holding a CUDA torch with its nvidia-cudnn wheel, and a system
# cuDNN 9 of an older minor in the loader cache (on the H200: torch 2.11
# built against 9.19, system 9.14); tests/gpu/builds.sh packs and installs
# both into a temporary store. Shows:
#  (2) `eval "$(cudnnvm env <older>)"` warns on stderr with torch's need
#      and the env command that fits, and torch then fails as warned;
#      `env <torch's build>` says once that without the .pth hook torch
#      binds its own front library (a second env in that shell is silent);
#  (3) with the venv pinned to torch's build (`cudnnvm venv`) and the older
#      build the ambient choice (global default, then a folder's pin), the
#      venv's pin wins with one warning: `current` says so, and torch run
#      under `eval "$(cudnnvm env)"` reports its own version with every
#      sub-library mapped from the store; CUDNNVM_VERSION still wins.
# The .pth hook written into torch's venv is taken out at the end.
#   usage: tests/gpu/frameworks2.sh        (CUDNNVM_BIN overrides build/cudnnvm)
set -u
cd "$(dirname "$0")/../.."
. tests/gpu/builds.sh
show() { # echo a command (cudnnvm for the binary's path), run it, keep output in $out
	if [ "$1" = "$BIN" ]; then echo "\$ cudnnvm ${*:2}"; else echo "\$ $*"; fi
	out=$("$@" 2>&1)
	rc=$?
	echo "$out"
	echo "(exit $rc)"
}

VENV=$(python3 -c 'import sys; print(sys.prefix)')
torch_v=$(python3 -c 'import importlib.metadata as m; print(m.version("torch"))')
need_mm=$(echo "$pip_v" | cut -d. -f1-2)
store_lib="$CUDNNVM_STORE/$pip_id/lib"
unset CUDNNVM_ACTIVE LD_PRELOAD CONDA_PREFIX _CUDNNVM_FW_SAID
export VIRTUAL_ENV="$VENV"
PROBE='import collections, torch
x = torch.randn(1, 3, 16, 16, device="cuda"); w = torch.randn(4, 3, 3, 3, device="cuda")
torch.nn.functional.conv2d(x, w); torch.cuda.synchronize()
print("conv ran; torch.backends.cudnn.version() =", torch.backends.cudnn.version())
maps = collections.Counter(l.split()[-1] for l in open("/proc/self/maps") if "libcudnn" in l)
for p in sorted(maps): print("  map %2d %s" % (maps[p], p))'
pip_num=$(echo "$pip_v" | awk -F. '{print $1*10000+$2*100+$3}')

echo "== (2) eval \"\$(cudnnvm env $sys_id)\" warns, in the gate's words"
mkdir -p "$W/p2" && cd "$W/p2"
echo "\$ cudnnvm env --shell bash $sys_id >env.sh"
err=$("$BIN" env --shell bash "$sys_id" 2>&1 >"$W/env.sh")
rc=$?
echo "$err"
want="cudnnvm: warning: $sys_id is active but torch $torch_v ($VENV) needs cuDNN 9.x ≥ $need_mm built for CUDA $pip_cuda"
[ $rc -eq 0 ] && [ "$(sed -n 1p <<<"$err")" = "$want" ] &&
	[ "$(sed -n 2p <<<"$err")" = "hint: eval \"\$(cudnnvm env $need_mm)\"" ] &&
	grep -q "CUDNNVM_ACTIVE='$sys_id'" "$W/env.sh" &&
	ok "(2) env $sys_id warns and still prints the script" || bad "(2) env $sys_id (exit $rc)"
show bash -c ". '$W/env.sh'; exec python3 -c '$PROBE'"
[ $rc -ne 0 ] && [[ $out == *"cuDNN version incompatibility"* ]] &&
	ok "(2) torch then fails as warned" || bad "(2) torch under env $sys_id (exit $rc)"
echo "\$ cudnnvm env --shell bash $pip_id (twice in one shell)"
out=$(bash -c "eval \"\$('$BIN' env --shell bash '$pip_id')\"; echo second >&2; '$BIN' env --shell bash '$pip_id' >/dev/null" 2>&1)
echo "$out"
[ "$(grep -c "loads its own cuDNN front library from" <<<"$out")" -eq 1 ] &&
	[[ $out == *"hint: cudnnvm venv $need_mm --path '$VENV'"* ]] &&
	[ "$(sed -n '/^second$/,$p' <<<"$out")" = second ] &&
	ok "(2) env $pip_id says once that torch binds its own front library" ||
	bad "(2) the front-library note"
cd - >/dev/null

echo "== (3) the venv pin beats an ambient $sys_id activation"
show "$BIN" venv "$pip_id" --path "$VENV"
[ $rc -eq 0 ] || bad "(3) venv $pip_id"
show "$BIN" global --force --no-validate "$sys_id"
# not activated: the venv is the environment of the python3 on PATH
unset VIRTUAL_ENV
mkdir -p "$W/p3" && cd "$W/p3"
show "$BIN" current
# (the folder as found through python3 on PATH: pyvenv.cfg's, resolved)
[ $rc -eq 0 ] && [[ $out == "$pip_id (pinned to "*" with 'cudnnvm venv'; the global default $sys_id is passed over: torch $torch_v ("*") needs cuDNN 9.x ≥ $need_mm"* ]] &&
	ok "(3) current names the venv's pin over the global $sys_id" || bad "(3) current (global)"
echo "\$ eval \"\$(cudnnvm env)\"; python3 -c PROBE"
out=$(bash -c "eval \"\$('$BIN' env --shell bash)\" && echo \"active=\$CUDNNVM_ACTIVE\" && python3 -c '$PROBE'" 2>&1)
rc=$?
echo "$out"
subs_store=$(grep -c "map .*$store_lib/libcudnn_" <<<"$out")
# torch's own start-up maps its bundled front library by path (preload.sh
# shows nothing binds to it); a sub-library from elsewhere is a mixed load
subs_other=$(grep "map .*/libcudnn_" <<<"$out" | grep -vc "$store_lib/")
[ $rc -eq 0 ] && [[ $out == *"warning: $sys_id (the global default) is passed over"* ]] &&
	[[ $out == *"active=$pip_id"* ]] && [[ $out == *"cudnn.version() = $pip_num"* ]] &&
	[ "$subs_store" -gt 0 ] && [ "$subs_other" -eq 0 ] &&
	ok "(3) under the ambient global $sys_id, torch binds $pip_id from the store ($subs_store sub-library mappings, none elsewhere)" ||
	bad "(3) torch under the global $sys_id (store: $subs_store, elsewhere: $subs_other, exit $rc)"
echo "$sys_id" >.cudnn-version
show "$BIN" current
[[ $out == "$pip_id (pinned to "*" with 'cudnnvm venv'; $sys_id of $W/p3/.cudnn-version is passed over: "* ]] &&
	ok "(3) a folder's pin of $sys_id is passed over too" || bad "(3) current (pin file)"
out=$(bash -c "eval \"\$('$BIN' env --shell bash)\" && python3 -c '$PROBE'" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] && [[ $out == *"cudnn.version() = $pip_num"* ]] &&
	ok "(3) torch runs $pip_id under the folder's pin of $sys_id" || bad "(3) torch under the pin file (exit $rc)"
CUDNNVM_VERSION="$sys_id" show "$BIN" current
[[ $out == "$sys_id (set by CUDNNVM_VERSION=$sys_id)" ]] &&
	ok "(3) CUDNNVM_VERSION is never passed over" || bad "(3) CUDNNVM_VERSION"
cd - >/dev/null
"$BIN" -q venv --remove --path "$VENV"
"$BIN" -q global --unset
echo "== $fails failure(s)"
[ $fails -eq 0 ]
