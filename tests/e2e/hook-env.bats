#!/usr/bin/env bats
# The prompt hook in real interactive bash and zsh, and fish's prompt event:
# entering and leaving projects, nested pins, .tool-versions, `shell`
# overriding a pin, and no process at an unchanged prompt.
load activation

setup() {
	activation_setup
	export T
	cudnnvm -q global 8
	# a cudnnvm on PATH that logs each start, to count processes; the log
	# (and the shells' stderr) live in a folder of their own, since creating
	# a file in $T would change a folder the hook watches (every parent of
	# the working folder)
	mkdir -p "$T/logbin" "$T/log"
	cat >"$T/logbin/cudnnvm" <<SH
#!/bin/sh
echo "\$*" >>"$T/log/runs"
exec "$CUDNNVM_BIN" "\$@"
SH
	chmod +x "$T/logbin/cudnnvm"
	export PATH="$T/logbin:$PATH"
	mkdir -p proj/sub other
	echo 9.1 >proj/.cudnn-version
	unset LD_LIBRARY_PATH CPATH LIBRARY_PATH CUDNN_HOME
	export LD_LIBRARY_PATH=/usr/local/lib
	# The hook re-checks once after a change made within 10 ms of its run
	# (file clocks are coarse); let the set-up's changes age past that so
	# the process counts below measure the hook, not the set-up.
	sleep 0.05
}

# Run an interactive shell on a script; the hook runs before each prompt.
ibash() { bash --norc --noprofile -i 2>"$T/log/err"; }
izsh() { zsh -f -i 2>"$T/log/err"; }

runs() { [ -f "$T/log/runs" ] && grep -c hook-env "$T/log/runs" || echo 0; }

# The hook calls cudnnvm by its absolute path; to count its runs, the
# process-counting tests point it at the logging wrapper instead.
logged_init() {
	local real
	real=$(readlink -f "$CUDNNVM_BIN")
	command cudnnvm init "$1" | sed "s|$real|$T/logbin/cudnnvm|g"
}

@test "bash: entering a pinned project sets the version, leaving restores exactly" {
	run ibash <<'SH'
eval "$(cudnnvm init bash)"
env | grep -v -e '^_=' -e '^PWD=' -e '^OLDPWD=' -e '^_CUDNNVM' | LC_ALL=C sort >"$T/before"
cd proj
echo "in: $CUDNNVM_ACTIVE $LD_LIBRARY_PATH"
cd sub
echo "sub: $CUDNNVM_ACTIVE"
cd ../..
env | grep -v -e '^_=' -e '^PWD=' -e '^OLDPWD=' -e '^_CUDNNVM' | LC_ALL=C sort >"$T/after"
echo "out: $CUDNNVM_ACTIVE"
SH
	[[ $output == *"in: $A $CUDNNVM_STORE/$A/lib:/usr/local/lib"* ]]
	[[ $output == *"sub: $A"* ]]
	[[ $output == *"out: $C"* ]]
	diff "$T/before" "$T/after"
}

@test "bash: leaving to a folder with nothing active restores the user's environment" {
	cudnnvm -q global --unset
	export CUDNN_HOME=/my/own
	run ibash <<'SH'
eval "$(cudnnvm init bash)"
echo "start: ${CUDNNVM_ACTIVE-none} $CUDNN_HOME $LD_LIBRARY_PATH ${CPATH-unset}"
cd proj
echo "in: $CUDNNVM_ACTIVE $CUDNN_HOME"
cd ..
echo "out: ${CUDNNVM_ACTIVE-none} $CUDNN_HOME $LD_LIBRARY_PATH ${CPATH-unset} ${CUDNNVM_SAVED_CUDNN_HOME-gone}"
SH
	[[ $output == *"start: none /my/own /usr/local/lib unset"* ]]
	[[ $output == *"in: $A $CUDNNVM_STORE/$A"* ]]
	[[ $output == *"out: none /my/own /usr/local/lib unset gone"* ]]
}

@test "bash: an unchanged prompt starts no process" {
	logged_init bash >"$T/log/init"
	run ibash <<'SH'
source "$T/log/init"
cd proj
sleep 0.05
:
echo unchanged-from >>"$T/log/runs"
:
:
echo unchanged-to >>"$T/log/runs"
echo done
SH
	# prompts where nothing changed start no process at all
	[ "$(sed -n '/^unchanged-from$/,/^unchanged-to$/p' "$T/log/runs" | grep -c hook-env)" -eq 0 ]
	# init, then entering proj; and at most one more: the prompt after a
	# run that began within 10 ms of a change to a watched file checks
	# again (cv_hook_stamp_settle), as in the zsh test below
	n1=$(runs)
	[ "$n1" -ge 2 ] && [ "$n1" -le 3 ]
}

@test "bash: pin edits, a new nearer pin and a global switch are seen at the next prompt" {
	run ibash <<'SH'
eval "$(cudnnvm init bash)"
cd proj/sub
echo "a: $CUDNNVM_ACTIVE"
echo 9.13 >../.cudnn-version
echo "b: $CUDNNVM_ACTIVE"
echo 8 >.cudnn-version
echo "c: $CUDNNVM_ACTIVE"
rm .cudnn-version ../.cudnn-version
echo "d: $CUDNNVM_ACTIVE"
command cudnnvm -q global 9.13
echo "e: $CUDNNVM_ACTIVE"
SH
	[[ $output == *"a: $A"* ]]
	[[ $output == *"b: $B"* ]]
	[[ $output == *"c: $C"* ]]
	[[ $output == *"d: $C"* ]]
	[[ $output == *"e: $B"* ]]
}

@test "bash: nested projects and .tool-versions" {
	mkdir -p proj/sub/tv
	printf 'nodejs 20\ncudnn 9.13\n' >proj/sub/tv/.tool-versions
	run ibash <<'SH'
eval "$(cudnnvm init bash)"
cd proj/sub/tv
echo "tv: $CUDNNVM_ACTIVE"
cd ..
echo "up: $CUDNNVM_ACTIVE"
SH
	[[ $output == *"tv: $B"* ]]
	[[ $output == *"up: $A"* ]]
}

@test "bash: cudnnvm shell overrides a pin until --unset" {
	run ibash <<'SH'
eval "$(cudnnvm init bash)"
cd proj
cudnnvm shell 9.13
echo "shell: $CUDNNVM_ACTIVE $CUDNNVM_VERSION"
cd sub
echo "still: $CUDNNVM_ACTIVE"
cudnnvm shell --unset
echo "unset: $CUDNNVM_ACTIVE ${CUDNNVM_VERSION-none}"
cudnnvm shell 7 || echo "refused $?"
echo "kept: $CUDNNVM_ACTIVE"
SH
	[[ $output == *"shell: $B 9.13"* ]]
	[[ $output == *"still: $B"* ]]
	[[ $output == *"unset: $A none"* ]]
	[[ $output == *"refused 1"* ]]
	[[ $output == *"kept: $A"* ]]
}

@test "bash: a bad pin is one line at the next prompt and no version stays applied" {
	echo /etc/passwd >other/.cudnn-version
	run ibash <<'SH'
eval "$(cudnnvm init bash)"
cd proj
cd ../other
echo "bad: ${CUDNNVM_ACTIVE-none} $LD_LIBRARY_PATH"
:
SH
	[[ $output == *"bad: none /usr/local/lib"* ]]
	[ "$(grep -c '^cudnnvm: ' "$T/log/err")" -eq 1 ]
	grep -q "path or URL" "$T/log/err"
}

@test "bash: a store path with spaces, quotes and \$" {
	S="$T/my st'ore \$x"
	mkdir -p "$S"
	mkver "$A" linux-x86_64 "$S"
	export CUDNNVM_STORE="$S"
	run ibash <<'SH'
eval "$(cudnnvm init bash)"
cd proj
printf 'home=[%s]\n' "$CUDNN_HOME"
SH
	[[ $output == *"home=[$S/$A]"* ]]
}

@test "zsh: enter, nested, shell override, leave, and no process at an unchanged prompt" {
	logged_init zsh >"$T/log/init"
	run izsh <<'SH'
source "$T/log/init"
cd proj
echo "in: $CUDNNVM_ACTIVE $LD_LIBRARY_PATH"
:
echo unchanged-from >>"$T/log/runs"
:
:
echo unchanged-to >>"$T/log/runs"
cudnnvm shell 9.13
echo "shell: $CUDNNVM_ACTIVE"
cudnnvm shell --unset
cd ..
echo "out: $CUDNNVM_ACTIVE $LD_LIBRARY_PATH"
SH
	[[ $output == *"in: $A $CUDNNVM_STORE/$A/lib:/usr/local/lib"* ]]
	[[ $output == *"shell: $B"* ]]
	[[ $output == *"out: $C $CUDNNVM_STORE/$C/lib:/usr/local/lib"* ]]
	# prompts where nothing changed start no process at all
	[ "$(sed -n '/^unchanged-from$/,/^unchanged-to$/p' "$T/log/runs" | grep -c hook-env)" -eq 0 ]
	# init, cd proj, shell, shell --unset (+ its hook), cd ..; and at most
	# one more after each of the four changes: the prompt after a run that
	# began within 10 ms of a change to a watched file checks again
	# (cv_hook_stamp_settle), as a file's time comes from a coarser clock
	# than the run's start, and on a loaded machine any of them may. A
	# hook that ran at every one of the 13 prompts fails this.
	[ "$(runs)" -le 9 ]
}

@test "fish: the prompt event applies pins, shell overrides, leaving restores" {
	run fish --no-config -c '
cudnnvm init fish | source
cd proj; emit fish_prompt
echo "in: $CUDNNVM_ACTIVE $LD_LIBRARY_PATH"
emit fish_prompt
cudnnvm shell 9.13
echo "shell: $CUDNNVM_ACTIVE"
cudnnvm shell --unset
cd ..; emit fish_prompt
echo "out: $CUDNNVM_ACTIVE"
cudnnvm global --unset -q
emit fish_prompt
echo "none: $CUDNNVM_ACTIVE $LD_LIBRARY_PATH"'
	[[ $output == *"in: $A $CUDNNVM_STORE/$A/lib:/usr/local/lib"* ]]
	[[ $output == *"shell: $B"* ]]
	[[ $output == *"out: $C"* ]]
	[[ $output == *"none:  /usr/local/lib"* ]]
}

@test "init for a shell without a prompt hook is a usage error" {
	run --separate-stderr cudnnvm init dash
	[ "$status" -eq 64 ]
	one_error_line
	run --separate-stderr cudnnvm init ksh
	[ "$status" -eq 64 ]
	one_error_line
	[ -z "$output" ]
	# no name, and a parent that is no shell (bats's bash would be one:
	# init then prints its integration, as meta.bats checks)
	run --separate-stderr python3 -c 'import subprocess, sys; sys.exit(subprocess.run(["cudnnvm", "init"]).returncode)'
	[ "$status" -eq 64 ]
	one_error_line
	run cudnnvm init powershell
	[ "$status" -eq 0 ]
	[[ $output == *"hook-env --shell powershell"* ]]
}

@test "bash: a store made after the shell started is seen at the next prompt" {
	export CUDNNVM_STORE="$T/later/store"
	mkdir -p "$T/later"
	run ibash <<'SH'
eval "$(cudnnvm init bash)"
echo "before: ${CUDNNVM_ACTIVE-none}"
cp -a "$T/store" "$T/later/store"
echo "after: ${CUDNNVM_ACTIVE-none}"
SH
	[[ $output == *"before: none"* ]]
	[[ $output == *"after: $C"* ]]
}

@test "bash: keeps the user's PROMPT_COMMAND and \$?, works under set -u, init twice adds one hook" {
	run ibash <<'SH'
set -u
PROMPT_COMMAND='echo "pc saw $?"'
eval "$(cudnnvm init bash)"
eval "$(cudnnvm init bash)"
echo "pcmd: $PROMPT_COMMAND"
cd proj
(exit 3)
echo "in: $CUDNNVM_ACTIVE"
SH
	[[ $output == *"pcmd: _cudnnvm_hook;echo"* ]]
	[[ $output != *"_cudnnvm_hook;_cudnnvm_hook"* ]]
	[[ $output == *"pc saw 3"* ]]
	[[ $output == *"in: $A"* ]]
	run ! grep -q "unbound variable" "$T/log/err"
}

@test "hook-env is silent with nothing active, and names a bad or missing pin" {
	cudnnvm -q global --unset
	mkdir -p none bad missing
	echo ../x >bad/.cudnn-version
	echo 7.0 >missing/.cudnn-version
	cd none
	run --separate-stderr cudnnvm hook-env --shell bash
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ $output == *_CUDNNVM_WATCH=* ]]
	for d in bad missing; do
		cd "../$d"
		run --separate-stderr cudnnvm hook-env --shell bash
		[ "$status" -ne 0 ]
		one_error_line
		[[ $stderr == *"$d/.cudnn-version"* ]]
	done
}

@test "bash: init works with cudnnvm not on PATH (the hook names the binary by its path)" {
	bin=$(readlink -f "$CUDNNVM_BIN")
	run env PATH=/usr/bin:/bin BIN="$bin" bash --norc --noprofile -i 2>"$T/log/err" <<'SH'
eval "$("$BIN" init bash)"
cd proj
echo "in: $CUDNNVM_ACTIVE"
cudnnvm current
SH
	[[ $output == *"in: $A"* ]]
	[[ $output == *"$A (set by"* ]]
	run ! grep -q "command not found" "$T/log/err"
	run env PATH=/usr/bin:/bin BIN="$bin" zsh -f -i 2>"$T/log/err" <<'SH'
eval "$("$BIN" init zsh)"
cd proj
echo "in: $CUDNNVM_ACTIVE"
SH
	[[ $output == *"in: $A"* ]]
	run ! grep -q "not found" "$T/log/err"
	run env PATH=/usr/bin:/bin BIN="$bin" fish --no-config -c '
"$BIN" init fish | source
cd proj; emit fish_prompt
echo "in: $CUDNNVM_ACTIVE"'
	[[ $output == *"in: $A"* ]]
}

@test "zsh and fish switch at cd, so 'cd proj && cmd' runs under the project's version" {
	run izsh <<'SH'
eval "$(cudnnvm init zsh)"
cd proj && echo "same line: $CUDNNVM_ACTIVE"
cd .. && echo "back: $CUDNNVM_ACTIVE"
SH
	[[ $output == *"same line: $A"* ]]
	[[ $output == *"back: $C"* ]]
	# fish: no prompt event between cd and the command
	run fish --no-config -c '
cudnnvm init fish | source
cd proj; and echo "same line: $CUDNNVM_ACTIVE"
cd ..; and echo "back: $CUDNNVM_ACTIVE"'
	[[ $output == *"same line: $A"* ]]
	[[ $output == *"back: $C"* ]]
}

@test "tcsh: init hooks precmd and cwdcmd; entering and leaving a project" {
	command -v tcsh >/dev/null || skip "tcsh is not installed"
	run tcsh -f -i <<'SH'
eval "`cudnnvm init tcsh`"
cd proj
echo "in: $CUDNNVM_ACTIVE $LD_LIBRARY_PATH"
cd ..
echo "out: $CUDNNVM_ACTIVE"
SH
	[[ $output == *"in: $A $CUDNNVM_STORE/$A/lib:/usr/local/lib"* ]]
	[[ $output == *"out: $C"* ]]
}

@test "tcsh: init keeps the user's own precmd and cwdcmd aliases, once" {
	command -v tcsh >/dev/null || skip "tcsh is not installed"
	run tcsh -f -i <<'SH'
alias precmd 'echo user-precmd'
alias cwdcmd 'echo user-cwdcmd'
eval "`cudnnvm init tcsh`"
eval "`cudnnvm init tcsh`"
cd proj
echo "in: $CUDNNVM_ACTIVE"
alias precmd
SH
	[[ $output == *"user-cwdcmd"* ]]
	[[ $output == *"in: $A"* ]]
	[[ $output == *"_cudnnvm_hook;echo user-precmd"* ]]
	[[ $output != *"_cudnnvm_hook;_cudnnvm_hook"* ]]
}

@test "tcsh: env --shell tcsh round-trips a store path with spaces, quotes, \$ and !" {
	command -v tcsh >/dev/null || skip "tcsh is not installed"
	S="$T/my st'ore \$x !y"
	mkdir -p "$S"
	mkver "$A" linux-x86_64 "$S"
	export CUDNNVM_STORE="$S"
	run tcsh -f -c 'eval "`cudnnvm env --shell tcsh '"$A"'`"; printf "home=[%s]\n" "$CUDNN_HOME"'
	[ "$status" -eq 0 ]
	[[ $output == *"home=[$S/$A]"* ]]
	run tcsh -f -c 'eval "`cudnnvm env --shell csh '"$A"'`"; printf "lib=[%s]\n" "$LD_LIBRARY_PATH"'
	[[ $output == *"lib=[$S/$A/lib:/usr/local/lib]"* ]]
}

@test "env without --shell speaks the shell that runs it, not \$SHELL" {
	run env SHELL=/usr/bin/fish bash -c 'eval "$(cudnnvm env '"$A"')" && echo "bash: $CUDNNVM_ACTIVE"'
	[ "$status" -eq 0 ]
	[[ $output == *"bash: $A"* ]]
	run env SHELL=/bin/bash fish --no-config -c 'cudnnvm env '"$A"' | source; and echo "fish: $CUDNNVM_ACTIVE"'
	[ "$status" -eq 0 ]
	[[ $output == *"fish: $A"* ]]
	run env SHELL=/usr/bin/fish dash -c 'eval "$(cudnnvm env '"$A"')" && echo "dash: $CUDNNVM_ACTIVE"'
	[[ $output == *"dash: $A"* ]]
	# a parent that is no shell gets POSIX sh
	run env SHELL=/usr/bin/fish python3 -c 'import subprocess; print(subprocess.run(["cudnnvm", "env", "'"$A"'"], capture_output=True, text=True).stdout)'
	[[ $output == *"export CUDNNVM_ACTIVE='$A'"* ]]
}

# No terminal escape or line break from a folder name, a pin file or
# CUDNNVM_VERSION reaches the terminal raw: each is shown as \xNN.
no_raw_controls() {
	one_error_line
	if printf '%s' "$stderr" | LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]'; then
		echo "raw control characters: $stderr" | od -c
		return 1
	fi
	[[ $stderr == *'\x1b'* ]]
}

@test "hook-env shows control characters in names, pins and CUDNNVM_VERSION escaped" {
	d=$'proj\e]0;pwned\a\ncudnnvm: forged'
	mkdir -p "$d"
	printf '9.1\e[2J\nforged\n' >"$d/.cudnn-version"
	cd "$d"
	run --separate-stderr cudnnvm hook-env --shell bash
	[ "$status" -ne 0 ]
	no_raw_controls
	[[ $stderr == *'proj\x1b]0;pwned\x07\x0acudnnvm: forged/.cudnn-version'* ]]
	cd "$T"
	rm "$d/.cudnn-version"
	mkdir "$d/.cudnn-version"
	cd "$d"
	run --separate-stderr cudnnvm hook-env --shell bash
	[ "$status" -ne 0 ]
	no_raw_controls
	cd "$T"
	CUDNNVM_VERSION=$'9\e[2J\ncudnnvm: forged' run --separate-stderr cudnnvm hook-env --shell bash
	[ "$status" -ne 0 ]
	no_raw_controls
	[[ $stderr == *'9\x1b[2J'* ]]
}

@test "current shows a pin file path with control characters escaped" {
	d=$'esc\e]0;pwned\a'
	mkdir -p "$d"
	echo 9.1 >"$d/.cudnn-version"
	cd "$d"
	run cudnnvm current
	[ "$status" -eq 0 ]
	[[ $output == *'esc\x1b]0;pwned\x07/.cudnn-version)' ]]
}

@test "without the hook, current and use say once per shell that it is not loaded; doctor says it too" {
	command -v script >/dev/null || skip "script(1) is not installed"
	cd proj
	# a terminal, one shell, three commands: one note
	run script -qec 'bash --norc --noprofile -c "cudnnvm current; cudnnvm use 9.1 --no-validate; cudnnvm current; true"' /dev/null
	[ "$status" -eq 0 ]
	[ "$(grep -c 'the shell hook is not loaded in this shell' <<<"$output")" -eq 1 ]
	[[ $output == *"add 'eval \"\$(cudnnvm init bash)\"' to the shell's startup file"* ]]
	# the shell that loaded it: no note
	run script -qec 'bash --norc --noprofile -c "eval \"\$(cudnnvm init bash)\" >/dev/null 2>&1; cudnnvm current; true"' /dev/null
	[[ $output != *"not loaded"* ]]
	[[ $output == *"$A (set by"* ]]
	# not a terminal (a script): nothing
	run --separate-stderr bash -c 'cudnnvm current; true'
	[ -z "$stderr" ]
	run cudnnvm doctor
	[[ $output == *"info: the shell hook is not loaded in this shell"* ]]
	run bash -c 'eval "$(cudnnvm init bash)"; cudnnvm doctor'
	[[ $output != *"hook is not loaded"* ]]
}
