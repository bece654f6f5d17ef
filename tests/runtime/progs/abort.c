/* abort() three levels deep: what ran before is all in the raw file. */
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

static void leaf(int i)
{
	sink += i;
}

static void level2(void)
{
	for (int i = 0; i < 1000; i++)
		leaf(i);
	abort();
}

static void level1(void)
{
	level2();
}

int main(void)
{
	puts("aborting");
	fflush(stdout);
	level1();
	return 0;
}
