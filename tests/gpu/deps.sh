#!/usr/bin/env bash
# tests/gpu/deps.sh: cuDNN's own dependencies on a real GPU. Packs this
# machine's cuBLASLt and nvrtc into an NVIDIA-shaped CUDA redist tree
# (tests/fixtures/mkcuda.py --libdir) served as a file:// cuda_mirror, hides
# the toolkit's library folder in a private mount namespace (so nothing on
# the machine gives libcublasLt.so.<major>: not the library path, not the
# toolkit, not the loader cache's entries), then:
#   install --deps always: cuBLASLt installed into <store>/deps/ and
#     validation passes the real convolution with the store's copy named;
#   install --deps never: validation fails, doctor prints the fix, and the
#     fix run as printed makes validation pass.
# Prints the bytes kept from each dependency archive. Needs root (unshare -m)
# and python3; prints a skip line and exits 0 without a GPU.
#   usage: tests/gpu/deps.sh        (CUDNNVM_BIN overrides build/cudnnvm)
set -u
cd "$(dirname "$0")/../.."
. tests/gpu/builds.sh

so=libcublasLt.so.$sys_cuda
lt=$(ldconfig -p | awk -v so="$so" '$1 == so {print $NF; exit}')
[ -n "$lt" ] || lt=$(ls /usr/local/cuda/lib64/$so 2>/dev/null)
[ -n "$lt" ] || { echo "FAIL: no $so on this machine to pack"; exit 1; }
tkdir=$(dirname "$(realpath "$lt")")
echo "machine's cuBLASLt: $lt (in $tkdir)"
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
rel="$sys_cuda.0.2"

echo "== pack $tkdir's cuBLAS and nvrtc as NVIDIA's CUDA $rel redist tree"
t0=$(date +%s)
python3 tests/fixtures/mkcuda.py build "$W/cuda" "$rel" --pad-mb 64 \
	--libdir "$tkdir" --xz-threads "$(nproc)" >"$W/cuda.json" ||
	{ echo "FAIL: mkcuda"; exit 1; }
echo "packed in $(($(date +%s) - t0)) s: $(cat "$W/cuda.json")"
mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
cat >>"$XDG_CONFIG_HOME/cudnnvm/config.ini" <<EOF2
[remote]
cuda_mirror = file://$W/cuda/
EOF2
mkdir -p "$W/empty"

# hidden: run "$@" with the toolkit's folder (and /usr/local/cuda*/lib*)
# empty, as on a machine with only the driver
hidden() {
	unshare -m bash -c '
		for d in "$0" /usr/local/cuda*/lib64 /usr/local/cuda*/lib /usr/local/cuda*/targets/*/lib; do
			[ -d "$d" ] && mount --bind "'"$W"'/empty" "$d"
		done
		exec "$@"' "$tkdir" "$@"
}
if ! hidden true; then
	echo "skip: cannot hide the toolkit (unshare -m needs root)"
	exit 0
fi
hidden python3 -c "import ctypes; ctypes.CDLL('$so')" 2>/dev/null &&
	bad "$so still loads with the toolkit hidden" ||
	ok "with the toolkit hidden, $so is not loadable (driver $drv)"

arch=$(field "$W/sys.json" path)
sha=$(field "$W/sys.json" sha256)
for mode in always never; do
	export CUDNNVM_STORE="$W/store-$mode"
	echo "== install $sys_id --deps $mode (toolkit hidden)"
	hidden "$BIN" install --archive "$arch" --sha256 "$sha" --deps "$mode" --no-validate || bad "install --deps $mode"
	out=$(hidden "$BIN" validate "$sys_id" 2>&1)
	rc=$?
	echo "$out"
	if [ "$mode" = always ]; then
		if [ $rc -eq 0 ] && echo "$out" | grep -q "5 gpu *pass" &&
			echo "$out" | grep -q "$CUDNNVM_STORE/deps/libcublas-"; then
			ok "validate passes with the store's cuBLASLt named ($CUDNNVM_STORE/deps/...)"
		else
			bad "validate with --deps always (exit $rc)"
		fi
		for d in "$CUDNNVM_STORE"/deps/*/; do
			n=$(basename "$d")
			a=$(ls "$W"/cuda/*/linux-*/"${n%%-[0-9]*}"-*"${n#*-}"-archive.tar.xz 2>/dev/null | head -1)
			echo "kept from $(basename "$a") ($(stat -c %s "$a") bytes): $(du -sb "$d" | cut -f1) bytes: $(cd "$d" && find . -type f | sort | tr '\n' ' ')"
		done
	else
		if [ $rc -ne 0 ] && echo "$out" | grep -q "$so is not found"; then
			ok "validate with --deps never fails: $so is not found"
		else
			bad "validate with --deps never (exit $rc)"
		fi
		doc=$(CUDNNVM_VERSION=$sys_id PATH=/usr/bin:/bin hidden "$BIN" doctor 2>&1)
		echo "$doc" | grep -A3 "$so is not found"
		fix=$(echo "$doc" | grep -A3 "$so is not found" | sed -n 's/^ *fix: //p' | head -1)
		[ "$fix" = "cudnnvm install $sys_id --deps always" ] && ok "doctor's fix: $fix" || bad "doctor's fix is '$fix'"
		# the fix, as printed (with the binary under test)
		[ -n "$fix" ] && hidden "$BIN" ${fix#cudnnvm } || bad "running the fix"
		out=$(hidden "$BIN" validate "$sys_id" 2>&1)
		echo "$out"
		echo "$out" | grep -q "5 gpu *pass" && ok "after the fix, validate passes on the GPU" || bad "validate after the fix"
	fi
done
echo "$fails failed"
[ $fails -eq 0 ]
