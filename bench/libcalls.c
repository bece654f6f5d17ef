/* libcalls.c - the benchmark's workload: N calls of a tiny function in a shared library. */
#include <stdio.h>
#include <stdlib.h>

#ifdef BENCH_LIB
int bench_leaf(int x)
{
	return x + 1;
}
#else
int bench_leaf(int x);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	int x = 0;
	for (long i = 0; i < n; i++)
		x = bench_leaf(x);
	printf("%d\n", x);
	return 0;
}
#endif
