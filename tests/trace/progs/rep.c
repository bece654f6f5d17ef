/*
 * rep.c - x86-64: fill() runs one `rep stosq` of argv[1] iterations, five
 * times (rep.sh).
 */
#include <stdio.h>
#include <stdlib.h>

static long buf[4096];

__attribute__((noinline)) void fill(long n)
{
	long *d = buf;
	__asm__ volatile("rep stosq" : "+D"(d), "+c"(n) : "a"(0L) : "memory");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	for (int i = 0; i < 5; i++)
		fill(n);
	printf("%ld\n", buf[0]);
	return 0;
}
