#!/usr/bin/env bats
# The .pth hook of `cudnnvm venv` with stub cuDNN builds and a real
# python3: it costs nothing to a start that imports no framework, loads
# the pinned build on a framework's first import (from a thread too), and
# holds one build per cuDNN major side by side (`cudnnvm venv 9.19 8.9`).
load activation

setup() {
	activation_setup
	export T
	unset VIRTUAL_ENV CONDA_PREFIX LD_PRELOAD LD_LIBRARY_PATH CUDNNVM_VERSION
	python3 -m venv --without-pip "$T/ve" 2>/dev/null || skip "python3 -m venv does not work here"
	STUBS="$BATS_TEST_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
	mkver 9.19.0.56-cuda13
	rm -rf "$CUDNNVM_STORE/9.19.0.56-cuda13/lib" "$CUDNNVM_STORE/$C/lib"
	cp -r "$STUBS/v9/lib" "$CUDNNVM_STORE/9.19.0.56-cuda13/lib"
	cp -r "$STUBS/v8/lib" "$CUDNNVM_STORE/$C/lib"
	L9="$CUDNNVM_STORE/9.19.0.56-cuda13/lib" L8="$CUDNNVM_STORE/$C/lib"
}

MK="$FIXTURES/mkpyenv.py"
MAPS='import sys; sys.stdout.write("".join(sorted(set(l.split()[-1] + "\n" for l in open("/proc/self/maps") if "libcudnn" in l))))'

@test "a start that imports no framework maps no cuDNN, reads no store file and only adds the finder" {
	cudnnvm -q venv 9.19 --path "$T/ve" --force
	fake_framework "$T/ve" torch
	run --separate-stderr "$T/ve/bin/python" -c "$MAPS"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ -z "$output" ]
	# the finder is all the hook added: its module is not even imported
	run "$T/ve/bin/python" -c 'import sys
print([type(f).__name__ for f in sys.meta_path][0], "_cudnnvm_preload" in sys.modules, "_ctypes" in sys.modules)'
	[ "$output" = "CudnnvmFinder False False" ]
	# an import that is no framework's leaves it in place
	run "$T/ve/bin/python" -c 'import json, sys; print(type(sys.meta_path[0]).__name__, "_cudnnvm_preload" in sys.modules)'
	[ "$output" = "CudnnvmFinder False" ]
	if strace -f -qq -e trace=file -o "$T/trace" "$T/ve/bin/python" -c pass 2>/dev/null; then
		grep -q "cudnnvm.pth" "$T/trace"
		! grep -q "$CUDNNVM_STORE" "$T/trace"
		! grep -q "_cudnnvm_preload" "$T/trace"
		# the framework's import reads the store
		strace -f -qq -e trace=file -o "$T/trace" "$T/ve/bin/python" -c 'import torch'
		grep -q "$L9/libcudnn.so.9" "$T/trace"
	fi
}

@test "the first import of a framework loads the pinned build first, and the finder leaves" {
	cudnnvm -q venv 9.19 --path "$T/ve" --force
	fake_framework "$T/ve" torch
	run --separate-stderr "$T/ve/bin/python" -c "$(mapped torch)
print([type(f).__name__ for f in sys.meta_path if 'Cudnnvm' in type(f).__name__])"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$L9/libcudnn.so.9
$L9/libcudnn_cnn.so.9
$L9/libcudnn_graph.so.9
$L9/libcudnn_ops.so.9
[]" ]
	# a sub-package's import fires through its top-level package
	mkdir -p "$(echo "$T"/ve/lib/python3*/site-packages)/torch/nn"
	echo 'from torch import MAPPED' >"$(echo "$T"/ve/lib/python3*/site-packages)/torch/nn/__init__.py"
	run "$T/ve/bin/python" -c 'import torch.nn; print(len(torch.nn.MAPPED))'
	[ "$output" = 4 ]
}

@test "a framework imported late, from a thread, or from two threads at once binds to the pinned build" {
	cudnnvm -q venv 9.19 --path "$T/ve" --force
	fake_framework "$T/ve" torch tensorflow
	# late: after other imports and work, in a thread
	run --separate-stderr "$T/ve/bin/python" -c '
import json, threading, time
time.sleep(0.2)
t = threading.Thread(target=__import__, args=("torch",))
t.start(); t.join()
import sys, torch
print(len(torch.MAPPED), torch.MAPPED[0])'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "4 $L9/libcudnn.so.9" ]
	# eight threads, two frameworks, released at once: each framework's
	# code runs with every library loaded, whichever thread fired
	run --separate-stderr "$T/ve/bin/python" -c '
import sys, threading
go = threading.Barrier(8)
def imp(name):
    go.wait()
    __import__(name)
ts = [threading.Thread(target=imp, args=(n,)) for n in ["torch", "tensorflow"] * 4]
for t in ts: t.start()
for t in ts: t.join()
import torch, tensorflow
print(len(torch.MAPPED), len(tensorflow.MAPPED), sum("_cudnnvm_preload" in m for m in sys.modules))'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "4 4 1" ]
}

@test "venv 9.19 8.9 pins one build per major; the gate checks each framework against its major's" {
	python3 "$MK" "$T/ve" torch-2.11.0 tensorflow-2.15.0 >/dev/null
	# one version cannot serve both
	run --separate-stderr cudnnvm venv 9.19 --path "$T/ve"
	[ "$status" -eq 1 ]
	[[ $stderr == *"not activating 9.19.0.56-cuda13: tensorflow 2.15.0 ($T/ve) needs cuDNN 8.x ≥ 8.9 built for CUDA 12"* ]]
	run --separate-stderr cudnnvm venv 9.19 9.1 --path "$T/ve"
	[ "$status" -eq 64 ]
	[[ $stderr == "cudnnvm: venv: 9.19.0.56-cuda13 and 9.1.0.70-cuda12 are both cuDNN 9; pin one version per major"* ]]
	# a pin of the right major that still does not fit: that one is
	# refused, and the fit of its major named
	mkver 8.5.0.96-cuda11
	run --separate-stderr cudnnvm venv 9.19 8.5 --path "$T/ve"
	[ "$status" -eq 1 ]
	[[ $stderr == *"not activating 8.5.0.96-cuda11: tensorflow 2.15.0 ($T/ve) needs cuDNN 8.x ≥ 8.9 built for CUDA 12"* ]]
	# the fix keeps the other pin
	[[ $stderr == *"hint: cudnnvm venv 9.19.0.56-cuda13 8.9 --path "*"$T/ve"* ]]
	[ ! -e "$(echo "$T"/ve/lib/python3*/site-packages)/cudnnvm.pth" ]
	run --separate-stderr cudnnvm venv 9.19 8.9 --path "$T/ve"
	[ "$status" -eq 0 ]
	[[ $stderr == *"now uses cuDNN 9.19.0.56-cuda13 when activated (re-activate it to apply), and $C beside it for the frameworks that need cuDNN 8"* ]]
	# an activated shell takes the first; the hook loads both
	[ "$(bash -c '. "$T/ve/bin/activate"; echo "$CUDNNVM_VERSION"')" = 9.19.0.56-cuda13 ]
	run cudnnvm frameworks --path "$T/ve"
	[[ $output == *"pinned cuDNN: 9.19.0.56-cuda13, $C (cudnnvm venv; each framework loads the one of its major)"* ]]
	[[ $output == *"torch 2.11.0"*"  pinned 9.19.0.56-cuda13: fits"*"tensorflow 2.15.0"*"  pinned $C: fits"* ]]
	run cudnnvm frameworks --path "$T/ve" --json
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["pinned"] == ["9.19.0.56-cuda13", sys.argv[2]], d["pinned"]
got = {f["name"]: (f["pinned"]["id"], f["pinned"]["fits"]) for f in d["frameworks"]}
assert got == {"torch": ("9.19.0.56-cuda13", True), "tensorflow": (sys.argv[2], True)}, got' "$output" "$C"
	# whatever is activated, the hook still loads the pin of the other
	# major: the gates of exec and the prompt hook count it
	VIRTUAL_ENV="$T/ve" run --separate-stderr cudnnvm exec 9.19 -- true
	[ "$status" -eq 0 ]
	VIRTUAL_ENV="$T/ve" CUDNNVM_VERSION=9.19 run --separate-stderr cudnnvm hook-env --shell bash
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	VIRTUAL_ENV="$T/ve" CUDNNVM_VERSION=9.19 run cudnnvm doctor
	[[ $output != *"cannot load"* ]]
	[[ $output == *"active: 9.19.0.56-cuda13"* ]]
	# (exec gates the environment's interpreter; `true` would only warn)
	VIRTUAL_ENV="$T/ve" run --separate-stderr cudnnvm exec 9.1 -- "$T/ve/bin/python" -c pass
	[ "$status" -eq 1 ]
	[[ $stderr == *"not activating 9.1.0.70-cuda12: torch 2.11.0"* ]]
	# venv itself replaces the pins: one version is checked alone
	run --separate-stderr cudnnvm venv 9.19 --path "$T/ve"
	[ "$status" -eq 1 ]
	[[ $stderr == *"tensorflow 2.15.0"* ]]
	# one pin again: one line, no pinned lines
	cudnnvm -q venv 9.19 --path "$T/ve" --force
	run cudnnvm frameworks --path "$T/ve"
	[[ $output != *"pinned"* ]]
}

@test "two majors load side by side in one process, each answering its own version" {
	python3 "$MK" "$T/ve" torch-2.11.0 tensorflow-2.15.0 >/dev/null
	cudnnvm -q venv 9.19 8.9 --path "$T/ve"
	fake_framework "$T/ve" torch
	run --separate-stderr "$T/ve/bin/python" -c '
import ctypes, torch
for m in torch.MAPPED:
    if "/libcudnn.so." in m:
        print(m, ctypes.CDLL(m).cudnnGetVersion())
print(len(torch.MAPPED))'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$L8/libcudnn.so.8 8907
$L9/libcudnn.so.9 91900
7" ]
	# CUDNNVM_VERSION (of a build torch can load) replaces the pin of its
	# own major only
	mkver 9.21.0.10-cuda13
	rm -rf "$CUDNNVM_STORE/9.21.0.10-cuda13/lib"
	cp -r "$STUBS/wrongver/lib" "$CUDNNVM_STORE/9.21.0.10-cuda13/lib"
	CUDNNVM_VERSION=9.21 run --separate-stderr "$T/ve/bin/python" -c "$(mapped torch)"
	[ "$status" -eq 0 ]
	[[ $output == *"9.21.0.10-cuda13/lib/libcudnn.so.9"* ]]
	[[ $output == *"$L8/libcudnn.so.8"* ]]
	[[ $output != *"9.19.0.56"* ]]
	# one major that cannot load: its warning; the other still loads
	mv "$L8" "$T/gone8"
	run --separate-stderr "$T/ve/bin/python" -c "$(mapped torch)"
	[ "$status" -eq 0 ]
	[ "$output" = "$L9/libcudnn.so.9
$L9/libcudnn_cnn.so.9
$L9/libcudnn_graph.so.9
$L9/libcudnn_ops.so.9" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ ${stderr_lines[0]} == "cudnnvm: warning: cuDNN not preloaded ("*"$L8"*"); frameworks load their own copy; pin an installed version: cudnnvm venv <version> --path $T/ve" ]]
}

# NVIDIA's real 8.9.2.26 front library (from the cached wheel the suite
# downloads for its real-wheel tests) beside the machine's real cuDNN 9:
# both in one process through the hook, each answering cudnnGetVersion.
@test "real cuDNN 8.9 and 9.x in one process, each answering its own version" {
	W8="$TEST_CACHE/wheels/nvidia_cudnn_cu12-8.9.2.26-py3-none-manylinux1_x86_64.whl"
	[ -e "$W8" ] || skip "no cached nvidia-cudnn-cu12 8.9.2.26 wheel"
	[ -e /usr/local/cuda/lib64/libcudnn.so.9 ] || skip "no real cuDNN 9 in /usr/local/cuda/lib64"
	command -v unzip >/dev/null || skip "no unzip"
	rm -f "$L8"/* "$L9"/*
	# cuDNN 8's front library loads libcudnn_ops_infer.so.8 to answer
	for l in libcudnn.so.8 libcudnn_ops_infer.so.8; do
		unzip -p "$W8" "nvidia/cudnn/lib/$l" >"$L8/$l"
	done
	cp /usr/local/cuda/lib64/libcudnn.so.9 "$L9/libcudnn.so.9"
	v9=$(python3 -c 'import ctypes, sys; print(ctypes.CDLL(sys.argv[1]).cudnnGetVersion())' "$L9/libcudnn.so.9")
	python3 "$MK" "$T/ve" torch-2.11.0 tensorflow-2.15.0 >/dev/null
	cudnnvm -q venv 9.19 8.9 --path "$T/ve" --force
	fake_framework "$T/ve" torch
	run --separate-stderr "$T/ve/bin/python" -c '
import ctypes, torch
print(len(torch.MAPPED))
for m in torch.MAPPED:
    if "/libcudnn.so." in m:
        print(m, ctypes.CDLL(m).cudnnGetVersion())'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "3
$L8/libcudnn.so.8 8902
$L9/libcudnn.so.9 $v9" ]
}

@test "a _cudnnvm_preload.py in the working or the script's folder is not what the hook runs (H11)" {
	cudnnvm -q venv 9.19 --path "$T/ve" --force
	fake_framework "$T/ve" torch
	mkdir -p "$T/cwd"
	echo 'open("'"$T"'/HIJACKED", "w").write("x")' >"$T/cwd/_cudnnvm_preload.py"
	cd "$T/cwd"
	run --separate-stderr "$T/ve/bin/python" -c "$(mapped torch)"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ ! -e "$T/HIJACKED" ]
	[[ $output == "$L9/libcudnn.so.9"* ]]
	printf '%s\n' "$(mapped torch)" >"$T/cwd/run.py"
	cd "$T"
	run --separate-stderr "$T/ve/bin/python" "$T/cwd/run.py"
	[ "$status" -eq 0 ]
	[ ! -e "$T/HIJACKED" ]
	[[ $output == "$L9/libcudnn.so.9"* ]]
}

@test "a re-pin within one second to an id of the same length loads the new pin, not the compiled old one (H16)" {
	mkver 9.19.0.57-cuda13
	rm -rf "$CUDNNVM_STORE/9.19.0.57-cuda13/lib"
	cp -r "$STUBS/v9/lib" "$CUDNNVM_STORE/9.19.0.57-cuda13/lib"
	fake_framework "$T/ve" torch
	sp=$(echo "$T"/ve/lib/python3*/site-packages)
	# the interpreter keeps compiled modules, as it does by default
	unset PYTHONDONTWRITEBYTECODE
	for i in 1 2 3; do
		cudnnvm -q venv 9.19.0.56-cuda13 --path "$T/ve" --force
		"$T/ve/bin/python" -c 'import torch' 2>/dev/null
		touch -r "$sp/_cudnnvm_preload.py" "$T/m1"
		cudnnvm -q venv 9.19.0.57-cuda13 --path "$T/ve" --force
		# the module's source time and size as before (a re-pin within
		# the same second): only its text changed
		touch -r "$T/m1" "$sp/_cudnnvm_preload.py"
		run --separate-stderr "$T/ve/bin/python" -c "$(mapped torch)"
		[[ $output == "$CUDNNVM_STORE/9.19.0.57-cuda13/lib/libcudnn.so.9"* ]]
	done
}

@test "venv compiles the hook's modules itself, hash-checked: an interpreter that writes no bytecode imports the finder from __pycache__, never from source" {
	fake_framework "$T/ve" torch
	sp=$(echo "$T"/ve/lib/python3*/site-packages)
	export PYTHONDONTWRITEBYTECODE=1
	cudnnvm -q venv 9.19.0.56-cuda13 --path "$T/ve" --force
	# PEP 552 flags word 3: checked against the source's hash, not its time
	run "$T/ve/bin/python" -c '
import importlib.util, sys
for m in ("_cudnnvm_finder", "_cudnnvm_preload"):
    src = sys.argv[1] + "/" + m + ".py"
    pyc = importlib.util.cache_from_source(src)
    flags = int.from_bytes(open(pyc, "rb").read()[4:8], "little")
    print(m, flags)
' "$sp"
	[ "$status" -eq 0 ]
	[[ $output == *"_cudnnvm_finder 3"* ]]
	[[ $output == *"_cudnnvm_preload 3"* ]]
	# the start imports the finder from it: no compile of its source
	run "$T/ve/bin/python" -v -c pass
	[[ $output == *"code object from '$sp/__pycache__/_cudnnvm_finder."* ]]
	# and a re-pin's new text is what runs, the same second or not
	mkver 9.19.0.57-cuda13
	rm -rf "$CUDNNVM_STORE/9.19.0.57-cuda13/lib"
	cp -r "$STUBS/v9/lib" "$CUDNNVM_STORE/9.19.0.57-cuda13/lib"
	cudnnvm -q venv 9.19.0.57-cuda13 --path "$T/ve" --force
	run --separate-stderr "$T/ve/bin/python" -c "$(mapped torch)"
	[[ $output == "$CUDNNVM_STORE/9.19.0.57-cuda13/lib/libcudnn.so.9"* ]]
}

@test "a venv's python run directly: the shell's version its torch cannot load loses to the venv's checked pin" {
	# torch 2.11 needs cuDNN 9.19; the shell has 9.12 active (the hook,
	# env or a global): the venv's interpreter, not activated, loads 9.19
	python3 "$MK" "$T/ve" torch-2.11.0 >/dev/null
	fake_framework "$T/ve" torch
	mkver 9.12.0.46-cuda13
	rm -rf "$CUDNNVM_STORE/9.12.0.46-cuda13/lib"
	cp -r "$STUBS/v9/lib" "$CUDNNVM_STORE/9.12.0.46-cuda13/lib"
	L12="$CUDNNVM_STORE/9.12.0.46-cuda13/lib"
	cudnnvm -q venv 9.19 --path "$T/ve"
	CUDNNVM_ACTIVE=9.12.0.46-cuda13 CUDNN_LIB_DIR="$L12" LD_LIBRARY_PATH="$L12" \
		run --separate-stderr "$T/ve/bin/python" -c "$(mapped torch)"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$L9/libcudnn.so.9"* ]]
	[[ "$output" != *"$L12"* ]]
	# CUDNNVM_VERSION of the shell (cudnnvm shell 9.12) alike
	CUDNNVM_VERSION=9.12 run --separate-stderr "$T/ve/bin/python" -c "$(mapped torch)"
	[[ "$output" == *"$L9/libcudnn.so.9"* ]]
	[[ "$output" != *"$L12"* ]]
	# a version its torch can load stays the shell's to choose
	mkver 9.20.0.48-cuda13
	rm -rf "$CUDNNVM_STORE/9.20.0.48-cuda13/lib"
	cp -r "$STUBS/v9/lib" "$CUDNNVM_STORE/9.20.0.48-cuda13/lib"
	L20="$CUDNNVM_STORE/9.20.0.48-cuda13/lib"
	CUDNNVM_ACTIVE=9.20.0.48-cuda13 CUDNN_LIB_DIR="$L20" LD_LIBRARY_PATH="$L20" \
		run --separate-stderr "$T/ve/bin/python" -c "$(mapped torch)"
	[[ "$output" == *"$L20/libcudnn.so.9"* ]]
}
