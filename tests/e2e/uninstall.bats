#!/usr/bin/env bats
# uninstall <spec> [--force]: under the version lock, atomically; refuses
# the global default without --force and never leaves current dangling.
load helper

setup() {
	common_setup
	for v in 9.1.0.70 9.2.0.82; do
		read -r arch sha < <(python3 "$FIXTURES/mkarchive.py" nvidia --version "$v" --cuda 12 --out "$T/a" |
			python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
		cudnnvm -q install --no-validate --archive "$arch" --sha256 "$sha"
	done
}

teardown() {
	[ -z "${pid:-}" ] || kill "$pid" 2>/dev/null || true
}

@test "uninstall removes a version and nothing else" {
	run cudnnvm uninstall 9.1.0.70
	[ "$status" -eq 0 ]
	[ "$output" = "uninstalled cuDNN 9.1.0.70-cuda12" ]
	[ ! -e "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
	[ -d "$CUDNNVM_STORE/9.2.0.82-cuda12" ]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]
	run cudnnvm list
	[ "${#lines[@]}" -eq 1 ]
}

@test "uninstall of something not installed is exit 1; a bad spec is 64" {
	run cudnnvm uninstall 7.6
	[ "$status" -eq 1 ]
	[[ "$output" == "cudnnvm: no installed cuDNN matches '7.6'"* ]]
	run cudnnvm uninstall '../../etc'
	[ "$status" -eq 64 ]
	run cudnnvm uninstall
	[ "$status" -eq 64 ]
}

@test "an ambiguous spec is refused (exit 64)" {
	run --separate-stderr cudnnvm uninstall 9
	[ "$status" -eq 64 ]
	[[ "$stderr" == *"matches 2 installed versions: 9.2.0.82-cuda12, 9.1.0.70-cuda12"* ]]
	[[ "$stderr" == *"hint: cudnnvm uninstall 9.2.0.82-cuda12"*"hint: cudnnvm uninstall 9.1.0.70-cuda12"* ]]
	[ -d "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
	[ -d "$CUDNNVM_STORE/9.2.0.82-cuda12" ]
}

@test "the global default is refused without --force; --force removes it and current" {
	ln -s 9.1.0.70-cuda12 "$CUDNNVM_STORE/current"
	before=$(store_snapshot)
	run cudnnvm uninstall 9.1.0.70-cuda12
	[ "$status" -eq 1 ]
	[[ "$output" == *"is the global default"*"--force"* ]]
	[ "$(store_snapshot)" = "$before" ]
	run cudnnvm uninstall --force 9.1.0.70-cuda12
	[ "$status" -eq 0 ]
	[ ! -e "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
	[ ! -L "$CUDNNVM_STORE/current" ]
}

@test "uninstall says it was the global default and names the pin and the environment that named it" {
	mkdir -p proj/.venv/bin && cd proj
	# a pin another build still matches: what it gives now
	echo 9 >.cudnn-version
	run --separate-stderr cudnnvm uninstall --force 9.2.0.82
	[ "$status" -eq 0 ]
	[[ $stderr == *"$T/proj/.cudnn-version ('9') named it; it gives 9.1.0.70-cuda12 now"* ]]
	[[ $stderr != *"global"* ]]
	cudnnvm -q global --no-validate 9.1.0.70
	echo 9.1 >.cudnn-version
	printf '# >>> cudnnvm >>>\nCUDNNVM_VERSION=9.1.0.70-cuda12; export CUDNNVM_VERSION\n# <<< cudnnvm <<<\n' >.venv/bin/activate
	run --separate-stderr cudnnvm uninstall --force 9.1.0.70
	[ "$status" -eq 0 ]
	[ "$output" = "uninstalled cuDNN 9.1.0.70-cuda12" ]
	[[ $stderr == *"it was the global default; none is set now"* ]]
	[[ $stderr == *"$T/proj/.cudnn-version ('9.1') named it, and no installed version matches it now; fix: cudnnvm install 9.1"* ]]
	[[ $stderr == *"the environment $T/proj/.venv is pinned to it; fix: cudnnvm venv --remove --path '$T/proj/.venv'"* ]]
}

@test "the hint of a refused global default switches to another build, then removes it" {
	ln -s 9.1.0.70-cuda12 "$CUDNNVM_STORE/current"
	run --separate-stderr cudnnvm uninstall 9.1.0.70-cuda12
	[ "$status" -eq 1 ]
	hint=$(sed -n 's/^hint: //p' <<<"$stderr")
	[ "$hint" = "cudnnvm global 9.2.0.82-cuda12 && cudnnvm uninstall 9.1.0.70-cuda12" ]
	# these archives hold no loadable library: activation skips validation
	mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
	printf '[install]\nvalidate = no\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run bash -c "$hint"
	[ "$status" -eq 0 ]
	[ ! -e "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
	[ "$(readlink "$CUDNNVM_STORE/current")" = 9.2.0.82-cuda12 ]
}

@test "the active version (CUDNNVM_VERSION) is refused without --force" {
	CUDNNVM_VERSION=9.2 run cudnnvm uninstall 9.2.0.82
	[ "$status" -eq 1 ]
	[[ "$output" == *"active version"* ]]
	[ -d "$CUDNNVM_STORE/9.2.0.82-cuda12" ]
}

@test "uninstall waits on the version lock (an install in progress)" {
	read -r arch sha < <(python3 "$FIXTURES/mkarchive.py" nvidia --version 9.1.0.70 --cuda 12 --out "$T/a" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
	CUDNNVM_TEST_CHECKPOINT=after-lock CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		cudnnvm install --no-validate --force --archive "$arch" --sha256 "$sha" 3>&- &
	pid=$!
	wait_for_file "$T/parked"
	cudnnvm uninstall 9.1.0.70 >"$T/u.out" 2>&1 3>&- &
	u=$!
	sleep 0.3
	# still there: the uninstall is blocked behind the install's lock
	[ -d "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
	kill -9 "$pid"
	wait "$pid" || true
	wait "$u"
	[ ! -e "$CUDNNVM_STORE/9.1.0.70-cuda12" ]
}

# A running program that maps a library of a version: removing or replacing
# the version under it is refused, naming the process, unless
# --even-if-in-use says so.
@test "uninstall and install --force refuse a version a running process maps" {
	stubs="$BATS_TEST_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$stubs" >/dev/null
	read -r arch sha < <(python3 "$FIXTURES/mkarchive.py" nvidia --version 9.3.0.1 --cuda 12 \
		--extra-lib "$stubs/v9/lib/libcudnn.so.9" --out "$T/a" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["path"], d["sha256"])')
	cudnnvm -q install --no-validate --archive "$arch" --sha256 "$sha"
	lib="$CUDNNVM_STORE/9.3.0.1-cuda12/lib/libcudnn.so.9"
	python3 -c 'import ctypes, sys, time
ctypes.CDLL(sys.argv[1])
open(sys.argv[2], "w").close()
time.sleep(120)' "$lib" "$T/ready" 3>&- &
	pid=$!
	wait_for_file "$T/ready"
	grep -q "9.3.0.1-cuda12/lib/libcudnn.so" "/proc/$pid/maps"

	run cudnnvm uninstall 9.3.0.1
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cudnnvm: cuDNN 9.3.0.1-cuda12 is in use by pid $pid (python3)"* ]]
	[[ "$output" == *"No such file or directory"* ]]
	[[ "$output" == *"--even-if-in-use"* ]]
	[ -f "$lib" ]

	run cudnnvm install --force --no-validate --archive "$arch" --sha256 "$sha"
	[ "$status" -eq 1 ]
	[[ "$output" == *"in use by pid $pid (python3)"* ]]
	[ -z "$(ls -A "$CUDNNVM_STORE/.staging")" ]

	ino=$(stat -L -c %i "$lib")
	run cudnnvm install --force --even-if-in-use --no-validate --archive "$arch" --sha256 "$sha"
	[ "$status" -eq 0 ]
	[ "$(stat -L -c %i "$lib")" != "$ino" ]
	run cudnnvm uninstall --even-if-in-use 9.3.0.1
	[ "$status" -eq 0 ]
	[ ! -e "$CUDNNVM_STORE/9.3.0.1-cuda12" ]
	kill "$pid"
}

@test "uninstall of a version nothing maps needs no flag" {
	sleep 60 3>&- &
	pid=$!
	run cudnnvm uninstall 9.1.0.70
	[ "$status" -eq 0 ]
	kill "$pid"
}
