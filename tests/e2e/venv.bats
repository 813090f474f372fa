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
	grep -q "$C" "$T/ve/bin/activate"
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
