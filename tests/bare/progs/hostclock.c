/* hostclock.c - calls enough for QEMU without -icount to make zond's clock go back
   (tests/bare/hostclock.sh): a recursion, a loop, a leaf called from both. */
#include <stdio.h>

volatile long c_leaf, c_fib, c_work;

__attribute__((noinline)) long leaf(long x)
{
	c_leaf++;
	return x * 7 + (x >> 3);
}

__attribute__((noinline)) long fib(long n)
{
	c_fib++;
	return n < 2 ? leaf(n) : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) long work(int n)
{
	c_work++;
	long s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

int main(void)
{
	long s = 0;
	for (int i = 0; i < 5; i++) {
		s += fib(12);
		s += work(100);
	}
	printf("s=%ld leaf=%ld fib=%ld work=%ld\n", s, c_leaf, c_fib, c_work);
	return 0;
}
