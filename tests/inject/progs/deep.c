/*
 * deep.c - recursion 1000 deep, past the 256 frames of zond inject's
 * shadow stack: the calls deeper than that are not measured, and the
 * stored run must say so.  Prints its count.
 */
#include <stdio.h>

static long n_rec;

__attribute__((noinline)) long rec(long d)
{
	n_rec++;
	long r = d ? rec(d - 1) : 0;
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

int main(void)
{
	long s = rec(999);
	printf("depth %ld\ncount rec %ld\n", s, n_rec);
	return 0;
}
