# cudnnvm shell integration for zsh; in ~/.zshrc: eval "$(cudnnvm init zsh)"
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
			eval "$(@EXE@ hook-env --shell zsh --stamp "$_CUDNNVM_STAMP")"
		else
			eval "$(@EXE@ hook-env --shell zsh)"
		fi
	fi
	return $_cv_s
}
cudnnvm() {
	if [[ "${1-}" == shell ]]; then
		shift
		local _cv_out
		_cv_out=$(@EXE@ shell --eval zsh "$@") || return
		eval "$_cv_out"
		_cudnnvm_hook
	else
		@EXE@ "$@"
	fi
}
typeset -ag precmd_functions chpwd_functions
if (( ! ${precmd_functions[(I)_cudnnvm_hook]} )); then
	precmd_functions=(_cudnnvm_hook $precmd_functions)
fi
if (( ! ${chpwd_functions[(I)_cudnnvm_hook]} )); then
	chpwd_functions=(_cudnnvm_hook $chpwd_functions)
fi
_cudnnvm_hook
