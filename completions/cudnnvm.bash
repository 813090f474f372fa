# bash completion for cudnnvm. Thin: commands come from `cudnnvm commands`,
# flags from `cudnnvm <command> --help`, versions from `cudnnvm list`, and
# the versions `install` offers from the cached mirror listing (`cudnnvm
# commands --remote-versions`, which never waits on the network).
_cudnnvm_flags() {
	local line out=
	while IFS= read -r line; do
		while [[ $line =~ (^|[^a-z-])(--[a-z][a-z0-9-]*) ]]; do
			out+=" ${BASH_REMATCH[2]}"
			line=${line#*"${BASH_REMATCH[2]}"}
		done
	done < <(command cudnnvm "$1" --help 2>/dev/null)
	echo "$out"
}
_cudnnvm_versions() {
	local line re='([0-9]+\.[0-9]+\.[0-9]+\.[0-9]+-cuda[0-9]+)'
	while IFS= read -r line; do
		[[ $line =~ $re ]] && echo "${BASH_REMATCH[1]}"
	done < <(command cudnnvm list 2>/dev/null)
}
_cudnnvm() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd= i w
	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--store | --config) ((i++)) ;;
		-*) ;;
		*) cmd=$w; break ;;
		esac
	done
	case $prev in
	--store | --path | --out) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--format) COMPREPLY=($(compgen -W "lua tcl" -- "$cur")); return ;;
	--config | --archive) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--shell) COMPREPLY=($(compgen -W "sh bash zsh fish tcsh powershell cmd" -- "$cur")); return ;;
	--dtype) COMPREPLY=($(compgen -W "fp32 fp16 bf16" -- "$cur")); return ;;
	--source) COMPREPLY=($(compgen -W "nvidia pypi" -- "$cur")); return ;;
	--layout) COMPREPLY=($(compgen -W "nchw nhwc" -- "$cur")); return ;;
	--shapes) COMPREPLY=($(compgen -W "resnet50 resnet50-b1" -- "$cur") $(compgen -f -- "$cur")); return ;;
	esac
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help --version --quiet --verbose --store --config --no-color --no-wait" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(command cudnnvm commands 2>/dev/null)" -- "$cur"))
		fi
		return
	fi
	if [[ $cmd == exec ]]; then
		# exec [<spec>] -- <command> [args]: a command, then its files
		for ((w = i + 1; w < COMP_CWORD; w++)); do
			[[ ${COMP_WORDS[w]} == -- ]] || continue
			if ((w == COMP_CWORD - 1)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return
		done
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_cudnnvm_flags "$cmd")" -- "$cur"))
		return
	fi
	case $cmd in
	install) COMPREPLY=($(compgen -W "$(command cudnnvm commands --remote-versions 2>/dev/null)" -- "$cur")) ;;
	init) COMPREPLY=($(compgen -W "bash zsh fish tcsh powershell" -- "$cur")) ;;
	completions) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")) ;;
	help) COMPREPLY=($(compgen -W "$(command cudnnvm commands 2>/dev/null)" -- "$cur")) ;;
	which) COMPREPLY=($(compgen -W "lib include root" -- "$cur")) ;;
	shim) COMPREPLY=($(compgen -W "add remove list" -- "$cur")) ;;
	import | mirror) COMPREPLY=($(compgen -d -- "$cur")) ;;
	use | global | shell | uninstall | env | exec | validate | venv | frameworks | bench)
		COMPREPLY=($(compgen -W "$(_cudnnvm_versions)" -- "$cur")) ;;
	esac
}
complete -F _cudnnvm cudnnvm
