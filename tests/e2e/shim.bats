#!/usr/bin/env bats
# shim add|remove|list: programs that run no shell hook get the version
# pinned for their working folder.
load activation

setup() {
	activation_setup
	cudnnvm -q global 8
	SHIMS="$XDG_DATA_HOME/cudnnvm/shims"
	mkdir -p "$T/realbin"
	cat >"$T/realbin/cudnn-probe" <<'SH'
#!/bin/sh
echo "probe: $CUDNNVM_ACTIVE $LD_LIBRARY_PATH args:$*"
SH
	chmod +x "$T/realbin/cudnn-probe"
	export PATH="$T/realbin:$PATH"
}

@test "a shim started from another folder runs the program under that folder's pin" {
	run cudnnvm shim add cudnn-probe
	[ "$status" -eq 0 ]
	[ -x "$SHIMS/cudnn-probe" ]
	mkdir -p proj/deep other
	echo 9.13 >proj/.cudnn-version
	export PATH="$SHIMS:$PATH" LD_LIBRARY_PATH=/usr/local/lib
	cd proj/deep
	run cudnn-probe "a b" c
	[ "$output" = "probe: $B $CUDNNVM_STORE/$B/lib:/usr/local/lib args:a b c" ]
	cd "$T/other"
	run cudnn-probe
	[ "$output" = "probe: $C $CUDNNVM_STORE/$C/lib:/usr/local/lib args:" ]
	# started by a process with another working folder (an IDE, a service)
	run env -C "$T/proj" "$SHIMS/cudnn-probe"
	[ "$output" = "probe: $B $CUDNNVM_STORE/$B/lib:/usr/local/lib args:" ]
}

@test "the program's exit status comes back through the shim" {
	printf '#!/bin/sh\nexit 7\n' >"$T/realbin/fails"
	chmod +x "$T/realbin/fails"
	cudnnvm -q shim add fails
	run "$SHIMS/fails"
	[ "$status" -eq 7 ]
}

@test "a shim without the real program says so (127), never loops" {
	cudnnvm -q shim add nothing-real
	export PATH="$SHIMS:$PATH"
	run -127 --separate-stderr nothing-real
	one_error_line
}

@test "list and remove" {
	cudnnvm -q shim add cudnn-probe
	cudnnvm -q shim add python3
	run cudnnvm shim list
	[ "$(echo "$output" | sort | tr '\n' ' ')" = "cudnn-probe python3 " ]
	cudnnvm -q shim remove python3
	[ "$(cudnnvm shim list)" = "cudnn-probe" ]
	run --separate-stderr cudnnvm shim remove python3
	[ "$status" -eq 1 ]
	one_error_line
}

@test "a file that is not a shim is neither overwritten nor removed" {
	mkdir -p "$SHIMS"
	echo 'user file' >"$SHIMS/mine"
	run --separate-stderr cudnnvm shim add mine
	[ "$status" -eq 1 ]
	one_error_line
	run --separate-stderr cudnnvm shim remove mine
	[ "$status" -eq 1 ]
	[ "$(cat "$SHIMS/mine")" = "user file" ]
}

@test "bad program names are usage errors" {
	for bad in ../x /bin/sh .hidden "a b" "" -x; do
		run --separate-stderr cudnnvm shim add "$bad"
		[ "$status" -eq 64 ]
	done
	run cudnnvm shim frob
	[ "$status" -eq 64 ]
}

@test "the shim is the prototype in shims/shim.sh" {
	cudnnvm -q shim add cudnn-probe
	sed -e "s|@PROG@|'cudnn-probe'|g" -e "s|@DIR@|'$SHIMS'|" \
		-e "s|@EXE@|'$(readlink -f "$CUDNNVM_BIN")'|" \
		"$REPO_ROOT/shims/shim.sh" >"$T/expected"
	diff "$T/expected" "$SHIMS/cudnn-probe"
}
