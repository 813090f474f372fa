#!/usr/bin/env bats
# What a new user trips over against the mirror: a release published after
# the index was cached, install with no spec, use of a version not yet
# installed, and the install hints that must work as printed.
load remote

setup() { remote_setup; }

# Hide release $1 from the mirror's listing (as before it was published);
# publish_again puts the listing back.
unpublish() {
	cp "$MIRROR_DIR/root/index.html" "$T/index.html.orig"
	grep -v "redistrib_$1.json" "$T/index.html.orig" >"$MIRROR_DIR/root/index.html"
}
publish_again() { cp "$T/index.html.orig" "$MIRROR_DIR/root/index.html"; }
teardown() { [ ! -f "$T/index.html.orig" ] || publish_again; }

listing_gets() { grep -c 'GET / ' "$MIRROR_DIR/root/requests.log" || true; }

@test "a release published after the index was cached is found without --refresh" {
	unpublish 9.20.0
	run cudnnvm list-remote --cuda 12
	[ "$status" -eq 0 ]
	[[ $output != *9.20.0.48* ]]
	publish_again
	log_mark
	run --separate-stderr cudnnvm install 9.20 --cuda 12
	[ "$status" -eq 0 ]
	[ -d "$CUDNNVM_STORE/9.20.0.48-cuda12" ]
	# the cached listing missed it: read once more, then found
	[ "$(listing_gets)" -eq 1 ]
}

@test "a spec that matches no release re-reads the listing only once" {
	run cudnnvm list-remote --cuda 12
	log_mark
	run -1 --separate-stderr cudnnvm install 9.99 --cuda 12
	[[ $stderr == "cudnnvm: no cuDNN release 9.99 on the mirror"* ]]
	[ "$(listing_gets)" -eq 1 ]
	# each run that misses reads it once more, never more
	log_mark
	run -1 --separate-stderr cudnnvm install 9.99 --cuda 12
	[ "$(listing_gets)" -eq 1 ]
}

@test "list-remote of a release published after the index was cached shows it" {
	unpublish 9.20.0
	run cudnnvm list-remote --cuda 12
	publish_again
	run cudnnvm list-remote 9.20 --cuda 12
	[ "$status" -eq 0 ]
	[[ $output == 9.20.0.48-cuda12* ]]
}
