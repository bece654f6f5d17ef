/*
 * trace_work.c - the workload of bench/trace: a mix of what programs do
 * (calls and recursion, short loops, branches on data, memory) whose
 * length in instructions grows linearly with its argument.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static unsigned data[256];

NOINLINE static unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

NOINLINE static void sort(unsigned *a, int n)
{
	for (int i = 1; i < n; i++) {
		unsigned v = a[i];
		int j = i - 1;
		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

NOINLINE static unsigned hash(const unsigned *a, int n)
{
	unsigned h = 2166136261u;
	for (int i = 0; i < n; i++)
		h = (h ^ a[i]) * 16777619u;
	return h;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	unsigned seed = 1, sum = 0;
	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < 64; i++)
			data[i] = seed = seed * 1103515245u + 12345u;
		sort(data, 64);
		sum += hash(data, 64) + fib(12);
	}
	printf("%u\n", sum);
	return 0;
}
