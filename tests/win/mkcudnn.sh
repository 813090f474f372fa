#!/usr/bin/env bash
# mkcudnn.sh OUT VERSION CUDA: an NVIDIA-shaped Windows cuDNN, built for
# real: OUT/cudnn-windows-x86_64-VERSION_cudaCUDA-archive/ with bin/ (bin/x64/
# from 9.18, as NVIDIA lays it out) holding cudnn64_<major>.dll and its ops
# sub-library (x86-64 PE DLLs made by mingw from fake_cudnn.c, reporting
# VERSION's cudnnGetVersion number, and computing the legacy convolution
# API on the CPU: tests/fixtures/fake_cudnn.c's -DFAKE_CONV, with
# $FAKE_CFLAGS, e.g. -DFAKE_BADCONV), include/cudnn.h and cudnn_version.h, lib/x64/
# cudnn.lib (the import library), and beside it the zip of that folder
# (top folder of the same name, as NVIDIA's). Prints the folder's path.
set -eu
out=$1 ver=$2 cuda=$3
here=$(cd "$(dirname "$0")" && pwd)
cc=${WIN_CC:-x86_64-w64-mingw32-gcc}
IFS=. read -r maj min patch _ <<<"$ver"
if [ "$maj" -ge 9 ]; then
	num=$((maj * 10000 + min * 100 + patch)) sub=cudnn_ops64_$maj.dll
else
	num=$((maj * 1000 + min * 100 + patch)) sub=cudnn_ops_infer64_$maj.dll
fi
name=cudnn-windows-x86_64-${ver}_cuda$cuda-archive
top=$out/$name
bin=$top/bin
[ "$maj" -gt 9 ] || { [ "$maj" -eq 9 ] && [ "$min" -ge 18 ]; } && bin=$top/bin/x64
mkdir -p "$bin" "$top/include" "$top/lib/x64"
"$cc" -shared -O2 -DCV_FAKE_SUB -o "$bin/$sub" "$here/fake_cudnn.c" \
	-Wl,--out-implib,"$top/lib/x64/${sub%.dll}.lib"
"$cc" -c -O2 -DFAKE_CONV ${FAKE_CFLAGS:-} -o "$out/conv-$ver.o" "$here/../fixtures/fake_cudnn.c"
"$cc" -shared -O2 -DCV_FAKE_VERSION="$num" -DCV_FAKE_CUDART="$((cuda * 1000))" \
	-o "$bin/cudnn64_$maj.dll" "$here/fake_cudnn.c" "$out/conv-$ver.o" \
	"$top/lib/x64/${sub%.dll}.lib" \
	-Wl,--out-implib,"$top/lib/x64/cudnn.lib"
rm -f "$out/conv-$ver.o"
printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' \
	"$maj" "$min" "$patch" >"$top/include/cudnn_version.h"
printf '#include "cudnn_version.h"\nsize_t cudnnGetVersion(void);\n' >"$top/include/cudnn.h"
(cd "$out" && python3 - "$name" <<'PY'
import os, sys, zipfile
name = sys.argv[1]
with zipfile.ZipFile(name + ".zip", "w", zipfile.ZIP_DEFLATED) as z:
    for d, dirs, files in sorted(os.walk(name)):
        dirs.sort()
        for f in sorted(files):
            z.write(os.path.join(d, f))
PY
)
echo "$top"
