/*
 * sites.c - calls from known source lines, for zond annotate: main calls
 * one() 7 times from the line marked "site one", two() 3 times from the line
 * marked "site two" and rec(4) once; rec calls itself from the line marked
 * "site rec", 4 times in all.  Prints the sum it built: 7 + 3 * 2 = 13.
 */
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void one(void)
{
	sink++;
}

__attribute__((noinline)) static void two(void)
{
	sink += 2;
}

__attribute__((noinline)) static void rec(int n)
{
	if (n > 0)
		rec(n - 1); /* site rec */
}

int main(void)
{
	for (int i = 0; i < 7; i++)
		one(); /* site one */
	for (int i = 0; i < 3; i++)
		two(); /* site two */
	rec(4); /* site main-rec */
	printf("%d\n", sink);
	return 0;
}
