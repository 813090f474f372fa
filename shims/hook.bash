# cudnnvm shell integration for bash; in ~/.bashrc: eval "$(cudnnvm init bash)"
CUDNNVM_HOOK=$$; export CUDNNVM_HOOK
_cudnnvm_hook() {
	local _cv_s=$? _cv_f _cv_run=1
	if [[ -n "${_CUDNNVM_STAMP-}" && "$PWD" == "${_CUDNNVM_PWD-}" && "${CUDNNVM_VERSION-}" == "${_CUDNNVM_VER-}" ]]; then
		_cv_run=0
		for _cv_f in "${_CUDNNVM_WATCH[@]}"; do
			if [[ "$_cv_f" -nt "$_CUDNNVM_STAMP" ]]; then _cv_run=1; break; fi
		done
	fi
	if ((_cv_run)); then
		if [[ -n "${_CUDNNVM_STAMP-}" ]]; then
			eval "$(@EXE@ hook-env --shell bash --stamp "$_CUDNNVM_STAMP")"
		else
			eval "$(@EXE@ hook-env --shell bash)"
		fi
	fi
	return $_cv_s
}
cudnnvm() {
	if [[ "${1-}" == shell ]]; then
		shift
		local _cv_out
		_cv_out=$(@EXE@ shell --eval bash "$@") || return
		eval "$_cv_out"
		_cudnnvm_hook
	else
		@EXE@ "$@"
	fi
}
if [[ "${PROMPT_COMMAND[*]-}" != *_cudnnvm_hook* ]]; then
	PROMPT_COMMAND="_cudnnvm_hook${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
fi
# the completion, also where bash-completion does not look (a PREFIX
# of its own): written by this binary at the first Tab
if ! complete -p cudnnvm >/dev/null 2>&1; then
	_cudnnvm_complete_load() {
		complete -r cudnnvm
		eval "$(@EXE@ completions bash)" && _cudnnvm "$@"
	}
	complete -F _cudnnvm_complete_load cudnnvm
fi
_cudnnvm_hook
