#!/usr/bin/env bash
# mknvcuda.sh DIR DRIVER [CC_MAJOR CC_MINOR]: a stand-in NVIDIA driver,
# DIR/nvcuda.dll, built by mingw from tests/fixtures/fake_cudnn.c's
# -DFAKE_CUDA (the one Linux's tests use as libcuda.so.1): one device
# of that compute capability (default 9.0), cuDriverGetVersion() DRIVER
# (13000 for CUDA 13.0), "device" memory in the host's. Put beside a
# program, it is the nvcuda.dll that program loads by its bare name.
set -eu
dir=$1 driver=$2 ccmaj=${3:-9} ccmin=${4:-0}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
"${WIN_CC:-x86_64-w64-mingw32-gcc}" -shared -O2 -DFAKE_CUDA -DFAKE_DRIVER="$driver" \
	-DFAKE_CC_MAJOR="$ccmaj" -DFAKE_CC_MINOR="$ccmin" \
	-o "$dir/nvcuda.dll" "$here/../fixtures/fake_cudnn.c"
