#!/usr/bin/env bats
# Config files (doc/SPEC.md "Config"; reliability.md C1-C6): strict parsing with
# file:line errors and exit 78, and the order system < user < --config,
# environment over files, flags over both.
load helper

setup() {
	common_setup
	CF="$FIXTURES/configs"
}

# bad FILE LINE WHAT: `list` with --config FILE fails 78 naming FILE:LINE.
bad() {
	run cudnnvm --config "$1" list
	[ "$status" -eq 78 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cudnnvm: $1:$2: $3"* ]]
}

@test "C1 a section header without ']' is exit 78 at file:line" {
	bad "$CF/c1-missing-bracket.ini" 1 "section header without a closing ']'"
}
@test "C1 a line without '=' is exit 78 at file:line" {
	bad "$CF/c1-no-equals.ini" 3 "expected 'key = value'"
}
@test "C1 an over-long line is exit 78 at file:line (inih would cut it)" {
	bad "$CF/c1-long-line.ini" 2 "line too long"
}
@test "C1b a NUL byte is exit 78 at file:line (inih would cut it)" {
	printf '[store]\npath = /opt/cudnn\0/../../etc\n' > "$T/nul.ini"
	bad "$T/nul.ini" 2 "NUL byte"
}
@test "C2 an over-long section name is unknown, not silently merged" {
	bad "$CF/c2-long-section.ini" 4 "unknown section"
}
@test "C3 an indented continuation line cannot override a value" {
	bad "$CF/c3-indented.ini" 3 "'path' is set twice"
}
@test "C5 unknown key, unknown section and repeated key are errors" {
	bad "$CF/c5-unknown-key.ini" 2 "unknown key 'paht'"
	bad "$CF/c5-unknown-section.ini" 2 "unknown section '[nope]'"
	bad "$CF/c5-duplicate.ini" 3 "'retries' is set twice"
}
@test "C6 a relative store path is refused" {
	bad "$CF/c6-relative.ini" 2 "'relative/store' must be an absolute path"
}
@test "a BOM, CRLF line ends and inline comments are accepted" {
	run cudnnvm --config "$CF/bom-crlf.ini" list
	[ "$status" -eq 0 ]
}
@test "a missing --config file or CUDNNVM_CONFIG file is exit 78" {
	run cudnnvm --config "$T/none.ini" list
	[ "$status" -eq 78 ]
	[[ "$output" == "cudnnvm: cannot read config file '$T/none.ini'"* ]]
	CUDNNVM_CONFIG="$T/none.ini" run cudnnvm list
	[ "$status" -eq 78 ]
}
@test "errors in the system and user files are reported with their paths" {
	cp "$CF/c5-unknown-key.ini" "$CUDNNVM_SYSCONFDIR/config.ini"
	run cudnnvm list
	[ "$status" -eq 78 ]
	[[ "$output" == "cudnnvm: $CUDNNVM_SYSCONFDIR/config.ini:2: unknown key"* ]]
	rm "$CUDNNVM_SYSCONFDIR/config.ini"
	mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
	cp "$CF/c5-duplicate.ini" "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run cudnnvm list
	[ "$status" -eq 78 ]
	[[ "$output" == "cudnnvm: $XDG_CONFIG_HOME/cudnnvm/config.ini:3:"* ]]
}
@test "store path: system < user < --config < CUDNNVM_STORE < --store" {
	unset CUDNNVM_STORE
	read -r arch sha < <(python3 "$FIXTURES/mkarchive.py" nvidia --version 9.1.0.70 --cuda 12 --out "$T/a" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
	printf '[store]\npath = %s\n' "$T/sys" > "$CUDNNVM_SYSCONFDIR/config.ini"
	cudnnvm install --no-validate --archive "$arch" --sha256 "$sha"
	[ -d "$T/sys/9.1.0.70-cuda12" ]
	mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
	printf '[store]\npath = %s\n' "$T/user" > "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	# the user's own store sees the system store beside it
	run cudnnvm install --no-validate --archive "$arch" --sha256 "$sha"
	[ "$output" = "cuDNN 9.1.0.70-cuda12 is already installed in $T/sys/9.1.0.70-cuda12" ]
	[ ! -e "$T/user/9.1.0.70-cuda12" ]
	rm -rf "$T/sys"
	cudnnvm install --no-validate --archive "$arch" --sha256 "$sha"
	[ -d "$T/user/9.1.0.70-cuda12" ]
	printf '[store]\npath = %s\n' "$T/explicit" > "$T/explicit.ini"
	cudnnvm --config "$T/explicit.ini" install --no-validate --archive "$arch" --sha256 "$sha"
	[ -d "$T/explicit/9.1.0.70-cuda12" ]
	CUDNNVM_CONFIG="$T/explicit.ini" CUDNNVM_STORE="$T/env" cudnnvm install --no-validate --archive "$arch" --sha256 "$sha"
	[ -d "$T/env/9.1.0.70-cuda12" ]
	CUDNNVM_STORE="$T/env" cudnnvm install --no-validate --store "$T/flag" --archive "$arch" --sha256 "$sha"
	[ -d "$T/flag/9.1.0.70-cuda12" ]
	run cudnnvm list --json
	[[ "$output" == *"$T/user/9.1.0.70-cuda12"* ]]
}
@test "[install] validate = no skips validation after install" {
	read -r arch sha < <(python3 "$FIXTURES/mkarchive.py" nvidia --version 9.1.0.70 --cuda 12 --out "$T/a" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
	printf '[install]\nvalidate = no\n' > "$T/c.ini"
	run cudnnvm --config "$T/c.ini" install --archive "$arch" --sha256 "$sha"
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
}
