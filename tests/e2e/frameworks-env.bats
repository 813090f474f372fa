#!/usr/bin/env bats
# frameworks_env: every way a framework's interpreter starts gets the
# version that fits it or one line of reason: env and the prompt hook warn
# (and say once that the framework binds its own front library without the
# .pth hook), a checked venv pin wins over a pin file or global default its
# framework cannot load, and an unactivated ./.venv is found as uv finds it.
load activation

MK="$FIXTURES/mkpyenv.py"

setup() {
	activation_setup
	export T
	unset VIRTUAL_ENV CONDA_PREFIX LD_PRELOAD LD_LIBRARY_PATH CUDNNVM_ACTIVE _CUDNNVM_FW_SAID
	mkver 9.14.0.64-cuda13
	mkver 9.19.0.56-cuda13
}

mkenv() { python3 "$MK" "$@"; }

# a venv layout whose `cudnnvm venv` works: pyvenv.cfg, bin/activate and
# a python3 (the real one, linked)
mkvenv() {
	local d=$1
	shift
	mkenv "$d" "$@" >/dev/null
	mkdir -p "$d/bin"
	printf 'deactivate () {\n    unset VIRTUAL_ENV\n}\nVIRTUAL_ENV=%s\nexport VIRTUAL_ENV\n' "$d" >"$d/bin/activate"
	ln -sf "$(command -v python3)" "$d/bin/python3"
}

@test "env warns on stderr when torch cannot load the version, with the env command that fits, and still prints the script" {
	mkvenv "$T/ve" torch-2.11.0
	export VIRTUAL_ENV="$T/ve"
	run --separate-stderr cudnnvm env --shell bash 9.14
	[ "$status" -eq 0 ]
	[[ $output == *"export CUDNNVM_ACTIVE='9.14.0.64-cuda13'"* ]]
	echo "$stderr"
	[ "$stderr" = "cudnnvm: warning: 9.14.0.64-cuda13 is active but torch 2.11.0 ($T/ve) needs cuDNN 9.x ≥ 9.19 built for CUDA 13
hint: eval \"\$(cudnnvm env 9.19)\"" ]
	# the hint works as printed, and what fits is silent (no bundled copy)
	run --separate-stderr bash -c 'eval "$(cudnnvm env 9.19)" && echo "$CUDNNVM_ACTIVE"'
	[ "$status" -eq 0 ]
	[ "$output" = 9.19.0.56-cuda13 ]
	[ -z "$stderr" ]
	# no framework: nothing said
	mkvenv "$T/plain"
	VIRTUAL_ENV="$T/plain" run --separate-stderr cudnnvm env --shell bash 9.14
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "env and the hook say once per environment that torch binds its own front library without the .pth hook" {
	mkvenv "$T/ve" torch-2.11.0 --bundled 13:9.19.0.56
	sp=$(echo "$T"/ve/lib/python3*/site-packages)
	export VIRTUAL_ENV="$T/ve"
	note="cudnnvm: warning: torch 2.11.0 ($T/ve) loads its own cuDNN front library from $sp/nvidia/cudnn/lib before 9.19.0.56-cuda13's, and mixes the two: an activation by env or the shell hook alone cannot change that; 'cudnnvm venv' makes the environment bind the version it pins
hint: cudnnvm venv 9.19 --path '$T/ve'"
	run --separate-stderr cudnnvm env --shell bash 9.19
	[ "$status" -eq 0 ]
	echo "$stderr"
	[ "$stderr" = "$note" ]
	[[ $output == *"export _CUDNNVM_FW_SAID='$T/ve'"* ]]
	# once: the script remembers it, a second env in that shell is silent
	run bash -c 'eval "$(cudnnvm env 9.19 2>/dev/null)"; cudnnvm env 9.19 2>&1 >/dev/null'
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# the prompt hook: the same note on the switch, remembered the same way
	CUDNNVM_VERSION=9.19 run --separate-stderr cudnnvm hook-env --shell bash
	[ "$status" -eq 0 ]
	[ "$stderr" = "$note" ]
	[[ $output == *"export _CUDNNVM_FW_SAID='$T/ve'"* ]]
	_CUDNNVM_FW_SAID="$T/ve" CUDNNVM_VERSION=9.19 run --separate-stderr cudnnvm hook-env --shell bash
	[ -z "$stderr" ]
	# the hint works as printed; with the .pth hook there is nothing to say
	run cudnnvm venv 9.19 --path "$T/ve"
	[ "$status" -eq 0 ]
	[ -e "$sp/cudnnvm.pth" ]
	run --separate-stderr cudnnvm env --shell bash 9.19
	[ -z "$stderr" ]
	[[ $output != *_CUDNNVM_FW_SAID* ]]
}

@test "the prompt hook on a bash prompt: one warning on the switch, none at the next prompts" {
	mkvenv "$T/ve" torch-2.11.0
	mkdir -p "$T/p"
	echo 9.14 >"$T/p/.cudnn-version"
	run bash -c '
		export VIRTUAL_ENV="'"$T/ve"'"
		eval "$(cudnnvm init bash)"
		cd "'"$T/p"'"
		for i in 1 2 3; do eval "$PROMPT_COMMAND"; done 2>&1
		echo "active=$CUDNNVM_ACTIVE"'
	[ "$status" -eq 0 ]
	[ "$(grep -c "warning: 9.14.0.64-cuda13 is active but torch 2.11.0" <<<"$output")" -eq 1 ]
	[[ $output == *"hint: cudnnvm use 9.19"* ]]
	[[ $output == *"active=9.14.0.64-cuda13"* ]]
}

@test "an unactivated .venv of the folder or a parent is the environment of frameworks, use and venv" {
	mkvenv "$T/proj/.venv" torch-2.11.0
	mkdir -p "$T/proj/src/deep"
	cd "$T/proj/src/deep"
	run cudnnvm frameworks
	[[ $output == *"environment: $T/proj/.venv (.venv, not activated)"* ]]
	[[ $output == *"torch 2.11.0"* ]]
	run --separate-stderr cudnnvm use 9.14
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "cudnnvm: not activating 9.14.0.64-cuda13: torch 2.11.0 ($T/proj/.venv) needs cuDNN 9.x ≥ 9.19 built for CUDA 13" ]
	[ ! -e .cudnn-version ]
	run --separate-stderr cudnnvm venv 9.19
	[ "$status" -eq 0 ]
	[ -e "$T/proj/.venv/bin/activate" ]
	[ "$(bash -c '. "$T/proj/.venv/bin/activate"; echo "$CUDNNVM_VERSION"')" = 9.19.0.56-cuda13 ]
	# an activated environment still comes first
	mkvenv "$T/other"
	VIRTUAL_ENV="$T/other" run cudnnvm frameworks
	[[ $output == *"environment: $T/other (\$VIRTUAL_ENV)"* ]]
	# a folder with no .venv above it: venv needs --path, as before
	cd "$T"
	rm -rf "$T/proj"
	PATH=/usr/bin:/bin run --separate-stderr "$CUDNNVM_BIN" venv 9.19
	[ "$status" -eq 64 ]
	[[ $stderr == *"no virtualenv or conda env is active; pass --path DIR"* ]]
}

@test "a checked venv pin wins over a pin file or global default its torch cannot load; CUDNNVM_VERSION and exec's spec are never passed over" {
	mkvenv "$T/proj/.venv" torch-2.11.0
	cudnnvm venv 9.19 --path "$T/proj/.venv"
	echo 9.14 >"$T/proj/.cudnn-version"
	cd "$T/proj"
	run --separate-stderr cudnnvm current
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "9.19.0.56-cuda13 (pinned to $T/proj/.venv with 'cudnnvm venv'; 9.14.0.64-cuda13 of $T/proj/.cudnn-version is passed over: torch 2.11.0 ($T/proj/.venv) needs cuDNN 9.x ≥ 9.19 built for CUDA 13)" ]
	run cudnnvm current --json
	[ "$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["id"], d["venv"], d["passed_over"])' "$output")" = "9.19.0.56-cuda13 $T/proj/.venv 9.14.0.64-cuda13" ]
	# env and the hook: that version, with one warning
	warn="cudnnvm: warning: 9.14.0.64-cuda13 (set by $T/proj/.cudnn-version) is passed over: torch 2.11.0 ($T/proj/.venv) needs cuDNN 9.x ≥ 9.19 built for CUDA 13; using 9.19.0.56-cuda13, pinned to that environment with 'cudnnvm venv'"
	run --separate-stderr cudnnvm env --shell bash
	[ "$status" -eq 0 ]
	[[ $output == *"export CUDNNVM_ACTIVE='9.19.0.56-cuda13'"* ]]
	[ "$stderr" = "$warn" ]
	run --separate-stderr cudnnvm hook-env --shell bash
	[[ $output == *"export CUDNNVM_ACTIVE='9.19.0.56-cuda13'"* ]]
	[ "$stderr" = "$warn" ]
	CUDNNVM_ACTIVE=9.19.0.56-cuda13 run --separate-stderr cudnnvm hook-env --shell bash
	[ -z "$stderr" ]
	# exec without a spec runs the interpreter under the pin
	run --separate-stderr cudnnvm exec -- .venv/bin/python3 -c 'import os; print(os.environ["CUDNNVM_ACTIVE"])'
	[ "$status" -eq 0 ]
	[ "$output" = 9.19.0.56-cuda13 ]
	# the global default is passed over the same way
	rm .cudnn-version
	cudnnvm global --force 9.14
	run cudnnvm current
	[[ $output == "9.19.0.56-cuda13 (pinned to $T/proj/.venv with 'cudnnvm venv'; the global default 9.14.0.64-cuda13 is passed over: "* ]]
	# explicit choices stand
	CUDNNVM_VERSION=9.14 run cudnnvm current
	[[ $output == "9.14.0.64-cuda13 (set by CUDNNVM_VERSION=9.14)" ]]
	run --separate-stderr cudnnvm exec 9.14 -- .venv/bin/python3 -c pass
	[ "$status" -eq 1 ]
	# a pin file torch loads is kept
	echo 9.19 >.cudnn-version
	cudnnvm venv --force 9.14 --path "$T/proj/.venv"
	run cudnnvm current
	[ "$output" = "9.19.0.56-cuda13 (set by $T/proj/.cudnn-version)" ]
	# a pin forced past the gate is no better than what it would replace
	echo 9.14 >.cudnn-version
	run cudnnvm current
	[ "$output" = "9.14.0.64-cuda13 (set by $T/proj/.cudnn-version)" ]
	# a FIFO in place of the activate script is passed over, never waited on
	rm "$T/proj/.venv/bin/activate"
	mkfifo "$T/proj/.venv/bin/activate"
	run timeout 10 cudnnvm current
	[ "$status" -eq 0 ]
	[ "$output" = "9.14.0.64-cuda13 (set by $T/proj/.cudnn-version)" ]
}

@test "another user's .venv in a parent folder (a shared /tmp) is passed over: it blocks neither use nor global (H14)" {
	mkvenv "$T/shared/.venv" torch-2.11.0
	chown -R 4242 "$T/shared/.venv"
	mkdir -p "$T/shared/proj"
	cd "$T/shared/proj"
	run --separate-stderr cudnnvm use 9.14
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(cat .cudnn-version)" = 9.14 ]
	[[ $stderr == *"passing over $T/shared/.venv: it belongs to another user (uid 4242)"* ]]
	run --separate-stderr cudnnvm global 9.14
	[ "$status" -eq 0 ]
	run --separate-stderr cudnnvm current
	[[ $output == "9.14.0.64-cuda13 "* ]]
	[[ $output != *"passed over"* ]]
}

@test "a venv re-pin killed after any of its writes reads as one version, for current and for Python's import of the hook (H22)" {
	mkver 9.20.0.48-cuda13
	# a real venv: its interpreter runs the hook's .pth line
	mkenv "$T/proj/.venv" --venv torch-2.11.0 >/dev/null
	echo 9.14 >"$T/proj/.cudnn-version"
	cd "$T/proj"
	for step in venv-scripts-written venv-module-written venv-finder-written; do
		cudnnvm venv 9.19 --path "$T/proj/.venv"
		rm -f "$T/parked"
		CUDNNVM_TEST_CHECKPOINT=$step CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
			cudnnvm venv 9.20 --path "$T/proj/.venv" &
		pid=$!
		wait_for_file "$T/parked"
		kill -9 "$pid"
		wait "$pid" || true
		cur=$(cudnnvm current --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
		# what the interpreter's hook pins: its .pth line run, its module
		py=$(.venv/bin/python3 -c 'import sys
if "_cudnnvm_finder" not in sys.modules:
    print("none")
else:
    import importlib.util as u
    f = sys.modules["_cudnnvm_finder"].__file__.rpartition("/")[0]
    s = u.spec_from_file_location("m", f + "/_cudnnvm_preload.py")
    src = open(s.origin).read().split("\nSTORE, PINNED")[0]
    g = {}
    exec(src, g)
    print(g["PINS"][0][1])')
		echo "$step: current $cur, python $py"
		[ "$cur" = "$py" ]
		[[ $cur == 9.19.0.56-cuda13 || $cur == 9.20.0.48-cuda13 ]]
	done
	# --remove takes the hook out first (its .pth line first), the
	# activate blocks last: killed between, the venv is pinned to nothing
	# for both, and the blocks left read no pin
	cudnnvm venv 9.19 --path "$T/proj/.venv"
	rm -f "$T/parked"
	CUDNNVM_TEST_CHECKPOINT=venv-hook-removed CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		cudnnvm venv --remove --path "$T/proj/.venv" &
	pid=$!
	wait_for_file "$T/parked"
	kill -9 "$pid"
	wait "$pid" || true
	run cudnnvm current --json
	[ "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])' <<<"$output")" = 9.14.0.64-cuda13 ]
	[ ! -e "$(echo .venv/lib/python3*/site-packages)/cudnnvm.pth" ]
	grep -q '>>> cudnnvm >>>' .venv/bin/activate
	[ "$(bash -c '. .venv/bin/activate; echo "${CUDNNVM_VERSION-none}"')" = none ]
}

# activated: what CUDNNVM_VERSION an activated bash, fish and tcsh take
# from the venv's activate scripts, one line each ("none" when unset)
activated() {
	printf 'set prompt = ""\nsource .venv/bin/activate.csh\nif ($?CUDNNVM_VERSION) then\necho "tcsh $CUDNNVM_VERSION"\nelse\necho "tcsh none"\nendif\n' >"$T/act.csh"
	bash -c '. .venv/bin/activate; echo "bash ${CUDNNVM_VERSION-none}"'
	fish -c 'source .venv/bin/activate.fish; set -q CUDNNVM_VERSION; and echo "fish $CUDNNVM_VERSION"; or echo "fish none"'
	tcsh -f "$T/act.csh"
}

@test "a venv pin killed between its activate scripts reads as one version in bash, fish and tcsh, for current and for Python (H24)" {
	command -v fish >/dev/null && command -v tcsh >/dev/null || skip "fish and tcsh are not installed"
	mkver 9.20.0.48-cuda13
	mkenv "$T/proj/.venv" --venv torch-2.11.0 >/dev/null
	echo 9.14 >"$T/proj/.cudnn-version"
	cd "$T/proj"
	# the first pin killed before the hook: no shell takes a version
	CUDNNVM_TEST_CHECKPOINT=venv-activate-written CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
		cudnnvm venv 9.19 --path "$T/proj/.venv" &
	pid=$!
	wait_for_file "$T/parked"
	kill -9 "$pid"
	wait "$pid" || true
	[ "$(activated | sort -u | cut -d' ' -f2 | sort -u)" = none ]
	for step in venv-activate-written venv-scripts-written venv-module-written venv-finder-written; do
		cudnnvm venv 9.19 --path "$T/proj/.venv"
		rm -f "$T/parked"
		CUDNNVM_TEST_CHECKPOINT=$step CUDNNVM_TEST_CHECKPOINT_FILE="$T/parked" \
			cudnnvm venv 9.20 --path "$T/proj/.venv" &
		pid=$!
		wait_for_file "$T/parked"
		kill -9 "$pid"
		wait "$pid" || true
		cur=$(cudnnvm current --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
		out=$(activated)
		echo "$step: current $cur; $out" | tr '\n' ' '
		echo
		[ "$(cut -d' ' -f2 <<<"$out" | sort -u)" = "$cur" ]
		[ "$(wc -l <<<"$out")" -eq 3 ]
		[[ $cur == 9.19.0.56-cuda13 || $cur == 9.20.0.48-cuda13 ]]
	done
	# done: every shell takes the new pin
	cudnnvm venv 9.20 --path "$T/proj/.venv"
	[ "$(activated | cut -d' ' -f2 | sort -u)" = 9.20.0.48-cuda13 ]
}
