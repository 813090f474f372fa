#!/usr/bin/env bats
# The meta commands a new user and a bug report reach for: version (-V,
# --version), help, init without a shell name, and "did you mean" for
# options, configuration keys and other tools' command names.
load helper

setup() { common_setup; }

@test "version, -V and --version print the version, the commit and the libraries built against" {
	run --separate-stderr cudnnvm version
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[[ ${lines[0]} =~ ^cudnnvm\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
	# the commit of the tree this was built from (dirty or not)
	if head=$(git -C "$REPO_ROOT" rev-parse --short=12 HEAD 2>/dev/null); then
		[[ ${lines[1]} == "commit: $head"* ]]
	fi
	for lib in inih jansson libcurl libarchive OpenSSL liblzma libdeflate; do
		[[ ${lines[2]} =~ (^libraries: |, )$lib/[0-9][0-9.]*(,|$) ]] || {
			echo "no $lib version: ${lines[2]}"
			false
		}
	done
	# the versions are the headers' (what pkg-config reports for them)
	[[ ${lines[2]} == *"jansson/$(pkg-config --modversion jansson)"* ]]
	[[ ${lines[2]} == *"libcurl/$(pkg-config --modversion libcurl)"* ]]
	[ "$(cudnnvm -V)" = "$output" ]
	[ "$(cudnnvm --version)" = "$output" ]
	# the helper answers the same
	[ "$("$(dirname "$CUDNNVM_BIN")/cudnnvm-helper" --version)" = "$output" ]
	run -64 cudnnvm version extra
}

@test "help and --help print the same, with and without a command" {
	[ "$(cudnnvm help)" = "$(cudnnvm --help)" ]
	[ "$(cudnnvm help install)" = "$(cudnnvm install --help)" ]
	[[ $(cudnnvm help) == *"version"*"for bug reports"* ]]
}

@test "init without a shell name is for the shell running it, as env guesses" {
	run bash -c 'cudnnvm init'
	[ "$status" -eq 0 ]
	[ "$output" = "$(cudnnvm init bash)" ]
	command -v zsh >/dev/null || skip "zsh is not installed"
	run zsh -fc 'cudnnvm init; :'
	[ "$output" = "$(cudnnvm init zsh)" ]
	command -v fish >/dev/null || skip "fish is not installed"
	run fish --no-config -c 'cudnnvm init'
	[ "$output" = "$(cudnnvm init fish)" ]
	# a parent that is no shell it knows: a usage error naming the choice
	run -64 --separate-stderr python3 -c 'import subprocess, sys; sys.exit(subprocess.run(["cudnnvm", "init"]).returncode)'
	[[ $stderr == *"cannot tell which shell"*"bash, zsh, fish, tcsh or powershell"* ]]
}

@test "a mistyped option gets the option it was close to, as it should be typed" {
	run -64 --separate-stderr cudnnvm install --cuda12 9
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *"unknown option '--cuda12' (did you mean '--cuda 12'?)"* ]]
	run -64 --separate-stderr cudnnvm list-remote --refesh
	[[ $stderr == *"(did you mean '--refresh'?)"* ]]
	# a global option misspelt after the command, and before it
	run -64 --separate-stderr cudnnvm list --no-colour
	[[ $stderr == *"(did you mean '--no-color'?)"* ]]
	run -64 --separate-stderr cudnnvm --verbsoe list
	[[ $stderr == "cudnnvm: unknown option '--verbsoe' (did you mean '--verbose'?)"* ]]
	# nothing close: no guess
	run -64 --separate-stderr cudnnvm list --frobnicate
	[[ $stderr != *"did you mean"* ]]
}

@test "another tool's word for a command is answered with cudnnvm's" {
	run -64 --separate-stderr cudnnvm remove 9.1
	[[ $stderr == *"no such command 'remove'; did you mean 'uninstall'?"* ]]
	run -64 --separate-stderr cudnnvm local 9.1
	[[ $stderr == *"did you mean 'use'?"* ]]
}

@test "a mistyped configuration key gets the key it was close to" {
	mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
	printf '[remote]\nmirrror = https://example.invalid/\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run --separate-stderr cudnnvm list
	[ "$status" -eq 78 ]
	[[ $stderr == *"unknown key 'mirrror' (did you mean 'mirror'?)"* ]]
	printf '[install]\nthredas = 2\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run --separate-stderr cudnnvm list
	[[ $stderr == *"(did you mean 'threads'?)"* ]]
	printf '[remote]\nfrobnicate = 2\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run --separate-stderr cudnnvm list
	[[ $stderr == *"unknown key 'frobnicate'" ]]
}

@test "help <command> prints the man page's entry for it where man is absent, found beside the binary" {
	local p="$T/pre fix"
	mkdir -p "$p/bin" "$p/share/cudnnvm" "$T/with-man"
	cp "$CUDNNVM_BIN" "$p/bin/cudnnvm"
	cp "$(dirname "$CUDNNVM_BIN")/cudnnvm.1.txt" "$p/share/cudnnvm/cudnnvm.1.txt"
	[ -s "$p/share/cudnnvm/cudnnvm.1.txt" ]
	# PATH holds the binary alone: no man
	PATH="$p/bin" run cudnnvm help list
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: cudnnvm list"*"--json"*"from cudnnvm(1):"*"     cudnnvm list [--json]"*"List installed versions, newest first"* ]]
	# the entry ends where the next command's begins
	[[ "$output" != *"cudnnvm list-remote"* ]]
	PATH="$p/bin" run cudnnvm help list-remote
	[[ "$output" == *"from cudnnvm(1):"*"     cudnnvm list-remote [<spec>]"* ]]
	# with a man on PATH, help is the options as before
	printf '#!/bin/sh\nexit 0\n' >"$T/with-man/man"
	chmod 755 "$T/with-man/man"
	PATH="$p/bin:$T/with-man" run cudnnvm help list
	[ "$status" -eq 0 ]
	[[ "$output" != *"cudnnvm(1):"* ]]
}
