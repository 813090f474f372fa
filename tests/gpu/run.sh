#!/usr/bin/env bash
# tests/gpu/run.sh: validation on a real NVIDIA GPU with two real cuDNN 9
# builds: the system one (found with `ldconfig -p`) and PyTorch's (the
# nvidia-cudnn wheel, found with `python3 -c 'import nvidia.cudnn'`).
# Packs each into an NVIDIA-shaped archive, installs both into a temporary
# store, validates each (both must pass the real convolution), switches
# between them, shows that a mixed load and a missing cuBLASLt are caught,
# then runs bench/bench_validate.sh. Needs python3 and xz; prints a skip
# line and exits 0 without a GPU.
#   usage: tests/gpu/run.sh        (CUDNNVM_BIN overrides build/cudnnvm)
set -u
cd "$(dirname "$0")/../.."
. tests/gpu/builds.sh

echo "== validate each (steps 1-5, real convolution)"
for id in "$sys_id" "$pip_id"; do
	rm -rf "$CUDNNVM_STORE/.cache/validate"
	out=$(run "$BIN" validate "$id" 2>&1)
	rc=$?
	echo "$out"
	if [ $rc -eq 0 ] && echo "$out" | grep -q "5 gpu *pass"; then
		ok "validate $id: convolution on the GPU matches"
	else
		bad "validate $id (exit $rc)"
	fi
done
run "$BIN" validate "$pip_id" --json

echo "== switch between them"
# Switching runs outside torch's environment: inside it (python3 on PATH
# is torch's venv) the frameworks gate refuses the system build, which
# tests/gpu/frameworks.sh checks. Here /usr/bin's python3 comes first.
nofw=/usr/bin:/bin:$PATH
for id in "$sys_id" "$pip_id" "$sys_id"; do
	PATH=$nofw run "$BIN" global "$id" || bad "global $id"
	cur=$(readlink "$CUDNNVM_STORE/current")
	[ "$cur" = "$id" ] && ok "current -> $cur" || bad "current is $cur, not $id"
	echo "\$ cudnnvm validate   (no spec: the active version)"
	"$BIN" validate | head -1
done

echo "== pin the other one for a project (use), and run under it"
mkdir -p "$W/project/src"
(
	cd "$W/project" || exit 1
	run "$BIN" use "${pip_id%-cuda*}" || exit 1
	cd src || exit 1
	run "$BIN" current
	[ "$("$BIN" current --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')" = "$pip_id" ] || exit 1
	run "$BIN" exec -- python3 -c "import ctypes,os; l=ctypes.CDLL('libcudnn.so.9'); print('exec: libcudnn.so.9 by name ->', l.cudnnGetVersion(), 'CUDNNVM_ACTIVE=' + os.environ['CUDNNVM_ACTIVE'])"
) && ok "use pins $pip_id in a project while the global is $sys_id" || bad "use in a project"

echo "== mixed load: LD_LIBRARY_PATH pointing at the other build"
# validate itself runs its check in a clean environment, so it is immune:
LD_LIBRARY_PATH="$pip_dir" run "$BIN" validate "$sys_id" >/dev/null &&
	ok "validate ignores the caller's LD_LIBRARY_PATH" || bad "validate in a mixed environment"
# the same check run inside a process that inherits it: cuDNN 9's shim
# resolves its sub-libraries through LD_LIBRARY_PATH first (the pip shim
# does; run both directions and require at least one to be caught)
caught=0
for dir in "$pip_id:$sys_dir" "$sys_id:$pip_dir"; do
	id=${dir%%:*} other=${dir#*:}
	v=${id%%-cuda*}
	exp=$(echo "$v" | awk -F. '{print $1*10000+$2*100+$3}')
	echo "\$ LD_LIBRARY_PATH=$other cudnnvm validate-probe --libdir <store>/$id/lib ... --no-gpu"
	out=$(LD_LIBRARY_PATH="$other" "$BIN" validate-probe --libdir "$CUDNNVM_STORE/$id/lib" \
		--major 9 --expect "$exp" --cuda "${id##*-cuda}" --no-gpu 2>&1 | grep '"k":"step"')
	echo "$out"
	echo "$out" | grep -q '"step":2,"status":"fail","reason":"mixed load:' && caught=$((caught + 1))
done
if [ $caught -gt 0 ]; then
	ok "mixed load through LD_LIBRARY_PATH caught, naming both folders ($caught of 2 directions mix)"
else
	# Seen on driver 580 with 9.14 and 9.19: both shims took every
	# sub-library from their own folder, so there was no mix to catch.
	echo "note: neither build mixed through LD_LIBRARY_PATH (each took its sub-libraries from its own folder)"
fi
# A mixed install on disk: one sub-library of the 9.19 install is really
# the other build's file (as a hand-copied store ends up). Validation must
# fail and name the other folder.
mix="${pip_v}.78-cuda$pip_cuda"
cp -a "$CUDNNVM_STORE/$pip_id" "$CUDNNVM_STORE/$mix"
sed -i "s/\"$pip_id\"/\"$mix\"/" "$CUDNNVM_STORE/$mix/cudnnvm.json"
g=$(readlink "$CUDNNVM_STORE/$mix/lib/libcudnn_graph.so.9")
ln -sfn "$sys_dir/libcudnn_graph.so.9" "$CUDNNVM_STORE/$mix/lib/${g:-libcudnn_graph.so.9}"
out=$(run "$BIN" validate "$mix" 2>&1)
echo "$out"
echo "$out" | grep -q "fail" && echo "$out" | grep -q "$sys_dir" &&
	ok "a mixed install is refused, naming the other folder" ||
	bad "mixed install not caught"
# an install missing a sub-library picks the system copy up through
# ld.so.cache: the real-world mixed load
dmg="${pip_v}.77-cuda$pip_cuda"
cp -a "$CUDNNVM_STORE/$pip_id" "$CUDNNVM_STORE/$dmg"
sed -i "s/\"$pip_id\"/\"$dmg\"/" "$CUDNNVM_STORE/$dmg/cudnnvm.json"
rm -f "$CUDNNVM_STORE/$dmg/lib/"libcudnn_cnn.so*
out=$(run "$BIN" validate "$dmg" 2>&1)
echo "$out"
echo "$out" | grep -qE "fail: mixed load|fail: .*libcudnn_cnn" &&
	ok "an install missing libcudnn_cnn is refused" || bad "damaged install passed"
out=$(PATH=$nofw run "$BIN" global "$dmg" 2>&1)
echo "$out"
[ "$(readlink "$CUDNNVM_STORE/current")" = "$sys_id" ] &&
	ok "global refused it and kept $sys_id" || bad "global moved current"

echo "== missing cuBLASLt"
# hide every CUDA library folder from the search (test hook)
out=$(CUDNNVM_TEST_CUDA_LIBDIRS="$W/empty" run "$BIN" validate "$pip_id" 2>&1)
echo "$out"
echo "$out" | grep -q "4 driver *fail: libcublasLt.so.$pip_cuda is not found" &&
	ok "missing cuBLASLt is a fail with the fix" || bad "missing cuBLASLt not reported"

echo "== doctor"
LD_LIBRARY_PATH="$pip_dir" run "$BIN" doctor
echo "== bench"
CUDNNVM_BIN="$BIN" BENCH_ID="$pip_id" bash bench/bench_validate.sh || bad "bench"

echo "== $fails failure(s)"
[ $fails -eq 0 ]
