#!/usr/bin/env bash
# run.sh EXE: run the Windows backends' test program (test_winbackends.exe)
# under wine against the loopback HTTPS test mirror, started as the e2e
# suites start it (tests/e2e/remote.bash): its own CA and an unrelated one,
# a tree built from the fixture manifests. Prints the program's TAP.
# WINEPREFIX is kept in $WIN_BUILD/wine (wine's first start there is slow).
set -u
exe=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${WIN_BUILD:-build-win}
fixtures="$here/tests/fixtures"
for t in wine python3 openssl sha256sum; do
	command -v "$t" >/dev/null || {
		echo "cudnnvm: windows-check needs $t (tests/deps.sh installs it)" >&2
		exit 1
	}
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudnnvm-win.XXXXXX") || exit 1
pid=
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
python3 "$fixtures/mirror.py" certs "$tmp/certs" &&
	python3 "$fixtures/mirror.py" build "$tmp/root" "$fixtures"/manifests/*.json >/dev/null ||
	exit 1
python3 "$fixtures/mirror.py" serve "$tmp/root" --cert "$tmp/certs/server.pem" \
	--key "$tmp/certs/server.key" --port-file "$tmp/port" >"$tmp/server.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	[ -s "$tmp/port" ] && break
	sleep 0.1
done
[ -s "$tmp/port" ] || {
	cat "$tmp/server.log" >&2
	exit 1
}
# the largest archive of the tree: a transfer of several blocks
rel=$(cd "$tmp/root" && find . -name '*.tar.xz' -printf '%s %P\n' | sort -n | tail -n 1 | cut -d' ' -f2)
sha=$(sha256sum "$tmp/root/$rel" | cut -d' ' -f1)
size=$(stat -c %s "$tmp/root/$rel")
export WINEPREFIX="$here/$build/wine" WINEDEBUG=${WINEDEBUG:--all} WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$WINEPREFIX"
# the program finds the vectors and certificates by Unix path: wine maps
# / to drive Z:
cd "$tmp" || exit 1
timeout 300 wine "$here/$exe" "Z:$fixtures/sha256-vectors.tsv" "$(cat "$tmp/port")" \
	"Z:$tmp/certs/ca.pem" "Z:$tmp/certs/other-ca.pem" "$rel" "$sha" "$size" 2>"${WINE_LOG:-$tmp/wine.log}"
rc=$?
[ "$rc" -eq 0 ] || sed 's/^/# wine: /' "$tmp/wine.log"
exit "$rc"
