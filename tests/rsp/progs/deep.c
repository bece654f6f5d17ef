/*
 * deep.c - a bare-metal program whose calls nest deeper than a small
 * shadow stack, for depth.sh: walk() runs a recursion rec(n) n + 1 calls
 * deep, each level but the last calling leaf().  It prints its own counts
 * of calls and the recursion's result, and returns 5: zond's counts, the
 * output and the status must be the same.
 */
#include <stdio.h>

#define LEVELS 50
#define WALKS  3

static volatile unsigned n_walk, n_rec, n_leaf;
static volatile unsigned sink;

__attribute__((noipa)) unsigned leaf(unsigned k)
{
	n_leaf++;
	for (unsigned i = 0; i < k; i++)
		sink += i;
	return sink & 7;
}

__attribute__((noipa)) unsigned rec(unsigned n)
{
	n_rec++;
	if (n == 0)
		return 1;
	unsigned v = leaf(n % 5);
	unsigned r = rec(n - 1);
	sink += r; /* after the call: no tail recursion */
	return r + v;
}

__attribute__((noipa)) unsigned walk(void)
{
	n_walk++;
	return rec(LEVELS);
}

int main(void)
{
	unsigned sum = 0;
	for (unsigned j = 0; j < WALKS; j++)
		sum += walk();
	printf("walk=%u rec=%u leaf=%u sum=%u\n", n_walk, n_rec, n_leaf, sum);
	return 5;
}
