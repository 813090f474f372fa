#!/usr/bin/env bash
# Run every benchmark under bench/ (bench/*.sh, in name order). Each prints
# its figures and a ratio against a baseline measured in the same run.
set -u
cd "$(dirname "$0")/.."
status=0
for b in bench/bench_*.sh; do
	[ -e "$b" ] || continue
	echo "== $b"
	bash "$b" || status=1
done
exit $status
