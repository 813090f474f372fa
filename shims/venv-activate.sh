# >>> cudnnvm >>> (added by 'cudnnvm venv'; 'cudnnvm venv --remove' takes it out)
_CUDNNVM_VENV_PREV="${CUDNNVM_VERSION-}"
CUDNNVM_VERSION=@ID@; export CUDNNVM_VERSION
eval "$(@EXE@ hook-env --shell sh)"
_CUDNNVM_VENV=1
# <<< cudnnvm <<<
