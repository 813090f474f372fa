#!/usr/bin/env bash
# The libFuzzer targets of tests/fuzz/, built by `make fuzz-build` into
# build-fuzz/tests/fuzz/.
#   run.sh --check         is clang with its libFuzzer runtime there? (says
#                          why not on stderr)
#   run.sh --replay        run every input of each corpus once; one TAP
#                          line per target (skips with the reason when the
#                          targets could not be built)
#   run.sh --fuzz SECONDS  fuzz each target for SECONDS; new inputs go to
#                          build-fuzz/corpus/<target>, crashes to
#                          build-fuzz/findings/ (merge keepers with -merge=1
#                          into tests/fuzz/corpus/<target>)
set -u
cd "$(dirname "$0")/../.."
bindir=build-fuzz/tests/fuzz
corpus=tests/fuzz/corpus
cc=${FUZZ_CC:-clang}

check() {
	local t
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "$cc is not installed (apt-get install clang)" >&2
		return 1
	fi
	t=$(mktemp -d) || return 1
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$t/t.c"
	if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$t/t" "$t/t.c" >/dev/null 2>&1; then
		rm -rf "$t"
		echo "$cc cannot build libFuzzer targets (apt-get install libclang-rt-14-dev)" >&2
		return 1
	fi
	rm -rf "$t"
}

targets() {
	local f
	for f in tests/fuzz/fuzz_*.c; do
		f=${f##*/}
		echo "${f%.c}"
	done
}

replay() {
	local n=0 why="" t f files bad out
	why=$(check 2>&1) || true
	out=$(mktemp -d)
	trap 'rm -rf "$out"' RETURN
	for t in $(targets); do
		n=$((n + 1))
		if [ -n "$why" ]; then
			echo "ok $n - fuzz corpus $t # skip $why"
			continue
		fi
		if [ ! -x "$bindir/$t" ]; then
			echo "not ok $n - fuzz corpus $t: $bindir/$t was not built (make fuzz-build)"
			continue
		fi
		mapfile -t files < <(find "$corpus/${t#fuzz_}" -type f 2>/dev/null | sort)
		if [ "${#files[@]}" -eq 0 ]; then
			echo "not ok $n - fuzz corpus $t: no inputs in $corpus/${t#fuzz_}"
			continue
		fi
		if TMPDIR=$out "$bindir/$t" -timeout=25 "${files[@]}" >"$out/$t.log" 2>&1; then
			echo "ok $n - fuzz corpus $t (${#files[@]} inputs)"
			continue
		fi
		# libFuzzer stops at the first failing input: run each one
		# alone to name every input that fails
		bad=()
		for f in "${files[@]}"; do
			TMPDIR=$out "$bindir/$t" -timeout=25 "$f" >"$out/one.log" 2>&1 && continue
			[ "${#bad[@]}" -eq 0 ] && cp "$out/one.log" "$out/$t.log"
			bad+=("$f")
		done
		echo "not ok $n - fuzz corpus $t: ${bad[*]:-(all inputs pass alone)} fail"
		grep -E 'oracle failed|ERROR: |runtime error' "$out/$t.log" |
			head -3 | sed 's/^/# /'
	done
}

fuzz() {
	local secs=$1 t rc=0 work=build-fuzz dict
	for t in $(targets); do
		mkdir -p "$work/corpus/${t#fuzz_}" "$work/findings" "$work/tmp"
		echo "fuzz: $t for ${secs}s"
		dict=()
		[ -f "tests/fuzz/${t#fuzz_}.dict" ] && dict=(-dict="tests/fuzz/${t#fuzz_}.dict")
		TMPDIR=$PWD/$work/tmp "$bindir/$t" "${dict[@]}" -max_total_time="$secs" \
			-artifact_prefix="$work/findings/$t-" -print_final_stats=1 \
			"$work/corpus/${t#fuzz_}" "$corpus/${t#fuzz_}" >"$work/$t.log" 2>&1 || rc=1
		grep -E '^#[0-9]+.*DONE|^stat::number_of_executed_units|ERROR|oracle' \
			"$work/$t.log" | tail -3
	done
	rm -rf "$work/tmp"
	[ "$rc" -eq 0 ] || echo "fuzz: findings in $work/findings/" >&2
	return "$rc"
}

case "${1:-}" in
--check) check ;;
--replay) replay ;;
--fuzz) fuzz "${2:-60}" ;;
*)
	echo "usage: $0 --check | --replay | --fuzz SECONDS" >&2
	exit 64
	;;
esac
