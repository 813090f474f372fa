#!/usr/bin/env bats
# The README's tour on a fresh home, as a new user types it: cudnnvm
# unpacked into ~/.local (the binary archive's layout), the shell hook,
# a company mirror set with one command and a private CA in SSL_CERT_FILE,
# then list-remote, install, global, use in a project, env, exec, lock and
# validate, and a doctor that finds nothing wrong. The machine is CUDA 13
# with no cuBLAS of its own (the CUDA tree beside the mirror has it). Any
# `warning:` fails the tour.
load helper

# A mirror of its own, as a company's copy of NVIDIA's tree: cuDNN
# 9.19.0.56 for CUDA 13 and 12 (stub libraries that load and compute,
# tests/fixtures/build_stubs.sh), with NVIDIA's CUDA tree beside it.
setup_file() {
	stub_archives <<-EOF
		v9 9.19.0.56 13
		v9 9.19.0.56 12
	EOF
	TOUR_ROOT="$BATS_FILE_TMPDIR/tour"
	mkdir -p "$TOUR_ROOT/root/cudnn/linux-x86_64"
	cp "$STUBS"/arch/*9.19.0.56* "$TOUR_ROOT/root/cudnn/linux-x86_64/"
	python3 - "$TOUR_ROOT/root" "$FIXTURES/manifests/redistrib_9.20.0.json" <<'PY'
import hashlib, json, os, sys
root, src = sys.argv[1], sys.argv[2]
m = json.load(open(src))
m["release_label"] = "9.19.0"
m["cudnn"]["version"] = "9.19.0.56"
builds = {}
for f in sorted(os.listdir(os.path.join(root, "cudnn", "linux-x86_64"))):
    p = os.path.join(root, "cudnn", "linux-x86_64", f)
    data = open(p, "rb").read()
    cuda = f.split("_cuda")[1].split("-")[0]
    builds["cuda" + cuda] = {
        "relative_path": "cudnn/linux-x86_64/" + f,
        "sha256": hashlib.sha256(data).hexdigest(),
        "md5": hashlib.md5(data).hexdigest(), "size": str(len(data))}
m["cudnn"] = {k: v for k, v in m["cudnn"].items() if not isinstance(v, dict)}
m["cudnn"]["linux-x86_64"] = builds
json.dump(m, open(os.path.join(root, "redistrib_9.19.0.json"), "w"), indent=2)
open(os.path.join(root, "index.html"), "w").write(
    '<html><body><pre>\n<a href="redistrib_9.19.0.json">redistrib_9.19.0.json</a>\n</pre></body></html>\n')
PY
	python3 "$FIXTURES/mkcuda.py" build "$TOUR_ROOT/root/compute/cuda/redist" 13.0.2 --pad-mb 1 >/dev/null
	mkdir -p "$TOUR_ROOT/root/compute/cudnn"
	ln -s ../.. "$TOUR_ROOT/root/compute/cudnn/redist"
	python3 "$FIXTURES/mirror.py" certs "$TOUR_ROOT/certs"
	python3 "$FIXTURES/mirror.py" serve "$TOUR_ROOT/root" \
		--cert "$TOUR_ROOT/certs/server.pem" --key "$TOUR_ROOT/certs/server.key" \
		--port-file "$TOUR_ROOT/port" >"$TOUR_ROOT/server.log" 2>&1 3>&- &
	echo $! >"$TOUR_ROOT/pid"
	wait_for_file "$TOUR_ROOT/port"
	export TOUR_ROOT STUBS
}
teardown_file() { kill "$(cat "$TOUR_ROOT/pid")" 2>/dev/null || true; }

setup() {
	common_setup
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
	unset no_proxy NO_PROXY CUDA_HOME CUDA_PATH LD_LIBRARY_PATH
	# a CUDA 13 machine (driver 580, an H100) without cuBLAS of its own
	export CUDNNVM_OVERRIDE_CUDA=13.0
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nocublas"
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Sep 25 2025\n' >"$T/driver"
	export CUDNNVM_TEST_DRIVER_VERSION_FILE="$T/driver"
	# the binary archive's layout under ~/.local
	mkdir -p "$HOME/.local/bin" "$HOME/.local/libexec/cudnnvm"
	cp "$REPO_ROOT/build/cudnnvm" "$HOME/.local/bin/"
	cp "$REPO_ROOT/build/cudnnvm-helper" "$HOME/.local/libexec/cudnnvm/"
	export PATH="$HOME/.local/bin:/usr/bin:/bin"
	TOUR="$T/tour.log"
	: >"$TOUR"
}

# step COMMAND...: run it in the user's bash (hook loaded), log all of its
# output, and require success.
step() {
	printf '$ %s\n' "$*" >>"$TOUR"
	run bash -c 'eval "$(cudnnvm init bash)"; '"$*" 2>&1
	printf '%s\n' "$output" >>"$TOUR"
	echo "\$ $* -> $status" >&2
	echo "$output" >&2
	[ "$status" -eq 0 ]
}

@test "the README tour from install to validate on a fresh home prints no warning" {
	MIRROR="https://127.0.0.1:$(cat "$TOUR_ROOT/port")/compute/cudnn/redist/"
	export SSL_CERT_FILE="$TOUR_ROOT/certs/ca.pem"
	[ "$(command -v cudnnvm)" = "$HOME/.local/bin/cudnnvm" ]
	step cudnnvm version
	step cudnnvm config set remote.mirror "$MIRROR"
	step cudnnvm config set remote.verify_pins mirror
	step cudnnvm list-remote 9
	[[ "$output" == *"9.19.0.56-cuda13"*"fits"* ]]
	step cudnnvm install 9.19
	[[ "$output" == *"installed cuDNN 9.19.0.56-cuda13"* ]]
	[[ "$output" == *"beside itself"*"--deps never skips it"* ]]
	step cudnnvm global 9.19
	mkdir -p "$T/project"
	cd "$T/project"
	step cudnnvm use 9.19
	[ "$(cat .cudnn-version)" = 9.19 ]
	step cudnnvm current
	[[ "$output" == *"9.19.0.56-cuda13"* ]]
	step 'cudnnvm exec -- sh -c "echo \$CUDNNVM_ACTIVE"'
	[[ "$output" == *"9.19.0.56-cuda13"* ]]
	step cudnnvm env --shell fish
	step cudnnvm lock
	step cudnnvm lock --check
	step cudnnvm validate
	step cudnnvm doctor
	[[ "$output" == *"0 problems found"* ]]
	step cudnnvm list
	# one copy of each archive: the store's
	[ -z "$(ls -A "$(cudnnvm cache dir)/downloads" 2>/dev/null)" ]
	if grep -n 'warning:' "$TOUR"; then
		echo "the tour printed a warning it did not ask for" >&2
		return 1
	fi
}
