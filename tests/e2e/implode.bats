#!/usr/bin/env bats
# implode: everything cudnnvm wrote for the user goes, after saying it;
# make uninstall leaves no file or empty folder behind.
load activation

setup() {
	activation_setup
	# a store under the default data folder, as most users have
	mkdir -p "$XDG_DATA_HOME"
	mv "$CUDNNVM_STORE" "$XDG_DATA_HOME/cudnnvm"
	export CUDNNVM_STORE="$XDG_DATA_HOME/cudnnvm"
	unset VIRTUAL_ENV CONDA_PREFIX
}

@test "implode --dry-run names everything and removes nothing; implode removes it all, venv blocks included" {
	python3 -m venv --without-pip "$T/ve" || skip "python3 -m venv is not available"
	cp "$T/ve/bin/activate" "$T/activate.orig"
	cudnnvm -q venv 9.1 --path "$T/ve"
	cudnnvm -q shim add python3
	cudnnvm -q global 8
	mkdir -p "$XDG_CACHE_HOME/cudnnvm/downloads" "$HOME"
	echo x >"$XDG_CACHE_HOME/cudnnvm/downloads/a.archive"
	echo 'eval "$(cudnnvm init bash)"' >>"$HOME/.bashrc"
	run cudnnvm implode --dry-run
	[ "$status" -eq 0 ]
	[[ $output == *"would remove the cudnnvm blocks of $T/ve"* ]]
	[[ $output == *"would remove $XDG_DATA_HOME/cudnnvm"* ]]
	[[ $output == *"would remove $XDG_CACHE_HOME/cudnnvm"* ]]
	[[ $output == *"would remove $XDG_CONFIG_HOME/cudnnvm"* ]]
	[[ $output == *"$HOME/.bashrc:1: eval \"\$(cudnnvm init bash)\""* ]]
	[ -d "$CUDNNVM_STORE/$A" ]
	grep -q '>>> cudnnvm >>>' "$T/ve/bin/activate"
	# not on a terminal, it asks for --yes
	run cudnnvm implode </dev/null
	[ "$status" -eq 1 ]
	[ -d "$CUDNNVM_STORE/$A" ]
	run cudnnvm implode --yes
	[ "$status" -eq 0 ]
	[ ! -e "$XDG_DATA_HOME/cudnnvm" ]
	[ ! -e "$XDG_CACHE_HOME/cudnnvm" ]
	[ ! -e "$XDG_CONFIG_HOME/cudnnvm" ]
	diff "$T/activate.orig" "$T/ve/bin/activate"
	[ -z "$(ls "$T"/ve/lib/python3*/site-packages/ | grep -i cudnnvm)" ]
	# the venv activates and its python starts without a word
	run --separate-stderr bash -c ". '$T/ve/bin/activate'; python -c 'print(1)'"
	[ "$status" -eq 0 ]
	[ "$output" = 1 ]
	[ -z "$stderr" ]
	# the startup line is the user's to delete
	grep -q 'cudnnvm init bash' "$HOME/.bashrc"
}

@test "make uninstall removes every file make install wrote, and the folders it made" {
	command -v make >/dev/null || skip "make is not installed"
	stage="$T/stage"
	make -s -C "$REPO_ROOT" DESTDIR="$stage" install >/dev/null
	[ -x "$stage/usr/local/bin/cudnnvm" ]
	make -s -C "$REPO_ROOT" DESTDIR="$stage" uninstall
	[ -z "$(find "$stage" -mindepth 1)" ]
}

@test "an environment pinned by a cudnnvm since removed activates, starts python and deactivates without a word" {
	python3 -m venv --without-pip "$T/ve" || skip "python3 -m venv is not available"
	mkdir -p "$T/bin"
	cp "$(readlink -f "$CUDNNVM_BIN")" "$T/bin/cudnnvm"
	"$T/bin/cudnnvm" -q venv 9.1 --path "$T/ve"
	grep -q "$T/bin/cudnnvm" "$T/ve/bin/activate"
	# removed by hand, not by implode: the blocks stay
	rm -rf "$T/bin" "$CUDNNVM_STORE"
	run --separate-stderr bash -c ". '$T/ve/bin/activate'; python -c 'print(1)'; deactivate; echo done"
	[ "$status" -eq 0 ]
	[ "$output" = "1
done" ]
	[ -z "$stderr" ]
}
