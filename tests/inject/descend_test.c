/*
 * descend_test.c - the descent's pruning (tool/inject/descend.c) on graphs
 * the test builds: main -> loop -> tiny, and main -> init.  The first pass
 * measured everything at once, so its times hold the payloads of tiny's
 * many calls: main 1000 there, 10 measured alone.  loop, main's whole work
 * (9 of 10), is measured at the default 1%, against the whole as the roots
 * measured alone give it; a callee whose callers took under 1% of that
 * whole is pruned; the first pass's whole until then (a root below the
 * threshold of it pruned).  Before (s15), the whole
 * stayed the first pass's 1000, and loop's bound of 10 (main's time alone)
 * came out at 1% of it and under: pruned.
 */
#include "check.h"
#include "inject/descend.h"

enum { MAIN, LOOP, TINY, INIT, N };

int main(void)
{
	const struct inject_edge edges[] = {
		{0, INJECT_NO_CALLER, MAIN, 1, 1000, 0},
		{0, MAIN, LOOP, 1, 990, 0},
		{0, LOOP, TINY, 1000000, 900, 0},
		{0, MAIN, INIT, 1, 1, 0},
	};
	const uint64_t first[N] = {1000, 990, 900, 1};
	struct descent *d = descent_new(N, edges, 4, first, 1.0, -1);
	size_t batch[N];
	uint64_t bound, whole;

	CHECK_EQ_U64(descent_next(d, batch, N), 1);
	CHECK_EQ_U64(batch[0], MAIN);
	descent_measured(d, MAIN, 10); /* alone: 10, the whole from now on */
	CHECK(!descent_pruned(d, LOOP, &bound, &whole));
	CHECK_EQ_U64(descent_next(d, batch, N), 2); /* loop and init: bounds of 10 of 10 */
	CHECK_EQ_U64(batch[0], LOOP);
	CHECK_EQ_U64(batch[1], INIT);
	descent_measured(d, LOOP, 9);
	descent_measured(d, INIT, 0);
	CHECK(!descent_pruned(d, TINY, &bound, &whole)); /* 9 of 10 */
	CHECK_EQ_U64(descent_next(d, batch, N), 1);
	CHECK_EQ_U64(batch[0], TINY);
	descent_free(d);

	/* a callee whose callers' time is under 1% of the roots' measured whole: pruned */
	const struct inject_edge deep[] = {
		{0, INJECT_NO_CALLER, MAIN, 1, 1000, 0},
		{0, MAIN, LOOP, 1, 990, 0},
		{0, LOOP, TINY, 10, 50, 0},
	};
	d = descent_new(N, deep, 3, first, 1.0, -1);
	descent_next(d, batch, N);
	descent_measured(d, MAIN, 10000);
	descent_next(d, batch, N);
	descent_measured(d, LOOP, 50); /* 0.5% of 10000 */
	CHECK(descent_pruned(d, TINY, &bound, &whole));
	CHECK_EQ_U64(bound, 50);
	CHECK_EQ_U64(whole, 10000);
	descent_free(d);

	/* a root under the threshold of the first pass's whole is pruned with it as its bound */
	const struct inject_edge two[] = {
		{0, INJECT_NO_CALLER, MAIN, 1, 1000, 0},
		{0, INJECT_NO_CALLER, INIT, 1, 5, 0},
	};
	const uint64_t first2[N] = {1000, 0, 0, 5};
	d = descent_new(N, two, 2, first2, 1.0, -1);
	CHECK(descent_pruned(d, INIT, &bound, &whole));
	CHECK_EQ_U64(bound, 5);
	CHECK_EQ_U64(whole, 1005);
	descent_free(d);
	return check_done();
}
