#!/usr/bin/env bash
# Run the unit tests (built under ASan+UBSan in build-asan/), replay the fuzz
# corpora (build-fuzz/) and run the bats suites against build/cudnnvm, then
# print "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
mode=all
unit_build=build-asan
case "${1:-}" in
--unit-only) mode=unit; unit_build=${2:-build-asan} ;;
--e2e-only) mode=e2e ;;
esac
pass=0 fail=0 skip=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

count() { # count TAP lines of file $1
	local p f s
	s=$(grep -cE '^ok [0-9]+.*# (skip|SKIP)' "$1")
	p=$(grep -cE '^ok [0-9]+' "$1")
	f=$(grep -cE '^not ok [0-9]+' "$1")
	pass=$((pass + p - s)) fail=$((fail + f)) skip=$((skip + s))
}

if [ "$mode" != e2e ]; then
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	for t in "$unit_build"/tests/unit/test_*; do
		[ -x "$t" ] || continue
		name=${t##*/}
		if ! "$t" >"$log/$name" 2>&1; then
			# a crash or sanitizer report counts as one failure
			grep -qE '^not ok' "$log/$name" || echo "not ok 0 - $name crashed" >>"$log/$name"
		fi
		grep -E '^not ok|ERROR: |runtime error' "$log/$name" | sed "s/^/$name: /"
		count "$log/$name"
	done
	echo "unit: done ($pass passed, $fail failed so far)"
fi

if [ "$mode" = all ]; then
	# Every input of the fuzz corpora once (built by `make fuzz-build`).
	tests/fuzz/run.sh --replay >"$log/fuzz" 2>&1
	grep -E '^not ok|^# |# skip' "$log/fuzz"
	count "$log/fuzz"
fi

if [ "$mode" != unit ]; then
	export CUDNNVM_BIN="$PWD/build/cudnnvm"
	files=(tests/e2e/*.bats)
	if [ -e "${files[0]}" ]; then
		jobs=1
		bats --tap "${files[@]}" >"$log/e2e" 2>&1
		grep -E '^not ok|^# ' "$log/e2e" | head -200
		count "$log/e2e"
	fi
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
