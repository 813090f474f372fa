#!/usr/bin/env bats
# What a new user trips over against the mirror: a release published after
# the index was cached, install with no spec, use of a version not yet
# installed, and the install hints that must work as printed.
load remote

setup() { remote_setup; }

# Hide release $1 from the mirror's listing (as before it was published);
# publish_again puts the listing back.
unpublish() {
	cp "$MIRROR_DIR/root/index.html" "$T/index.html.orig"
	grep -v "redistrib_$1.json" "$T/index.html.orig" >"$MIRROR_DIR/root/index.html"
}
publish_again() { cp "$T/index.html.orig" "$MIRROR_DIR/root/index.html"; }
teardown() { [ ! -f "$T/index.html.orig" ] || publish_again; }

listing_gets() { grep -c 'GET / ' "$MIRROR_DIR/root/requests.log" || true; }

@test "a release published after the index was cached is found without --refresh" {
	unpublish 9.20.0
	run cudnnvm list-remote --cuda 12
	[ "$status" -eq 0 ]
	[[ $output != *9.20.0.48* ]]
	publish_again
	log_mark
	run --separate-stderr cudnnvm install 9.20 --cuda 12
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda12" ]
	# the cached listing missed it: read once more, then found
	[ "$(listing_gets)" -eq 1 ]
}

@test "a spec that matches no release re-reads the listing only once" {
	run cudnnvm list-remote --cuda 12
	log_mark
	run -1 --separate-stderr cudnnvm install 9.99 --cuda 12
	[[ $stderr == "cudnnvm: no cuDNN release 9.99 on the mirror"* ]]
	[ "$(listing_gets)" -eq 1 ]
	# each run that misses reads it once more, never more
	log_mark
	run -1 --separate-stderr cudnnvm install 9.99 --cuda 12
	[ "$(listing_gets)" -eq 1 ]
}

@test "list-remote of a release published after the index was cached shows it" {
	unpublish 9.20.0
	run cudnnvm list-remote --cuda 12
	publish_again
	run cudnnvm list-remote 9.20 --cuda 12
	[ "$status" -eq 0 ]
	[[ $output == 9.20.0.48-cuda12* ]]
}

# fake_nvcc MAJOR: the CUDA toolkit found is MAJOR.0
fake_nvcc() {
	mkdir -p "$T/cudabin"
	printf '#!/bin/sh\necho "Cuda compilation tools, release %s.0, V%s.0.1"\n' "$1" "$1" >"$T/cudabin/nvcc"
	chmod +x "$T/cudabin/nvcc"
	export PATH="$T/cudabin:$PATH"
}

@test "install with no spec installs the version pinned for this folder" {
	mkdir -p proj/sub && echo 9.13-cuda12 >proj/.cudnn-version
	cd proj/sub
	run --separate-stderr cudnnvm install
	[ "$status" -eq 0 ]
	[[ $stderr == *"installing 9.13-cuda12, the version $T/proj/.cudnn-version names"* ]]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	# installed already: said, nothing fetched
	log_mark
	run cudnnvm install
	[ "$status" -eq 0 ]
	[[ $output == *"already installed"* ]]
	[ "$(archive_gets)" -eq 0 ]
	# a .tool-versions cudnn line counts as well
	cd "$T" && mkdir tv && cd tv
	printf 'python 3.12\ncudnn 9.20-cuda12\n' >.tool-versions
	run cudnnvm install
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda12" ]
}

@test "install with no spec and no pin asks which version" {
	mkdir empty && cd empty
	run -64 --separate-stderr cudnnvm install
	[[ $stderr == "cudnnvm: install: which version? no pin file here"* ]]
}

@test "use of a version not installed installs it first, unless --no-install" {
	mkdir proj && cd proj
	run --separate-stderr cudnnvm use 9.13-cuda12 --no-install
	[ "$status" -eq 1 ]
	[ ! -e .cudnn-version ]
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	run --separate-stderr cudnnvm use 9.13-cuda12
	[ "$status" -eq 0 ]
	[[ $stderr == *"cuDNN 9.13-cuda12 is not installed; installing it"* ]]
	[[ $output == *"installed cuDNN 9.13.0.50-cuda12"* ]]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	[ "$(cat .cudnn-version)" = 9.13-cuda12 ]
	# a failed install pins nothing
	run --separate-stderr cudnnvm use 9.99
	[ "$status" -eq 1 ]
	[ "$(cat .cudnn-version)" = 9.13-cuda12 ]
}

@test "--no-wait reaches the install that use runs: a busy lock is exit 75" {
	mkdir proj && cd proj
	mkdir -p "$CUDNNVM_STORE/.locks"
	lock="$CUDNNVM_STORE/.locks/9.13.0.50-cuda12.lock"
	# held by this shell's own descriptor: nothing is left running after
	exec 8>"$lock"
	flock -x 8
	run --separate-stderr timeout 20 cudnnvm --no-wait use 9.13-cuda12 8>&-
	exec 8>&-
	[ "$status" -eq 75 ]
	[[ $stderr == *"another cudnnvm is installing or removing 9.13.0.50-cuda12"* ]]
	[ ! -e .cudnn-version ]
	[ ! -e "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
}

@test "the install hint for a missing pinned version works as printed" {
	fake_nvcc 13
	# the manifests are cached by an earlier look at the mirror
	run cudnnvm list-remote 9.8
	mkdir proj && cd proj
	echo 9.8 >.cudnn-version
	run -1 --separate-stderr cudnnvm exec -- true
	hint=$(sed -n 's/^hint: //p' <<<"$stderr")
	[ "$hint" = "cudnnvm install 9.8 --cuda 12" ]
	run bash -c "$hint"
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.8.0.87-cuda12" ]
	run cudnnvm exec -- true
	[ "$status" -eq 0 ]
}

@test "install latest and list-remote latest: the newest release for this CUDA major" {
	fake_nvcc 12
	run cudnnvm list-remote latest
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ ${lines[0]} == "9.20.0.48-cuda12 "* ]]
	run cudnnvm install latest
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda12" ]
	run cudnnvm install latest-cuda13
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda13" ]
}
