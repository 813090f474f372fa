#!/usr/bin/env bash
# tests/gpu/speed.sh: on a real GPU, with the two real cuDNN 9 builds
# tests/gpu/builds.sh installs (the system one and PyTorch's wheel):
#  (a) what torch and JAX (python3's environment: the torch venv, JAX's CUDA
#      plugin in it) report themselves under `exec --force <id>`: torch's
#      cudnn.version() and compiled version, JAX's
#      cuda_versions.cudnn_get_version() and cudnn_build_version();
#  (b) `validate <id> --frameworks` for both builds: each framework's line
#      must quote the version the framework itself reported in (a), never
#      0, and fail where the framework's own rule fails (runtime major ==
#      build major, runtime minor >= build minor);
#  (c) bench/bench_validate_floor.sh for both builds: validate cold against
#      the minimal C program.
# Prints a skip line and exits 0 without a GPU.
#   usage: tests/gpu/speed.sh        (CUDNNVM_BIN overrides build/cudnnvm)
set -u
cd "$(dirname "$0")/../.."
. tests/gpu/builds.sh
VENV=$(python3 -c 'import sys; print(sys.prefix)')
export VIRTUAL_ENV="$VENV"
OWN='
import json, sys
out = {}
try:
    import torch
    x = torch.randn(1, 3, 16, 16, device="cuda")
    torch.nn.functional.conv2d(x, torch.randn(4, 3, 3, 3, device="cuda")).sum().item()
    t = torch._C._cudnn.getCompileVersion()
    out["torch"] = [torch.backends.cudnn.version(), t[0] * 10000 + t[1] * 100 + t[2]]
except BaseException as e:
    out["torch"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
try:
    import jax, jax.numpy as jnp
    jax.lax.conv(jnp.ones((1, 3, 16, 16)), jnp.ones((4, 3, 3, 3)), (1, 1), "SAME").block_until_ready()
    from jax._src.lib import cuda_versions as cv
    out["jax"] = [cv.cudnn_get_version(), cv.cudnn_build_version()]
except BaseException as e:
    out["jax"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
print(json.dumps(out))'
# rule RUNTIME BUILD: 0 when the framework's own rule passes
rule() {
	awk -v r="$1" -v b="$2" 'BEGIN { mr = r >= 90000 ? int(r / 10000) : int(r / 1000)
		mb = b >= 90000 ? int(b / 10000) : int(b / 1000)
		exit !(mr == mb && int(r / 100) >= int(b / 100)) }'
}
for id in "$pip_id" "$sys_id"; do
	echo "== (a) $id: what torch and JAX report themselves"
	own=$("$BIN" -q exec --force "$id" -- python3 -c "$OWN" 2>/dev/null | tail -1)
	echo "$own"
	echo "== (b) $id: validate --frameworks"
	rm -rf "$CUDNNVM_STORE/.cache/validate"
	out=$("$BIN" validate "$id" --frameworks 2>&1)
	rc=$?
	echo "$out"
	echo "(exit $rc)"
	for fw in torch jax; do
		read -r rt bt < <(python3 -c 'import json,sys; v=json.loads(sys.argv[1]).get(sys.argv[2]); print(*(v if isinstance(v, list) else [0, 0]))' "$own" "$fw" 2>/dev/null)
		line=$(grep "framework $fw " <<<"$out")
		if [ "${rt:-0}" = 0 ]; then
			[[ $line == *fail* ]] && ok "(b) $id $fw: no version of its own, and a fail" ||
				bad "(b) $id $fw: '$line'"
		elif rule "$rt" "$bt"; then
			[[ $line == *"pass (cuDNN $rt, built against $bt, "* ]] &&
				ok "(b) $id $fw: pass quoting $rt/$bt, what $fw reported" ||
				bad "(b) $id $fw passes its own rule ($rt/$bt): '$line'"
		else
			[[ $line == *"fail"*"$rt"* ]] &&
				ok "(b) $id $fw: fails its own rule ($rt against $bt), and validate says so" ||
				bad "(b) $id $fw fails its own rule ($rt/$bt): '$line'"
		fi
		[[ $line != *"cuDNN 0"* ]] || bad "(b) $id $fw printed cuDNN 0"
	done
done
echo "== (c) validate cold against the minimal C program"
for id in "$sys_id" "$pip_id"; do
	CUDNNVM_BIN="$BIN" BENCH_ID="$id" bash bench/bench_validate_floor.sh || bad "bench floor $id"
done
echo "== $fails failure(s)"
[ $fails -eq 0 ]
