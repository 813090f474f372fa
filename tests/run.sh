#!/usr/bin/env bash
# Run the unit tests (built under ASan+UBSan in build-asan/), replay the fuzz
# corpora (build-fuzz/) and run the bats suites against build/cudnnvm, then
# print "N passed, N failed, N skipped".
#
# Each bats file runs in a bats process of its own, CUDNNVM_TEST_JOBS of
# them at a time (default: twice the CPUs, as many suites spend their time
# waiting on servers, timeouts and child processes), beside the unit tests
# and the fuzz replay; every test has its own HOME, store, servers and
# ports, and the fixtures shared between files and runs are made once
# under a lock (tests/e2e/helper.bash). A file's failures are printed, with
# their diagnostics, when the file ends; the slowest files of the last run
# (build/e2e-times) start first.
set -u
cd "$(dirname "$0")/.."
mode=all
unit_build=build-asan
only=()
case "${1:-}" in
--unit-only) mode=unit; unit_build=${2:-build-asan} ;;
--e2e-only) mode=e2e; shift; only=("$@") ;; # [FILE...]: only these
esac
pass=0 fail=0 skip=0
log=$(mktemp -d "${TMPDIR:-/tmp}/cudnnvm-tests.XXXXXX")
trap 'rm -rf "$log"' EXIT
jobs=${CUDNNVM_TEST_JOBS:-$(($(nproc) * 2))}
times=build/e2e-times

count() { # count TAP lines of file $1
	local p f s
	s=$(grep -cE '^ok [0-9]+.*# (skip|SKIP)' "$1")
	p=$(grep -cE '^ok [0-9]+' "$1")
	f=$(grep -cE '^not ok [0-9]+' "$1")
	pass=$((pass + p - s)) fail=$((fail + f)) skip=$((skip + s))
}

unit() { # every unit test binary; a crash or sanitizer report is a failure
	local t name
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	for t in "$unit_build"/tests/unit/test_*; do
		[ -x "$t" ] || continue
		name=${t##*/}
		if ! "$t" >"$log/$name" 2>&1; then
			grep -qE '^not ok' "$log/$name" || echo "not ok 0 - $name crashed" >>"$log/$name"
		fi
		grep -E '^not ok|ERROR: |runtime error' "$log/$name" | sed "s/^/$name: /" >&2
		grep -E '^(not )?ok [0-9]+' "$log/$name"
	done
}

# The job pool: start NAME COMMAND... runs COMMAND in the background with
# its output in $log/NAME; reap waits for one job and prints what it says.
declare -A job_name=() job_start=()
start() {
	local name=$1
	shift
	"$@" >"$log/$name" 2>"$log/$name.err" </dev/null &
	job_name[$!]=$name
	job_start[$!]=$SECONDS
}
reap() {
	local pid rc=0 name
	wait -n -p pid || rc=$?
	[ -n "${pid:-}" ] && [ -n "${job_name[$pid]:-}" ] || return 0
	name=${job_name[$pid]}
	unset "job_name[$pid]"
	report "$name" "$rc" $((SECONDS - job_start[$pid]))
}
report() { # NAME STATUS SECONDS
	local name=$1 rc=$2 out="$log/$1" plan ran
	case $name in
	unit)
		cat "$out.err"
		count "$out"
		echo "unit: done ($(grep -cE '^ok' "$out") passed, $(grep -cE '^not ok' "$out") failed, ${3}s)"
		;;
	fuzz)
		grep -E '^not ok|^# |# skip' "$out"
		count "$out"
		;;
	*.bats)
		echo "$3 $name" >>"$log/times"
		# every test of the plan reported, and bats itself ended well
		plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out" | head -n 1)
		ran=$(grep -cE '^(not )?ok [0-9]+' "$out")
		if [ "$rc" -ne 0 ] && ! grep -qE '^not ok' "$out" ||
			[ "${plan:-x}" != "$ran" ]; then
			echo "not ok 0 - $name: bats exited with status $rc after $ran of ${plan:-?} tests" >>"$out"
			tail -n 20 "$out.err" | sed 's/^/# /' >>"$out"
		fi
		grep -E '^not ok|^# ' "$out" | head -200
		count "$out"
		;;
	esac
}

# The bats files, the slowest of the last run first; files it did not run
# come before those, the longest (most tests) first.
e2e_files() {
	local f
	if [ "${#only[@]}" -gt 0 ]; then
		printf '%s\n' "${only[@]}"
		return
	fi
	for f in tests/e2e/*.bats; do
		[ -e "$f" ] || continue
		grep -q " ${f##*/}\$" "$times" 2>/dev/null || echo "$(wc -c <"$f") $f"
	done | sort -rn | cut -d' ' -f2-
	if [ -f "$times" ]; then
		sort -rn "$times" | while read -r _ f; do
			[ -e "tests/e2e/$f" ] && echo "tests/e2e/$f"
		done
	fi
}

if [ "$mode" != e2e ]; then
	start unit unit
fi
if [ "$mode" = all ]; then
	# every input of the fuzz corpora once (built by `make fuzz-build`)
	start fuzz tests/fuzz/run.sh --replay
fi
if [ "$mode" != unit ]; then
	export CUDNNVM_BIN="$PWD/build/cudnnvm"
	# the fixtures shared by runs: $XDG_CACHE_HOME/cudnnvm-tests
	export CUDNNVM_TEST_CACHE="${CUDNNVM_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cudnnvm-tests}"
	# the stub libraries, built once for every file (tests/fixtures/build_stubs.sh)
	if tests/fixtures/build_stubs.sh "$log/stubs" >"$log/stubs.out" 2>&1; then
		export CUDNNVM_TEST_STUBS="$log/stubs"
	else
		cat "$log/stubs.out"
	fi
	mapfile -t files < <(e2e_files)
	for f in "${files[@]}"; do
		while [ "${#job_name[@]}" -ge "$jobs" ]; do reap; done
		start "${f##*/}" bats --tap "$f"
	done
fi
while [ "${#job_name[@]}" -gt 0 ]; do reap; done
[ "$mode" = unit ] || echo "e2e: done in ${SECONDS}s, $jobs jobs at a time"
if [ -s "$log/times" ]; then
	# this run's times, and the last run's of the files it did not run
	mkdir -p "${times%/*}"
	cat "$log/times" "$times" 2>/dev/null | awk '!seen[$2]++' | sort -rn >"$times.$$" &&
		mv "$times.$$" "$times"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
