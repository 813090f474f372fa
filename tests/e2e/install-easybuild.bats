#!/usr/bin/env bats
# install --prefix DIR --layout easybuild --accept-eula: the version as an
# EESSI host_injections tree (software/cuDNN/<ver>/ with easybuild/ and
# the licence), which EESSI's own cuDNN module looks in; without
# --accept-eula nothing is downloaded or written, and the refusal says why.
load fleet

setup() { fleet_setup; }

@test "the locked build lands in software/cuDNN/<ver>/ with easybuild/ and the licence" {
	cudnnvm lock >/dev/null
	run --separate-stderr cudnnvm install --prefix "$T/hi" --layout easybuild --accept-eula --frozen
	[ "$status" -eq 0 ]
	local d="$T/hi/software/cuDNN/9.13.0.50-CUDA-12"
	[[ "$stderr" == *"copied cuDNN $ID for EESSI into $d"* ]]
	[ -f "$d/LICENSE" ]
	[ -f "$d/include/cudnn.h" ]
	[ -L "$d/lib/libcudnn.so.9" ]
	[ ! -e "$d/cudnnvm.json" ]
	diff -r -x cudnnvm.json -x easybuild "$CUDNNVM_STORE/$ID" "$d"
	local eb="$d/easybuild/cuDNN-9.13.0.50-CUDA-12.eb"
	grep -qx "name = 'cuDNN'" "$eb"
	grep -qx "version = '9.13.0.50'" "$eb"
	grep -qx "versionsuffix = '-CUDA-12'" "$eb"
	grep -qx "accept_eula = True" "$eb"
	grep -qx "checksums = \['$(python3 -c 'import json; print(json.load(open("cudnnvm.lock"))["platforms"]["linux-x86_64"]["sha256"])')'\]" "$eb"
	# the easyconfig is Python, as EasyBuild reads it
	python3 -c 'import sys; SYSTEM = None; exec(open(sys.argv[1]).read()); assert accept_eula' "$eb"
	# nothing half-made is left beside it
	[ "$(ls -A "$T/hi/software/cuDNN")" = 9.13.0.50-CUDA-12 ]
	# again: refused without --force, replaced with it
	run -1 --separate-stderr cudnnvm install 9.13.0.50-cuda12 --prefix "$T/hi" --layout easybuild --accept-eula
	[[ "$stderr" == *"cudnnvm: '$d' is already there"* ]]
	run cudnnvm install 9.13.0.50-cuda12 --prefix "$T/hi" --layout easybuild --accept-eula --force
	[ "$status" -eq 0 ]
	[ -f "$d/LICENSE" ]
}

@test "E7: without --accept-eula: refused, says why, downloads and writes nothing" {
	log_mark
	run -64 --separate-stderr cudnnvm install 9.13 --cuda 12 --prefix "$T/hi" --layout easybuild
	[[ "$stderr" == "cudnnvm: installing cuDNN for EESSI needs --accept-eula: NVIDIA's licence does not let EESSI redistribute cuDNN"* ]]
	[[ "$stderr" == *"hint: cudnnvm install 9.13 --prefix $T/hi --layout easybuild --accept-eula"* ]]
	[ ! -e "$T/hi" ]
	[ ! -e "$CUDNNVM_STORE/$ID" ]
	[ "$(archive_gets)" -eq 0 ]
	# --prefix alone, or another layout, is a usage error
	run -64 cudnnvm install 9.13 --prefix "$T/hi"
	run -64 cudnnvm install 9.13 --layout spack --prefix "$T/hi" --accept-eula
	run -64 cudnnvm install 9.13 --layout easybuild --accept-eula
}
