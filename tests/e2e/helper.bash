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
	unset CUDNNVM_TEST_CHECKPOINT CUDNNVM_TEST_CHECKPOINT_FILE
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
