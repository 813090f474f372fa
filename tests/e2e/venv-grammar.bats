#!/usr/bin/env bats
# The .pth module reads CUDNNVM_VERSION with the grammar of the C parser:
# both are held to the one table of tests/fixtures/spec-vectors.tsv. And it
# resolves a spec to the build of the venv pin's CUDA major, as cudnnvm
# resolved the pin for this machine.
load activation

setup() {
	activation_setup
	mkver 9.12.0.46-cuda12
	mkver 9.12.0.46-cuda13
	P="$T/ve"
	python3 -m venv --without-pip "$P" 2>/dev/null || skip "python3 -m venv does not work here"
}

# the module's definitions, without running its preload
defs() {
	python3 - "$(echo "$P"/lib/python3*/site-packages/_cudnnvm_preload.py)" "$@" <<'PY'
import sys
src = open(sys.argv[1]).read()
head = src.split("\n_run()\n")[0]
assert head != src, "the module no longer ends in its preload call"
g = {}
exec(head, g)
exec(sys.argv[2], g)
PY
}

@test "the .pth module and the C parser agree on every line of the shared table" {
	run cudnnvm venv 9.12.0.46-cuda12 --path "$P" --force
	[ "$status" -eq 0 ]
	run defs '
bad = []
for line in open("'"$BATS_TEST_DIRNAME"'/../fixtures/spec-vectors.tsv", encoding="utf-8"):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    text, want = line.rsplit("\t", 1)
    try:
        _parts(text)
        got = "ok"
    except ValueError:
        got = "bad"
    if got != want:
        bad.append((text, want, got))
print(bad if bad else "agree")
'
	echo "$output"
	[ "$output" = agree ]
}

@test "a spec in CUDNNVM_VERSION takes the pin's CUDA major, and a malformed one loads nothing" {
	cudnnvm -q venv 9.12.0.46-cuda12 --path "$P" --force
	run defs '
import os
print(_resolve(os, "9.12"))
print(_resolve(os, "9.12-cuda13"))
for s in ("9.1_2", "\u0669.\u0661\u0662"):
    try:
        _resolve(os, s)
        print("taken", s)
    except ValueError:
        print("refused")
'
	echo "$output"
	[ "${lines[0]}" = 9.12.0.46-cuda12 ]
	[ "${lines[1]}" = 9.12.0.46-cuda13 ]
	[ "${lines[2]}" = refused ]
	[ "${lines[3]}" = refused ]
}
