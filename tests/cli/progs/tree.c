/*
 * tree.c - a binary tree of calls DEPTH deep (argument, default 2): a and b
 * each call both, so a run has 2^(DEPTH+1) - 1 calling contexts; deep
 * enough, more than a small file system holds.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

void a(int depth);
void b(int depth);

__attribute__((noinline)) void a(int depth)
{
	sink++;
	if (depth) {
		a(depth - 1);
		b(depth - 1);
	}
}

__attribute__((noinline)) void b(int depth)
{
	sink += 2;
	if (depth) {
		a(depth - 1);
		b(depth - 1);
	}
}

int main(int argc, char **argv)
{
	a(argc > 1 ? atoi(argv[1]) : 2);
	printf("%ld\n", sink);
	return 0;
}
