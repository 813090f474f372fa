#!/bin/sh
# cudnnvm shim for @PROG@: runs it under the cuDNN version pinned for the
# working folder (cudnnvm exec). Remove with: cudnnvm shim remove @PROG@
CUDNNVM_SHIM_DIR=@DIR@; export CUDNNVM_SHIM_DIR
exec @EXE@ exec -- @PROG@ "$@"
