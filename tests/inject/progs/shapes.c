/*
 * shapes.c - calls of every shape whose figures a profile must add up
 * over (figures.sh): a leaf of a few instructions called N times (argv[1],
 * default 300000) from main, about what the payload's own part costs, so
 * that the compensation's sums for it may read below 0; the same leaf
 * under two callers through one middle function; direct recursion (fib)
 * and mutual recursion (even, odd).  Built without inlining, so that
 * every call is a call.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int leaf(int x)
{
	return 3 * x + 1;
}

__attribute__((noinline)) int middle(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

__attribute__((noinline)) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) int odd(int n);

__attribute__((noinline)) int even(int n)
{
	return n == 0 ? 1 : odd(n - 1);
}

__attribute__((noinline)) int odd(int n)
{
	return n == 0 ? 0 : even(n - 1);
}

__attribute__((noinline)) int left(void)
{
	return middle(3);
}

__attribute__((noinline)) int right(void)
{
	return middle(5) + leaf(7);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300000;
	volatile long s = 0;
	for (int i = 0; i < 4; i++)
		s += left();
	for (int i = 0; i < 2; i++)
		s += right();
	s += fib(15) + even(10);
	for (int k = 0; k < n; k++)
		s += leaf(k);
	printf("%ld\n", (long)s);
	return 0;
}
