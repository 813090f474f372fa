#!/usr/bin/env bats
# Help, man pages and completions stay in step with the command table, and
# the shell sources in completions/ and shims/ match what the binary prints.
load helper

setup() { common_setup; }

usage_of() { # the usage lines of a command, "usage: " removed
	cudnnvm "$1" --help | sed -n '1,/^$/p' | sed -e '/^$/d' -e 's/^usage: //' -e 's/^ *//'
}

man_text() { mandoc -Tascii "$REPO_ROOT/man/$1" | sed 's/.\x08//g' | tr -s ' \t\n' ' '; }

@test "every command is in help, and its --help exits 0" {
	help=$(cudnnvm help)
	[ -n "$(cudnnvm commands)" ]
	for c in $(cudnnvm commands); do
		# an alias is shown once, beside its command
		grep -qE "^  $c |\(alias: $c\)$" <<<"$help" || { echo "not in help: $c"; false; }
		run cudnnvm "$c" --help
		[ "$status" -eq 0 ] || { echo "$c --help: $status"; false; }
	done
}

@test "every command is in cudnnvm(1) with its exact usage line" {
	text=$(man_text cudnnvm.1)
	for c in $(cudnnvm commands); do
		while IFS= read -r u; do
			u=$(echo "$u" | tr -s ' ')
			[[ $u == cudnnvm\ * ]] || u="cudnnvm $u"
			[[ $text == *"$u"* ]] || { echo "man page lacks: $u"; false; }
		done < <(usage_of "$c")
	done
}

# The command list of doc/SPEC.md, comments and padding removed: the
# commands that exist, or (spec_commands planned) the planned ones.
spec_commands() {
	awk -v want="${1:-now}" '
		/^## Commands/ { inside = 1; next }
		inside && /^```/ { if (started) exit; started = 1; next }
		inside && /^# planned/ { planned = 1; next }
		inside && started && /^cudnnvm / {
			if ((want == "planned") != planned) next
			sub(/ +#.*/, ""); sub(/ +$/, ""); print
		}' "$REPO_ROOT/doc/SPEC.md"
}

@test "doc/SPEC.md lists every command with its exact usage, and no other" {
	now=$(spec_commands)
	[ -n "$now" ]
	[ -n "$(spec_commands planned)" ]
	for c in $(cudnnvm commands); do
		while IFS= read -r u; do
			u=$(echo "$u" | tr -s ' ')
			[[ $u == cudnnvm\ * ]] || u="cudnnvm $u"
			grep -qxF -- "$u" <<<"$now" || {
				echo "doc/SPEC.md's command list lacks: $u"
				false
			}
		done < <(usage_of "$c")
	done
	# (hidden commands such as hook-env may be documented too)
	cmds=" $(cudnnvm commands --all | tr '\n' ' ') "
	while read -r _ name _; do
		[[ $cmds == *" $name "* ]] || {
			echo "doc/SPEC.md lists '$name', which is no command (move it under '# planned')"
			false
		}
	done <<<"$now"
}

@test "the sources cite the contract in the repository" {
	# (the pattern is spelled in pieces so that this file does not match)
	run grep -rnE "shared""/docs|[^/]SP""EC\\.md|SP""EC \"" "$REPO_ROOT/README.md" "$REPO_ROOT/lib" \
		"$REPO_ROOT/cmd" "$REPO_ROOT/tests/unit" "$REPO_ROOT/tests/e2e" "$REPO_ROOT/bench"
	echo "$output"
	[ "$status" -eq 1 ]
	[ -f "$REPO_ROOT/doc/SPEC.md" ]
}

@test "cudnnvm(1) documents the global flags, exit codes and variables" {
	text=$(man_text cudnnvm.1)
	for f in --store --config --quiet --verbose --no-color --no-wait --version --help; do
		[[ $text == *"$f"* ]] || { echo "no $f"; false; }
	done
	for s in 0 1 64 65 69 73 74 75 77 78 130 126 127; do
		[[ $text == *" $s "* ]] || { echo "no exit status $s"; false; }
	done
	for v in CUDNNVM_STORE CUDNNVM_CONFIG CUDNNVM_MIRROR CUDNNVM_VERSION NO_COLOR \
		LD_LIBRARY_PATH CPATH LIBRARY_PATH CUDNN_HOME CUDNN_PATH CUDNN_ROOT \
		CUDNN_INCLUDE_DIR CUDNN_LIB_DIR CUDNNVM_ACTIVE; do
		[[ $text == *"$v"* ]] || { echo "no $v"; false; }
	done
}

@test "cudnnvm.ini(5) documents every config key the parser accepts" {
	text=$(man_text cudnnvm.ini.5)
	keys=$(grep -oE '\{ "(store|remote|install)", "[a-z_]+" \}' "$REPO_ROOT/lib/base/config.c" |
		sed -E 's/.*"([a-z]+)", "([a-z_]+)".*/\1 \2/')
	[ -n "$keys" ]
	while read -r sec key; do
		[[ $text == *"[$sec]"* ]] || { echo "no section $sec"; false; }
		[[ $text == *" $key "* ]] || { echo "no key $key"; false; }
	done <<<"$keys"
}

@test "both man pages are clean under mandoc -Tlint" {
	run mandoc -Tlint -Wwarning "$REPO_ROOT/man/cudnnvm.1" "$REPO_ROOT/man/cudnnvm.ini.5"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "every command is offered by the bash and fish completions" {
	out=$(bash --norc --noprofile -c 'source "$1"; COMP_WORDS=(cudnnvm ""); COMP_CWORD=1; _cudnnvm; printf "%s\n" "${COMPREPLY[@]}"' _ "$REPO_ROOT/completions/cudnnvm.bash")
	fout=$(fish --no-config -c 'source $argv[1]; complete -C "cudnnvm "' "$REPO_ROOT/completions/cudnnvm.fish")
	for c in $(cudnnvm commands); do
		grep -qx "$c" <<<"$out" || { echo "bash lacks $c"; false; }
		grep -q "^$c" <<<"$fout" || { echo "fish lacks $c"; false; }
	done
	# zsh asks the same source of names
	grep -q 'cudnnvm commands' "$REPO_ROOT/completions/_cudnnvm"
}

@test "the binary prints completions/ and shims/ byte for byte" {
	cudnnvm completions bash | cmp - "$REPO_ROOT/completions/cudnnvm.bash"
	cudnnvm completions zsh | cmp - "$REPO_ROOT/completions/_cudnnvm"
	cudnnvm completions fish | cmp - "$REPO_ROOT/completions/cudnnvm.fish"
	# the shipped hooks carry @EXE@ where the binary writes its own path
	local exe q
	exe=$(readlink -f "$CUDNNVM_BIN")
	q="'$exe'"
	for pair in bash:hook.bash zsh:hook.zsh fish:hook.fish powershell:hook.ps1; do
		sed "s|@EXE@|$q|g" "$REPO_ROOT/shims/${pair#*:}" | cmp - <(cudnnvm init "${pair%%:*}")
	done
	# tcsh's alias lines carry the path quoted once more
	sed -e "/^alias/s|@EXE@|'\\\\''$exe'\\\\''|g" -e "s|@EXE@|$q|g" "$REPO_ROOT/shims/hook.tcsh" |
		cmp - <(cudnnvm init tcsh)
}

# The options cudnnvm(1) gives each command, from its roff source:
# "section CMD" for each command it describes, "listed CMD --opt" for an
# option of a usage line (or of GLOBAL OPTIONS, as "listed cudnnvm -q"),
# "mentioned CMD --opt" for one its text names.
man_options() {
	awk '
		/^\.Sh / { sec = $0; cmd = ""; next }
		sec == ".Sh GLOBAL OPTIONS" && /^\.It Fl / {
			for (i = 2; i < NF; i++) if ($i == "Fl") print "listed cudnnvm -" $(i + 1)
			next
		}
		sec != ".Sh COMMANDS" { next }
		/^\.It Nm Li / { cmd = $4; kind = "listed"; print "section " cmd }
		cmd != "" {
			for (i = 1; i < NF; i++)
				if (($i == "Fl" || $i == ".Fl") && $(i + 1) ~ /^-[a-z]/)
					print "mentioned " cmd " -" $(i + 1)
			line = $0
			while (match(line, /--[a-z][a-z0-9-]*/)) {
				print kind " " cmd " " substr(line, RSTART, RLENGTH)
				line = substr(line, RSTART + RLENGTH)
			}
			kind = "mentioned"
		}' "$REPO_ROOT/man/cudnnvm.1" | sort -u
}

@test "every declared option is in cudnnvm(1) under its command, and every option it lists is declared" {
	declared=$(cudnnvm commands --options)
	man=$(man_options)
	[ -n "$declared" ]
	grep -q '^listed cudnnvm --store$' <<<"$man"
	grep -q '^listed install --archive$' <<<"$man"
	# what a usage line or GLOBAL OPTIONS lists: the command's own, or global
	while read -r _ cmd opt; do
		grep -qE "^($cmd|cudnnvm) $opt( hidden)?$" <<<"$declared" || {
			echo "cudnnvm(1) lists $opt for $cmd, which declares no such option in cmd/table.c"
			false
		}
	done < <(grep '^listed ' <<<"$man")
	# every shown option, under its command (a hidden command the man page
	# does not describe, such as validate-probe, is not held to it)
	visible=" $(cudnnvm commands | tr '\n' ' ') "
	while read -r cmd opt hidden; do
		[ -z "$hidden" ] || continue
		if [ "$cmd" != cudnnvm ] && [[ $visible != *" $cmd "* ]] &&
			! grep -qx "section $cmd" <<<"$man"; then
			continue
		fi
		grep -qE "^(listed|mentioned) $cmd $opt$" <<<"$man" || {
			echo "cudnnvm(1) does not document $opt under $cmd"
			false
		}
	done <<<"$declared"
}

@test "every command refuses an option it does not declare: exit 64, naming its help" {
	for c in $(cudnnvm commands --all); do
		# (an alias answers as its command)
		name=$(cudnnvm "$c" --help | sed -n '1s/^usage: cudnnvm \([^ ]*\).*/\1/p')
		run --separate-stderr cudnnvm "$c" --no-such-option
		[ "$status" -eq 64 ] || { echo "$c: $status"; false; }
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ $stderr == "cudnnvm: $name: unknown option '--no-such-option'"*"'cudnnvm help $name'" ]] || {
			echo "$c: $stderr"
			false
		}
		[ -z "$output" ]
	done
	# a flag given a value, an option without its value
	run -64 --separate-stderr cudnnvm list --json=yes
	[[ $stderr == *"'--json' takes no value"*"'cudnnvm help list'" ]]
	run -64 --separate-stderr cudnnvm doctor --explain
	[[ $stderr == *"'--explain' needs a value"* ]]
}

@test "help lists each command's declared options, hidden ones left out" {
	run cudnnvm help global
	[ "$status" -eq 0 ]
	for o in --cuda --unset --system --force --no-validate; do
		grep -qE "^  $o( |$)" <<<"$output" || { echo "help global lacks $o"; false; }
	done
	# shell --eval is what the integration passes; users never type it
	run cudnnvm shell --help
	[[ $output != *"--eval"* ]]
	[ "$(cudnnvm help shell)" = "$output" ]
	# a global option its usage names is listed with it
	run cudnnvm install --help
	[[ $output == *"  --no-wait "* ]]
	[[ $output != *"the version of cudnnvm"* ]]
}

@test "the conda scripts are the shims/venv-* templates" {
	load activation
	mkdir -p "$CUDNNVM_STORE" "$XDG_CONFIG_HOME/cudnnvm" "$T/ce/conda-meta"
	printf '[install]\nvalidate = no\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	mkver 9.1.0.70-cuda12
	cudnnvm -q venv 9.1 --path "$T/ce"
	exe=$(readlink -f "$CUDNNVM_BIN")
	for pair in activate.d/cudnnvm.sh:venv-activate.sh deactivate.d/cudnnvm.sh:venv-deactivate.sh \
		activate.d/cudnnvm.fish:venv-activate.fish deactivate.d/cudnnvm.fish:venv-deactivate.fish; do
		sed -e "s|@ID@|'9.1.0.70-cuda12'|g" -e "s|@EXE@|'$exe'|g" "$REPO_ROOT/shims/${pair#*:}" |
			cmp - "$T/ce/etc/conda/${pair%%:*}"
	done
}

@test "cudnnvm(1) says one thing about SHELL: it is not consulted" {
	text=$(mandoc -Tascii "$REPO_ROOT/man/cudnnvm.1" | col -b | tr -s ' \n' '  ')
	[[ $text == *"SHELL is not consulted"* ]]
	[[ $text == *"SHELL not consulted"* ]]
	[[ $text != *"SHELL the default of"* ]]
	# and it is not: a fish parent wins over SHELL=/bin/zsh
	command -v fish >/dev/null || skip "fish is not installed"
	SHELL=/bin/zsh run fish --no-config -c 'cudnnvm init'
	[ "$output" = "$(cudnnvm init fish)" ]
}

@test "every command's usage line names each option its help describes, and the other way round" {
	for c in $(cudnnvm commands); do
		h=$(cudnnvm "$c" --help)
		usage=$(sed -n '/^usage/,/^$/p' <<<"$h")
		described=$(sed -n '/^$/,$p' <<<"$h" | grep -oE '^  --[a-z0-9-]+' | tr -d ' ')
		for o in $described; do
			[[ $usage =~ $o([^a-z0-9-]|$) ]] || { echo "$c: usage lacks $o"; false; }
		done
		for o in $(grep -oE -- '--[a-z][a-z0-9-]+' <<<"$usage"); do
			grep -qE -- "^  $o( |$)" <<<"$h" || { echo "$c: help does not describe $o"; false; }
		done
	done
}

@test "make demo echoes each command so that pasting it runs it" {
	command -v cc >/dev/null || skip "no C compiler"
	run "$REPO_ROOT/tests/demo.sh"
	[ "$status" -eq 0 ]
	line=$(grep -m1 '^\$ cudnnvm exec -- sh -c ' <<<"$output")
	eval "set -- ${line#\$ }"
	[ "$#" -eq 6 ]
	[ "$6" = 'echo "in exec: CUDNNVM_ACTIVE=$CUDNNVM_ACTIVE"' ]
	# the command it hands exec prints the line, not an empty one
	[ "$(CUDNNVM_ACTIVE=x sh -c "$6")" = "in exec: CUDNNVM_ACTIVE=x" ]
}
