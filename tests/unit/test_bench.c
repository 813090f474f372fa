/* test_bench.c: layer lines, their compact form for the bench child, the
 * output size and FLOP count, and the built-in layer sets. */
#include "base/base.h"
#include "tap.h"
#include "validate/validate_int.h"

#include <stdlib.h>
#include <string.h>

static int
parse(const char *line, struct cv_layer *l)
{
	struct cv_err err = CV_ERR_INIT;
	int hd, hl;
	return cv_layer_parse(line, l, &hd, &hl, &err);
}

static int
fails_with(const char *line, const char *msg)
{
	struct cv_err err = CV_ERR_INIT;
	struct cv_layer l;
	int hd, hl, r = cv_layer_parse(line, &l, &hd, &hl, &err);
	return r == CV_EDATA && err.code == CV_EDATA &&
	       strstr(err.msg, msg) != NULL;
}

int
main(void)
{
	struct cv_layer l, back;
	struct cv_layer *set = NULL;
	struct cv_err err = CV_ERR_INIT;
	char enc[256];
	size_t n = 0;
	int hd, hl;

	CHECK(parse("", &l) == 0);
	CHECK(parse("   # a comment", &l) == 0);
	CHECK(cv_layer_parse("a 2 8 9 9 4 3 3 2 1 1 1", &l, &hd, &hl, &err) ==
	      1);
	CHECK(!hd && !hl && l.n == 2 && l.c == 8 && l.k == 4 && l.stride == 2);
	/* (9 + 2 - 3) / 2 + 1 = 5; 2 * N*K*P*Q * C*R*S */
	CHECK(cv_layer_out_h(&l) == 5 && cv_layer_out_w(&l) == 5);
	CHECK(cv_layer_flops(&l) == 2.0 * 2 * 4 * 5 * 5 * 8 * 3 * 3);
	CHECK(cv_layer_parse("g,1,32,7,7,64,3,3,1,2,2,16,bf16,nhwc", &l, &hd,
			     &hl, &err) == 1);
	CHECK(hd && hl && l.dtype == CV_DTYPE_BF16 &&
	      l.layout == CV_LAYOUT_NHWC && l.groups == 16 && l.dilation == 2);
	/* 7 + 4 - (2*2+1) = 6, + 1 = 7; grouped: C/groups per filter */
	CHECK(cv_layer_out_h(&l) == 7);
	CHECK(cv_layer_flops(&l) == 2.0 * 64 * 7 * 7 * 2 * 3 * 3);
	cv_layer_encode(&l, enc, sizeof enc);
	CHECK(strcmp(enc, "1,32,7,7,64,3,3,1,2,2,16,bf16,nhwc") == 0);
	CHECK(cv_layer_decode(enc, &back) == 0 && back.groups == 16 &&
	      back.dtype == l.dtype && back.layout == l.layout &&
	      back.pad == 2 && back.k == 64);
	CHECK(cv_layer_decode("1,2,3", &back) < 0);
	CHECK(cv_layer_decode("1,3,8,8,4,3,3,1,1,1,1,fp16", &back) < 0);

	CHECK(fails_with("a 1 3 8 8", "got 5 fields"));
	CHECK(fails_with("a 1 3 8 8 4 3 3 1 1 1 1 fp16 nhwc x", "got 15"));
	CHECK(fails_with("a 1 3 8 8 4 3 3 1 1 1 2", "multiples of groups"));
	CHECK(fails_with("a 0 3 8 8 4 3 3 1 1 1 1", "N must be"));
	CHECK(fails_with("a 1 3 8 8 4 3 3 1 -1 1 1", "pad must be"));
	CHECK(fails_with("a 1 3 8 8 4 3 3 1 1 1 1x", "groups must be"));
	CHECK(fails_with("a 1 3 2 2 4 5 5 1 0 1 1", "does not fit"));
	CHECK(fails_with("a 65536 1024 256 256 4 1 1 1 0 1 1", "too large"));
	CHECK(fails_with("a 1 3 8 8 4 3 3 1 1 1 1 fp64", "unknown dtype"));
	CHECK(fails_with("a 1 3 8 8 4 3 3 1 1 1 1 fp16 chwn",
			 "unknown layout"));
	CHECK(fails_with("a\x01 1 3 8 8 4 3 3 1 1 1 1", "printable"));

	CHECK(cv_bench_layers("resnet50", 1u << CV_DTYPE_FP16,
			      (1u << CV_LAYOUT_NCHW) | (1u << CV_LAYOUT_NHWC),
			      &set, &n, &err) == 0);
	CHECK(n == 46 && set[0].n == 64 && set[0].layout == CV_LAYOUT_NCHW &&
	      set[1].layout == CV_LAYOUT_NHWC);
	CHECK(strcmp(set[0].name, "conv1 7x7/2 3>64 @224") == 0);
	/* every shape distinct */
	for (size_t i = 0; i < n; i += 2)
		for (size_t j = i + 2; j < n; j += 2)
			if (set[i].c == set[j].c && set[i].h == set[j].h &&
			    set[i].k == set[j].k && set[i].r == set[j].r &&
			    set[i].stride == set[j].stride)
				CHECK(!"a repeated ResNet-50 shape");
	free(set);
	CHECK(cv_bench_layers("resnet50-b1", 7, 1u << CV_LAYOUT_NHWC, &set, &n,
			      &err) == 0);
	CHECK(n == 69 && set[0].n == 1 && set[2].dtype == CV_DTYPE_BF16);
	free(set);
	CHECK(cv_bench_layers("vgg", 1, 1, &set, &n, &err) == CV_EUSAGE);
	CHECK(cv_bench_layers("./no-such-file", 1, 1, &set, &n, &err) ==
	      CV_EUSAGE);
	return TEST_DONE();
}
