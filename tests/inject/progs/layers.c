/*
 * layers.c - outer calls middle 50 times, middle calls inner 20 times, and
 * each does work of its own around its calls (a chain of dependent
 * multiplications, microseconds in outer and middle), so that a caller's
 * own time is far larger than what the compensation of its measured
 * callees could be off by: its inclusive time must exceed the sum of its
 * callees' with either clock (fastclock.sh).  Prints the calls it made as
 * "count NAME N".
 */
#include <stdio.h>

static unsigned long n_outer, n_middle, n_inner;

/* n steps of a chain no step of which can start before the last ended. */
static inline __attribute__((always_inline)) unsigned spin(unsigned x, int n)
{
	for (int i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) unsigned inner(unsigned x)
{
	n_inner++;
	return spin(x, 200);
}

__attribute__((noinline)) unsigned middle(unsigned x)
{
	n_middle++;
	x = spin(x, 2000);
	for (int i = 0; i < 20; i++)
		x ^= inner(x);
	return spin(x, 2000);
}

__attribute__((noinline)) unsigned outer(unsigned x)
{
	n_outer++;
	x = spin(x, 20000);
	for (int i = 0; i < 50; i++)
		x ^= middle(x);
	return spin(x, 20000);
}

int main(void)
{
	printf("%u\n", outer(1));
	printf("count outer %lu\ncount middle %lu\ncount inner %lu\n", n_outer, n_middle, n_inner);
	return 0;
}
