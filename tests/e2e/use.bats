#!/usr/bin/env bats
# use and pin files: writing, resolution order, and bad pins (doc/reliability.md
# P1-P4).
load activation

setup() { activation_setup; cudnnvm -q global 8; }

@test "use writes ./.cudnn-version with the spec and current follows it" {
	mkdir proj && cd proj
	run cudnnvm use 9.1
	[ "$status" -eq 0 ]
	[ "$(cat .cudnn-version)" = "9.1" ]
	run cudnnvm current
	[ "$output" = "$A (set by $T/proj/.cudnn-version)" ]
	cudnnvm use 9.13.0.50-cuda12
	[ "$(cat .cudnn-version)" = "9.13.0.50-cuda12" ]
	[ "$(cudnnvm current)" = "$B (set by $T/proj/.cudnn-version)" ]
	ls -A >"$T/ls"
	[ "$(cat "$T/ls")" = ".cudnn-version" ]
}

@test "use --no-install of a version not installed writes nothing and hints at install" {
	mkdir proj && cd proj
	echo 9.1 >.cudnn-version
	run --separate-stderr cudnnvm use 7 --no-install
	[ "$status" -eq 1 ]
	one_error_line
	[[ $stderr == *"cudnnvm install 7"* ]]
	[ "$(cat .cudnn-version)" = "9.1" ]
}

@test "use with a bad spec is a usage error and writes nothing" {
	mkdir proj && cd proj
	for bad in /opt/cudnn ../9 "9.1;rm" latest9 ""; do
		run --separate-stderr cudnnvm use "$bad"
		[ "$status" -eq 64 ]
		one_error_line
	done
	[ ! -e .cudnn-version ]
}

@test "use in a folder it cannot write fails with 77 and leaves nothing" {
	# the test folders are private to root: work in one the user can read
	W=$(mktemp -d /tmp/cudnnvm-use.XXXXXX)
	chmod 755 "$W"
	cp -a "$CUDNNVM_STORE" "$W/store"
	mkdir -p "$W/cfg/cudnnvm" "$W/proj"
	cp "$XDG_CONFIG_HOME/cudnnvm/config.ini" "$W/cfg/cudnnvm/"
	chmod -R a+rX "$W"
	chmod 555 "$W/proj"
	cd "$W/proj"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME="$W" CUDNNVM_STORE="$W/store" XDG_CONFIG_HOME="$W/cfg" \
		CUDNNVM_SYSCONFDIR="$W/etc" "$CUDNNVM_BIN" use 9.1
	cd "$T"
	left=$(ls -A "$W/proj")
	rm -rf "$W"
	[ "$status" -eq 77 ]
	one_error_line
	[ -z "$left" ]
}

@test "nearest pin wins; .tool-versions counts; nested projects" {
	mkdir -p outer/inner/deep
	echo "9.1" >outer/.cudnn-version
	printf 'python 3.12\ncudnn 9.13 9.1\n' >outer/inner/.tool-versions
	cd outer
	[ "$(cudnnvm current)" = "$A (set by $T/outer/.cudnn-version)" ]
	cd inner/deep
	[ "$(cudnnvm current)" = "$B (set by $T/outer/inner/.tool-versions)" ]
	printf 'python 3.12\n' >../.tool-versions
	[ "$(cudnnvm current)" = "$A (set by $T/outer/.cudnn-version)" ]
	echo 8 >.cudnn-version
	[ "$(cudnnvm current)" = "$C (set by $T/outer/inner/deep/.cudnn-version)" ]
	cd "$T"
	[ "$(cudnnvm current)" = "$C (global default)" ]
}

@test "CUDNNVM_VERSION beats every pin; a bad one is one clear line" {
	mkdir proj && echo 9.1 >proj/.cudnn-version && cd proj
	CUDNNVM_VERSION=9.13 run cudnnvm current
	[ "$output" = "$B (set by CUDNNVM_VERSION=9.13)" ]
	CUDNNVM_VERSION=/opt/x run --separate-stderr cudnnvm current
	[ "$status" -eq 64 ]
	one_error_line
}

bad_pin() {
	mkdir -p "$T/bad" && cd "$T/bad"
	run --separate-stderr cudnnvm current
	[ "$status" -eq 65 ]
	one_error_line
	[[ $stderr == *"$T/bad/.cudnn-version"* ]]
	[[ $stderr == *"$1"* ]]
}

@test "P2: a pin holding a path is refused" {
	mkdir bad && echo "$CUDNNVM_STORE/$A" >bad/.cudnn-version
	bad_pin "path or URL"
}

@test "P2: a pin holding a URL is refused" {
	mkdir bad && echo "https://example.invalid/cudnn-9.1.tar.xz" >bad/.cudnn-version
	bad_pin "path or URL"
}

@test "P1: a FIFO pin is refused without blocking" {
	mkdir bad && mkfifo bad/.cudnn-version
	bad_pin "not a regular file"
}

@test "P1: a pin that is a symlink (to /dev/zero or /proc/self/mem) is refused" {
	mkdir bad && ln -s /dev/zero bad/.cudnn-version
	bad_pin "symlink"
	ln -sf /proc/self/mem "$T/bad/.cudnn-version"
	bad_pin "symlink"
}

@test "P1: a pin that is a folder is refused" {
	mkdir -p bad/.cudnn-version
	bad_pin "not a regular file"
}

@test "P1: a huge pin is refused" {
	mkdir bad && head -c 1000000 /dev/zero | tr '\0' '9' >bad/.cudnn-version
	bad_pin "larger than"
	truncate -s 1G "$T/bad/.cudnn-version"
	bad_pin "larger than"
}

@test "a pin with garbage is refused" {
	mkdir bad && printf 'latest\n' >bad/.cudnn-version
	bad_pin "not a version spec"
	printf '\x01\x02\xff\n' >"$T/bad/.cudnn-version"
	bad_pin "pin file"
	printf '9.1\n9.13\n' >"$T/bad/.cudnn-version"
	bad_pin "more than one"
}

@test "P3: a pinned version that is not installed hints at install, no network" {
	mkdir proj && echo 7.6 >proj/.cudnn-version && cd proj
	export CUDNNVM_MIRROR=https://127.0.0.1:9/unreachable/
	run --separate-stderr cudnnvm current
	[ "$status" -eq 1 ]
	one_error_line
	[ "$(hints)" = "cudnnvm install 7.6" ]
	[[ $stderr == *"$T/proj/.cudnn-version"* ]]
	[ ! -e "$XDG_CACHE_HOME/cudnnvm" ] || [ -z "$(find "$XDG_CACHE_HOME/cudnnvm" -type f -name '*.json')" ]
}

@test "P4: the search stops at / and a symlink loop does not hang it" {
	mkdir -p a
	ln -s .. a/loop
	cd a/loop/a/loop/a/loop/a
	run cudnnvm current
	[ "$status" -eq 0 ]
	[ "$output" = "$C (global default)" ]
	cd /
	run cudnnvm current
	[ "$status" -eq 0 ]
}

@test "use refuses options it does not take and writes nothing" {
	mkdir proj && cd proj
	run --separate-stderr cudnnvm use --bogus 9
	[ "$status" -eq 64 ]
	one_error_line
	[[ $stderr == *"use: unknown option '--bogus'"* ]]
	# --unset takes no version
	run --separate-stderr cudnnvm use --unset 9
	[ "$status" -eq 64 ]
	one_error_line
	[ ! -e .cudnn-version ]
}

@test "use system pins no version over the global; use --unset removes the pin; global system" {
	mkdir proj && cd proj
	run cudnnvm use system
	[ "$status" -eq 0 ]
	[ "$(cat .cudnn-version)" = "system" ]
	run --separate-stderr cudnnvm current
	[ "$status" -eq 0 ]
	[ "$output" = "system (set by $T/proj/.cudnn-version): no cudnnvm version here" ]
	run cudnnvm current --json
	[[ $output == *'"id": null'* ]]
	[[ $output == *'"spec": "system"'* ]]
	[[ $output == *'"origin": "file"'* ]]
	# the hook leaves the version, silently
	CUDNNVM_ACTIVE=$C run --separate-stderr cudnnvm hook-env --shell bash
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ $output == *"unset CUDNNVM_ACTIVE"* ]]
	run --separate-stderr cudnnvm env
	[ "$status" -eq 1 ]
	[[ $stderr == *"says 'system'"* ]]
	run cudnnvm use --unset
	[ "$status" -eq 0 ]
	[ ! -e .cudnn-version ]
	[ "$(cudnnvm current)" = "$C (global default)" ]
	run cudnnvm use --unset
	[ "$status" -eq 1 ]
	[[ $output == *"no pin in this folder"* ]]
	run cudnnvm use --unset 9.1
	[ "$status" -eq 64 ]
	# a .tool-versions loses its cudnn line only
	printf 'python 3.12\ncudnn 9.1\nnodejs 20\n' >.tool-versions
	cudnnvm -q use system
	[ "$(cat .tool-versions)" = "python 3.12
cudnn system
nodejs 20" ]
	cudnnvm -q use --unset
	[ "$(cat .tool-versions)" = "python 3.12
nodejs 20" ]
	# global system: no version where no pin names one
	cudnnvm -q global system
	[ "$(readlink "$CUDNNVM_STORE/current")" = system ]
	[ "$(cudnnvm current)" = "system (global default): no cudnnvm version" ]
	run cudnnvm doctor
	[[ $output != *"current link"* ]]
	echo 9.1 >.cudnn-version
	[ "$(cudnnvm current)" = "$A (set by $T/proj/.cudnn-version)" ]
	rm .cudnn-version
	cudnnvm -q global --unset
	run cudnnvm current
	[ "$status" -eq 1 ]
}

@test "temporaries a killed write left beside the pin are swept by the next write; a live writer's stay (H19)" {
	mkdir -p p && cd p
	# pids no process has (above any pid_max), and this shell's own
	dead="..cudnn-version.2147483646.1f2e.tmp"
	live="..cudnn-version.$$.abcd.tmp"
	echo 9.1 >"$dead"
	echo 9.1 >"$live"
	echo keep >".other.2147483646.1f2e.tmp"
	run cudnnvm use 9.13
	[ "$status" -eq 0 ]
	[ ! -e "$dead" ]
	[ -e "$live" ]
	[ -e ".other.2147483646.1f2e.tmp" ]
	[ "$(cat .cudnn-version)" = 9.13 ]
}
