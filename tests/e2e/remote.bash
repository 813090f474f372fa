# remote.bash: the HTTPS test mirror (tests/fixtures/mirror.py) for the
# remote-install suites. Loading it gives each suite one mirror (started in
# setup_file, stopped in teardown_file); a suite's setup calls remote_setup
# for a private store, a config that points at the mirror (remote_config)
# and a fresh request log.
# (by its own folder: tests/install/ loads this file too)
load "$(dirname "${BASH_SOURCE[0]}")/helper"

setup_file() { mirror_start; }
teardown_file() { mirror_stop; }

remote_setup() {
	common_setup
	remote_config ok
	log_mark
}

# mirror_start [MANIFEST...]: the fixture manifests and these.
mirror_start() {
	MIRROR_DIR="$BATS_FILE_TMPDIR/mirror"
	mkdir -p "$MIRROR_DIR"
	python3 "$FIXTURES/mirror.py" certs "$MIRROR_DIR/certs"
	python3 "$FIXTURES/mirror.py" build "$MIRROR_DIR/root" \
		"$FIXTURES"/manifests/*.json "$@"
	python3 "$FIXTURES/mirror.py" serve "$MIRROR_DIR/root" \
		--cert "$MIRROR_DIR/certs/server.pem" \
		--key "$MIRROR_DIR/certs/server.key" \
		--port-file "$MIRROR_DIR/port" >"$MIRROR_DIR/server.log" 2>&1 3>&- &
	echo $! >"$MIRROR_DIR/pid"
	wait_for_file "$MIRROR_DIR/port"
	MIRROR_PORT=$(cat "$MIRROR_DIR/port")
	export MIRROR_DIR MIRROR_PORT
}

mirror_stop() {
	[ -f "$MIRROR_DIR/pid" ] && kill "$(cat "$MIRROR_DIR/pid")" 2>/dev/null
	true
}

# remote_config [MODE] [extra INI lines for [remote]...]: the mirror URL is
# https://127.0.0.1:PORT/ or, with a fault MODE, .../fault/MODE/.
remote_config() {
	local mode=${1:-ok} url kv
	shift || true
	url="https://127.0.0.1:$MIRROR_PORT/"
	[ "$mode" = ok ] || url="${url}fault/$mode/"
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
	unset no_proxy NO_PROXY CUDA_HOME
	mkdir -p "$XDG_CONFIG_HOME/cudnnvm"
	{
		echo "[store]"
		echo "cache = $T/cache"
		echo "[remote]"
		echo "mirror = $url"
		echo "ca_file = $MIRROR_DIR/certs/ca.pem"
		printf '%s\n' "$@"
		# defaults for the keys the extra lines leave out
		for kv in "timeout = 3" "retries = 0" "verify_pins = no"; do
			printf '%s\n' "$@" | grep -q "^${kv%% *}" || echo "$kv"
		done
		echo "[install]"
		echo "validate = no"
		# cuBLAS and nvrtc beside cuDNN are install-deps.bats' subject; the
		# other suites' mirror serves only the cuDNN tree
		echo "deps = ${REMOTE_DEPS:-never}"
	} >"$XDG_CONFIG_HOME/cudnnvm/config.ini"
}

# archive_field RELEASE PLATFORM CUDA FIELD: from the served manifest.
archive_field() {
	python3 - "$MIRROR_DIR/root/redistrib_$1.json" "$2" "cuda$3" "$4" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))["cudnn"][sys.argv[2]]
e = m[sys.argv[3]] if sys.argv[3] in m else m
print(e[sys.argv[4]])
EOF
}

# The archive the suites install most: 9.13.0.50 cuda12 (2 MiB).
big_archive() {
	echo "$MIRROR_DIR/root/$(archive_field 9.13.0 linux-x86_64 12 relative_path)"
}
big_sha() { archive_field 9.13.0 linux-x86_64 12 sha256; }

# A store with one version in it (so "no change" compares something),
# then a fresh request log.
seed_store() {
	cudnnvm install 9.20 --cuda 12 >/dev/null
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda12" ]
	log_mark
}

# Count archive requests in the server log (since the last log_mark).
log_mark() { : >"$MIRROR_DIR/root/requests.log"; }
archive_gets() {
	grep -c 'archive.tar.xz' "$MIRROR_DIR/root/requests.log" 2>/dev/null || true
}
