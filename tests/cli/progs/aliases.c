/*
 * aliases.c - one function with two names (work, and other, an alias of
 * it), called N times through the alias; main prints how many.  A filter
 * naming either name chooses the function (cli aliases.sh).
 */
#include <stdio.h>

#define N 100

__attribute__((noinline)) int work(int x)
{
	return x * 3 + 1;
}

int other(int) __attribute__((alias("work")));

int main(void)
{
	int s = 0, calls = 0;
	for (int i = 0; i < N; i++, calls++)
		s += other(i);
	printf("calls=%d sum=%d\n", calls, s);
	return 0;
}
