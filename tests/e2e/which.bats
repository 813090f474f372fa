#!/usr/bin/env bats
# which [lib|include|root|<file>]: absolute paths in the active version.
load activation

setup() { activation_setup; cudnnvm -q global 9.1; }

@test "root, lib and include of the active version" {
	[ "$(cudnnvm which)" = "$CUDNNVM_STORE/$A" ]
	[ "$(cudnnvm which root)" = "$CUDNNVM_STORE/$A" ]
	[ "$(cudnnvm which lib)" = "$CUDNNVM_STORE/$A/lib" ]
	[ "$(cudnnvm which include)" = "$CUDNNVM_STORE/$A/include" ]
}

@test "a file name is found in lib or include; the path is resolved, never current/" {
	[ "$(cudnnvm which libcudnn.so.9)" = "$CUDNNVM_STORE/$A/lib/libcudnn.so.9" ]
	[ "$(cudnnvm which cudnn_version.h)" = "$CUDNNVM_STORE/$A/include/cudnn_version.h" ]
	[ "$(cudnnvm which LICENSE)" = "$CUDNNVM_STORE/$A/LICENSE" ]
	run cudnnvm which lib
	[[ $output != *current* ]]
}

@test "a missing file is exit 1; a path outside is refused" {
	run --separate-stderr cudnnvm which libnothere.so
	[ "$status" -eq 1 ]
	one_error_line
	run --separate-stderr cudnnvm which ../../etc/passwd
	[ "$status" -eq 64 ]
	run --separate-stderr cudnnvm which /etc/passwd
	[ "$status" -eq 64 ]
}

@test "which follows the pin of the working folder" {
	mkdir p && echo 9.13 >p/.cudnn-version && cd p
	[ "$(cudnnvm which lib)" = "$CUDNNVM_STORE/$B/lib" ]
}

@test "a Windows layout answers lib/x64" {
	mkver 9.13.0.50-cuda13 windows-x86_64
	CUDNNVM_VERSION=9.13.0.50-cuda13 run cudnnvm which lib
	[ "$output" = "$CUDNNVM_STORE/9.13.0.50-cuda13/lib/x64" ]
}
