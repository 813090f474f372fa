#!/usr/bin/env bats
# A company mirror one setting away: the global --mirror, CUDNNVM_MIRROR,
# SSL_CERT_FILE / CURL_CA_BUNDLE, a first network error that names the
# setting, `cudnnvm config` (doc/reliability.md C7-C9) and pins relaxed
# for one mirror.
load remote

setup() { remote_setup; }

CONF() { echo "$XDG_CONFIG_HOME/cudnnvm/config.ini"; }
MIRROR_URL() { echo "https://127.0.0.1:$MIRROR_PORT/"; }

# a port nothing listens on
dead_url() {
	local p
	p=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	echo "https://127.0.0.1:$p/"
}

@test "the global --mirror URL: before or after the command, for list-remote, install and lock alike" {
	sed -i "s|^mirror = .*|mirror = $(dead_url)|" "$(CONF)"
	run cudnnvm --mirror "$(MIRROR_URL)" list-remote 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *9.13.0.50-cuda12* ]]
	run cudnnvm install 9.13 --cuda 12 --mirror "$(MIRROR_URL)"
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	# declared once: it is the global table's, and help says so
	run cudnnvm --help
	[[ "$output" == *"--mirror URL"* ]]
}

@test "C8 --mirror and CUDNNVM_MIRROR that are not URLs are one line each" {
	run cudnnvm --mirror not-a-url list-remote 9.13
	[ "$status" -eq 78 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cudnnvm: --mirror 'not-a-url' "* ]]
	CUDNNVM_MIRROR=ftp://x/ run cudnnvm list-remote 9.13
	[ "$status" -eq 78 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cudnnvm: CUDNNVM_MIRROR 'ftp://x/' "* ]]
}

@test "SSL_CERT_FILE and CURL_CA_BUNDLE name a private CA as curl, pip and uv take them" {
	sed -i '/^ca_file/d' "$(CONF)"
	run cudnnvm list-remote 9.13 --cuda 12
	[ "$status" -eq 69 ]
	SSL_CERT_FILE="$MIRROR_DIR/certs/ca.pem" run cudnnvm list-remote 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *9.13.0.50-cuda12* ]]
	CURL_CA_BUNDLE="$MIRROR_DIR/certs/ca.pem" run cudnnvm list-remote 9.13 --cuda 12 --refresh
	[ "$status" -eq 0 ]
}

@test "C8 SSL_CERT_FILE naming a missing file is one line that names it" {
	sed -i '/^ca_file/d' "$(CONF)"
	SSL_CERT_FILE="$T/none.pem" run cudnnvm list-remote 9.13 --cuda 12
	[ "$status" -eq 78 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cudnnvm: SSL_CERT_FILE names '$T/none.pem': "* ]]
}

@test "the first network error names the setting, and its hint works as printed" {
	sed -i "s|^mirror = .*|mirror = $(dead_url)|" "$(CONF)"
	run --separate-stderr cudnnvm list-remote 9.13 --cuda 12
	[ "$status" -eq 69 ]
	[[ "$stderr" == *"(set by remote.mirror)"* ]]
	hint=$(printf '%s\n' "$stderr" | sed -n 's/^hint: //p')
	[ "$hint" = "cudnnvm config set remote.mirror URL" ]
	# the hint as printed, URL being the company's mirror
	run ${hint% URL} "$(MIRROR_URL)"
	[ "$status" -eq 0 ]
	run cudnnvm list-remote 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *9.13.0.50-cuda12* ]]
}

@test "config set, get, unset and list keep the file's comments and other lines" {
	printf '; my settings\n[remote]\n# the CA of the site\nca_file = %s\ntimeout = 3\nretries = 0\nverify_pins = no\n\n[install]\nvalidate = no\ndeps = never\n' \
		"$MIRROR_DIR/certs/ca.pem" >"$(CONF)"
	run cudnnvm config set remote.mirror "$(MIRROR_URL)"
	[ "$status" -eq 0 ]
	run cudnnvm config set store.cache "$T/cache"
	[ "$status" -eq 0 ]
	run cudnnvm config set install.keep_archives always
	[ "$status" -eq 0 ]
	run cudnnvm config get remote.mirror
	[ "$output" = "$(MIRROR_URL)" ]
	grep -qx '; my settings' "$(CONF)"
	grep -qx '# the CA of the site' "$(CONF)"
	[ "$(grep -c '^\[remote\]' "$(CONF)")" -eq 1 ]
	# the new key went into its own section
	[ "$(sed -n '/^\[install\]/,$p' "$(CONF)" | grep -c "^keep_archives = always$")" -eq 1 ]
	run cudnnvm config unset install.keep_archives
	[ "$status" -eq 0 ]
	! grep -q keep_archives "$(CONF)"
	run cudnnvm config list
	[ "$status" -eq 0 ]
	[[ "$output" == *"remote.mirror = $(MIRROR_URL)"* ]]
	[[ "$output" == *"install.keep_archives = no"* ]]
	# and every command reads what config wrote
	run cudnnvm list-remote 9.13 --cuda 12
	[ "$status" -eq 0 ]
}

@test "C7 an unknown key or a bad value is refused with did-you-mean, and nothing is written" {
	before=$(sha256sum "$(CONF)")
	run cudnnvm config set remote.mirrror https://x.example/
	[ "$status" -eq 64 ]
	[[ "${lines[0]}" == "cudnnvm: unknown configuration key 'remote.mirrror' (did you mean 'remote.mirror'?)" ]]
	run cudnnvm config set install.keep_archives yess
	[ "$status" -eq 64 ]
	[[ "$output" == *"hint: cudnnvm config set install.keep_archives yes"* ]]
	run cudnnvm config set remote.timeout 'x ; y'
	[ "$status" -eq 64 ]
	run cudnnvm config set remote.mirror ftp://x/
	[ "$status" -eq 64 ]
	run cudnnvm config get remote.nope
	[ "$status" -eq 64 ]
	[ "$(sha256sum "$(CONF)")" = "$before" ]
	# the hint of a bad value works as printed
	run cudnnvm config set install.keep_archives yess
	hint=$(printf '%s\n' "$output" | sed -n 's/^hint: //p')
	run $hint
	[ "$status" -eq 0 ]
}

@test "C9 a config file that is a symlink elsewhere, or not the user's, is not written" {
	real="$T/elsewhere.ini"
	mv "$(CONF)" "$real"
	ln -s "$real" "$(CONF)"
	before=$(sha256sum "$real")
	run cudnnvm config set remote.timeout 9
	[ "$status" -eq 77 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"is a symbolic link to '$real'"* ]]
	[ -L "$(CONF)" ]
	[ "$(sha256sum "$real")" = "$before" ]
	rm "$(CONF)"
	mv "$real" "$(CONF)"
	[ "$(id -u)" -eq 0 ] || skip "chown to another user needs root"
	chown 65534 "$(CONF)"
	before=$(sha256sum "$(CONF)")
	run cudnnvm config set remote.timeout 9
	[ "$status" -eq 77 ]
	[[ "$output" == *"belongs to uid 65534"* ]]
	[ "$(sha256sum "$(CONF)")" = "$before" ]
}

@test "docs: every key config list shows is documented in cudnnvm.ini(5) under its section" {
	run cudnnvm config list
	[ "$status" -eq 0 ]
	man="$REPO_ROOT/man/cudnnvm.ini.5"
	for line in "${lines[@]}"; do
		key=${line%% =*}
		sec=${key%%.*} name=${key#*.}
		sed -n "/^\.Ss \[$sec\]/,/^\.Ss /p" "$man" | grep -qx "\.It Cm $name" ||
			{ echo "undocumented: $key"; return 1; }
	done
}

@test "pins relaxed for one mirror: one short line and a hint that works, pins kept for any other" {
	remote_config ok "verify_pins = yes"
	run --separate-stderr cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 65 ]
	[ "$(printf '%s\n' "$stderr" | grep -c '^cudnnvm: ')" -eq 1 ]
	line=$(printf '%s\n' "$stderr" | grep '^cudnnvm: ')
	[ "${#line}" -le 170 ]
	hint=$(printf '%s\n' "$stderr" | sed -n 's/^hint: //p')
	[ "$hint" = "cudnnvm config set remote.verify_pins mirror" ]
	run $hint
	[ "$status" -eq 0 ]
	run cudnnvm install 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.13.0.50-cuda12" ]
	# the same server under another name is another mirror: still pinned
	run cudnnvm --mirror "https://localhost:$MIRROR_PORT/" list-remote 9.13 --cuda 12 --refresh
	[ "$status" -eq 65 ]
}
