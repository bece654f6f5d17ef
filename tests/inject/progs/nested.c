/*
 * nested.c - a loop of N calls (argv[1], default two million) of a
 * function of a few instructions: measured together, the loop's time is
 * nearly all its callee's payloads, which zond subtracts as calibrated
 * (compensation.sh).
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 1;

__attribute__((noinline)) unsigned tiny(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 16;
}

__attribute__((noinline)) unsigned loop(int n)
{
	unsigned s = 0;
	for (int i = 0; i < n; i++)
		s ^= tiny();
	return s;
}

int main(int argc, char **argv)
{
	printf("%u\n", loop(argc > 1 ? atoi(argv[1]) : 2000000));
	return 0;
}
