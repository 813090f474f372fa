#!/usr/bin/env bats
# The harness itself: the fixture cache that runs and suites share
# (cache_make in helper.bash) makes each item once, whole, however many
# fill it at once.
load helper

setup() {
	common_setup
	TEST_CACHE="$T/cache"
}

# slow_item: a folder made in steps, slowly, naming who made it
slow_item() {
	mkdir -p "$CACHE_TMP" || return 1
	echo "$BASHPID" >>"$T/makers"
	sleep 1
	echo whole >"$CACHE_TMP/done"
}
failing_item() {
	mkdir -p "$CACHE_TMP" && echo half >"$CACHE_TMP/part" && return 1
}

@test "cache_make: four at once make the item once, and each sees it whole" {
	local i
	for i in 1 2 3 4; do
		(cache_make item slow_item && [ "$(cat "$TEST_CACHE/item/done")" = whole ] &&
			echo "saw $i" >>"$T/seen") &
	done
	wait
	[ "$(wc -l <"$T/makers")" -eq 1 ]
	[ "$(wc -l <"$T/seen")" -eq 4 ]
	# made again by nobody: an item once made stays
	cache_make item failing_item
	[ "$(wc -l <"$T/makers")" -eq 1 ]
	[ "$(ls -A "$TEST_CACHE" | tr '\n' ' ')" = "item item.lock " ]
}

@test "cache_make: a failed fill leaves no item and no half of one" {
	run cache_make item failing_item
	[ "$status" -eq 1 ]
	[ "$(ls -A "$TEST_CACHE" | tr '\n' ' ')" = "item.lock " ]
	# what a killed fill left is swept by the next
	mkdir -p "$TEST_CACHE/item.tmp.99999"
	cache_make item slow_item
	[ "$(ls -A "$TEST_CACHE" | tr '\n' ' ')" = "item item.lock " ]
}
