# bench/common.sh: sourced by the install benchmarks (not a benchmark: its
# name keeps it out of bench/run.sh). What they share so that they also run
# on a machine with no network and nothing cached:
#   bench_abs PATH         PATH made absolute against the caller's folder
#   bench_bin              sets BIN: BENCH_BIN, else build/cudnnvm (built
#                          with make when missing; never when BENCH_BIN is
#                          given). The helper is found beside it.
#   bench_certs DIR        the loopback CA and server certificate, made again
#                          when older than a day (they are valid for two)
#   peak_rss_kib CMD...    CMD's maximum resident set in KiB, by GNU time
#                          when installed, else by wait4's rusage in python3
#                          (the kernel counts the forking python3's own
#                          resident set, some 14 MiB, as a floor: below the
#                          installs measured, so their figure is the same)
#   pack_local_cudnn DIR   packs this machine's cuDNN as NVIDIA's archive
#                          (below); sets PACKED (the path) and PACKED_FROM
#                          (where it came from, in words)
# Scripts source it after cd to the repository root; they must resolve
# paths given in the environment with bench_abs before that cd.

bench_abs() {
	case $1 in
	/*) echo "$1" ;;
	*) echo "$PWD/$1" ;;
	esac
}

bench_bin() {
	if [ -n "${BENCH_BIN:-}" ]; then
		BIN=$BENCH_BIN
	else
		BIN="$PWD/build/cudnnvm"
		[ -x "$BIN" ] || make -s all
	fi
	[ -x "$BIN" ] || { echo "bench: $BIN is not an executable" >&2; exit 1; }
}

bench_certs() {
	if [ -z "$(find "$1/ca.pem" -mmin -1440 2>/dev/null)" ]; then
		rm -rf "$1"
		python3 tests/fixtures/mirror.py certs "$1"
	fi
}

peak_rss_kib() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
	else
		python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
	fi
}

# The folder of this machine's cuDNN libraries: BENCH_CUDNN_LIBDIR, else
# /usr/local/cuda/lib64, else python3's nvidia.cudnn package (the wheel's
# lib/), else the folder ldconfig knows libcudnn.so.9 in.
local_cudnn_libdir() {
	local d
	if [ -n "${BENCH_CUDNN_LIBDIR:-}" ]; then
		echo "$BENCH_CUDNN_LIBDIR"
		return
	fi
	if ls /usr/local/cuda/lib64/libcudnn.so.[0-9]* >/dev/null 2>&1; then
		echo /usr/local/cuda/lib64
		return
	fi
	d=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null) || d=
	if [ -n "$d" ] && ls "$d"/lib/libcudnn.so.[0-9]* >/dev/null 2>&1; then
		echo "$d/lib"
		return
	fi
	d=$({ ldconfig -p 2>/dev/null || /sbin/ldconfig -p; } |
		awk '$1 == "libcudnn.so.9" { print $NF; exit }')
	[ -n "$d" ] || return 1
	dirname "$d"
}

# M.m.p of the cuDNN in libdir $1: the library's full name when it has one
# (libcudnn.so.9.14.0), else cudnn_version*.h beside it (../include, as in
# a CUDA tree and in the wheel) or in /usr/include.
local_cudnn_version() {
	local v h
	v=$(ls "$1" | sed -n 's/^libcudnn\.so\.\([0-9]*\.[0-9]*\.[0-9]*\)$/\1/p' | head -1)
	if [ -z "$v" ]; then
		for h in "$1"/../include/cudnn_version*.h /usr/include/cudnn_version*.h \
			/usr/include/*-linux-gnu/cudnn_version*.h; do
			[ -f "$h" ] || continue
			v=$(awk '$1 == "#define" && $2 == "CUDNN_MAJOR" { a = $3 }
				$1 == "#define" && $2 == "CUDNN_MINOR" { b = $3 }
				$1 == "#define" && $2 == "CUDNN_PATCHLEVEL" { c = $3 }
				END { if (a != "" && b != "" && c != "") print a "." b "." c }' "$h")
			[ -n "$v" ] && break
		done
	fi
	# the major of libcudnn.so.M must agree: the archive's chains use it
	local m
	m=$(ls "$1" | sed -n 's/^libcudnn\.so\.\([0-9]*\).*/\1/p' | head -1)
	case $v in "$m".*) ;; *) v="$m.99.0" ;; esac
	echo "$v"
}

# pack_local_cudnn DIR: DIR/cudnn-linux-x86_64-<M.m.p>.0_cuda12-archive.tar.xz
# from the local cuDNN: NVIDIA's layout (tests/fixtures/mkarchive.py) and
# NVIDIA's xz framing: 1 MiB blocks at xz's default preset 6, which gives
# about the ratio of NVIDIA's own archives (8.9.2.26: 581 MiB for 1.13 GiB).
# At preset 0 the decoding is so cheap that writing the files dominates, and
# the ratio against `xz -dc` alone says little about decoding. (The name says
# cuda12 whatever CUDA the libraries were built for: nothing runs them.)
# Kept in DIR and packed again only when the libraries or the folder change.
pack_local_cudnn() {
	local out=$1 libdir ver
	libdir=$(local_cudnn_libdir) && ls "$libdir"/libcudnn.so.[0-9]* >/dev/null 2>&1 || {
		echo "bench: no cuDNN found here (BENCH_CUDNN_LIBDIR, /usr/local/cuda/lib64, python3's nvidia.cudnn, ldconfig)" >&2
		exit 1
	}
	libdir=$(cd "$libdir" && pwd -P)
	ver=$(local_cudnn_version "$libdir")
	PACKED="$out/cudnn-linux-x86_64-$ver.0_cuda12-archive.tar.xz"
	PACKED_FROM="packed from the cuDNN $ver in $libdir"
	if [ -s "$PACKED" ] && [ "$(cat "$PACKED.from" 2>/dev/null)" = "6 $libdir" ] &&
		[ -z "$(find "$libdir" -maxdepth 1 -name 'libcudnn*' -newer "$PACKED")" ]; then
		return
	fi
	echo "packing the cuDNN $ver of $libdir as NVIDIA's archive (once)..." >&2
	mkdir -p "$out"
	rm -f "$PACKED" "$PACKED.from"
	python3 tests/fixtures/mkarchive.py nvidia --out "$out" --version "$ver.0" \
		--cuda 12 --libdir "$libdir" --preset 6 --block-mb 1 >/dev/null
	echo "6 $libdir" >"$PACKED.from"
}

# bench_pypi_index W INSTALL_LINES [SERVE_ARGS...]: serve W/root as a
# loopback PyPI index (W/certs made by bench_certs), its server killed on
# exit; sets INDEX and SERVER, a private HOME and store under W, and a
# config.ini for source = pypi with INSTALL_LINES under [install]
bench_pypi_index() {
	local w=$1 install=$2
	shift 2
	rm -f "$w/port"
	python3 tests/fixtures/pypi_index.py serve "$w/root" --cert "$w/certs/server.pem" \
		--key "$w/certs/server.key" --port-file "$w/port" "$@" >"$w/server.log" 2>&1 &
	SERVER=$!
	trap 'kill $SERVER 2>/dev/null || true' EXIT
	for _ in $(seq 100); do [ -s "$w/port" ] && break; sleep 0.1; done
	INDEX="https://127.0.0.1:$(cat "$w/port")/simple/"
	export HOME="$w/home" XDG_CONFIG_HOME="$w/home/.config" CUDNNVM_STORE="$w/store"
	export SSL_CERT_FILE="$w/certs/ca.pem" UV_NO_PROGRESS=1
	unset CUDNNVM_CONFIG CUDNNVM_MIRROR http_proxy https_proxy HTTPS_PROXY all_proxy
	mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
	printf '[store]\ncache = %s\n[remote]\nsource = pypi\nindex = %s\nca_file = %s\n[install]\nvalidate = no\n%s\nplatform = linux-x86_64\n' \
		"$w/cache" "$INDEX" "$w/certs/ca.pem" "$install" >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
}
