# >>> cudnnvm >>> (added by 'cudnnvm venv'; 'cudnnvm venv --remove' takes it out)
_CUDNNVM_VENV_PREV="${CUDNNVM_VERSION-}"
CUDNNVM_VERSION=@ID@; export CUDNNVM_VERSION
if [ -x @EXE@ ]; then eval "$(@EXE@ hook-env --shell sh)"; fi
_CUDNNVM_VENV=1
# <<< cudnnvm <<<
