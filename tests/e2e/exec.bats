#!/usr/bin/env bats
# exec: one command under a version; its exit status comes back.
load activation

setup() { activation_setup; cudnnvm -q global 9.1; }

@test "the child gets exactly the version's environment" {
	export LD_LIBRARY_PATH=/usr/local/lib KEEP=me
	run cudnnvm exec -- sh -c 'printf "%s|%s|%s|%s" "$LD_LIBRARY_PATH" "$CUDNN_HOME" "$CUDNNVM_ACTIVE" "$KEEP"'
	[ "$status" -eq 0 ]
	[ "$output" = "$CUDNNVM_STORE/$A/lib:/usr/local/lib|$CUDNNVM_STORE/$A|$A|me" ]
	# the same as eval "$(cudnnvm env)"
	a=$(cudnnvm exec -- env | grep -v '^_=' | LC_ALL=C sort)
	b=$(bash -c 'eval "$(cudnnvm env --shell bash)"; env' | grep -v -e '^_=' -e '^SHLVL=' -e '^PWD=' -e '^OLDPWD=' | LC_ALL=C sort)
	diff <(echo "$a" | grep -v -e '^SHLVL=' -e '^PWD=' -e '^OLDPWD=') <(echo "$b")
}

@test "exec with a spec, and exec inside an active version switches cleanly" {
	out=$(cudnnvm exec 9.13 -- cudnnvm exec 8 -- sh -c 'echo "$LD_LIBRARY_PATH|$CPATH"')
	[ "$out" = "$CUDNNVM_STORE/$C/lib|$CUDNNVM_STORE/$C/include" ]
}

@test "the command's exit status comes back; 127 and 126 when it cannot run" {
	run cudnnvm exec -- sh -c 'exit 42'
	[ "$status" -eq 42 ]
	run -127 --separate-stderr cudnnvm exec -- no-such-program-here
	one_error_line
	touch notexec
	run -126 --separate-stderr cudnnvm exec -- ./notexec
	one_error_line
}

@test "arguments pass through untouched" {
	run cudnnvm exec -- printf '%s|' "a b" '$x' "" "--help" -q
	[ "$output" = 'a b|$x||--help|-q|' ]
}

@test "usage errors" {
	run cudnnvm exec
	[ "$status" -eq 64 ]
	run cudnnvm exec 9.1
	[ "$status" -eq 64 ]
	run cudnnvm exec 9.1 --
	[ "$status" -eq 64 ]
	run --separate-stderr cudnnvm exec 7 -- true
	[ "$status" -eq 1 ]
	one_error_line
}
