/* crash.c - a program that dies by SIGSEGV inside a profiled call: what ran is kept. */
#include <stdio.h>

#include "mylib.h"

static void crash(void *arg)
{
	ml_add(1, 1);
	*(volatile int *)arg = 1;
}

int main(void)
{
	for (int i = 0; i < 42; i++)
		ml_add(i, 1);
	ml_call(crash, NULL);
	return 0;
}
