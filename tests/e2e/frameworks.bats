#!/usr/bin/env bats
# frameworks: environments laid out from the real METADATA of real releases
# (tests/fixtures/frameworks, made by its fetch.sh), the verdicts, the gate
# in front of every activation, the prompt hook's warning, doctor, and the
# .pth preload hook with stub libraries and a real python3.
load activation

MK="$FIXTURES/mkpyenv.py"

setup() {
	activation_setup
	export T
	unset VIRTUAL_ENV CONDA_PREFIX LD_PRELOAD LD_LIBRARY_PATH
	mkver 9.14.0.64-cuda13
	mkver 9.19.0.56-cuda13
	mkver 9.3.0.75-cuda12
	mkver 10.0.0.1-cuda12
}

# mkenv DIR ARGS...: an environment from the fixtures (prints site-packages)
mkenv() { python3 "$MK" "$@"; }

# need DIR NAME: "min max cuda" of framework NAME from frameworks --json
need() {
	cudnnvm frameworks --path "$1" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
for f in d["frameworks"]:
    if f["name"] == sys.argv[1]:
        n = f["needs"]
        print(n["min"], n["max"], n["cuda"], n["stated"])' "$2"
}

# a checksum of everything under the given folders (names, links, bytes),
# leaving out the store's housekeeping folders (.cache, .locks, .staging)
# that opening it for writing creates
tree_sum() {
	find "$@" \( -name .cache -o -name .locks -o -name .staging \) -prune -o -print0 2>/dev/null | LC_ALL=C sort -z |
		xargs -0 -I{} sh -c 'if [ -L "{}" ]; then echo "{} -> $(readlink "{}")"; elif [ -f "{}" ]; then sha256sum "{}"; else echo "{}"; fi' |
		sha256sum
}

@test "what each real release needs, read from its METADATA" {
	mkenv "$T/t21" torch-2.1.0 >/dev/null
	mkenv "$T/t24" torch-2.4.0 torchvision-0.19.0 >/dev/null
	mkenv "$T/t211" torch-2.11.0 >/dev/null
	mkenv "$T/tf215" tensorflow-2.15.0 >/dev/null
	mkenv "$T/tf218" tensorflow-2.18.0 >/dev/null
	mkenv "$T/jax12" jax-0.4.35 jax_cuda12_plugin-0.4.35 >/dev/null
	mkenv "$T/jax13" jax_cuda13_plugin-0.10.2 >/dev/null
	mkenv "$T/ort" onnxruntime_gpu-1.31.1 >/dev/null
	[ "$(need "$T/t21" torch)" = "8.9.2.26 None 12 True" ]
	[ "$(need "$T/t24" torch)" = "9.1.0.70 None 12 True" ]
	[ "$(need "$T/t211" torch)" = "9.19.0.56 None 13 True" ]
	# the and-cuda extra still counts: the build was compiled against it
	[ "$(need "$T/tf215" tensorflow)" = "8.9.4.25 None 12 True" ]
	[ "$(need "$T/tf218" tensorflow)" = "9.3.0.75 None 12 True" ]
	[ "$(need "$T/jax12" jax_cuda12_plugin)" = "9.1 10.0 12 True" ]
	[ "$(need "$T/jax13" jax_cuda13_plugin)" = "9.12.0.46 10.0 13 True" ]
	# ~=9.0 is >= 9.0 and < 10
	[ "$(need "$T/ort" onnxruntime_gpu)" = "9.0 10 13 True" ]
	# torchvision and jax name no cuDNN wheel: not listed
	run cudnnvm frameworks --path "$T/t24" --json
	[[ $output != *'"torchvision"'* ]]
	# a package whose name only starts like a framework's is none
	sp=$(echo "$T"/t211/lib/python3*/site-packages)
	mkdir -p "$sp/jaxtyping-0.3.11.dist-info" "$sp/cupyx_extra-1.0.dist-info"
	printf 'Metadata-Version: 2.1\nName: jaxtyping\nVersion: 0.3.11\n' >"$sp/jaxtyping-0.3.11.dist-info/METADATA"
	printf 'Metadata-Version: 2.1\nName: cupyx-extra\nVersion: 1.0\n' >"$sp/cupyx_extra-1.0.dist-info/METADATA"
	run cudnnvm frameworks --path "$T/t211"
	[ "$status" -eq 0 ]
	[[ $output != *"jaxtyping"* ]]
	[[ $output != *"cupyx"* ]]
	[[ $output == *"torch 2.11.0"* ]]
	[[ $output == *"needs: cuDNN 9.x ≥ 9.19 built for CUDA 13"* ]]
	[[ $output == *"torch-2.11.0.dist-info/METADATA says 'nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\"'"* ]]
}

@test "where the metadata is silent, the DT_NEEDED entries of the package's own shared objects give the major" {
	command -v cc >/dev/null || skip "no C compiler"
	sp=$(mkenv "$T/ct" ctranslate2-4.4.0 nvidia_cudnn_frontend-1.32.0 cupy_cuda12x-14.2.0 tensorrt_cu12-11.4.0.106)
	mkenv "$T/ct48" ctranslate2-4.8.5 >/dev/null
	sp48=$(echo "$T"/ct48/lib/python3*/site-packages)
	echo 'int f(void) { return 0; }' >"$T/e.c"
	mkdir -p "$sp/ctranslate2.libs" "$sp48/ctranslate2"
	# CTranslate2 4.4's wheel: auditwheel's renamed cuDNN 8 front library,
	# needed by libctranslate2 beside cuBLAS 12
	cc -shared -fPIC -o "$sp/ctranslate2.libs/libcudnn-463fd6d5.so.8.9.7" -Wl,-soname,libcudnn-463fd6d5.so.8.9.7 "$T/e.c"
	cc -shared -fPIC -o "$T/libcublas.so.12" -Wl,-soname,libcublas.so.12 "$T/e.c"
	cc -shared -fPIC -o "$sp/ctranslate2.libs/libctranslate2-d3638643.so.4.4.0" "$T/e.c" \
		-Wl,--no-as-needed "$sp/ctranslate2.libs/libcudnn-463fd6d5.so.8.9.7" "$T/libcublas.so.12"
	# a RECORD entry outside site-packages is never read (it would say 9)
	cc -shared -fPIC -o "$T/libcudnn.so.9" -Wl,-soname,libcudnn.so.9 "$T/e.c"
	mkdir -p "$T/ct/bin"
	cc -shared -fPIC -o "$T/ct/bin/ct2-x.so" "$T/e.c" -Wl,--no-as-needed "$T/libcudnn.so.9"
	printf '%s\n' '../../../bin/ct2-x.so,,' 'ctranslate2/__init__.py,sha256=x,1' 'ctranslate2.libs/libcudnn-463fd6d5.so.8.9.7,,' \
		'ctranslate2.libs/libctranslate2-d3638643.so.4.4.0,,' >"$sp/ctranslate2-4.4.0.dist-info/RECORD"
	# 4.8's library names no cuDNN: it needs none
	cc -shared -fPIC -o "$sp48/ctranslate2/_ext.so" "$T/e.c" -Wl,--no-as-needed "$T/libcublas.so.12"
	printf '%s\n' 'ctranslate2/_ext.so,,' >"$sp48/ctranslate2-4.8.5.dist-info/RECORD"
	[ "$(need "$T/ct" ctranslate2)" = "8 None 12 True" ]
	run cudnnvm frameworks --path "$T/ct" --json
	[ "$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(sorted((f["name"], f["needs"]["found_via"], f["needs"]["stated"]) for f in d["frameworks"]))' "$output")" = "[('ctranslate2', 'DT_NEEDED', True), ('cupy_cuda12x', '', False), ('nvidia_cudnn_frontend', '', False), ('tensorrt_cu12', '', False)]" ]
	run cudnnvm frameworks --path "$T/ct"
	[[ $output == *"  because: $sp/ctranslate2.libs/libctranslate2-d3638643.so.4.4.0 says 'DT_NEEDED libcudnn-463fd6d5.so.8.9.7' (DT_NEEDED)"* ]]
	VIRTUAL_ENV="$T/ct" run --separate-stderr cudnnvm use 9.19 --no-validate
	[ "$status" -eq 1 ]
	[ "$stderr" = "cudnnvm: not activating 9.19.0.56-cuda13: ctranslate2 4.4.0 ($T/ct) needs cuDNN 8.x built for CUDA 12
hint: cudnnvm use 8.9
hint: cudnnvm use --force 9.19" ]
	[ "$(need "$T/ct48" ctranslate2)" = "None None None False" ]
	run cudnnvm frameworks --path "$T/ct48"
	[[ $output == *"  needs: no cuDNN (DT_NEEDED: none: its 1 shared objects name no cuDNN)"* ]]
	VIRTUAL_ENV="$T/ct48" run cudnnvm use 9.19 --no-validate
	[ "$status" -eq 0 ]
	# ONNX Runtime 1.18's METADATA is silent too: its CUDA provider says 8
	sp=$(mkenv "$T/ort" onnxruntime_gpu-1.18.1)
	mkdir -p "$sp/onnxruntime/capi"
	cc -shared -fPIC -o "$T/libcudnn.so.8" -Wl,-soname,libcudnn.so.8 "$T/e.c"
	cc -shared -fPIC -o "$sp/onnxruntime/capi/libonnxruntime_providers_cuda.so" "$T/e.c" \
		-Wl,--no-as-needed "$T/libcublas.so.12" "$T/libcudnn.so.8"
	printf '%s\n' 'onnxruntime/capi/libonnxruntime_providers_cuda.so,,' >"$sp/onnxruntime_gpu-1.18.1.dist-info/RECORD"
	[ "$(need "$T/ort" onnxruntime_gpu)" = "8 None 12 True" ]
}

@test "build files: TensorFlow's build_info.py and ONNX Runtime's build_and_package_info.py" {
	mkenv "$T/ort" onnxruntime_gpu-1.20.0 \
		--file "onnxruntime/capi/build_and_package_info.py=package_name = 'onnxruntime-gpu'\n__version__ = '1.20.0'\ncuda_version = '12.2'\n" >/dev/null
	[ "$(need "$T/ort" onnxruntime_gpu)" = "None None 12 True" ]
	mkenv "$T/tf" tensorflow-2.18.0 \
		--file "tensorflow/python/platform/build_info.py=build_info = {'cpu_compiler': '/usr/bin/clang-17', 'cuda_compute_capabilities': ['sm_60'], 'cuda_version': '12.5.1', 'cudnn_version': '9', 'is_cuda_build': True, 'is_rocm_build': False, 'is_tensorrt_build': False}\n" >/dev/null
	[ "$(need "$T/tf" tensorflow)" = "9.3.0.75 None 12 True" ]
	# a framework that states nothing is listed and blocks nothing
	mkenv "$T/pd" paddlepaddle_gpu-2.6.2 >/dev/null
	[ "$(need "$T/pd" paddlepaddle_gpu)" = "None None None False" ]
	VIRTUAL_ENV="$T/pd" run cudnnvm exec 9.14 -- true
	[ "$status" -eq 0 ]
}

@test "a conda env: the package's depends and its own cudnn package" {
	mkenv "$T/ce" --conda >/dev/null
	run cudnnvm frameworks --path "$T/ce" --json
	[ "$status" -eq 0 ]
	[[ $output == *'"dir": "'"$T/ce/lib"'"'* ]]
	[[ $output == *'"version": "9.3.0.75"'* ]]
	[[ $output == *'"found_via": "conda cudnn package"'* ]]
	[[ $output == *'"found_via": "conda depends"'* ]]
	[ "$(need "$T/ce" pytorch)" = "9.3.0.75 10.0 12 True" ]
	CONDA_PREFIX="$T/ce" run --separate-stderr cudnnvm use 9.19 --no-validate
	[ "$status" -eq 1 ]
	[ "$stderr" = "cudnnvm: not activating 9.19.0.56-cuda13: pytorch 2.4.1 ($T/ce) needs cuDNN 9.x ≥ 9.3, < 10.0 built for CUDA 12
hint: cudnnvm use 9.13
hint: cudnnvm use --force 9.19" ]
	[[ $stderr == *"pytorch 2.4.1"* ]]
	CONDA_PREFIX="$T/ce" run cudnnvm use 9.3 --no-validate
	[ "$status" -eq 0 ]
}

@test "use refuses a version torch cannot load, in the gate's words, and changes nothing" {
	mkenv "$T/ve" --venv torch-2.11.0 --bundled 13:9.19.0.56 >/dev/null
	export VIRTUAL_ENV="$T/ve"
	before=$(tree_sum "$CUDNNVM_STORE" "$T/ve" "$HOME")
	run --separate-stderr cudnnvm use 9.14
	[ "$status" -eq 1 ]
	one_error_line
	[ "$stderr" = "cudnnvm: not activating 9.14.0.64-cuda13: torch 2.11.0 ($T/ve) needs cuDNN 9.x ≥ 9.19 built for CUDA 13
hint: cudnnvm use 9.19
hint: cudnnvm use --force 9.14" ]
	[ ! -e "$T/.cudnn-version" ]
	[ "$(tree_sum "$CUDNNVM_STORE" "$T/ve" "$HOME")" = "$before" ]
	# the same for global, shell, exec and venv
	run --separate-stderr cudnnvm global 9.14
	[ "$status" -eq 1 ]
	[[ $stderr == "cudnnvm: not activating 9.14.0.64-cuda13: torch 2.11.0"*"
hint: cudnnvm global 9.19
hint: cudnnvm global --force 9.14" ]]
	run --separate-stderr cudnnvm shell --eval bash 9.14
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	run --separate-stderr cudnnvm exec 9.14 -- "$T/ve/bin/python3" -c 'print("ran")'
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ $stderr == *"
hint: cudnnvm exec 9.19 -- '$T/ve/bin/python3' '-c' 'print(\"ran\")'
hint: cudnnvm exec --force 9.14 -- '$T/ve/bin/python3' '-c' 'print(\"ran\")'" ]]
	run --separate-stderr cudnnvm venv 9.14 --path "$T/ve"
	[ "$status" -eq 1 ]
	[[ $stderr == "cudnnvm: not activating 9.14.0.64-cuda13: torch 2.11.0"*"
hint: cudnnvm venv 9.19 --path '$T/ve'
hint: cudnnvm venv --force 9.14 --path '$T/ve'" ]]
	[ "$(tree_sum "$CUDNNVM_STORE" "$T/ve" "$HOME")" = "$before" ]
	# a version for another CUDA major is refused as well
	run --separate-stderr cudnnvm use 9.3
	[ "$status" -eq 1 ]
	# what fits is allowed; each hint works as printed
	run cudnnvm use 9.19
	[ "$status" -eq 0 ]
	[ "$(cat .cudnn-version)" = "9.19" ]
	run cudnnvm use --force 9.14
	[ "$status" -eq 0 ]
	[ "$(cat .cudnn-version)" = "9.14" ]
}

@test "--force activates anyway with the reason as a warning" {
	mkenv "$T/ve" torch-2.11.0 >/dev/null
	export VIRTUAL_ENV="$T/ve"
	run --separate-stderr cudnnvm use 9.14 --force
	[ "$status" -eq 0 ]
	[[ $stderr == *"warning: activating 9.14.0.64-cuda13 anyway (--force): torch 2.11.0"* ]]
	[ "$(cat .cudnn-version)" = "9.14" ]
	run cudnnvm exec --force 9.14 -- echo ran
	[ "$status" -eq 0 ]
	[[ $output == *ran* ]]
	run cudnnvm global 9.14 --force
	[ "$status" -eq 0 ]
}

@test "no installed version fits: the refusal says what to install" {
	mkenv "$T/ve" torch-2.1.0 >/dev/null
	rm -rf "$CUDNNVM_STORE/8.9.7.29-cuda12"
	VIRTUAL_ENV="$T/ve" run --separate-stderr cudnnvm use 9.19
	[ "$status" -eq 1 ]
	[ "$stderr" = "cudnnvm: not activating 9.19.0.56-cuda13: torch 2.1.0 ($T/ve) needs cuDNN 8.x ≥ 8.9 built for CUDA 12
hint: cudnnvm install 8.9 --cuda 12 && cudnnvm use 8.9-cuda12
hint: cudnnvm use --force 9.19" ]
}

@test "upper bounds and exclusions; an unknown framework is found through the cuDNN wheel it pulled in" {
	mkenv "$T/jx" jax_cuda12_plugin-0.4.35 >/dev/null
	VIRTUAL_ENV="$T/jx" run --separate-stderr cudnnvm use 10.0 --no-validate
	[ "$status" -eq 1 ]
	[[ $stderr == *"needs cuDNN 9.x ≥ 9.1, < 10.0 built for CUDA 12"* ]]
	VIRTUAL_ENV="$T/jx" run cudnnvm use 9.3 --no-validate
	[ "$status" -eq 0 ]
	sp=$(mkenv "$T/un" --bundled 12:9.3.0.75)
	mkdir -p "$sp/mynet-0.1.dist-info"
	printf 'Metadata-Version: 2.1\nName: mynet\nVersion: 0.1\nRequires-Dist: nvidia-cudnn-cu12 (!=9.3.0.75,>=9.1)\n\n' >"$sp/mynet-0.1.dist-info/METADATA"
	VIRTUAL_ENV="$T/un" run --separate-stderr cudnnvm use 9.3 --no-validate
	[ "$status" -eq 1 ]
	[[ $stderr == *"mynet 0.1 ($T/un) needs cuDNN 9.x ≥ 9.1, not 9.3.0.75 built for CUDA 12"* ]]
}

@test "the environment of the python3 on PATH is found through pyvenv.cfg" {
	mkenv "$T/ve" torch-2.11.0 >/dev/null
	mkdir -p "$T/ve/bin"
	ln -s "$(command -v python3)" "$T/ve/bin/python3"
	PATH="$T/ve/bin:$PATH" run cudnnvm frameworks
	[ "$status" -eq 0 ]
	[[ $output == *"environment: $T/ve (python3 on PATH)"* ]]
	PATH="$T/ve/bin:$PATH" run cudnnvm exec 9.14 -- python3 -c pass
	[ "$status" -eq 1 ]
}

@test "exec gates only the environment's interpreter and the scripts it runs; any other program runs after a warning" {
	mkenv "$T/ve" torch-2.11.0 >/dev/null
	mkdir -p "$T/ve/bin"
	ln -s "$(command -v python3)" "$T/ve/bin/python3"
	export VIRTUAL_ENV="$T/ve" PATH="$T/ve/bin:$PATH"
	echo 9.14 >.cudnn-version
	# no spec: the active 9.14, which torch cannot load
	run --separate-stderr cudnnvm exec -- true
	[ "$status" -eq 0 ]
	# (the loader's complaint about the stub library preloaded follows)
	[ "${stderr_lines[0]}" = "cudnnvm: warning: torch 2.11.0 ($T/ve) needs cuDNN 9.x ≥ 9.19 built for CUDA 13; running 'true' under 9.14.0.64-cuda13 anyway: it is not $T/ve's interpreter" ]
	[ "$(grep -c cudnnvm <<<"$stderr")" -eq 1 ]
	run --separate-stderr cudnnvm exec -- sh -c 'echo ran'
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	# the interpreter, by name on PATH or by path, is refused
	run --separate-stderr cudnnvm exec -- python3 -c 'print(1)'
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ ${stderr_lines[0]} == "cudnnvm: not activating 9.14.0.64-cuda13: torch 2.11.0 ($T/ve) needs"* ]]
	run --separate-stderr cudnnvm exec -- "$T/ve/bin/python3" -c 'print(1)'
	[ "$status" -eq 1 ]
	# a script whose #! names it, directly or through env, is refused
	printf '#!%s\nprint(1)\n' "$T/ve/bin/python3" >"$T/direct"
	printf '#!/usr/bin/env -S python3 -u\nprint(1)\n' >"$T/viaenv"
	printf '#!/bin/sh\necho ran\n' >"$T/shell"
	chmod +x "$T/direct" "$T/viaenv" "$T/shell"
	run --separate-stderr cudnnvm exec -- "$T/direct"
	[ "$status" -eq 1 ]
	run --separate-stderr cudnnvm exec -- "$T/viaenv"
	[ "$status" -eq 1 ]
	run --separate-stderr cudnnvm exec -- "$T/shell"
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	# another interpreter than the environment's is no start of torch
	run --separate-stderr cudnnvm exec -- "$(readlink -f "$(command -v python3)")" -c 'print(1)'
	[ "$status" -eq 0 ]
}

@test "frameworks exits 1 when a framework found cannot load the active version, with the fix" {
	mkenv "$T/ve" torch-2.11.0 >/dev/null
	mkenv "$T/plain" >/dev/null
	export VIRTUAL_ENV="$T/ve"
	CUDNNVM_VERSION=9.14 run --separate-stderr cudnnvm frameworks
	[ "$status" -eq 1 ]
	[[ $output == *"active 9.14.0.64-cuda13: CANNOT LOAD IT"* ]]
	[ "$stderr" = "cudnnvm: 9.14.0.64-cuda13 is active but torch 2.11.0 ($T/ve) needs cuDNN 9.x ≥ 9.19 built for CUDA 13
hint: cudnnvm use 9.19" ]
	# the same for a version named, and in --json (the JSON is whole)
	run --separate-stderr cudnnvm frameworks 9.14 --json
	[ "$status" -eq 1 ]
	python3 -c 'import json,sys; json.loads(sys.argv[1])' "$output"
	CUDNNVM_VERSION=9.19 run cudnnvm frameworks
	[ "$status" -eq 0 ]
	# no framework, or nothing active: 0
	CUDNNVM_VERSION=9.14 run cudnnvm frameworks --path "$T/plain"
	[ "$status" -eq 0 ]
	rm -f "$CUDNNVM_STORE/current"
	run cudnnvm frameworks
	[ "$status" -eq 0 ]
}

@test "the prompt hook never blocks: it activates and warns once" {
	mkenv "$T/ve" torch-2.11.0 >/dev/null
	export VIRTUAL_ENV="$T/ve"
	CUDNNVM_VERSION=9.14 run --separate-stderr cudnnvm hook-env --shell bash
	[ "$status" -eq 0 ]
	[[ $output == *"CUDNNVM_ACTIVE='9.14.0.64-cuda13'"* ]]
	[[ $stderr == *"warning: 9.14.0.64-cuda13 is active but torch 2.11.0 ($T/ve) needs cuDNN 9.x ≥ 9.19"* ]]
	# already active: no second warning
	CUDNNVM_ACTIVE=9.14.0.64-cuda13 CUDNNVM_VERSION=9.14 run --separate-stderr cudnnvm hook-env --shell bash
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "exec preloads the version's front library only where a framework is" {
	mkenv "$T/ve" torch-2.11.0 --bundled 13:9.19.0.56 >/dev/null
	VIRTUAL_ENV="$T/ve" run cudnnvm exec 9.19 -- sh -c 'echo "P=$LD_PRELOAD"'
	[ "$status" -eq 0 ]
	[[ $output == *"P=$CUDNNVM_STORE/9.19.0.56-cuda13/lib/libcudnn.so.9"* ]]
	mkdir -p "$T/plain"
	VIRTUAL_ENV="$T/plain" run cudnnvm exec 9.19 -- sh -c 'echo "P=$LD_PRELOAD"'
	[ "$output" = "P=" ]
}

@test "doctor: an active version torch cannot load, and the bundled-copy mix" {
	mkenv "$T/ve" torch-2.11.0 --bundled 13:9.19.0.56 >/dev/null
	export VIRTUAL_ENV="$T/ve"
	echo x >"$CUDNNVM_STORE/9.14.0.64-cuda13/lib/libcudnn.so.9"
	CUDNNVM_VERSION=9.14 LD_LIBRARY_PATH="$CUDNNVM_STORE/9.14.0.64-cuda13/lib" run cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ $output == *"error: torch 2.11.0 ($T/ve) cannot load the active cuDNN 9.14.0.64-cuda13: it needs cuDNN 9.x ≥ 9.19 built for CUDA 13"* ]]
	# a version that fits is installed: the fix switches to it
	[[ $output == *'fix: eval "$(cudnnvm env 9.19.0.56-cuda13)"'* ]]
	[[ $output == *"warning: mixed cuDNN load in $T/ve: its own copy in $T/ve/lib/python3"*"/site-packages/nvidia/cudnn/lib, and LD_LIBRARY_PATH names $CUDNNVM_STORE/9.14.0.64-cuda13/lib"* ]]
	[[ $output != *"pip uninstall"* ]]
	run cudnnvm doctor --explain "RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (9, 19, 0) but found runtime version (9, 14, 0)"
	[ "$status" -eq 0 ]
	[[ $output == *"cudnnvm frameworks"* ]]
	run cudnnvm doctor --explain "Loaded runtime CuDNN library: 9.1.0 but source was compiled with: 9.3.0."
	[[ $output == *"needs cuDNN 9.3 or a newer 9.x; the cuDNN it loaded is 9.1"* ]]
	# 9.19 is installed and is a newer 9.x: the fix switches to it
	[[ $output == *'fix:     eval "$(cudnnvm env 9.19.0.56-cuda13)"'* ]]
	run cudnnvm doctor --explain "DNN library initialization failed. Look at the errors above for more details."
	[[ $output == *"JAX/XLA"* ]]
}

@test "doctor: the version it offers to switch to is one that passed validation here" {
	STUBS="$BATS_TEST_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nodev"
	rm -rf "$CUDNNVM_STORE/9.19.0.56-cuda13/lib"
	cp -r "$STUBS/v9/lib" "$CUDNNVM_STORE/9.19.0.56-cuda13/lib"
	# a newer build that also fits torch, but aborts when loaded
	mkver 9.19.0.78-cuda13
	rm -rf "$CUDNNVM_STORE/9.19.0.78-cuda13/lib"
	cp -r "$STUBS/abort/lib" "$CUDNNVM_STORE/9.19.0.78-cuda13/lib"
	run cudnnvm validate 9.19.0.56-cuda13
	[ "$status" -eq 0 ]
	run cudnnvm validate 9.19.0.78-cuda13
	[ "$status" -eq 1 ]
	mkenv "$T/ve" torch-2.11.0 >/dev/null
	VIRTUAL_ENV="$T/ve" CUDNNVM_VERSION=9.14 run cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ $output == *'fix: eval "$(cudnnvm env 9.19.0.56-cuda13)"'* ]]
	[[ $output != *"env 9.19.0.78"* ]]
}

@test "the .pth hook preloads the pinned version into an interpreter started without activate" {
	python3 -m venv --without-pip "$T/rv" 2>/dev/null || skip "python3 -m venv does not work here"
	STUBS="$BATS_TEST_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
	for id in 9.19.0.56-cuda13 9.14.0.64-cuda13; do
		rm -rf "$CUDNNVM_STORE/$id/lib"
		cp -r "$STUBS/v9/lib" "$CUDNNVM_STORE/$id/lib"
	done
	mkenv "$T/rv" torch-2.11.0 >/dev/null
	run cudnnvm venv 9.19 --path "$T/rv"
	[ "$status" -eq 0 ]
	sp=$(echo "$T"/rv/lib/python3*/site-packages)
	[ -f "$sp/cudnnvm.pth" ] && [ -f "$sp/_cudnnvm_preload.py" ]
	maps='import sys; sys.stdout.write("".join(sorted(set(l.split()[-1] + "\n" for l in open("/proc/self/maps") if "libcudnn" in l))))'
	fake_framework "$T/rv" torch
	# a start that imports no framework loads nothing
	run --separate-stderr env -u CUDNNVM_VERSION "$T/rv/bin/python" -c "$maps"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ -z "$output" ]
	run --separate-stderr env -u CUDNNVM_VERSION "$T/rv/bin/python" -c "$(mapped torch)"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ $output == *"$CUDNNVM_STORE/9.19.0.56-cuda13/lib/libcudnn.so.9"* ]]
	[[ $output == *"$CUDNNVM_STORE/9.19.0.56-cuda13/lib/libcudnn_graph.so.9"* ]]
	[[ $output == *"$CUDNNVM_STORE/9.19.0.56-cuda13/lib/libcudnn_cnn.so.9"* ]]
	[[ $output != *"9.14"* ]]
	# CUDNNVM_VERSION of a build torch 2.11 cannot load (it needs 9.19):
	# the checked pin wins
	CUDNNVM_VERSION=9.14 run --separate-stderr "$T/rv/bin/python" -c "$(mapped torch)"
	[[ $output == *"$CUDNNVM_STORE/9.19.0.56-cuda13/lib/libcudnn.so.9"* ]]
	[[ $output != *"9.14.0.64"* ]]
	# a pinned version that was uninstalled: a start that imports no
	# framework says nothing; the framework's import, one warning
	mv "$CUDNNVM_STORE/9.19.0.56-cuda13" "$T/gone"
	run --separate-stderr "$T/rv/bin/python" -c 'print("started")'
	[ "$status" -eq 0 ]
	[ "$output" = "started" ]
	[ -z "$stderr" ]
	run --separate-stderr "$T/rv/bin/python" -c 'import torch; print("started")'
	[ "$status" -eq 0 ]
	[ "$output" = "started" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ ${stderr_lines[0]} == "cudnnvm: warning: cuDNN not preloaded"* ]]
	# its fix names the environment, so it works outside it
	[[ ${stderr_lines[0]} == *"; pin an installed version: cudnnvm venv <version> --path $T/rv" ]]
	mv "$T/gone" "$CUDNNVM_STORE/9.19.0.56-cuda13"
	# --remove takes the hook out
	run cudnnvm venv --remove --path "$T/rv"
	[ "$status" -eq 0 ]
	[ ! -e "$sp/cudnnvm.pth" ] && [ ! -e "$sp/_cudnnvm_preload.py" ]
	run "$T/rv/bin/python" -c "$(mapped torch)"
	[ -z "$output" ]
}

# A stand-in for torch with torch's loading behaviour: it loads its bundled
# libcudnn.so.9 by absolute path with RTLD_GLOBAL (as torch/__init__.py
# does), its "convolution" dlopens a sub-library by soname (as cuDNN's
# loader does) and cudnn.version() asks the global scope, where a symbol
# binds to the first library that defines it.
fake_torch() {
	mkdir -p "$1/torch" "$1/nvidia/cudnn/lib"
	cp "$STUBS/v9/lib/"* "$1/nvidia/cudnn/lib/"
	cat >"$1/torch/__init__.py" <<'PY'
import ctypes, os
_lib = os.path.join(os.path.dirname(__file__), '..', 'nvidia', 'cudnn', 'lib')
ctypes.CDLL(os.path.abspath(os.path.join(_lib, 'libcudnn.so.9')), mode=ctypes.RTLD_GLOBAL)
class backends:
    class cudnn:
        enabled = True
        @staticmethod
        def version():
            return ctypes.CDLL(None).cudnnGetVersion()
class nn:
    class functional:
        @staticmethod
        def conv2d(x, w):
            v = backends.cudnn.version()
            if v < 91900:
                raise RuntimeError('cuDNN version incompatibility: PyTorch was compiled against (9, 19, 0) but found runtime version (%d, %d, %d)' % (v // 10000, v // 100 % 100, v % 100))
            ctypes.CDLL('libcudnn_graph.so.9')
class cuda:
    @staticmethod
    def synchronize():
        pass
def randn(*a, **k):
    return None
PY
}

@test "validate --frameworks: the framework's own run, its version and its maps" {
	python3 -m venv --without-pip "$T/rv" 2>/dev/null || skip "python3 -m venv does not work here"
	STUBS="$BATS_TEST_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
	rm -rf "$CUDNNVM_STORE/9.19.0.56-cuda13/lib" "$CUDNNVM_STORE/9.14.0.64-cuda13/lib"
	cp -r "$STUBS/v9/lib" "$CUDNNVM_STORE/9.19.0.56-cuda13/lib"
	cp -r "$STUBS/wrongver/lib" "$CUDNNVM_STORE/9.14.0.64-cuda13/lib"
	sp=$(mkenv "$T/rv" torch-2.11.0)
	fake_torch "$sp"
	export VIRTUAL_ENV="$T/rv"
	run --separate-stderr cudnnvm validate 9.19 --no-gpu --frameworks
	[ "$status" -eq 0 ]
	[[ $output == *"framework torch      pass (cuDNN 91900, "*" sub-libraries from $CUDNNVM_STORE/9.19.0.56-cuda13/lib)"* ]]
	run --separate-stderr cudnnvm validate 9.14 --no-gpu --frameworks
	[ "$status" -eq 1 ]
	[[ $output == *"framework torch      fail: the convolution did not run: RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (9, 19, 0) but found runtime version (9, 14, 0)"* ]]
	[[ $stderr == "cudnnvm: 9.14.0.64-cuda13 failed the framework check;"* ]]
	# --json: the validation's object with the verdicts; a pass is
	# cached like the other steps, a failure is probed again
	run --separate-stderr cudnnvm validate 9.19 --no-gpu --frameworks --json
	[ "$status" -eq 0 ]
	[ "$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); f=d["frameworks"]; print(d["id"], f["ok"], f["cached"], f["frameworks"][0]["fw"], f["frameworks"][0]["pass"], f["frameworks"][0]["cudnn_version"])' "$output")" = "9.19.0.56-cuda13 True True torch True 91900" ]
	run --separate-stderr cudnnvm validate 9.19 --no-gpu --frameworks
	[ "$status" -eq 0 ]
	[[ $output == *"frameworks   (cached result)"* ]]
	run --separate-stderr cudnnvm validate 9.14 --no-gpu --frameworks --json
	[ "$status" -eq 1 ]
	[ "$(python3 -c 'import json,sys; f=json.loads(sys.argv[1])["frameworks"]; print(f["ok"], f["cached"], f["frameworks"][0]["pass"])' "$output")" = "False False False" ]
	[[ $stderr == "cudnnvm: 9.14.0.64-cuda13 failed the framework check;"* ]]
	# a changed framework record is probed again
	touch "$sp/torch-2.11.0.dist-info/METADATA"
	run --separate-stderr cudnnvm validate 9.19 --no-gpu --frameworks --json
	[ "$status" -eq 0 ]
	[[ $output == *'"cached": false'* ]]
	# the bare LD_LIBRARY_PATH mix, seen from inside: exec not used
	run env LD_LIBRARY_PATH="$CUDNNVM_STORE/9.19.0.56-cuda13/lib" "$T/rv/bin/python" -c '
import torch; torch.nn.functional.conv2d(None, None)
print(sorted(set(l.split()[-1] for l in open("/proc/self/maps") if "libcudnn" in l)))'
	[[ $output == *"site-packages/nvidia/cudnn/lib/libcudnn.so.9"* ]]
	[[ $output == *"$CUDNNVM_STORE/9.19.0.56-cuda13/lib/libcudnn_graph.so.9"* ]]
}

@test "exec never puts a store path with a space or ':' in LD_PRELOAD, which the loader would split" {
	command -v cc >/dev/null || skip "no C compiler"
	mkenv "$T/ve" torch-2.11.0 >/dev/null
	# a cloned repository holding the relative half of the split path
	mkdir "$T/repo"
	mklib "$T/repo/cuDNN/9.19.0.56-cuda13/lib/libcudnn.so.9" libcudnn.so.9
	for S in "$T/NVIDIA cuDNN" "$T/NVIDIA:cuDNN"; do
		mkver 9.19.0.56-cuda13 linux-x86_64 "$S"
		: >"$T/ran"
		cd "$T/repo"
		RAN="$T/ran" VIRTUAL_ENV="$T/ve" CUDNNVM_STORE="$S" run --separate-stderr cudnnvm exec 9.19 -- sh -c 'echo "P=$LD_PRELOAD"'
		cd "$T"
		echo "$S: $status $output $stderr"
		[ "$status" -eq 73 ]
		[ -z "$output" ]
		one_error_line
		# a ':' is refused before, for every path variable (H7)
		if [[ $S == *:* ]]; then
			[[ $stderr == *"cannot put '$S/9.19.0.56-cuda13' on LD_LIBRARY_PATH"* ]]
		else
			[[ $stderr == *"cannot preload '$S/9.19.0.56-cuda13/lib/libcudnn.so.9' for the framework here: the dynamic loader splits LD_PRELOAD at spaces and ':'"* ]]
		fi
		[ ! -s "$T/ran" ]
	done
	# without a framework nothing is preloaded, and exec runs
	mkdir "$T/plain"
	VIRTUAL_ENV="$T/plain" CUDNNVM_STORE="$T/NVIDIA cuDNN" run cudnnvm exec 9.19 -- sh -c 'echo "P=$LD_PRELOAD"'
	[ "$status" -eq 0 ]
	[ "$output" = "P=" ]
}

# bigrecord SRC DST MB: SRC with a `files` list of MB megabytes (as real
# records list every file of the package), keys in conda's sorted order,
# and a decoy "version" inside the list's objects
bigrecord() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = int(float(sys.argv[3]) * 1024 * 1024) // 64
d["files"] = ["lib/python3.11/site-packages/torch/lib/f%040d.so" % i for i in range(n)]
d["paths_data"] = {"paths": [{"_path": "x", "version": "0.0.1", "depends": ["cudnn >=7"]}]}
json.dump(d, open(sys.argv[2], "w"), indent=2, sort_keys=True)
PY
}

@test "conda-meta: a FIFO or an oversized record never hangs a scan, a real-sized one is read" {
	mkenv "$T/ce" --conda >/dev/null
	rec="$T/ce/conda-meta/pytorch-2.4.1-cuda120_py311h6d4f3d6_300.json"
	bigrecord "$rec" "$T/big.json" 3
	# a FIFO named like a framework's record
	mv "$rec" "$T/orig.json"
	mkfifo "$rec"
	for cmd in "frameworks --path $T/ce" "hook-env --shell bash" "exec 9.19 -- true" "use 9.19 --no-validate" "venv 9.19 --path $T/ce"; do
		CONDA_PREFIX="$T/ce" run timeout 10 cudnnvm $cmd
		echo "$cmd: $status"
		[ "$status" -ne 124 ]
	done
	# a version pytorch loads is active: frameworks' status says so
	export CUDNNVM_VERSION=9.3
	run cudnnvm frameworks --path "$T/ce" --json
	[ "$status" -eq 0 ]
	[[ $output == *'"complete": false'* ]]
	[[ $output != *'"name": "pytorch"'* ]]
	# a real-sized record (3 MB of file names) is read, decoys and all
	rm "$rec"
	cp "$T/big.json" "$rec"
	run timeout 10 cudnnvm frameworks --path "$T/ce" --json
	[ "$status" -eq 0 ]
	[ "$(need "$T/ce" pytorch)" = "9.3.0.75 10.0 12 True" ]
	[[ $output == *'"complete": true'* ]]
	# over the cap: refused unread, at once
	rm "$rec"
	bigrecord "$T/big.json" "$rec" 9
	run timeout 10 cudnnvm frameworks --path "$T/ce"
	[ "$status" -eq 0 ]
	[[ $output != *"pytorch"* ]]
	[[ $output == *"the scan stopped early"* ]]
}

@test "escapes in a dist-info name or METADATA never reach the terminal raw" {
	mkenv "$T/ve" >/dev/null
	sp=$(echo "$T"/ve/lib/python3*/site-packages)
	d="$sp/torch-2.11.0"$'\e[31m'"x.dist-info"
	mkdir "$d"
	printf 'Name: torch\nRequires-Dist: nvidia-cudnn-cu13==9.19.0.56\e]0;pwned\a; platform_system == "Linux"\n\n' >"$d/METADATA"
	export VIRTUAL_ENV="$T/ve"
	run cudnnvm frameworks
	[ "$status" -eq 0 ]
	[[ $output != *[$'\e\a']* ]]
	[[ $output == *'torch 2.11.0\x1b[31mx'* ]]
	[[ $output == *"says 'nvidia-cudnn-cu13==9.19.0.56\\x1b]0;pwned\\x07; platform_system"* ]]
	CUDNNVM_VERSION=9.14 run cudnnvm doctor
	[ "$status" -eq 1 ]
	[[ $output != *[$'\e\a']* ]]
	[[ $output == *'error: torch 2.11.0\x1b[31mx'* ]]
	for cmd in "use 9.14 --no-validate" "exec 9.14 -- true"; do
		run cudnnvm $cmd
		echo "$cmd: $status $output"
		# exec runs what is not the environment's interpreter: a warning
		[ "$status" -eq $([ "$cmd" = "use 9.14 --no-validate" ] && echo 1 || echo 0) ]
		[[ $output != *[$'\e\a']* ]]
		[[ $output == *'torch 2.11.0\x1b[31mx'* ]]
	done
}

# fake_jax SITE: a JAX whose convolution loads the cuDNN the loader finds
# (under exec, the version's) and whose CUDA plugin reports it through
# cuda_versions, as jax._src.lib gives it: cudnn_get_version() is what
# that library says (0 when FAKE_JAX_NONE is set), cudnn_build_version()
# is FAKE_JAX_BUILD.
fake_jax() {
	mkdir -p "$1/jax/_src/lib"
	: >"$1/jax/_src/__init__.py"
	: >"$1/jax/_src/lib/__init__.py"
	cat >"$1/jax/__init__.py" <<'PY'
import ctypes
from . import numpy, lax
PY
	cat >"$1/jax/numpy.py" <<'PY'
def ones(shape):
    return shape
PY
	cat >"$1/jax/lax.py" <<'PY'
import ctypes
class _Done:
    def block_until_ready(self):
        return self
def conv(x, w, strides, padding):
    ctypes.CDLL('libcudnn.so.9', mode=ctypes.RTLD_GLOBAL)
    ctypes.CDLL('libcudnn_graph.so.9')
    return _Done()
PY
	cat >"$1/jax/_src/lib/cuda_versions.py" <<'PY'
import ctypes, os
def cudnn_get_version():
    if os.environ.get('FAKE_JAX_NONE'):
        return 0
    return ctypes.CDLL('libcudnn.so.9').cudnnGetVersion()
def cudnn_build_version():
    return int(os.environ.get('FAKE_JAX_BUILD', '91900'))
PY
}

@test "validate --frameworks: JAX's own versions, runtime and build, judged by JAX's rule; never cuDNN 0" {
	python3 -m venv --without-pip "$T/jv" 2>/dev/null || skip "python3 -m venv does not work here"
	STUBS="$BATS_TEST_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
	rm -rf "$CUDNNVM_STORE/9.19.0.56-cuda13/lib" "$CUDNNVM_STORE/9.14.0.64-cuda13/lib"
	cp -r "$STUBS/v9/lib" "$CUDNNVM_STORE/9.19.0.56-cuda13/lib"
	cp -r "$STUBS/wrongver/lib" "$CUDNNVM_STORE/9.14.0.64-cuda13/lib"
	sp=$(mkenv "$T/jv" jax_cuda13_plugin-0.10.2)
	fake_jax "$sp"
	export VIRTUAL_ENV="$T/jv"
	# the plugin reads no version: a failure, not "cuDNN 0"
	FAKE_JAX_NONE=1 run --separate-stderr cudnnvm validate 9.19 --no-gpu --frameworks
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"framework jax        fail: jax ran but reported no cuDNN version (its CUDA plugin's cuda_versions.cudnn_get_version())"* ]]
	[[ $output != *"cuDNN 0"* ]]
	# runtime 9.19 against a 9.19 build: the numbers JAX read
	run --separate-stderr cudnnvm validate 9.19 --no-gpu --frameworks --json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(python3 -c 'import json,sys; f=json.loads(sys.argv[1])["frameworks"]["frameworks"][0]; print(f["fw"], f["pass"], f["cudnn_version"], f["cudnn_build_version"])' "$output")" = "jax True 91900 91900" ]
	run --separate-stderr cudnnvm validate 9.19 --no-gpu --frameworks
	[[ $output == *"framework jax        pass (cuDNN 91900, built against 91900, "*" sub-libraries from $CUDNNVM_STORE/9.19.0.56-cuda13/lib)"* ]]
	# runtime 9.14, older than the 9.19 build: JAX's own check would
	# refuse it, so validation does, though the binding is right
	run --separate-stderr cudnnvm validate 9.14 --no-gpu --frameworks
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"framework jax        fail: jax's own check fails: it runs cuDNN 91400 but was built against 91900 (it needs the same major and at least the build's minor)"* ]]
	# a newer patch or minor than the build passes; another major fails
	FAKE_JAX_BUILD=91402 run --separate-stderr cudnnvm validate 9.14 --no-gpu --frameworks
	[ "$status" -eq 0 ]
	# (a new build is a new framework record: probed again)
	touch "$sp/jax_cuda13_plugin-0.10.2.dist-info/METADATA"
	FAKE_JAX_BUILD=8907 run --separate-stderr cudnnvm validate 9.14 --no-gpu --frameworks
	[ "$status" -eq 1 ]
	[[ $output == *"it runs cuDNN 91400 but was built against 8907"* ]]
}
