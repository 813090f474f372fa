# tap.sh: what the wine suites of cudnnvm.exe (exe.sh, shell.sh) share,
# sourced once $exe and $tmp are set: TAP lines counted in $n and $failed,
# a failing case's output shown as comments; run puts cudnnvm.exe's
# output (CRs dropped, as wine's console writes CRLF) in $tmp/out and its
# status in $rc.
n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then echo "ok $n - $1"; else
		echo "not ok $n - $1"
		failed=$((failed + 1))
		sed 's/^/# /' "$tmp/out"
	fi
}
run() { # run ARGS...: cudnnvm.exe's output in $tmp/out, its status in $rc
	timeout 180 wine "$exe" "$@" >"$tmp/out" 2>&1
	rc=$?
	tr -d '\r' <"$tmp/out" >"$tmp/out.t" && mv "$tmp/out.t" "$tmp/out"
}
has() { grep -qF -- "$1" "$tmp/out"; }
