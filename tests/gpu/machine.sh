#!/usr/bin/env bash
# tests/gpu/machine.sh: the machine model on a real GPU machine. The driver's
# CUDA is read from the kernel module (no process), the toolkit from its own
# files, and each fact says where it came from (doctor --json); doctor's own
# fix for a cuDNN in the system library folder, `cudnnvm import <folder>`,
# works without --cuda because the library says which CUDA it was built for
# (cudnnGetCudartVersion in the probe child); the imported copy validates on
# the GPU. Prints a skip line and exits 0 without a GPU.
#   usage: tests/gpu/machine.sh   (CUDNNVM_BIN overrides build/cudnnvm)
set -u
cd "$(dirname "$0")/../.."
. tests/gpu/common.sh
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no NVIDIA GPU (nvidia-smi -L failed)"
	exit 0
fi
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export CUDNNVM_STORE="$W/store" XDG_CACHE_HOME="$W/cache"
export XDG_CONFIG_HOME="$W/config" CUDNNVM_SYSCONFDIR="$W/etc"
unset CUDNNVM_VERSION LD_LIBRARY_PATH

echo "== the machine's facts and their sources"
"$BIN" doctor --json >"$W/doctor.json" 2>/dev/null
python3 - "$W/doctor.json" <<'PY' || bad "doctor --json machine facts"
import json, sys
m = json.load(open(sys.argv[1]))["machine"]
print(json.dumps(m, indent=2))
assert m["driver_version"], m
assert m["driver_cuda"]["source"] == "driver", m
assert m["preferred_cuda"], m
PY
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["machine"]; sys.exit(m["driver_version"] != sys.argv[2])' "$W/doctor.json" "$drv" &&
	ok "driver $drv read without a process, as nvidia-smi says" || bad "driver version differs from nvidia-smi's $drv"

echo "== import of the system cuDNN folder: the library names its CUDA"
sys_dir=$(ldconfig -p | awk '/libcudnn.so.9 /{print $NF; exit}')
sys_dir=${sys_dir%/*}
if [ -z "$sys_dir" ]; then
	echo "skip: no system cuDNN 9 in ldconfig -p"
else
	echo "\$ cudnnvm import $sys_dir"
	if "$BIN" import "$sys_dir" --no-validate; then
		id=$(ls "$CUDNNVM_STORE" | grep -- '-cuda' | head -1)
		echo "imported as $id; $(python3 -c 'import json,sys; print("cuda_from:", json.load(open(sys.argv[1]))["cuda_from"])' "$CUDNNVM_STORE/$id/import.json")"
		ok "import $sys_dir without --cuda"
		out=$("$BIN" validate "$id" 2>&1)
		echo "$out"
		echo "$out" | grep -q "5 gpu *pass" && ok "the imported $id computes on the GPU" || bad "validate $id"
	else
		bad "import $sys_dir"
	fi
fi
echo "== $fails failure(s)"
[ "$fails" -eq 0 ]
