# >>> cudnnvm >>> (added by 'cudnnvm venv'; 'cudnnvm venv --remove' takes it out)
set -g _CUDNNVM_VENV_PREV "$CUDNNVM_VERSION"
set -gx CUDNNVM_VERSION @ID@
test -x @EXE@; and @EXE@ hook-env --shell fish | source
set -g _CUDNNVM_VENV 1
# <<< cudnnvm <<<
