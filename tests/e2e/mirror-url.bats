#!/usr/bin/env bats
# The mirror URL: credentials in it are sent but never printed or stored,
# ~/.netrc is read for a mirror that asks for a password, and a URL without
# a host is a configuration error, not a network one.
load remote

setup() { remote_setup; }

# point the config at URL instead of the plain mirror
mirror_is() { sed -i "s|^mirror = .*|mirror = $1|" "$XDG_CONFIG_HOME/cudnnvm/config.ini"; }

@test "credentials in the mirror URL reach the server but no message or file" {
	mirror_is "https://u:sekrit@127.0.0.1:$MIRROR_PORT/fault/auth/"
	run cudnnvm install 9.20 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" != *sekrit* ]]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda12" ]
	grep -q "\"https://127.0.0.1:$MIRROR_PORT/fault/auth/" "$CUDNNVM_STORE/9.20.0.48-cuda12/cudnnvm.json"
	run grep -rl sekrit "$CUDNNVM_STORE" "$T/cache"
	[ "$status" -eq 1 ]
	# a failing download names the URL without them
	mirror_is "https://u:sekrit@127.0.0.1:$MIRROR_PORT/fault/404/"
	run cudnnvm install 9.20 --cuda 13
	[ "$status" -eq 69 ]
	[[ "$output" == *"HTTP 404 for https://127.0.0.1:$MIRROR_PORT/fault/404/"* ]]
	[[ "$output" != *sekrit* ]]
	# and so does a refused one
	run cudnnvm install 9.20 --cuda 13 --mirror "http://u:sekrit@127.0.0.1:$MIRROR_PORT/"
	[ "$status" -eq 78 ]
	[[ "$output" == *"http://127.0.0.1:$MIRROR_PORT/"* ]]
	[[ "$output" != *sekrit* ]]
	CUDNNVM_MIRROR="http://u:sekrit@127.0.0.1/" run cudnnvm list-remote
	[ "$status" -eq 78 ]
	[[ "$output" != *sekrit* ]]
	mirror_is "http://u:sekrit@127.0.0.1:$MIRROR_PORT/"
	run cudnnvm list-remote
	[ "$status" -eq 78 ]
	[[ "$output" == *"config.ini:"* ]]
	[[ "$output" != *sekrit* ]]
}

@test "a mirror that asks for a password reads it from ~/.netrc" {
	mirror_is "https://127.0.0.1:$MIRROR_PORT/fault/auth/"
	run cudnnvm list-remote 9.20 --platform linux-x86_64
	[ "$status" -eq 69 ]
	[[ "$output" == *"HTTP 401"* ]]
	printf 'machine 127.0.0.1\nlogin u\npassword sekrit\n' >"$HOME/.netrc"
	chmod 600 "$HOME/.netrc"
	run cudnnvm list-remote 9.20 --platform linux-x86_64
	[ "$status" -eq 0 ]
	[[ "$output" == *"9.20.0.48-cuda12"* ]]
	run cudnnvm install 9.20 --cuda 12
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda12" ]
}

@test "a mirror URL without a host is a configuration error (78)" {
	mirror_is "https://"
	run cudnnvm list-remote
	[ "$status" -eq 78 ]
	[[ "$output" == *"names no host"* ]]
	mirror_is "https://u:p@/cudnn/"
	run cudnnvm list-remote
	[ "$status" -eq 78 ]
	mirror_is "https://127.0.0.1:$MIRROR_PORT/"
	CUDNNVM_MIRROR="https:///x/" run cudnnvm list-remote
	[ "$status" -eq 78 ]
	run cudnnvm install 9.20 --cuda 12 --mirror "https://"
	[ "$status" -eq 78 ]
	[[ "$output" == "cudnnvm: "*"names no host"* ]]
}

@test "a relative CUDNNVM_STORE is refused like the config file's" {
	mkdir -p "$T/sub"
	cd "$T/sub"
	CUDNNVM_STORE=store run cudnnvm list
	[ "$status" -eq 78 ]
	[[ "$output" == "cudnnvm: "*"CUDNNVM_STORE"*"absolute"* ]]
	[ ! -e "$T/sub/store" ]
	CUDNNVM_STORE=store run cudnnvm install 9.20 --cuda 12
	[ "$status" -eq 78 ]
	[ ! -e "$T/sub/store" ]
}
