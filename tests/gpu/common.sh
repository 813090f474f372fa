# tests/gpu/common.sh: sourced by every GPU check, from the repository's
# root: the binary under test and the PASS/FAIL lines they count.
BIN=${CUDNNVM_BIN:-$PWD/build/cudnnvm}
fails=0
ok() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
