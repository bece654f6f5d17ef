/*
 * chain.c - library-calls-library chains (chaina.c, chainb.c), each run more
 * often than the collector has frames (4096): every call must be seen once,
 * under its real caller, at the cost of a call from the program.  The
 * program counts its own calls and prints them.
 */
#include <stdio.h>

int ca_tail(int x);
int ca_nest(int x);
int ca_deep(int x);

int main(void)
{
	long sum = 0, tail = 0, nest = 0, deep = 0;
	for (int i = 0; i < 10000; i++) {
		sum += ca_tail(i), tail++;
		if (i % 2 == 0)
			sum += ca_nest(i), nest++;
		if (i % 5 == 0)
			sum += ca_deep(i), deep++;
	}
	printf("sum %ld\ncalls ca_tail %ld ca_nest %ld ca_deep %ld\n", sum, tail, nest, deep);
	printf("so cb_leaf %ld cb_len %ld from ca_nest %ld\n", tail + nest + deep, nest + deep,
	       nest + deep);
	return 0;
}
