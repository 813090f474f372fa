#!/usr/bin/env bats
# list [--json]: installed versions newest first; '*' global, '>' active.
load helper

setup() {
	common_setup
	for v in 9.1.0.70:12 9.10.0.1:12 9.9.0.1:11 8.9.7.29:12; do
		read -r arch sha < <(python3 "$FIXTURES/mkarchive.py" nvidia --version "${v%%:*}" --cuda "${v##*:}" --out "$T/a" |
			python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
		cudnnvm -q install --no-validate --archive "$arch" --sha256 "$sha"
	done
}

@test "list shows installed versions newest first (numeric order)" {
	run cudnnvm list
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[[ "${lines[0]}" == *"9.10.0.1-cuda12"*"linux-x86_64"*"$CUDNNVM_STORE/9.10.0.1-cuda12" ]]
	[[ "${lines[1]}" == *"9.9.0.1-cuda11"* ]]
	[[ "${lines[2]}" == *"9.1.0.70-cuda12"* ]]
	[[ "${lines[3]}" == *"8.9.7.29-cuda12"* ]]
}

@test "list marks the global default with * and the active one with >" {
	ln -s 9.1.0.70-cuda12 "$CUDNNVM_STORE/current"
	run cudnnvm list
	[[ "${lines[2]}" == ">* 9.1.0.70-cuda12"* ]]
	[[ "${lines[0]}" == "   9.10.0.1-cuda12"* ]]
	CUDNNVM_VERSION=9.9 run cudnnvm list
	[[ "${lines[1]}" == ">  9.9.0.1-cuda11"* ]]
	[[ "${lines[2]}" == " * 9.1.0.70-cuda12"* ]]
}

@test "list --json gives id, version, cuda, platform, path and flags" {
	ln -s 9.1.0.70-cuda12 "$CUDNNVM_STORE/current"
	run cudnnvm list --json
	[ "$status" -eq 0 ]
	python3 - "$output" "$CUDNNVM_STORE" <<'PY'
import json, sys
a = json.loads(sys.argv[1])
assert [x["id"] for x in a] == ["9.10.0.1-cuda12", "9.9.0.1-cuda11", "9.1.0.70-cuda12", "8.9.7.29-cuda12"], a
x = a[2]
assert x["version"] == "9.1.0.70" and x["cuda"] == 12 and x["platform"] == "linux-x86_64"
assert x["path"] == sys.argv[2] + "/9.1.0.70-cuda12" and x["global"] is True
assert a[0]["global"] is False and len(x["sha256"]) == 64 and x["size"] > 0
PY
}

@test "an empty store lists nothing, says so on stderr, exits 0" {
	run --separate-stderr cudnnvm --store "$T/empty" list
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[[ "$stderr" == *"no cuDNN version is installed"* ]]
	run cudnnvm --store "$T/empty" list --json
	[ "$output" = "[]" ]
}

@test "list rejects arguments and unknown options (exit 64)" {
	run cudnnvm list 9
	[ "$status" -eq 64 ]
	run cudnnvm list --bogus
	[ "$status" -eq 64 ]
}

@test "list output to a full disk fails" {
	[ -w /dev/full ] || skip "no /dev/full"
	run sh -c 'cudnnvm list > /dev/full'
	[ "$status" -ne 0 ]
}
