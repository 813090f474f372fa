#!/usr/bin/env bash
# tests/gpu/all.sh: every GPU check in one go, with one total at the end.
# Each check prints PASS/FAIL lines of its own, or one skip line when the
# machine lacks what it needs (a GPU, a torch venv first on PATH, root).
#   usage: tests/gpu/all.sh [CHECK...]   (default: all of them, in order)
#          CUDNNVM_BIN overrides build/cudnnvm
# A GPU machine that lacks this build's libraries (libarchive, libdeflate,
# inih: a bare Ubuntu) runs the release build instead: `make dist`, then
# carry the binary archive from build-dist/out, unpack it there and point
# CUDNNVM_BIN at its bin/cudnnvm; tests/gpu/wheel.sh checks the wheel.
set -u
cd "$(dirname "$0")/../.."
checks=("$@")
[ ${#checks[@]} -gt 0 ] ||
	checks=(machine run frameworks frameworks2 preload speed deps)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for c in "${checks[@]}"; do
	echo "=== tests/gpu/$c.sh"
	bash "tests/gpu/$c.sh" 2>&1 | tee -a "$log"
done
pass=$(grep -c '^PASS: ' "$log")
fail=$(grep -c '^FAIL: ' "$log")
echo "=== gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
