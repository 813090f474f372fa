/* tap.h: a tiny TAP producer for the unit tests. */
#ifndef CUDNNVM_TAP_H
#define CUDNNVM_TAP_H

#include <stdio.h>

static int t_run, t_fail;

#define CHECK(expr)                                                      \
	do {                                                             \
		t_run++;                                                 \
		if (expr)                                                \
			printf("ok %d - %s\n", t_run, #expr);            \
		else {                                                   \
			t_fail++;                                        \
			printf("not ok %d - %s (%s:%d)\n", t_run, #expr, \
			       __FILE__, __LINE__);                      \
		}                                                        \
	} while (0)

#define TEST_DONE() (printf("1..%d\n", t_run), t_fail ? 1 : 0)

#endif
