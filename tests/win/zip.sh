#!/usr/bin/env bash
# zip.sh EXE: run test_winzip.exe under wine on NVIDIA-shaped Windows zips
# (9.20 with bin/x64, 8.9.7 with bin) and hostile ones that
# tests/fixtures/mkarchive.py writes, then check each unpacked tree
# against the zip's own listing (Python's zipfile, the top folder
# stripped). Prints TAP; WINEPREFIX is kept in $WIN_BUILD/wine.
set -u
exe=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${WIN_BUILD:-build-win}
mk="$here/tests/fixtures/mkarchive.py"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudnnvm-winzip.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
path() { python3 -c 'import json,sys; print(json.load(sys.stdin)["path"])'; }
a=$(python3 "$mk" nvidia --out "$tmp/a" --version 9.20.0.48 --cuda 12 --platform windows-x86_64 | path) &&
	b=$(python3 "$mk" nvidia --out "$tmp/b" --version 8.9.7.29 --cuda 12 --platform windows-x86_64 | path) &&
	c=$(python3 "$mk" hostile a16-device-zip --out "$tmp/c" | path) &&
	d=$(python3 "$mk" hostile a1-dotdot-zip --out "$tmp/d" | path) &&
	e=$(python3 "$mk" hostile a16-chars-zip --out "$tmp/e" | path) &&
	f=$(python3 "$mk" nvidia --out "$tmp/f" --version 9.13.0.50 --cuda 12 | path) || exit 1
export WINEPREFIX="$here/$build/wine" WINEDEBUG=${WINEDEBUG:--all} WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$WINEPREFIX"
cd "$tmp" || exit 1
timeout 300 wine "$here/$exe" "Z:$a" out-a 0 "Z:$b" out-b 0 "Z:$c" out-c -4 \
	"Z:$d" out-d -4 "Z:$e" out-e -4 "Z:$f" out-f -4 2>"$tmp/wine.log" | tr -d '\r' >"$tmp/tap"
rc=${PIPESTATUS[0]}
grep -v '^1\.\.' "$tmp/tap"
n=$(grep -cE '^(not )?ok' "$tmp/tap")
# each unpacked tree: the zip's files and their bytes, and nothing else
for t in a b; do
	n=$((n + 1))
	z=$(eval echo "\$$t")
	if python3 - "$z" "out-$t" <<'EOF'; then echo "ok $n - out-$t is the zip's tree"; else echo "not ok $n - out-$t is not the zip's tree"; rc=1; fi
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
want = {i.filename.split("/", 1)[1]: z.read(i) for i in z.infolist()
        if not i.is_dir() and "/" in i.filename}
got = {}
for d, _, fs in os.walk(sys.argv[2]):
    for f in fs:
        p = os.path.join(d, f)
        got[os.path.relpath(p, sys.argv[2]).replace(os.sep, "/")] = open(p, "rb").read()
sys.exit(0 if got == want else 1)
EOF
done
echo "1..$n"
[ "$rc" -eq 0 ] || sed 's/^/# wine: /' "$tmp/wine.log"
grep -q '^not ok' "$tmp/tap" && rc=1
exit "$rc"
