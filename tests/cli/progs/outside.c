/*
 * outside.c - CPU time where no recorded function is open: main calls
 * work() 3 times and leaves burn() (not instrumented) to run at exit, after
 * main returned, for some 50 ms.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((no_instrument_function)) static void burn(void)
{
	for (long i = 0; i < 50000000; i++)
		sink += i ^ (sink >> 1);
}

static void work(void)
{
	sink++;
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		work();
	atexit(burn);
	printf("3\n");
	return 0;
}
