# tests/gpu/builds.sh: sourced by the GPU checks (run.sh, bench.sh). On a
# machine with an NVIDIA GPU it finds two real cuDNN 9 builds, the system one
# (`ldconfig -p`) and PyTorch's (the nvidia-cudnn wheel), packs each into an
# NVIDIA-shaped archive and installs both into a temporary store. Sets BIN,
# W (the scratch folder), sys_dir/pip_dir, sys_v/pip_v, sys_cuda/pip_cuda,
# sys_id/pip_id and fails; defines run, ok, bad and field. Without a GPU it
# prints a skip line and exits 0.
. tests/gpu/common.sh
run() { # echo the command (to stderr: stdout may be a --json file), then run it
	if [ "$1" = "$BIN" ]; then echo "\$ cudnnvm ${*:2}" >&2; else echo "\$ $*" >&2; fi
	"$@"
}

if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no NVIDIA GPU (nvidia-smi -L failed)"
	exit 0
fi
[ -x "$BIN" ] || make -s >/dev/null || { echo "FAIL: cannot build $BIN"; exit 1; }
nvidia-smi -L
nvidia-smi --query-gpu=driver_version,compute_cap --format=csv,noheader

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export CUDNNVM_STORE="$W/store" XDG_CACHE_HOME="$W/cache"
export XDG_CONFIG_HOME="$W/config" CUDNNVM_SYSCONFDIR="$W/etc"
unset CUDNNVM_VERSION LD_LIBRARY_PATH

# What a folder's libcudnn.so.9 says about itself: "M.m.p cudaN".
describe() {
	python3 - "$1" <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1] + "/libcudnn.so.9")
v, rt = lib.cudnnGetVersion(), lib.cudnnGetCudartVersion()
print("%d.%d.%d %d" % (v // 10000, v // 100 % 100, v % 100, rt // 1000))
PY
}

sys_dir=$(ldconfig -p | awk '/libcudnn.so.9 /{print $NF; exit}')
sys_dir=${sys_dir%/*}
pip_dir=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null)/lib
[ -n "$sys_dir" ] && [ -e "$sys_dir/libcudnn.so.9" ] || { echo "FAIL: no system cuDNN 9 in ldconfig -p"; exit 1; }
[ -e "$pip_dir/libcudnn.so.9" ] || { echo "FAIL: no nvidia.cudnn wheel for python3"; exit 1; }
read -r sys_v sys_cuda < <(describe "$sys_dir")
read -r pip_v pip_cuda < <(describe "$pip_dir")
# The 4th part (build number) is not exposed by the API: take it from the
# package managers when they know it.
sys_b=$(dpkg-query -W -f '${Version}\n' 'libcudnn9-cuda-*' 2>/dev/null | sed -n "s/^$sys_v\.\([0-9]*\).*/\1/p" | head -1)
pip_b=$(python3 -c "import importlib.metadata as m
for d in m.distributions():
    n = d.metadata['Name'] or ''
    if n.startswith('nvidia-cudnn-cu'): print(d.version.split('.')[3]); break" 2>/dev/null)
sys_id="$sys_v.${sys_b:-0}-cuda$sys_cuda"
pip_id="$pip_v.${pip_b:-0}-cuda$pip_cuda"
echo "system cuDNN: $sys_dir -> $sys_id"
echo "pip cuDNN:    $pip_dir -> $pip_id"
[ "$sys_id" != "$pip_id" ] || { echo "FAIL: both builds are $sys_id"; exit 1; }

# CUDNNVM_GPU_ARCHIVES names a folder that keeps the packed archives
# between the GPU scripts of one run (packing takes most of a minute).
arch=${CUDNNVM_GPU_ARCHIVES:-$W/arch}
echo "== pack both as NVIDIA archives (xz -0)"
t0=$(date +%s)
if [ -s "$arch/$sys_id.json" ] && [ -s "$arch/$pip_id.json" ]; then
	echo "(packed by an earlier script of this run, in $arch)"
else
	mkdir -p "$arch"
	python3 tests/fixtures/mkarchive.py nvidia --out "$arch" --preset 0 \
		--version "${sys_id%-cuda*}" --cuda "$sys_cuda" --libdir "$sys_dir" >"$arch/$sys_id.json" &
	python3 tests/fixtures/mkarchive.py nvidia --out "$arch" --preset 0 \
		--version "${pip_id%-cuda*}" --cuda "$pip_cuda" --libdir "$pip_dir" >"$arch/$pip_id.json"
	wait
fi
cp "$arch/$sys_id.json" "$W/sys.json"
cp "$arch/$pip_id.json" "$W/pip.json"
echo "packed in $(($(date +%s) - t0)) s"
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

echo "== install (each install validates)"
for k in sys pip; do
	run "$BIN" install --archive "$(field "$W/$k.json" path)" \
		--sha256 "$(field "$W/$k.json" sha256)" &&
		ok "install $k" || bad "install $k"
done

