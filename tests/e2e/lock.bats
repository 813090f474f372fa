#!/usr/bin/env bats
# cudnnvm.lock against the HTTPS test mirror: `lock` from the manifests
# alone, install --locked / --frozen, a newer build published later,
# --upgrade and --check, a swapped archive, `use` relocking, two stores
# from one lock, broken locks, other platforms, mirror --from-lock.
load remote

# A 9.12 release (9.12.0.46) made from NVIDIA's real 9.13.0 manifest, so
# the mirror lists a release a later build of which can be published.
derive() { # VERSION LABEL OUT
	sed -e "s/9\.13\.0\.50/$1/g" -e "s/\"9\.13\.0\"/\"$2\"/" \
		"$FIXTURES/manifests/redistrib_9.13.0.json" >"$3"
}

setup_file() {
	derive 9.12.0.46 9.12.0 "$BATS_FILE_TMPDIR/redistrib_9.12.0.json"
	mirror_start "$BATS_FILE_TMPDIR/redistrib_9.12.0.json"
}

setup() {
	remote_setup
	sed -i 's/^\[install\]$/[install]\ncuda = 12/' \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	cp "$MIRROR_DIR/root/index.html" "$T/index.html.orig"
	mkdir -p "$T/proj"
	cd "$T/proj"
	echo 9.12 >.cudnn-version
}

# The mirror as it was: listing and every archive a test replaced.
teardown() {
	cp "$T/index.html.orig" "$MIRROR_DIR/root/index.html"
	if [ -f "$T/swapped" ]; then
		cp "$T/swapped.orig" "$(cat "$T/swapped")"
	fi
}

# NVIDIA publishes build 9.12.0.47 (listed as redistrib_9.12.0.47.json).
publish_947() {
	derive 9.12.0.47 9.12.0 "$T/redistrib_9.12.0.47.json"
	python3 "$FIXTURES/mirror.py" build "$T/pub" "$T/redistrib_9.12.0.47.json"
	cp -r "$T/pub/cudnn" "$MIRROR_DIR/root/"
	cp "$T/pub/redistrib_9.12.0.47.json" "$MIRROR_DIR/root/"
	sed -i 's|</pre>|<a href="redistrib_9.12.0.47.json">redistrib_9.12.0.47.json</a>\n</pre>|' \
		"$MIRROR_DIR/root/index.html"
}

x86_sha() { archive_field 9.12.0 linux-x86_64 12 sha256; }
lock_field() { # PYTHON-EXPRESSION over the lock `l`
	python3 -c "import json; l = json.load(open('cudnnvm.lock')); print($1)"
}

@test "lock writes the manifest's sha256 and sizes for x86_64 and sbsa, downloading no archive" {
	run --separate-stderr cudnnvm lock --platform linux-sbsa
	[ "$status" -eq 0 ]
	[[ $output == "locked 9.12 as 9.12.0.46-cuda12 for "*"$T/proj/cudnnvm.lock" ]]
	[ "$(archive_gets)" -eq 0 ]
	[ "$(lock_field "l['id']")" = 9.12.0.46-cuda12 ]
	[ "$(lock_field "l['spec']")" = 9.12 ]
	[ "$(lock_field "l['format']")" = 1 ]
	[ "$(lock_field "l['source']")" = nvidia ]
	[ "$(lock_field "l['manifest']['url']")" = redistrib_9.12.0.json ]
	[ "$(lock_field "l['manifest']['sha256']")" = \
		"$(sha256sum <"$MIRROR_DIR/root/redistrib_9.12.0.json" | cut -d' ' -f1)" ]
	for p in linux-x86_64 linux-sbsa; do
		[ "$(lock_field "l['platforms']['$p']['sha256']")" = \
			"$(archive_field 9.12.0 $p 12 sha256)" ]
		[ "$(lock_field "l['platforms']['$p']['size']")" = \
			"$(archive_field 9.12.0 $p 12 size)" ]
		[ "$(lock_field "l['platforms']['$p']['url']")" = \
			"$(archive_field 9.12.0 $p 12 relative_path)" ]
		[ "$(lock_field "l['platforms']['$p']['deps']")" = "[]" ]
	done
	[ "$(lock_field "sorted(l['platforms'])")" = "['linux-sbsa', 'linux-x86_64']" ]
	# sorted keys, two-space indent, one final newline; no mirror URL
	python3 -c "import json, sys; t = open('cudnnvm.lock').read()
sys.exit(t != json.dumps(json.loads(t), indent=2, sort_keys=True) + '\n')"
	! grep -q 127.0.0.1 cudnnvm.lock
	# a second run changes nothing, and says so
	run cudnnvm lock
	[ "$status" -eq 0 ]
	[[ $output == "already locked 9.12 as 9.12.0.46-cuda12"* ]]
}

@test "install --locked installs the locked build; activation names the lock" {
	cudnnvm lock
	run cudnnvm install --locked
	[ "$status" -eq 0 ]
	[[ $output == *"installed cuDNN 9.12.0.46-cuda12"* ]]
	grep -q "$(x86_sha)" "$CUDNNVM_STORE/9.12.0.46-cuda12/cudnnvm.json"
	run cudnnvm current
	[ "$status" -eq 0 ]
	[ "$output" = "9.12.0.46-cuda12 (set by $T/proj/cudnnvm.lock, which locks $T/proj/.cudnn-version = 9.12)" ]
	run cudnnvm current --json
	[[ $output == *'"origin": "lock"'* ]]
	[[ $output == *"\"lock\": \"$T/proj/cudnnvm.lock\""* ]]
	cudnnvm env | grep -q "9.12.0.46-cuda12/lib"
	run cudnnvm install --locked
	[[ $output == *"already installed"* ]]
}

@test "a newer build on the mirror: --frozen keeps the locked one, --upgrade moves, --check follows the pin" {
	cudnnvm lock
	publish_947
	log_mark
	run cudnnvm install --frozen
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.12.0.46-cuda12" ]
	[ ! -e "$CUDNNVM_STORE/9.12.0.47-cuda12" ]
	# --frozen read no manifest and no listing
	! grep -q 'redistrib_\|GET / ' "$MIRROR_DIR/root/requests.log"
	run cudnnvm lock --check
	[ "$status" -eq 0 ]
	[[ $output == *"locks 9.12 as 9.12.0.46-cuda12"* ]]
	# without --upgrade the locked build stays, even on a fresh listing
	run cudnnvm lock
	[ "$status" -eq 0 ]
	[ "$(lock_field "l['id']")" = 9.12.0.46-cuda12 ]
	run cudnnvm lock --upgrade
	[ "$status" -eq 0 ]
	[ "$(lock_field "l['id']")" = 9.12.0.47-cuda12 ]
	[ "$(lock_field "l['manifest']['url']")" = redistrib_9.12.0.47.json ]
	# the pin 9.12 admits 9.12.0.47: the lock still locks it
	run cudnnvm lock --check
	[ "$status" -eq 0 ]
	run cudnnvm current
	[ "$status" -eq 1 ]
	[[ $output == *"cuDNN 9.12.0.47-cuda12, which it locks, is not installed"* ]]
	[[ $output == *"hint: cudnnvm install"* ]]
	run cudnnvm install
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.12.0.47-cuda12" ]
	# the pin moves to 9.13: the lock is stale until relocked
	echo 9.13 >.cudnn-version
	run -1 --separate-stderr cudnnvm lock --check
	[ "$stderr" = "cudnnvm: $T/proj/cudnnvm.lock is stale: it locks 9.12, $T/proj/.cudnn-version pins 9.13
hint: cudnnvm lock" ]
	run -1 cudnnvm install --locked
	[[ $output == *"is stale"* ]]
}

@test "the mirror serving other bytes under the locked name is exit 65 and the store is unchanged" {
	cudnnvm lock
	seed_store
	local rel
	rel="$MIRROR_DIR/root/$(archive_field 9.12.0 linux-x86_64 12 relative_path)"
	cp "$rel" "$T/swapped.orig"
	echo "$rel" >"$T/swapped"
	# same name, same size: only the hash tells them apart
	head -c "$(stat -c %s "$rel")" "$(big_archive)" >"$rel"
	before=$(store_snapshot)
	run -65 --separate-stderr cudnnvm install --frozen
	echo "$stderr"
	[ "$(grep -c '^cudnnvm: ' <<<"$stderr")" -eq 1 ]
	[[ $stderr == *"cudnnvm: "*"sha256"* ]]
	[ "$(store_snapshot)" = "$before" ]
}

@test "use 9.13 rewrites the lock, keeping its platforms" {
	cudnnvm lock --platform linux-sbsa
	run cudnnvm use 9.13
	[ "$status" -eq 0 ]
	[ "$(cat .cudnn-version)" = 9.13 ]
	[ "$(lock_field "l['spec']")" = 9.13 ]
	[ "$(lock_field "l['id']")" = 9.13.0.50-cuda12 ]
	[ "$(lock_field "sorted(l['platforms'])")" = "['linux-sbsa', 'linux-x86_64']" ]
	run cudnnvm lock --check
	[ "$status" -eq 0 ]
	# a project without a lock gets none
	rm cudnnvm.lock
	cudnnvm use 9.12
	[ ! -e cudnnvm.lock ]
}

@test "a lock written here installs the same bytes in a second, fresh store" {
	cudnnvm lock --platform linux-sbsa
	cudnnvm install
	# another machine: its own store, cache and configuration
	mkdir -p "$T/other"
	sed "s|cache = .*|cache = $T/other/cache|" \
		"$XDG_CONFIG_HOME/cudnnvm/config.ini" >"$T/other/config.ini"
	log_mark
	CUDNNVM_STORE="$T/other/store" cudnnvm --config "$T/other/config.ini" \
		install --frozen
	[ "$(archive_gets)" -eq 1 ]
	a="$CUDNNVM_STORE/9.12.0.46-cuda12" b="$T/other/store/9.12.0.46-cuda12"
	# every file, link and mode of cuDNN's tree; cudnnvm.json records
	# when it was installed
	diff -r --no-dereference -x cudnnvm.json "$a" "$b"
	[ "$(cd "$a" && find . -printf '%p %m %l\n' | LC_ALL=C sort)" = \
		"$(cd "$b" && find . -printf '%p %m %l\n' | LC_ALL=C sort)" ]
}

@test "a hand-edited broken lock is one clear error line, exit 65" {
	cudnnvm lock
	cudnnvm install
	cp cudnnvm.lock good.lock
	edit() { python3 -c "import json; l = json.load(open('good.lock')); $1
open('cudnnvm.lock', 'w').write(json.dumps(l))"; }
	for how in truncate "l['platforms']['linux-x86_64']['sha256'] = 'abc'" \
		"del l['manifest']" "l['extra'] = 1" "l['format'] = 2" \
		"l['id'] = '9.13.0.50-cuda12'" "l['platforms']['linux-x86_64']['url'] = '../x'" \
		"l['platforms']['linux-x86_64']['size'] = -1" \
		"l['platforms']['linux-x86_64']['deps'] = 'none'" "l['platforms'] = {}"; do
		if [ "$how" = truncate ]; then head -c 100 good.lock >cudnnvm.lock
		else edit "$how"; fi
		for cmd in current "lock --check" "install --locked" env; do
			run -65 --separate-stderr cudnnvm $cmd
			echo "$how / $cmd: $stderr"
			[ "$(grep -c '^cudnnvm: ' <<<"$stderr")" -eq 1 ]
			[[ $stderr == "cudnnvm: $T/proj/cudnnvm.lock: "* ]]
		done
	done
	# `lock` writes a good one over it
	run cudnnvm lock
	[ "$status" -eq 0 ]
	cmp cudnnvm.lock good.lock
}

@test "a lock naming platforms this machine is not uses this machine's entry only" {
	cudnnvm lock --platform linux-sbsa --platform windows-x86_64
	log_mark
	run cudnnvm install --locked
	[ "$status" -eq 0 ]
	grep -q '"linux-x86_64"' "$CUDNNVM_STORE/9.12.0.46-cuda12/cudnnvm.json"
	[ "$(archive_gets)" -eq 1 ]
	grep -q 'cudnn-linux-x86_64-9.12.0.46_cuda12' "$MIRROR_DIR/root/requests.log"
	# a lock for sbsa alone does not install here, and says how to fix it
	python3 -c "import json; l = json.load(open('cudnnvm.lock'))
l['platforms'] = {p: l['platforms'][p] for p in ('linux-sbsa', 'windows-x86_64')}
open('cudnnvm.lock', 'w').write(json.dumps(l))"
	run -1 --separate-stderr cudnnvm install --locked --force
	[ "$stderr" = "cudnnvm: cudnnvm.lock locks 9.12.0.46-cuda12 for linux-sbsa, windows-x86_64 only, not for linux-x86_64
hint: cudnnvm lock --platform linux-x86_64" ]
	run -1 cudnnvm lock --check
	[[ $output == *"locks no build for linux-x86_64"* ]]
	cudnnvm lock --platform linux-x86_64
	run cudnnvm lock --check
	[ "$status" -eq 0 ]
}

@test "install --locked with no lock fails with exit 1 and the fix" {
	run -1 --separate-stderr cudnnvm install --locked
	[ "$stderr" = "cudnnvm: no cudnnvm.lock beside $T/proj/.cudnn-version
hint: cudnnvm lock" ]
	run -1 cudnnvm install --frozen
	run -1 cudnnvm lock --check
	run -64 cudnnvm install 9.12 --locked
	run -64 cudnnvm install --frozen --archive x.tar.xz --sha256 "$(x86_sha)"
	# a stale lock is not used by activation: the pin wins
	cudnnvm install 9.13
	cudnnvm lock
	echo 9.13 >.cudnn-version
	run cudnnvm current
	[ "$status" -eq 0 ]
	[[ $output == "9.13.0.50-cuda12 (set by $T/proj/.cudnn-version)" ]]
}

@test "mirror --from-lock copies exactly what the lock names, and a store installs from the copy" {
	cudnnvm lock --platform linux-sbsa
	run cudnnvm mirror --from-lock cudnnvm.lock "$T/copy"
	[ "$status" -eq 0 ]
	[ "$(cd "$T/copy" && find . -type f | LC_ALL=C sort)" = "./$(archive_field 9.12.0 linux-sbsa 12 relative_path)
./$(archive_field 9.12.0 linux-x86_64 12 relative_path)
./redistrib_9.12.0.json" ]
	cmp "$T/copy/redistrib_9.12.0.json" "$MIRROR_DIR/root/redistrib_9.12.0.json"
	log_mark
	run cudnnvm install --frozen --mirror "file://$T/copy/"
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.12.0.46-cuda12" ]
	[ "$(archive_gets)" -eq 0 ]
	# a lock whose manifest the mirror no longer serves byte for byte
	python3 -c "import json; l = json.load(open('cudnnvm.lock'))
l['manifest']['sha256'] = '0' * 64
open('cudnnvm.lock', 'w').write(json.dumps(l))"
	run -65 --separate-stderr cudnnvm mirror --from-lock cudnnvm.lock "$T/copy2"
	[[ $stderr == "cudnnvm: "*"redistrib_9.12.0.json: sha256 "*", the lock says 0000"* ]]
	run -64 cudnnvm mirror --from-lock cudnnvm.lock "$T/copy3" 9.12
}

@test "the lock written for x86_64, sbsa and windows is valid under doc/cudnnvm.lock.schema.json" {
	python3 -c "import jsonschema" 2>/dev/null ||
		skip "python3-jsonschema is not installed (make deps installs it)"
	cudnnvm lock --platform linux-sbsa --platform windows-x86_64
	python3 - "$BATS_TEST_DIRNAME/../../doc/cudnnvm.lock.schema.json" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
lock = json.load(open("cudnnvm.lock"))
jsonschema.validate(lock, schema)
# the schema refuses what the reader refuses
for bad in ({**lock, "extra": 1}, {**lock, "format": 2},
            {**lock, "platforms": {}}):
    try:
        jsonschema.validate(bad, schema)
    except jsonschema.ValidationError:
        continue
    sys.exit("schema accepted %r" % bad)
PY
}

@test "bash: the prompt hook follows the lock, also when it is rewritten in place" {
	cudnnvm lock
	cudnnvm install
	publish_947
	cudnnvm install 9.12.0.47
	cp cudnnvm.lock "$T/lock46"
	cudnnvm lock --upgrade
	mv cudnnvm.lock "$T/lock47"
	cp "$T/lock46" cudnnvm.lock
	sleep 0.05
	run bash --norc --noprofile -i <<SH
eval "\$($CUDNNVM_BIN init bash)"
echo "a: \$CUDNNVM_ACTIVE"
cat "$T/lock47" >cudnnvm.lock
echo "b: \$CUDNNVM_ACTIVE"
SH
	[[ $output == *"a: 9.12.0.46-cuda12"* ]]
	[[ $output == *"b: 9.12.0.47-cuda12"* ]]
}

@test "lock, lock --check and use print a project path with terminal escapes escaped (H12)" {
	p="$T/p$(printf '\033')]0;pwned$(printf '\007')x"
	mkdir -p "$p" && cd "$p"
	echo 9.12 >.cudnn-version
	for cmd in lock "lock --check" "use 9.12"; do
		run --separate-stderr cudnnvm $cmd
		echo "$cmd: $status"
		[ "$status" -eq 0 ]
		[[ $output != *$'\033'* && $output != *$'\007'* ]]
		[[ $stderr != *$'\033'* && $stderr != *$'\007'* ]]
	done
	[[ $(cudnnvm lock --check) == *'\033]0;pwned\007x'* || $(cudnnvm lock --check) == *'\x1b]0;pwned\x07x'* ]]
}

@test "two lock --platform runs at once both land: the read-modify-write is held (H17)" {
	for i in 1 2 3 4 5; do
		rm -f cudnnvm.lock
		cudnnvm -q lock
		cudnnvm -q lock --platform linux-sbsa &
		a=$!
		cudnnvm -q lock --platform windows-x86_64 &
		b=$!
		wait $a
		wait $b
		[ "$(lock_field "sorted(l['platforms'])")" = "['linux-sbsa', 'linux-x86_64', 'windows-x86_64']" ]
	done
}
