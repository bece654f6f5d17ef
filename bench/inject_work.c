/* inject_work.c - the workload of bench/inject: N calls of a tiny function. */
#include <stdlib.h>

__attribute__((noinline)) long leaf(long x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, s = 0;
	for (long i = 0; i < n; i++)
		s += leaf(i);
	return (int)(s & 1);
}
