/* calls.c - known call counts for gprof comparison: recursion, mutual
 * recursion, calls through pointers, a leaf called in a loop. */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int leaf(int x) { return x * 3 + 1; }
NOINLINE int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
NOINLINE int is_odd(int n);
NOINLINE int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
NOINLINE int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }
NOINLINE int twice(int (*f)(int), int x) { return f(f(x)); }
NOINLINE int loop(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 15;
	int s = fib(n) + is_even(n * 3) + twice(leaf, n) + loop(n * 10);
	printf("%d\n", s);
	return 0;
}
