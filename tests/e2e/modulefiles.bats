#!/usr/bin/env bats
# modulefiles: Lmod and Environment Modules files, read by the real tools.
load activation

setup() {
	activation_setup
	LMOD_INIT=/usr/share/lmod/lmod/init/bash
	export LD_LIBRARY_PATH=/orig/lib CUDNN_HOME=/orig/home
}

# The Environment Modules package conflicts with lmod, so it runs from its
# .deb unpacked once into the shared test cache.
envmod_root() {
	local cmd="$TEST_CACHE/envmod-deb/usr/lib/x86_64-linux-gnu/modulecmd.tcl"
	command -v tclsh8.6 >/dev/null || return 1
	cache_make envmod-deb unpack_envmod_into_tmp || return 1
	[ -f "$cmd" ] || return 1
	echo "$cmd"
}
unpack_envmod_into_tmp() { # for cache_make
	mkdir -p "$CACHE_TMP.deb" || return 1
	(cd "$CACHE_TMP.deb" && apt-get download environment-modules >/dev/null 2>&1) || return 1
	dpkg -x "$CACHE_TMP.deb"/environment-modules_*.deb "$CACHE_TMP" || return 1
	rm -rf "$CACHE_TMP.deb"
}

# run_in_modules TOOL SCRIPT: bash with `module` from lmod or envmod
run_modules() {
	local init
	if [ "$1" = lmod ]; then
		[ -r "$LMOD_INIT" ] || skip "lmod is not installed (apt-get install lmod)"
		init="source $LMOD_INIT"
	else
		local cmd
		cmd=$(envmod_root) || skip "environment-modules cannot be unpacked (apt-get download environment-modules, tcl)"
		init="eval \"\$(tclsh8.6 '$cmd' bash autoinit)\""
	fi
	run bash -c "$init
module use '$CUDNNVM_STORE/modulefiles'
$2"
}

@test "modulefiles writes one file per version with the env of the version" {
	run cudnnvm modulefiles --format lua
	[ "$status" -eq 0 ]
	for id in "$A" "$B" "$C"; do
		f="$CUDNNVM_STORE/modulefiles/cudnn/$id.lua"
		[ -f "$f" ]
		grep -q "conflict(\"cudnn\")" "$f"
		grep -q "pushenv(\"CUDNNVM_VERSION\", \"$id\")" "$f"
		grep -q "prepend_path(\"LD_LIBRARY_PATH\", \"$CUDNNVM_STORE/$id/lib\")" "$f"
	done
	run cudnnvm modulefiles --format tcl --out "$T/mods"
	[ "$status" -eq 0 ]
	head -1 "$T/mods/cudnn/$B" | grep -qx '#%Module1.0'
}

@test "Lmod (lua files): avail, load, swap, unload restores, default is global" {
	cudnnvm global "$A"
	cudnnvm modulefiles --format lua
	run_modules lmod '
module -t avail cudnn 2>&1
module load cudnn/'"$B"'; echo "L=$LD_LIBRARY_PATH H=$CUDNN_HOME"; cudnnvm current
module swap cudnn cudnn/'"$C"'; echo "S=$CUDNNVM_VERSION"
module unload cudnn; echo "U=$LD_LIBRARY_PATH H=$CUDNN_HOME V=${CUDNNVM_VERSION-none}"
module load cudnn; echo "D=$CUDNNVM_VERSION"'
	[ "$status" -eq 0 ]
	[[ $output == *"cudnn/$B"* ]]
	[[ $output == *"L=$CUDNNVM_STORE/$B/lib:/orig/lib H=$CUDNNVM_STORE/$B"* ]]
	[[ $output == *"$B (set by the module cudnn/$B)"* ]]
	[[ $output == *"S=$C"* ]]
	[[ $output == *"U=/orig/lib H=/orig/home V=none"* ]]
	[[ $output == *"D=$A"* ]]
}

@test "modules carry help and whatis (and family in Lua), read by Lmod" {
	cudnnvm modulefiles --format lua
	grep -q "family(\"cudnn\")" "$CUDNNVM_STORE/modulefiles/cudnn/$B.lua"
	run_modules lmod '
module help cudnn/'"$B"' 2>&1
module whatis cudnn/'"$B"' 2>&1'
	[ "$status" -eq 0 ]
	[[ $output == *"NVIDIA cuDNN $B from the cudnnvm store"* ]]
	[[ $output == *"cuDNN $B (CUDA 12, linux-x86_64) from the cudnnvm store"* ]]
	cudnnvm modulefiles --format tcl --out "$T/tcl"
	run bash -c "source $LMOD_INIT; module use '$T/tcl'; module help cudnn/$B 2>&1"
	[[ $output == *"NVIDIA cuDNN $B from the cudnnvm store"* ]]
}

@test "Lmod (tcl files): load, conflict-free swap, unload" {
	cudnnvm modulefiles --format tcl
	run_modules lmod '
module load cudnn/'"$B"'; echo "L=$LD_LIBRARY_PATH V=$CUDNNVM_VERSION"
module load cudnn/'"$A"'; echo "S=$CUDNNVM_VERSION"
module unload cudnn; echo "U=$LD_LIBRARY_PATH V=${CUDNNVM_VERSION-none}"'
	[ "$status" -eq 0 ]
	[[ $output == *"L=$CUDNNVM_STORE/$B/lib:/orig/lib V=$B"* ]]
	[[ $output == *"S=$A"* ]]
	[[ $output == *"U=/orig/lib V=none"* ]]
}

@test "Environment Modules: avail, load, conflict, swap, unload, default" {
	cudnnvm global "$C"
	cudnnvm modulefiles
	run_modules envmod '
module avail -t cudnn 2>&1
module load cudnn/'"$B"'; echo "L=$LD_LIBRARY_PATH H=$CUDNN_HOME"; cudnnvm current
module load cudnn/'"$A"' 2>/dev/null || echo "conflict refused"
module unload cudnn; echo "U=$LD_LIBRARY_PATH H=$CUDNN_HOME V=${CUDNNVM_VERSION-none}"
module load cudnn/'"$A"'; module swap cudnn cudnn/'"$B"'; echo "S=$CUDNNVM_VERSION L=$LD_LIBRARY_PATH"
module unload cudnn; module load cudnn; echo "D=$CUDNNVM_VERSION"'
	[ "$status" -eq 0 ]
	[[ $output == *"cudnn/$A"* ]]
	[[ $output == *"L=$CUDNNVM_STORE/$B/lib:/orig/lib H=$CUDNNVM_STORE/$B"* ]]
	[[ $output == *"$B (set by the module cudnn/$B)"* ]]
	[[ $output == *"conflict refused"* ]]
	[[ $output == *"U=/orig/lib H=/orig/home V=none"* ]]
	[[ $output == *"S=$B L=$CUDNNVM_STORE/$B/lib:/orig/lib"* ]]
	[[ $output == *"D=$C"* ]]
}

@test "install and uninstall keep the store's module folder current" {
	cudnnvm modulefiles --format lua
	run cudnnvm uninstall "$A"
	[ "$status" -eq 0 ]
	[ ! -e "$CUDNNVM_STORE/modulefiles/cudnn/$A.lua" ]
	[ -f "$CUDNNVM_STORE/modulefiles/cudnn/$B.lua" ]
}

@test "global keeps the module folder's default (.version) on the new default" {
	cudnnvm global "$A"
	cudnnvm modulefiles --format lua
	grep -q "\"$A\"" "$CUDNNVM_STORE/modulefiles/cudnn/.version"
	run cudnnvm global "$B"
	[ "$status" -eq 0 ]
	cat "$CUDNNVM_STORE/modulefiles/cudnn/.version"
	grep -q "set ModulesVersion \"$B\"" "$CUDNNVM_STORE/modulefiles/cudnn/.version"
	run_modules lmod 'module load cudnn; echo "D=$CUDNNVM_VERSION"'
	[[ $output == *"D=$B"* ]]
	run cudnnvm global --unset
	[ "$status" -eq 0 ]
	[ ! -e "$CUDNNVM_STORE/modulefiles/cudnn/.version" ]
}

@test "a module folder or file cudnnvm did not write is never overwritten" {
	mkdir -p "$T/site/cudnn"
	echo 'site file' >"$T/site/cudnn/8.0"
	run --separate-stderr cudnnvm modulefiles --out "$T/site"
	[ "$status" -eq 73 ]
	one_error_line
	[[ $stderr == *"$T/site/cudnn"* ]]
	[ "$(cat "$T/site/cudnn/8.0")" = "site file" ]
	cudnnvm modulefiles
	echo 'hand edit' >"$CUDNNVM_STORE/modulefiles/cudnn/$B"
	run --separate-stderr cudnnvm modulefiles
	[ "$status" -eq 73 ]
	[[ $stderr == *"modulefiles/cudnn/$B"* ]]
	[ "$(cat "$CUDNNVM_STORE/modulefiles/cudnn/$B")" = "hand edit" ]
	run --separate-stderr cudnnvm modulefiles --format yaml
	[ "$status" -eq 64 ]
}

@test "modulefiles refuses a folder another user owns or anyone can write (73)" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to give a folder to another user"
	mkdir -p "$T/theirs" "$T/open" "$T/sticky"
	chown 65534 "$T/theirs"
	chmod 0777 "$T/open"
	chmod 1777 "$T/sticky"
	run --separate-stderr cudnnvm modulefiles --out "$T/theirs"
	[ "$status" -eq 73 ]
	one_error_line
	[[ $stderr == *"'$T/theirs' belongs to another user (uid 65534)"*"--out DIR)"* ]]
	[ ! -e "$T/theirs/cudnn" ]
	run --separate-stderr cudnnvm modulefiles --out "$T/open"
	[ "$status" -eq 73 ]
	[[ $stderr == *"'$T/open' is writable by every user"* ]]
	[ ! -e "$T/open/cudnn" ]
	# a module folder planted in a sticky folder by someone else
	mkdir "$T/sticky/cudnn" && chown 65534 "$T/sticky/cudnn"
	run --separate-stderr cudnnvm modulefiles --out "$T/sticky"
	[ "$status" -eq 73 ]
	[[ $stderr == *"'$T/sticky/cudnn' belongs to another user"* ]]
	[ -z "$(ls -A "$T/sticky/cudnn")" ]
	# the store's own folder, made writable by its group
	cudnnvm modulefiles
	chmod 0775 "$CUDNNVM_STORE/modulefiles/cudnn"
	run --separate-stderr cudnnvm modulefiles
	[ "$status" -eq 73 ]
	[[ $stderr == *"modulefiles/cudnn' is writable by its group"* ]]
	chmod 0755 "$CUDNNVM_STORE/modulefiles/cudnn"
	rmdir "$T/sticky/cudnn"
	run cudnnvm modulefiles --out "$T/sticky"
	[ "$status" -eq 0 ]
	[ -f "$T/sticky/cudnn/.cudnnvm" ]
}

@test "doctor does not take the store's module folder for a damaged install" {
	cudnnvm modulefiles
	run cudnnvm doctor
	[[ $output != *"modulefiles has no cudnnvm.json"* ]]
}
