#!/usr/bin/env bats
# cache: what `cache` counts and `cache clean|prune` removes is only what
# cudnnvm wrote there (doc/reliability.md 6.8), whatever folder the cache is.
load activation

setup() {
	activation_setup
	unset VIRTUAL_ENV CONDA_PREFIX
}

@test "cache clean with the cache set to \$HOME removes only what cudnnvm wrote and names the rest (H2)" {
	printf '[store]\ncache = %s\n' "$HOME" >>"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	mkdir -p "$HOME/downloads" "$HOME/manifests" "$HOME/validate"
	echo thesis >"$HOME/downloads/thesis.tex"
	echo pod >"$HOME/manifests/pod.yaml"
	echo notes >"$HOME/validate/notes.json"
	sha=$(printf '%064d' 7)
	echo archive >"$HOME/downloads/$sha.archive"
	echo part >"$HOME/downloads/$(printf '%064d' 8).partial"
	mkdir -p "$HOME/manifests/0123456789abcdef"
	echo listing >"$HOME/manifests/0123456789abcdef/listing"
	echo '{}' >"$HOME/validate/$A.json"
	run cudnnvm cache
	[ "$status" -eq 0 ]
	# three of cudnnvm's files plus the listing, none of the user's
	[[ $output == *"  4 files, "* ]]
	run cudnnvm cache clean
	[ "$status" -eq 0 ]
	[[ $output == *"removed 4 files"* ]]
	[[ $output == *"$HOME/downloads/thesis.tex: left in place"* ]]
	[[ $output == *"$HOME/manifests/pod.yaml: left in place"* ]]
	[ "$(cat "$HOME/downloads/thesis.tex")" = thesis ]
	[ "$(cat "$HOME/manifests/pod.yaml")" = pod ]
	[ "$(cat "$HOME/validate/notes.json")" = notes ]
	[ ! -e "$HOME/downloads/$sha.archive" ]
	[ ! -e "$HOME/manifests/0123456789abcdef" ]
	[ ! -e "$HOME/validate/$A.json" ]
	[ -d "$HOME" ]
}

@test "cache clean removes the cache's own folders once empty, and keeps the hook's stamps (H2)" {
	c="$XDG_CACHE_HOME/cudnnvm"
	printf '[store]\ncache = %s\n' "$c" >>"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	mkdir -p "$c/downloads" "$c/hook"
	echo a >"$c/downloads/$(printf '%064d' 1).archive"
	echo s >"$c/hook/stamp.abcdef"
	run cudnnvm cache clean
	[ "$status" -eq 0 ]
	[ ! -e "$c/downloads" ]
	[ -f "$c/hook/stamp.abcdef" ]
	[[ $output != *"left in place"* ]]
}

@test "the archive of an installed dependency is not stale: cache does not count it and prune keeps it (H3)" {
	c="$XDG_CACHE_HOME/cudnnvm"
	printf '[store]\ncache = %s\n' "$c" >>"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	dep=$(printf 'ab%062d' 0)
	gone=$(printf 'cd%062d' 0)
	python3 - "$CUDNNVM_STORE/$A/cudnnvm.json" "$dep" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["deps"] = [{"name": "libcublas", "version": "12.9.1.4", "cuda": 12,
              "dir": "deps/libcublas-12.9.1.4", "sha256": sys.argv[2], "size": 1}]
json.dump(m, open(sys.argv[1], "w"))
PY
	mkdir -p "$c/downloads"
	echo dep >"$c/downloads/$dep.archive"
	echo old >"$c/downloads/$gone.archive"
	run cudnnvm cache
	[ "$status" -eq 0 ]
	[[ $output == *"1 archive of versions no longer installed"* ]]
	run cudnnvm cache prune
	[ "$status" -eq 0 ]
	[[ $output == "removed 1 file, "* ]]
	[ -f "$c/downloads/$dep.archive" ]
	[ ! -e "$c/downloads/$gone.archive" ]
}
