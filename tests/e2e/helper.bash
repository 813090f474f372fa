# helper.bash: common set-up for the bats suites. Every test gets its own
# store, HOME, XDG folders and config, and runs the real binary.
bats_require_minimum_version 1.5.0

REPO_ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
: "${CUDNNVM_BIN:=$REPO_ROOT/build/cudnnvm}"
FIXTURES="$REPO_ROOT/tests/fixtures"
export PATH="$(dirname "$CUDNNVM_BIN"):$PATH"

common_setup() {
	T="$BATS_TEST_TMPDIR"
	export HOME="$T/home"
	export XDG_CONFIG_HOME="$T/home/.config"
	export XDG_DATA_HOME="$T/home/.local/share"
	export XDG_CACHE_HOME="$T/home/.cache"
	export CUDNNVM_STORE="$T/store"
	export CUDNNVM_SYSCONFDIR="$T/etc"
	unset CUDNNVM_VERSION CUDNNVM_CONFIG CUDNNVM_MIRROR CUDNNVM_ACTIVE
	unset SSL_CERT_FILE CURL_CA_BUNDLE
	unset CUDNNVM_TEST_CHECKPOINT CUDNNVM_TEST_CHECKPOINT_FILE CUDNNVM_TEST_CHECKPOINT_RESUME
	mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$T/etc"
	cd "$T"
}

# Snapshot of a store: names, link targets and metadata, for "no change".
store_snapshot() {
	local s="${1:-$CUDNNVM_STORE}"
	[ -d "$s" ] || { echo "<no store>"; return; }
	(cd "$s" && find . -path ./.cache -prune -o -path ./.locks -prune -o -print |
		LC_ALL=C sort | while read -r p; do
			if [ -L "$p" ]; then echo "$p -> $(readlink "$p")"
			else echo "$p"; fi
		done)
}

# Wait (up to ~20 s) for a file to appear.
wait_for_file() {
	local i
	for i in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.1; done
	return 1
}

# stub_archives: the stub cuDNN builds (tests/fixtures/build_stubs.sh) in
# $STUBS, exported, and one NVIDIA-shaped archive per stdin line "name
# version cuda" of the build $STUBS/<name>/lib; $STUBS/<name>.arch holds
# "path sha256 id". For setup_file.
stub_archives() {
	local name ver cuda
	export STUBS="$BATS_FILE_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
	while read -r name ver cuda; do
		python3 "$FIXTURES/mkarchive.py" nvidia --out "$STUBS/arch" \
			--version "$ver" --cuda "$cuda" --libdir "$STUBS/$name/lib" \
			--preset 0 | python3 -c 'import json,sys; j=json.load(sys.stdin)
print("%s %s %s" % (j["path"], j["sha256"], j["id"]))' >"$STUBS/$name.arch"
	done
}

# ---- the fixture cache that runs share -------------------------------------
# Archives packed from real cuDNN libraries and NVIDIA's real wheel take
# minutes to make, so they are kept between runs in CUDNNVM_TEST_CACHE
# (tests/run.sh sets it) or the caller's cache, read here before
# common_setup moves HOME.
TEST_CACHE="${CUDNNVM_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cudnnvm-tests}"

# cache_make ITEM COMMAND...: make $TEST_CACHE/ITEM (a file or a folder)
# once. Several runs and the suites of one run fill the cache at the same
# time, so COMMAND runs under the item's own lock and makes the item at
# $CACHE_TMP, which is renamed into place: nobody sees half an item, and an
# item once made is never changed or removed (a new source makes an item of
# another name). COMMAND fails with `|| return 1` at each step: it runs
# where errexit is off.
cache_make() {
	local item="$TEST_CACHE/$1"
	shift
	[ -e "$item" ] && return 0
	mkdir -p "$(dirname "$item")"
	(
		flock 9 || exit 1
		[ -e "$item" ] && exit 0
		# what a run killed while it held the lock left behind
		rm -rf "$item".tmp.*
		export CACHE_TMP="$item.tmp.$BASHPID"
		if "$@" && [ -e "$CACHE_TMP" ] && mv -T "$CACHE_TMP" "$item"; then
			exit 0
		fi
		rm -rf "$CACHE_TMP"
		exit 1
	) 9>"$item.lock"
}

# cache_pack NAME VERSION CUDA LIBDIR: LIBDIR packed once as NVIDIA's
# VERSION/CUDA archive into the cache folder NAME; sets ARCH and SHA.
cache_pack() {
	cache_make "$1" pack_into_tmp "$2" "$3" "$4" || return 1
	ARCH="$TEST_CACHE/$1/$(cd "$TEST_CACHE/$1" && echo cudnn-*-archive.tar.xz)"
	SHA=$(cat "$TEST_CACHE/$1/sha256")
}
pack_into_tmp() { # VERSION CUDA LIBDIR, for cache_make
	local j
	j=$(python3 "$FIXTURES/mkarchive.py" nvidia --out "$CACHE_TMP" --version "$1" \
		--cuda "$2" --libdir "$3" --preset 0) || return 1
	python3 -c 'import json,sys; print(json.loads(sys.argv[1])["sha256"])' "$j" \
		>"$CACHE_TMP/sha256"
}

# real_cudnn9_archive: the machine's own cuDNN 9 (/usr/local/cuda/lib64)
# packed as NVIDIA's cuda13 archive of it; sets REAL_LIB, VER (from its
# cudnn_version.h, 9.0.0.0 without one), ARCH and SHA. Fails without it.
real_cudnn9_archive() {
	local h key
	REAL_LIB=/usr/local/cuda/lib64
	[ -e "$REAL_LIB/libcudnn.so.9" ] || return 1
	for h in "$(dirname "$(readlink -f "$REAL_LIB")")/include/cudnn_version.h" \
		/usr/local/cuda/include/cudnn_version.h; do
		[ -e "$h" ] && break
	done
	VER=$(awk '/#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) /{printf "%s.", $3}' "$h" 2>/dev/null)0
	[ "$VER" != 0 ] || VER=9.0.0.0
	# named after the libraries' sizes and times, so that a new cuDNN on
	# the machine makes a new item
	key=$(stat -L -c '%n %s %Y' "$REAL_LIB"/libcudnn*.so.9 | sha256sum | cut -c1-12)
	cache_pack "real-cudnn-$VER-$key" "$VER" 13 "$REAL_LIB"
}

# real_wheel_8926: NVIDIA's nvidia-cudnn-cu12==8.9.2.26 wheel (1.2 GB of
# libraries), downloaded once into the cache; sets WHEEL. Fails when it is
# not cached and the index cannot be reached.
real_wheel_8926() {
	WHEEL="$TEST_CACHE/wheels/nvidia_cudnn_cu12-8.9.2.26-py3-none-manylinux1_x86_64.whl"
	cache_make "wheels/${WHEEL##*/}" download_wheel_into_tmp nvidia-cudnn-cu12==8.9.2.26
}
download_wheel_into_tmp() { # REQUIREMENT, for cache_make
	mkdir -p "$CACHE_TMP.d" || return 1
	HOME="$TEST_CACHE/pip-home" timeout 900 python3 -m pip download \
		--no-deps -d "$CACHE_TMP.d" "$1" >/dev/null 2>&1 || return 1
	mv "$CACHE_TMP.d"/*.whl "$CACHE_TMP" && rm -rf "$CACHE_TMP.d"
}

# assert_split_binary FRONT HELPER: the front binary links and names none
# of libcurl, libarchive, libcrypto (so hot commands start without them);
# the helper links all three. For the build tree and an installed copy.
assert_split_binary() {
	run ldd "$1"
	[ "$status" -eq 0 ]
	# libc, and inih and jansson where they are not linked in
	run bash -c "readelf -d '$1' | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'"
	[ "$status" -eq 0 ]
	[[ "$output" == *libc.so.6* ]]
	[ -z "$(grep -v -E '^(libc\.so\.6|libinih\.so\.[0-9]+|libjansson\.so\.[0-9]+)$' <<<"$output")" ]
	run ldd "$1"
	[[ "$output" != *libcurl* ]]
	[[ "$output" != *libarchive* ]]
	[[ "$output" != *libcrypto* ]]
	# nor does it name them to dlopen later
	run grep -c -a -E 'lib(curl|archive|crypto)\.so' "$1"
	[ "$output" = 0 ]
	run ldd "$2"
	[ "$status" -eq 0 ]
	[[ "$output" == *"libcurl.so.4 => /"* ]]
	[[ "$output" == *"libarchive.so.13 => /"* ]]
	[[ "$output" == *"libcrypto.so.3 => /"* ]]
}

# stub NAME FIELD: path, sha256 or id of a stub packed as $STUBS/NAME.json
stub() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$STUBS/$1.json" "$2"
}

# ---- a private mount namespace (system mode: ld.so.conf.d and ldconfig) ----

needs_namespace() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (a private mount namespace)"
	command -v unshare >/dev/null || skip "unshare is not installed (util-linux)"
	unshare -m true 2>/dev/null || skip "cannot create a mount namespace here"
}

# in_namespace SCRIPT: run SCRIPT (bash) as root with a private copy of /etc
# (ldconfig renames its new cache over /etc/ld.so.cache, which a bind mount
# of the file alone would refuse), a tmpfs over /etc/ld.so.conf.d holding
# the machine's own entries, and a root-owned tmpfs at /mnt for the store.
in_namespace() {
	cat >"$T/ns.sh" <<-NS
		set -e
		mount --make-rprivate /
		mkdir -p "$T/etc-copy"
		cp -a /etc/. "$T/etc-copy/"
		mount --bind "$T/etc-copy" /etc
		mount -t tmpfs -o mode=0755 tmpfs /etc/ld.so.conf.d
		cp -a "$T/etc-copy/ld.so.conf.d/." /etc/ld.so.conf.d/ 2>/dev/null || true
		mount -t tmpfs -o mode=0755 tmpfs /mnt
		export CUDNNVM_STORE=/mnt/store
		unset LD_LIBRARY_PATH
		ldconfig
		set +e
	NS
	printf '%s\n' "$1" >>"$T/ns.sh"
	run unshare -m bash "$T/ns.sh"
}
