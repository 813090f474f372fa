#!/usr/bin/env bats
# venv: a version pinned to a real Python venv (bin/activate and
# activate.fish) and to a conda prefix (activate.d / deactivate.d).
load activation

setup() {
	activation_setup
	export T
	cudnnvm -q global 8
	unset LD_LIBRARY_PATH CPATH LIBRARY_PATH CUDNN_HOME VIRTUAL_ENV CONDA_PREFIX
	export LD_LIBRARY_PATH=/usr/local/lib
}

@test "a real python3 venv: activate applies the version, deactivate restores" {
	python3 -m venv --without-pip "$T/ve" || skip "python3 -m venv is not available"
	run cudnnvm venv 9.1 --path "$T/ve"
	[ "$status" -eq 0 ]
	grep -q '>>> cudnnvm >>>' "$T/ve/bin/activate"
	for sh in bash zsh; do
		out=$("$sh" -c '
# (PS1 is left exported by the deactivate of the venv itself)
before=$(env | grep -v -e "^_=" -e "^PWD=" -e "^OLDPWD=" -e "^PS1=" | LC_ALL=C sort)
. "$T/ve/bin/activate"
echo "on: $CUDNNVM_ACTIVE $LD_LIBRARY_PATH $VIRTUAL_ENV"
deactivate
after=$(env | grep -v -e "^_=" -e "^PWD=" -e "^OLDPWD=" -e "^PS1=" | LC_ALL=C sort)
[ "$before" = "$after" ] && echo same || diff <(echo "$before") <(echo "$after")
echo "off: ${CUDNNVM_ACTIVE-none} $LD_LIBRARY_PATH"')
		[[ $out == *"on: $A $CUDNNVM_STORE/$A/lib:/usr/local/lib $T/ve"* ]]

		[[ $out == *"same"* ]]
		[[ $out == *"off: none /usr/local/lib"* ]]
	done
}

@test "venv: activating twice does not duplicate, fish activate.fish works" {
	python3 -m venv --without-pip "$T/ve" || skip "python3 -m venv is not available"
	cudnnvm -q venv 9.13 --path "$T/ve"
	cudnnvm -q venv 9.13 --path "$T/ve"
	[ "$(grep -c '>>> cudnnvm >>>' "$T/ve/bin/activate")" -eq 1 ]
	[ "$(grep -c 'cudnnvm-deactivate' "$T/ve/bin/activate")" -eq 1 ]
	out=$(bash -c '. "$T/ve/bin/activate"; . "$T/ve/bin/activate"; echo "$LD_LIBRARY_PATH"; deactivate; echo "$LD_LIBRARY_PATH"')
	[ "$out" = "$CUDNNVM_STORE/$B/lib:/usr/local/lib
/usr/local/lib" ]
	[ -f "$T/ve/bin/activate.fish" ] || skip "no activate.fish"
	out=$(fish --no-config -c 'source $T/ve/bin/activate.fish; echo "on $CUDNNVM_ACTIVE"; deactivate; echo "off $CUDNNVM_ACTIVE $LD_LIBRARY_PATH"')
	[[ $out == *"on $B"* ]]
	[[ $out == *"off  /usr/local/lib"* ]]
}

@test "venv --remove takes everything out" {
	python3 -m venv --without-pip "$T/ve" || skip "python3 -m venv is not available"
	cp "$T/ve/bin/activate" "$T/orig"
	cudnnvm -q venv 9.1 --path "$T/ve"
	run cudnnvm venv --remove --path "$T/ve"
	[ "$status" -eq 0 ]
	diff "$T/orig" "$T/ve/bin/activate"
	run ! grep -q cudnnvm "$T/ve/bin/activate.fish"
}

@test "venv uses \$VIRTUAL_ENV and the active version by default" {
	python3 -m venv --without-pip "$T/ve" || skip "python3 -m venv is not available"
	VIRTUAL_ENV="$T/ve" run cudnnvm venv
	[ "$status" -eq 0 ]
	# the activate script reads the pin of the hook's module
	[ "$(bash -c '. "$T/ve/bin/activate"; echo "$CUDNNVM_VERSION"')" = "$C" ]
}

@test "conda: activate.d and deactivate.d scripts, sourced as conda does" {
	P="$T/conda env"
	mkdir -p "$P/conda-meta"
	CONDA_PREFIX="$P" run cudnnvm venv 9.1
	[ "$status" -eq 0 ]
	[ -f "$P/etc/conda/activate.d/cudnnvm.sh" ]
	[ -f "$P/etc/conda/deactivate.d/cudnnvm.sh" ]
	[ -f "$P/etc/conda/activate.d/cudnnvm.fish" ]
	# conda's shell code sources each *.sh of activate.d with `.`
	out=$(bash -c '
for f in "$1"/etc/conda/activate.d/*.sh; do . "$f"; done
echo "on: $CUDNNVM_ACTIVE $CUDNN_HOME"
for f in "$1"/etc/conda/deactivate.d/*.sh; do . "$f"; done
echo "off: ${CUDNNVM_ACTIVE-none} ${CUDNN_HOME-none} $LD_LIBRARY_PATH ${CUDNNVM_VERSION-none}"' _ "$P")
	[[ $out == *"on: $A $CUDNNVM_STORE/$A"* ]]
	[[ $out == *"off: none none /usr/local/lib none"* ]]
	out=$(dash -c 'for f in "$1"/etc/conda/activate.d/*.sh; do . "$f"; done; echo "$CUDNNVM_ACTIVE"' _ "$P")
	[ "$out" = "$A" ]
	cudnnvm -q venv --remove --path "$P"
	[ ! -e "$P/etc/conda/activate.d/cudnnvm.sh" ]
	[ ! -e "$P/etc/conda/deactivate.d/cudnnvm.sh" ]
}

@test "venv errors: nothing active, not an environment, version missing" {
	run --separate-stderr cudnnvm venv 9.1
	[ "$status" -eq 64 ]
	mkdir plain
	run --separate-stderr cudnnvm venv 9.1 --path plain
	[ "$status" -eq 64 ]
	one_error_line
	mkdir -p ce/conda-meta
	run --separate-stderr cudnnvm venv 7 --path ce
	[ "$status" -eq 1 ]
	one_error_line
	[ ! -e ce/etc ]
	# a venv made by a Windows Python (copied here): not pinned yet,
	# said so, nothing written into it
	mkdir -p wv/Scripts wv/Lib/site-packages
	printf '@echo off\r\n' >wv/Scripts/activate.bat
	run --separate-stderr cudnnvm venv 9.1 --path wv
	[ "$status" -eq 64 ]
	one_error_line
	[[ $stderr == *"'wv' is a Windows venv (Scripts\\activate.bat): 'cudnnvm venv' does not pin those yet"* ]]
	[ "$(find wv -type f | wc -l)" -eq 1 ] && [ ! -e wv/bin ]
}

@test "venv: a real tcsh sources activate.csh; its deactivate alias restores" {
	command -v tcsh >/dev/null || skip "tcsh is not installed"
	python3 -m venv --without-pip "$T/ve" || skip "python3 -m venv is not available"
	[ -f "$T/ve/bin/activate.csh" ] || skip "this python writes no activate.csh"
	cp "$T/ve/bin/activate.csh" "$T/orig.csh"
	cudnnvm -q venv 9.1 --path "$T/ve"
	cudnnvm -q venv 9.1 --path "$T/ve"
	[ "$(grep -c '>>> cudnnvm >>>' "$T/ve/bin/activate.csh")" -eq 1 ]
	[ "$(grep -c '_CUDNNVM_EXE' "$T/ve/bin/activate.csh")" -eq 2 ]
	# (activate.csh reads $prompt, which a non-interactive tcsh lacks)
	out=$(CUDNNVM_VERSION=9.13 tcsh -f -c '
set prompt="> "
source $T/ve/bin/activate.csh
echo "on: $CUDNNVM_ACTIVE $LD_LIBRARY_PATH $VIRTUAL_ENV"
deactivate
echo "off: $CUDNNVM_VERSION $LD_LIBRARY_PATH"
if ($?CUDNNVM_ACTIVE) echo "still active"
source $T/ve/bin/activate.csh
source $T/ve/bin/activate.csh
deactivate
echo "twice: $CUDNNVM_VERSION $LD_LIBRARY_PATH"')
	echo "$out"
	[[ $out == *"on: $A $CUDNNVM_STORE/$A/lib:/usr/local/lib $T/ve"* ]]
	[[ $out == *"off: 9.13 /usr/local/lib"* ]]
	[[ $out != *"still active"* ]]
	[[ $out == *"twice: 9.13 /usr/local/lib"* ]]
	cudnnvm -q venv --remove --path "$T/ve"
	diff "$T/orig.csh" "$T/ve/bin/activate.csh"
}

@test "current names the venv whose 'cudnnvm venv' pin set CUDNNVM_VERSION" {
	python3 -m venv --without-pip "$T/ve" || skip "python3 -m venv is not available"
	cudnnvm -q venv 9.1 --path "$T/ve"
	out=$(bash -c '. "$T/ve/bin/activate"; cudnnvm current; cudnnvm current --json')
	[[ $out == *"$A (set by the environment $T/ve, pinned with 'cudnnvm venv')"* ]]
	[[ $out == *"\"venv\": \"$T/ve\""* ]]
	# the same variable set by hand is still named as the variable
	out=$(bash -c '. "$T/ve/bin/activate"; CUDNNVM_VERSION=9.13 cudnnvm current')
	[[ $out == *"$B (set by CUDNNVM_VERSION=9.13)"* ]]
	P="$T/conda env"
	mkdir -p "$P/conda-meta"
	CONDA_PREFIX="$P" cudnnvm -q venv 9.1
	out=$(CONDA_PREFIX="$P" bash -c 'for f in "$1"/etc/conda/activate.d/*.sh; do . "$f"; done; cudnnvm current' _ "$P")
	[[ $out == *"$A (set by the environment $P, pinned with 'cudnnvm venv')"* ]]
}

# pyrun: start the venv's interpreter and import a framework; $output:
# the libcudnn files it maps then
pyrun() {
	: >"$T/ran"
	fake_framework "$T/ve" torch
	RAN="$T/ran" run --separate-stderr env -u CUDNNVM_VERSION "$T/ve/bin/python" -c "$(mapped torch)"
}

@test "the .pth hook loads nothing from a store folder or file another user could change" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to give files to another user"
	command -v cc >/dev/null || skip "no C compiler"
	python3 -m venv --without-pip "$T/ve" || skip "python3 -m venv is not available"
	L="$CUDNNVM_STORE/$A/lib"
	mklib "$L/libcudnn.so.9" libcudnn.so.9
	mklib "$L/libcudnn_graph.so.9" libcudnn_graph.so.9
	cudnnvm -q venv "$A" --path "$T/ve"
	# as made: both load
	pyrun
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(cat "$T/ran")" = "$L/libcudnn.so.9
$L/libcudnn_graph.so.9" ]
	untrusted() { # $1: what the warning names
		pyrun
		[ "$status" -eq 0 ]
		[ -z "$output" ]
		[ ! -s "$T/ran" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ ${stderr_lines[0]} == "cudnnvm: warning: cuDNN not preloaded ($1"* ]]
	}
	# a sub-library planted by another user: not even the front one loads
	chown 65534 "$L/libcudnn_graph.so.9"
	untrusted "$L/libcudnn_graph.so.9 belongs to another user (uid 65534)"
	chown 0 "$L/libcudnn_graph.so.9"
	chmod g+w "$L/libcudnn.so.9"
	untrusted "$L/libcudnn.so.9 is writable by other users"
	chmod g-w "$L/libcudnn.so.9"
	chmod o+w "$L"
	untrusted "$L is writable by other users"
	chmod o-w "$L"
	chown 65534 "$CUDNNVM_STORE/$A"
	untrusted "$CUDNNVM_STORE/$A belongs to another user"
	chown 0 "$CUDNNVM_STORE/$A"
	chmod 1777 "$CUDNNVM_STORE"
	untrusted "$CUDNNVM_STORE is writable by other users"
	chmod 755 "$CUDNNVM_STORE"
	# a link to a library in another user's folder
	mkdir "$T/theirs"
	mklib "$T/theirs/evil.so" libcudnn_cnn.so.9
	chown -R 65534 "$T/theirs"
	ln -s "$T/theirs/evil.so" "$L/libcudnn_cnn.so.9"
	untrusted "$T/theirs belongs to another user"
	rm "$L/libcudnn_cnn.so.9"
	pyrun
	[ -z "$stderr" ]
	[ -s "$T/ran" ]
}

@test "the .pth hook: a load that fails half-way leaves nothing loaded, or says what stays" {
	command -v cc >/dev/null || skip "no C compiler"
	python3 -m venv --without-pip "$T/ve" || skip "python3 -m venv is not available"
	L="$CUDNNVM_STORE/$A/lib"
	mklib "$L/libcudnn.so.9" libcudnn.so.9
	mklib "$L/libcudnn_graph.so.9" libcudnn_graph.so.9
	echo 'not a library' >"$L/libcudnn_ops.so.9"
	cudnnvm -q venv "$A" --path "$T/ve"
	pyrun
	[ "$status" -eq 0 ]
	# front and graph ran, then were unloaded again
	[ "$(wc -l <"$T/ran")" -eq 2 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ ${stderr_lines[0]} == "cudnnvm: warning: cuDNN not preloaded ($L/libcudnn_ops.so.9: "* ]]
	# a front library that cannot be unloaded (as C++ libraries with
	# unique symbols cannot) stays, and the warning says so
	mklib "$L/libcudnn.so.9" libcudnn.so.9 -Wl,-z,nodelete
	pyrun
	[ "$status" -eq 0 ]
	[ "$output" = "$L/libcudnn.so.9" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ ${stderr_lines[0]} == "cudnnvm: warning: cuDNN partly preloaded ($L/libcudnn_ops.so.9: "*"); only $L/libcudnn.so.9 stay loaded; a framework may mix them with its own copy" ]]
}

@test "venv: a site-packages link is followed inside the environment, refused outside it" {
	python3 -m venv --without-pip "$T/ve" || skip "python3 -m venv is not available"
	sp=$(echo "$T"/ve/lib/python3*/site-packages)
	mv "$sp" "$T/ve/real-site"
	ln -s ../../real-site "$sp"
	run cudnnvm venv 9.1 --path "$T/ve"
	[ "$status" -eq 0 ]
	[ -f "$T/ve/real-site/cudnnvm.pth" ]
	[ -f "$T/ve/real-site/_cudnnvm_preload.py" ]
	cudnnvm -q venv --remove --path "$T/ve"
	[ ! -e "$T/ve/real-site/cudnnvm.pth" ]
	# a link out of the environment: refused before anything is written
	mkdir "$T/system-site"
	cp "$T/ve/bin/activate" "$T/orig"
	rm "$sp"
	ln -s "$T/system-site" "$sp"
	run --separate-stderr cudnnvm venv 9.1 --path "$T/ve"
	[ "$status" -eq 65 ]
	one_error_line
	[[ $stderr == *"'$sp' leads to '$T/system-site', outside the environment"* ]]
	[ -z "$(ls -A "$T/system-site")" ]
	diff "$T/orig" "$T/ve/bin/activate"
}

@test "use inside an activated venv says the venv's version wins over the pin" {
	python3 -m venv --without-pip "$T/ve" || skip "python3 -m venv is not available"
	cudnnvm -q venv 9.1 --path "$T/ve"
	mkdir -p "$T/proj"
	out=$(cd "$T/proj" && bash -c '. "$T/ve/bin/activate"; cudnnvm use 9.13 2>&1; cudnnvm current')
	[[ $out == *"pinned 9.13"* ]]
	[[ $out == *"warning: the activated environment $T/ve sets CUDNNVM_VERSION=$A, which wins over the pin while it is active: $A stays active here (deactivate it, or 'cudnnvm venv $B' to change the environment's)"* ]]
	[[ $out == *"$A (set by the environment $T/ve"* ]]
	# set by hand in the shell
	out=$(cd "$T/proj" && CUDNNVM_VERSION=8 cudnnvm use 9.13 2>&1)
	[[ $out == *"CUDNNVM_VERSION=8 wins over the pin in this shell: $C stays active here"* ]]
	# nothing said when the pin is what is active
	out=$(cd "$T/proj" && cudnnvm use 9.13 2>&1)
	[[ $out != *"wins"* ]]
}

@test "root's venv on another user's conda environment follows none of their links and writes nothing (77) (H15)" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to own files as another user"
	mkdir -p "$T/profile.d" "$T/ce/conda-meta" "$T/ce/etc/conda"
	# the user points their activate.d at a folder root's shells read
	ln -s "$T/profile.d" "$T/ce/etc/conda/activate.d"
	chown -R -h 4242 "$T/ce"
	run --separate-stderr cudnnvm venv 9.1 --path "$T/ce"
	echo "$stderr"
	[ "$status" -eq 77 ]
	one_error_line
	[[ $stderr == *"belongs to another user (uid 4242)"* ]]
	[[ $stderr == *"hint: sudo -u '#4242' cudnnvm venv 9.1.0.70-cuda12 --path '$T/ce'"* || $stderr == *"hint: sudo -u '#4242' cudnnvm venv 9.1.0.70-cuda12 --path $T/ce"* ]]
	[ -z "$(ls -A "$T/profile.d")" ]
}
