# bash completion for cudnnvm, written by `cudnnvm completions bash`
# from its command table: each command's options, what their values and
# operands are. Installed versions come from `cudnnvm list`, the versions
# `install` offers from the cached mirror listing (`cudnnvm commands
# --remote-versions`, which never waits on the network).
_cudnnvm_versions() {
	local line re='([0-9]+\.[0-9]+\.[0-9]+\.[0-9]+-cuda[0-9]+)'
	while IFS= read -r line; do
		[[ $line =~ $re ]] && echo "${BASH_REMATCH[1]}"
	done < <(command cudnnvm list 2>/dev/null)
}
# _cudnnvm_offer KIND [WORDS]: what a value or an operand may be
_cudnnvm_offer() {
	case $1 in
	file) COMPREPLY=($(compgen -f -- "$cur")) ;;
	dir) COMPREPLY=($(compgen -d -- "$cur")) ;;
	installed) COMPREPLY=($(compgen -W "$(_cudnnvm_versions)" -- "$cur")) ;;
	remote) COMPREPLY=($(compgen -W "$(command cudnnvm commands --remote-versions 2>/dev/null)" -- "$cur")) ;;
	command) COMPREPLY=($(compgen -W "$(command cudnnvm commands 2>/dev/null)" -- "$cur")) ;;
	words) COMPREPLY=($(compgen -W "$2" -- "$cur")) ;;
	words-file) COMPREPLY=($(compgen -W "$2" -- "$cur") $(compgen -f -- "$cur")) ;;
	esac
}
_cudnnvm() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd= i w
	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--store | --config | --mirror) ((i++)) ;;
		-*) ;;
		*) cmd=$w; break ;;
		esac
	done
	case $cmd in
	ls) cmd=list ;;
	ls-remote) cmd=list-remote ;;
	rm) cmd=uninstall ;;
	esac
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
	case $prev in
	--store) _cudnnvm_offer dir; return ;;
	--config) _cudnnvm_offer file; return ;;
	--mirror) return ;;
	esac
	case "$cmd $prev" in
	"install --cuda") return ;;
	"install --platform") return ;;
	"install --source") _cudnnvm_offer words 'nvidia pypi'; return ;;
	"install --index") return ;;
	"install --archive") _cudnnvm_offer file; return ;;
	"install --sha256") return ;;
	"install --version") return ;;
	"install --jobs") return ;;
	"install --deps") _cudnnvm_offer words 'auto always never'; return ;;
	"install --prefix") _cudnnvm_offer dir; return ;;
	"install --layout") _cudnnvm_offer words 'easybuild'; return ;;
	"list-remote --cuda") return ;;
	"list-remote --platform") return ;;
	"list-remote --source") _cudnnvm_offer words 'nvidia pypi'; return ;;
	"list-remote --index") return ;;
	"use --cuda") return ;;
	"global --cuda") return ;;
	"shell --cuda") return ;;
	"env --shell") _cudnnvm_offer words 'sh bash zsh fish tcsh powershell cmd'; return ;;
	"env --format") _cudnnvm_offer words 'pyxis apptainer k8s'; return ;;
	"env --image") return ;;
	"export --tag") return ;;
	"cdi --output") _cudnnvm_offer file; return ;;
	"cdi --prefix") return ;;
	"frameworks --path") _cudnnvm_offer dir; return ;;
	"bench --shapes") _cudnnvm_offer words-file 'resnet50 resnet50-b1'; return ;;
	"bench --dtype") _cudnnvm_offer words 'fp32 fp16 bf16'; return ;;
	"bench --layout") _cudnnvm_offer words 'nchw nhwc'; return ;;
	"bench --runs") return ;;
	"bench --warmup") return ;;
	"doctor --explain") return ;;
	"venv --path") _cudnnvm_offer dir; return ;;
	"import --version") return ;;
	"import --cuda") return ;;
	"mirror --cuda") return ;;
	"mirror --platform") return ;;
	"mirror --from-lock") _cudnnvm_offer file; return ;;
	"lock --platform") return ;;
	"modulefiles --format") _cudnnvm_offer words 'lua tcl'; return ;;
	"modulefiles --out") _cudnnvm_offer dir; return ;;
	esac
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help --version --quiet --verbose --store --config --mirror --no-color --no-wait" -- "$cur"))
		else
			_cudnnvm_offer command
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		w=
		case $cmd in
		install) w="--cuda --platform --source --index --archive --sha256 --version --force --even-if-in-use --no-validate --refresh --jobs --deps --keep --locked --frozen --prefix --layout --accept-eula --mirror --no-wait" ;;
		uninstall) w="--force --even-if-in-use" ;;
		list) w="--json" ;;
		list-remote) w="--cuda --platform --source --index --json --refresh --deps --mirror" ;;
		use) w="--cuda --unset --force --no-validate --no-install" ;;
		global) w="--cuda --unset --system --force --no-validate" ;;
		shell) w="--cuda --unset --force --no-validate" ;;
		current) w="--json" ;;
		env) w="--shell --format --image" ;;
		export) w="--tag" ;;
		cdi) w="--output --prefix" ;;
		exec) w="--force" ;;
		validate) w="--no-gpu --json --frameworks" ;;
		frameworks) w="--path --json" ;;
		bench) w="--shapes --dtype --layout --runs --warmup --json" ;;
		doctor) w="--json --explain" ;;
		implode) w="--dry-run --yes" ;;
		venv) w="--path --remove --force" ;;
		import) w="--version --cuda --no-validate" ;;
		mirror) w="--cuda --platform --verify --refresh --from-lock --mirror" ;;
		lock) w="--platform --upgrade --check --mirror" ;;
		modulefiles) w="--format --out" ;;
		esac
		COMPREPLY=($(compgen -W "$w" -- "$cur"))
		return
	fi
	case $cmd in
	install) _cudnnvm_offer remote ;;
	uninstall) _cudnnvm_offer installed ;;
	list-remote) _cudnnvm_offer remote ;;
	use) _cudnnvm_offer installed ;;
	global) _cudnnvm_offer installed ;;
	shell) _cudnnvm_offer installed ;;
	which) _cudnnvm_offer words 'lib include root' ;;
	env) _cudnnvm_offer installed ;;
	export) _cudnnvm_offer dir ;;
	cdi) _cudnnvm_offer installed ;;
	exec) _cudnnvm_offer installed ;;
	validate) _cudnnvm_offer installed ;;
	frameworks) _cudnnvm_offer installed ;;
	bench) _cudnnvm_offer installed ;;
	init) _cudnnvm_offer words 'bash zsh fish tcsh powershell' ;;
	shim) _cudnnvm_offer words 'add remove list' ;;
	cache) _cudnnvm_offer words 'dir prune clean' ;;
	config) _cudnnvm_offer words 'list get set unset' ;;
	venv) _cudnnvm_offer installed ;;
	import) _cudnnvm_offer dir ;;
	mirror) _cudnnvm_offer dir ;;
	completions) _cudnnvm_offer words 'bash zsh fish' ;;
	help) _cudnnvm_offer command ;;
	esac
}
complete -F _cudnnvm cudnnvm
