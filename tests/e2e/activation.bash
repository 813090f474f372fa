# activation.bash: store entries for the activation suites, made by hand in
# the store's layout (<store>/<id>/ with include/, lib/, lib64 -> lib,
# LICENSE and cudnnvm.json), so these suites test activation only.
load helper

# mkver ID [PLATFORM] [STORE]
mkver() {
	local id=$1 plat=${2:-linux-x86_64} s=${3:-$CUDNNVM_STORE}
	local d="$s/$id" ver=${1%-cuda*} cuda=${1##*-cuda}
	mkdir -p "$d/include"
	if [[ $plat == windows-* ]]; then
		mkdir -p "$d/bin" "$d/lib/x64"
		echo dll >"$d/bin/cudnn64_${ver%%.*}.dll"
		echo lib >"$d/lib/x64/cudnn.lib"
	else
		mkdir -p "$d/lib"
		ln -s lib "$d/lib64"
		echo "so $id" >"$d/lib/libcudnn.so.${ver%%.*}"
	fi
	echo "#define CUDNN_MAJOR ${ver%%.*}" >"$d/include/cudnn_version.h"
	echo license >"$d/LICENSE"
	cat >"$d/cudnnvm.json" <<JSON
{"id": "$id", "version": "$ver", "cuda": $cuda, "platform": "$plat",
 "sha256": "$(printf '%064d' 0)", "size": 1, "source": "test",
 "installed_at": "2026-01-01T00:00:00Z"}
JSON
}

activation_setup() {
	common_setup
	# a machine with no CUDA toolkit and no driver, whatever the test
	# machine has: a spec takes the newest build of any variant
	export CUDNNVM_OVERRIDE_CUDA=
	export CUDNNVM_TEST_DRIVER_VERSION_FILE="$T/no-driver"
	mkdir -p "$CUDNNVM_STORE" "$XDG_CONFIG_HOME/cudnnvm"
	# the versions here are hand-made and cannot load: activation is
	# tested without the validation gate (one test turns it back on)
	printf '[install]\nvalidate = no\n' >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
	mkver 9.1.0.70-cuda12
	mkver 9.13.0.50-cuda12
	mkver 8.9.7.29-cuda12
	A=9.1.0.70-cuda12 B=9.13.0.50-cuda12 C=8.9.7.29-cuda12
}

# One line on stderr that starts with "cudnnvm: ", then only "hint: " lines.
one_error_line() {
	local l
	[ "${#stderr_lines[@]}" -ge 1 ] && [[ ${stderr_lines[0]} == "cudnnvm: "* ]] || return 1
	for l in "${stderr_lines[@]:1}"; do
		[[ $l == "hint: "* ]] || return 1
	done
}

# The commands of the "hint: " lines in $stderr, one a line.
hints() {
	sed -n 's/^hint: //p' <<<"$stderr"
}

# fake_framework ENV NAME...: a package NAME in the site-packages of the
# venv ENV whose import records, in NAME.MAPPED, the libcudnn* files the
# interpreter maps at that moment (the .pth hook loads cuDNN on a
# framework's first import, before the framework's own code runs)
fake_framework() {
	local sp n
	sp=$(echo "$1"/lib/python3*/site-packages)
	for n in "${@:2}"; do
		mkdir -p "$sp/$n"
		echo 'MAPPED = sorted(set(l.split()[-1] for l in open("/proc/self/maps") if "libcudnn" in l))' \
			>"$sp/$n/__init__.py"
	done
}
# py -c text printing each MAPPED file of fake_framework's NAME, one a line
mapped() { echo "import $1, sys; sys.stdout.write(''.join(m + '\n' for m in $1.MAPPED))"; }

# mklib FILE SONAME [LDFLAGS...]: a real library whose constructor appends
# FILE's name to $T/ran, so a test sees which libraries an interpreter ran
mklib() {
	mkdir -p "$(dirname "$1")"
	printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' \
		'__attribute__((constructor)) static void ran(void) {' \
		'	FILE *f = fopen(getenv("RAN"), "a");' \
		"	if (f) { fputs(\"$1\\n\", f); fclose(f); }" '}' >"$T/lib.c"
	cc -shared -fPIC -o "$1" -Wl,-soname,"$2" "${@:3}" "$T/lib.c"
}
