#!/usr/bin/env bats
# bench: the table, --json, custom shapes, unsupported layers, a version
# that fails validation, a fast wrong algorithm, Ctrl-C and no GPU, against
# the stub cuDNN builds and the stub driver of tests/fixtures, whose events
# read a fake clock the stub convolutions advance (fixed timings: 9.19 at
# 1000 GMAC/s, 9.14 at 800, algo 0 half as fast as algo 1; 9.x stubs but
# v914 and wrongfast have the backend API, whose engine 5 is twice as fast
# as algo 1 and wrong, engine 2 as fast, engine 9 half as fast).
load helper

setup_file() {
	export STUBS="$BATS_FILE_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
	while read -r name ver; do
		python3 "$FIXTURES/mkarchive.py" nvidia --out "$STUBS/arch" \
			--version "$ver" --cuda 13 --libdir "$STUBS/$name/lib" \
			--preset 0 | python3 -c 'import json,sys; j=json.load(sys.stdin)
print("%s %s %s" % (j["path"], j["sha256"], j["id"]))' >"$STUBS/$name.arch"
	done <<-EOF
		v9 9.19.0.56
		v914 9.14.0.64
		badconv 9.19.0.64
		wrongfast 9.19.0.66
		slowfwd 9.19.0.67
		nograph 9.19.0.68
	EOF
}

setup() {
	common_setup
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda"
}

inst() { # inst NAME: install the packed stub NAME (not validated); sets ID
	local path sha
	read -r path sha ID <"$STUBS/$1.arch"
	cudnnvm -q install --archive "$path" --sha256 "$sha" --no-validate
}

@test "the table: a row per layer, a column per version, fastest marked, ratios and total" {
	inst v914
	inst v9
	run --separate-stderr cudnnvm bench --shapes resnet50-b1 --layout nhwc
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "GPU: Fake GPU (sm_90, 132 SMs, SM clock 1980 MHz, memory clock 3201 MHz), driver for CUDA 13.0" ]
	[[ "${lines[1]}" == "median of 30 timed runs after 5 warm-up runs;"* ]]
	# oldest version first (bats drops the empty line)
	[[ "${lines[2]}" =~ ^layer\ +dtype\ layout\ +9\.14\.0\.64-cuda13\ +9\.19\.0\.56-cuda13$ ]]
	# 1x64x56x56 output x 64x3x3: 115.6 M MACs; 0.117 ms at 1000 GMAC/s
	# (the runs alternate +1/+2/+3 %), 0.146 ms at 800
	row=$(grep '^res2 3x3 64>64 @56 ' <<<"$output")
	[[ "$row" =~ fp16\ +nhwc\ +0\.146\ ms\ ±2%\ 1\.6\ TF\ a1\ 1\.25x\ +\*0\.117\ ms\ ±2%\ 2\.0\ TF\ e2$ ]]
	[ "$(grep -c '^res[2-5] \|^conv1 ' <<<"$output")" -eq 23 ]
	[[ "$output" =~ total\ \(23\ layers\)\ +[0-9.]+\ ms\ 1\.25x\ +\*[0-9.]+\ ms ]]
	[[ "$output" == *"9.19.0.56-cuda13: fastest on 23 of 23 layers"* ]]
	[[ "$output" == *"9.14.0.64-cuda13: fastest on 0 of 23 layers"* ]]
	[ -z "$stderr" ]
}

@test "--json has every figure, the GPU, the clocks and the version ids" {
	inst v914
	inst v9
	run --separate-stderr cudnnvm bench --shapes resnet50-b1 --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json, sys
j = json.load(sys.stdin)
g = j["gpu"]
assert g["name"] == "Fake GPU" and (g["cc_major"], g["cc_minor"]) == (9, 0), g
assert g["sm_clock_khz"] == 1980000 and g["mem_clock_khz"] == 3201000, g
assert g["sm_count"] == 132 and g["driver_version"] == 13000, g
assert j["runs"] == 30 and j["warmup"] == 5 and j["statistic"] == "median"
assert len(j["layers"]) == 46, len(j["layers"])  # 23 shapes x nchw, nhwc
l = j["layers"][0]
assert l["name"] == "conv1 7x7/2 3>64 @224" and l["n"] == 1 and l["stride"] == 2
assert l["pad"] == 3 and l["out_h"] == 112 and l["dtype"] == "fp16", l
assert {x["layout"] for x in j["layers"]} == {"nchw", "nhwc"}
assert all(x["fastest"] == "9.19.0.56-cuda13" for x in j["layers"])
v = {x["id"]: x for x in j["versions"]}
assert set(v) == {"9.14.0.64-cuda13", "9.19.0.56-cuda13"}
for x in v.values():
    assert x["benchmarked"] and x["validation"]["ok"], x
    for r in x["results"]:
        assert r["status"] == "ok" and r["runs"] == 30, r
        assert 0 < r["min_ms"] <= r["q1_ms"] <= r["ms"] <= r["q3_ms"] <= r["max_ms"], r
        assert r["tflops"] > 0
        assert "engine_fallback" not in r, r
# 9.19 has the backend API: engine 5 is fastest but wrong, engine 2 wins
for r in v["9.19.0.56-cuda13"]["results"]:
    assert r["chosen_by"] == "engines" and r["engine"] == 2 and r["algo"] is None, r
    assert r["rejected"] == 1, r
# 9.14 has not: the legacy find
for r in v["9.14.0.64-cuda13"]["results"]:
    assert r["algo"] == 1 and r["chosen_by"] == "find" and r["rejected"] == 0, r
    assert r["engine"] is None, r
assert v["9.19.0.56-cuda13"]["cudnn_version"] == 91900
assert v["9.14.0.64-cuda13"]["cudnn_version"] == 91400
a, b = v["9.14.0.64-cuda13"]["results"][2]["ms"], v["9.19.0.56-cuda13"]["results"][2]["ms"]
assert abs(a / b - 1.25) < 0.01, (a, b)
'
}

@test "--shapes FILE: custom layers, grouped, strided and dilated, fixed or swept dtype and layout" {
	inst v9
	cat >"$T/shapes" <<-EOF
		# name N C H W K R S stride pad dilation groups [dtype [layout]]
		depthwise 8 32 28 28 32 3 3 1 1 1 32
		dilated,4,16,20,20,16,3,3,2,2,2,1,fp32,nchw

		grouped 2 64 14 14 128 1 1 1 0 1 4 bf16
	EOF
	run --separate-stderr cudnnvm bench "$ID" --shapes "$T/shapes" --dtype fp16,fp32 --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json, sys
j = json.load(sys.stdin)
got = [(l["name"], l["dtype"], l["layout"]) for l in j["layers"]]
want = [(n, d, o) for d in ("fp32", "fp16") for o in ("nchw", "nhwc") for n in ["depthwise"]]
want = sorted(want) + [("dilated", "fp32", "nchw")] + [("grouped", "bf16", o) for o in ("nchw", "nhwc")]
assert sorted(got[:4]) == sorted(want[:4]) and got[4:] == want[4:], got
d = j["layers"][4]
# 20 + 2*2 - (2*(3-1)+1) = 19, /2 + 1 = 10
assert (d["out_h"], d["groups"], d["dilation"]) == (10, 1, 2), d
g = j["layers"][5]
assert g["groups"] == 4 and abs(g["gflop"] - 2*2*128*14*14*16/1e9) < 1e-9, g
assert all(r["status"] == "ok" for r in j["versions"][0]["results"])
'
}

@test "--shapes: 20,000 layers are refused up front (65), a FIFO at once (64), a layer cap that fits argv" {
	inst v9
	python3 -c 'for i in range(20000): print("l%d 1 3 8 8 4 3 3 1 1 1 1" % i)' >"$T/many"
	run --separate-stderr timeout 60 "$CUDNNVM_BIN" bench --shapes "$T/many"
	echo "$stderr"
	[ "$status" -eq 65 ]
	[ "$stderr" = "cudnnvm: $T/many: more than 1024 layers once swept over dtypes and layouts; split it into smaller files" ]
	# 1024 layers still run (two arguments each for the child)
	head -n 1024 "$T/many" >"$T/max"
	run --separate-stderr timeout 120 "$CUDNNVM_BIN" bench --shapes "$T/max" --dtype fp32 --layout nchw --runs 3 --warmup 0 --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; j=json.load(sys.stdin); assert len(j["layers"]) == 1024
assert all(r["status"] == "ok" for r in j["versions"][0]["results"])' <<<"$output"
	mkfifo "$T/fifo"
	run --separate-stderr timeout 20 "$CUDNNVM_BIN" bench --shapes "$T/fifo"
	[ "$status" -eq 64 ]
	[[ $stderr == "cudnnvm: bench: --shapes $T/fifo is not a regular file (a FIFO or a device is not read)"* ]]
}

@test "a bad shapes file names the file, line and field; an unknown set is a usage error" {
	inst v9
	printf 'ok 1 3 8 8 4 3 3 1 1 1 1\n\nbad 1 3 8 8 4 3 3 1 1 1 2\n' >"$T/shapes"
	run --separate-stderr cudnnvm bench --shapes "$T/shapes"
	[ "$status" -eq 65 ]
	[ "$stderr" = "cudnnvm: $T/shapes:3: C (3) and K (4) must be multiples of groups (2)" ]
	printf 'x 1 3 8 8 4 3 3 0 1 1 1\n' >"$T/shapes"
	run --separate-stderr cudnnvm bench --shapes "$T/shapes"
	[ "$status" -eq 65 ]
	[ "$stderr" = "cudnnvm: $T/shapes:1: stride must be a whole number from 1 to 64, not '0'" ]
	printf 'x 1 3 8 8 4 3 3 1 1 1 1 fp8\n' >"$T/shapes"
	run --separate-stderr cudnnvm bench --shapes "$T/shapes"
	[ "$status" -eq 65 ]
	[[ "$stderr" == "cudnnvm: $T/shapes:1: unknown dtype 'fp8'"* ]]
	run --separate-stderr cudnnvm bench --shapes vgg16
	[ "$status" -eq 64 ]
	[[ "$stderr" == "cudnnvm: bench: unknown layer set 'vgg16' (resnet50, resnet50-b1, or a file path)"* ]]
	run --separate-stderr cudnnvm bench --dtype fp8
	[ "$status" -eq 64 ]
	run --separate-stderr cudnnvm bench --runs 1
	[ "$status" -eq 64 ]
	[ "$(echo "$stderr" | wc -l)" -eq 1 ]
}

@test "a layer a version cannot run is unsupported, not zero, and stays out of the total" {
	inst v914
	inst v9
	run --separate-stderr cudnnvm bench --shapes resnet50-b1 --dtype bf16 --layout nhwc
	echo "$output"
	[ "$status" -eq 0 ]
	row=$(grep '^res2 3x3 64>64 @56 ' <<<"$output")
	[[ "$row" =~ bf16\ +nhwc\ +unsupported\ +\*0\.117\ ms ]]
	[[ "$output" == *"total (0 layers)"* ]]
	[[ "$output" == *"  res2 3x3 64>64 @56 bf16 nhwc: unsupported: cudnnSetTensor4dDescriptor: CUDNN_STATUS_FAKE_ERROR (3000)"* ]]
	[[ "$output" == *"9.19.0.56-cuda13: fastest on 23 of 23 layers"* ]]
	run --separate-stderr cudnnvm bench --shapes resnet50-b1 --dtype bf16 --json
	echo "$output" | python3 -c '
import json, sys
v = {x["id"]: x for x in json.load(sys.stdin)["versions"]}
r = v["9.14.0.64-cuda13"]["results"][0]
assert r == {"status": "unsupported", "reason": "cudnnSetTensor4dDescriptor: CUDNN_STATUS_FAKE_ERROR (3000)"}, r
assert "ms" not in r
'
}

@test "a version that fails validation is reported, never benchmarked" {
	inst v9
	inst badconv
	bad=$ID
	run --separate-stderr cudnnvm bench --shapes resnet50-b1 --layout nhwc
	echo "$output"
	# the default sweep reports it and goes on
	[ "$status" -eq 0 ]
	[[ "$output" == *"$bad: failed validation (step 5, gpu): the convolution on Fake GPU is wrong"*"; not benchmarked"* ]]
	row=$(grep '^res2 3x3 64>64 @56 ' <<<"$output")
	[[ "$row" =~ \*0\.117\ ms\ ±2%\ 2\.0\ TF\ e2\ +-$ ]]
	# named on the command line, it fails the command, in one line
	run --separate-stderr cudnnvm bench "$bad" 9.19.0.56 --shapes resnet50-b1 --layout nhwc
	[ "$status" -eq 1 ]
	[ "$stderr" = "cudnnvm: $bad failed validation (step 5, gpu) and was not benchmarked: the convolution on Fake GPU is wrong: max error 0.5 vs the CPU reference (algo 0)" ]
	run --separate-stderr cudnnvm bench "$bad" --shapes resnet50-b1 --json
	[ "$status" -eq 1 ]
	echo "$output" | python3 -c '
import json, sys
v = json.load(sys.stdin)["versions"][0]
assert v["benchmarked"] is False and v["validation"]["ok"] is False
assert {r["status"] for r in v["results"]} == {"not run"}'
}

@test "a fast algorithm with a wrong answer is rejected for the next one" {
	inst wrongfast
	run --separate-stderr cudnnvm bench "$ID" --shapes resnet50-b1 --layout nchw --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["versions"][0]["results"]:
    assert r["status"] == "ok" and r["algo"] == 0 and r["rejected"] == 1, r'
}

@test "a backend API that fails gives way to the legacy find, saying why" {
	inst nograph
	run --separate-stderr cudnnvm bench "$ID" --shapes resnet50-b1 --layout nhwc --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["versions"][0]["results"]:
    assert r["status"] == "ok" and r["chosen_by"] == "find" and r["algo"] == 1, r
    assert r["engine"] is None, r
    assert r["engine_fallback"] == "cudnnBackendFinalize(OPERATIONGRAPH): CUDNN_STATUS_FAKE_ERROR (3000)", r'
	run --separate-stderr cudnnvm bench "$ID" --shapes resnet50-b1 --layout nhwc
	[ "$status" -eq 0 ]
	row=$(grep '^res2 3x3 64>64 @56 ' <<<"$output")
	[[ "$row" =~ \*0\.117\ ms\ ±2%\ 2\.0\ TF\ a1$ ]]
}

@test "Ctrl-C stops the child and exits 130 with one line and no table" {
	inst slowfwd
	cudnnvm bench "$ID" --shapes resnet50-b1 >"$T/out" 2>"$T/err" &
	pid=$!
	for i in $(seq 100); do
		pgrep -f "validate-probe --libdir $CUDNNVM_STORE/$ID/" >/dev/null && break
		sleep 0.1
	done
	pgrep -f "validate-probe --libdir $CUDNNVM_STORE/$ID/"
	sleep 0.5
	kill -INT "$pid"
	# it must end promptly, not after the stub's 30 s convolution
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		echo "still running 5 s after SIGINT"
		false
	fi
	st=0
	wait "$pid" || st=$?
	cat "$T/err"
	[ "$st" -eq 130 ]
	[ "$(cat "$T/err")" = "cudnnvm: bench interrupted while timing $ID; nothing was printed" ]
	[ ! -s "$T/out" ]
	run pgrep -f "validate-probe --libdir $CUDNNVM_STORE/$ID/"
	[ "$status" -eq 1 ]
}

@test "no GPU: one line, exit 1" {
	inst v9
	CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nodev" run --separate-stderr cudnnvm bench
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[ "$stderr" = "cudnnvm: bench needs an NVIDIA GPU, and there is none usable here (no NVIDIA GPU); run it on a GPU machine ('cudnnvm validate' checks one)" ]
}

@test "nothing installed: one line, exit 1" {
	run --separate-stderr cudnnvm bench
	[ "$status" -eq 1 ]
	[ "$stderr" = "cudnnvm: no cuDNN version is installed; run: cudnnvm install <version>" ]
}
