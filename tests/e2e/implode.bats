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
	echo x >"$XDG_CACHE_HOME/cudnnvm/downloads/$(printf '%064d' 1).archive"
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

@test "implode removes only what cudnnvm wrote in a store whose name says cudnn, and names the rest (H1)" {
	s="$T/cudnn-team"
	mkdir -p "$s/.ssh" "$s/src" "$s/manual-8.6/lib"
	echo key >"$s/.ssh/id_ed25519"
	echo code >"$s/src/main.c"
	echo notes >"$s/NOTES.txt"
	echo so >"$s/manual-8.6/lib/libcudnn.so.8"
	mkver "$A" linux-x86_64 "$s"
	# a folder named like a version, without cudnnvm's record
	mkdir -p "$s/9.2.0.82-cuda12/lib"
	export CUDNNVM_STORE="$s"
	cudnnvm -q global "$A"
	run cudnnvm implode --dry-run
	[ "$status" -eq 0 ]
	dry=$(grep '^would remove ' <<<"$output" | sed 's/^would remove //' | sort)
	[[ $dry == *"$s/$A"* ]]
	[[ $dry != *"$s/.ssh"* && $dry != *"$s/src"* && $dry != *"NOTES"* && $dry != *"manual-8.6"* ]]
	[[ $dry != *"$s/9.2.0.82-cuda12"* ]]
	grep -qx "$s: left in place (.*)" <<<"$output"
	run cudnnvm implode --yes
	[ "$status" -eq 0 ]
	# --dry-run listed exactly what the real run removed
	real=$(grep '^removes ' <<<"$output" | sed 's/^removes //' | sort)
	[ "$dry" = "$real" ]
	[[ $output == *"$s/NOTES.txt: left in place"* ]]
	[[ $output == *"$s/9.2.0.82-cuda12: left in place (no cudnnvm.json"* ]]
	[ "$(cat "$s/.ssh/id_ed25519")" = key ]
	[ "$(cat "$s/src/main.c")" = code ]
	[ "$(cat "$s/NOTES.txt")" = notes ]
	[ -f "$s/manual-8.6/lib/libcudnn.so.8" ]
	[ -d "$s/9.2.0.82-cuda12/lib" ]
	[ ! -e "$s/$A" ] && [ ! -e "$s/current" ] && [ ! -e "$s/.locks" ]
}

@test "implode of the default store keeps the user's files in it and the store folder with them (H1)" {
	echo notes >"$CUDNNVM_STORE/NOTES.txt"
	mkdir -p "$CUDNNVM_STORE/manual-8.6"
	echo x >"$CUDNNVM_STORE/manual-8.6/libcudnn.so.8"
	cudnnvm -q shim add python3
	mkdir -p "$XDG_DATA_HOME/cudnnvm/shims"
	echo mine >"$XDG_DATA_HOME/cudnnvm/shims/my-tool"
	run cudnnvm implode --yes
	[ "$status" -eq 0 ]
	[ "$(cat "$CUDNNVM_STORE/NOTES.txt")" = notes ]
	[ -f "$CUDNNVM_STORE/manual-8.6/libcudnn.so.8" ]
	[ -f "$XDG_DATA_HOME/cudnnvm/shims/my-tool" ]
	[ ! -e "$XDG_DATA_HOME/cudnnvm/shims/python3" ]
	[ ! -e "$CUDNNVM_STORE/$A" ] && [ ! -e "$CUDNNVM_STORE/$B" ]
	[[ $output == *"$XDG_DATA_HOME/cudnnvm/shims/my-tool: left in place"* ]]
}
