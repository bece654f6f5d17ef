/*
 * timeline.c - a program whose calls the trace's timeline must show as they
 * happened: it logs each call of its own functions as it enters it, with
 * its depth below main, and prints the log at the end ("call DEPTH NAME"
 * lines, in the order of entry) as the test's truth.
 *
 * Every function but rec and main is branchless apart from its calls, so
 * one call runs each of its instructions once: its inclusive instruction
 * count is its objdump length (up to its return) plus its callees'.
 * depth-- after each call keeps the compiler from making it a tail call.
 */
#include <stdio.h>

#define N 64

static const char *names[N];
static int depths[N];
static volatile int n, depth;
static volatile unsigned sink;

#define ENTER(name)                                                                                \
	do {                                                                                       \
		int k = n;                                                                         \
		names[k] = name;                                                                   \
		depths[k] = depth;                                                                 \
		n = k + 1;                                                                         \
	} while (0)

#define CALL(f, ...)                                                                               \
	do {                                                                                       \
		depth++;                                                                           \
		f(__VA_ARGS__);                                                                    \
		depth--;                                                                           \
	} while (0)

__attribute__((noinline)) void leaf_x(void)
{
	ENTER("leaf_x");
	sink = sink * 3 + 1;
}

__attribute__((noinline)) void leaf_y(void)
{
	ENTER("leaf_y");
	sink = (sink ^ 0x5a) + 7;
}

__attribute__((noinline)) void pair(void)
{
	ENTER("pair");
	CALL(leaf_x);
	CALL(leaf_y);
}

__attribute__((noinline)) void outer(void)
{
	ENTER("outer");
	CALL(pair);
	CALL(leaf_x);
	CALL(pair);
}

__attribute__((noinline)) void rec(int k)
{
	ENTER("rec");
	if (k > 0)
		CALL(rec, k - 1);
	else
		CALL(leaf_y);
}

int main(void)
{
	ENTER("main");
	CALL(outer);
	CALL(leaf_y);
	CALL(rec, 3);
	CALL(pair);
	for (int i = 0; i < n; i++)
		printf("call %d %s\n", depths[i], names[i]);
	return 0;
}
