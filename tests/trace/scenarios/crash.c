/*
 * crash.c - calls leaf() 1000 times, says "ready", then by its argument:
 * "segv" dies of a fault, "abort" aborts, "spin" spins in leaf() until
 * killed, anything else exits with 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noipa)) int leaf(int i) { return i * 3; }

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += leaf(i);
	printf("ready %d\n", s);
	fflush(stdout);
	if (strcmp(how, "segv") == 0)
		*(volatile int *)(long)(s & 0) = 1;
	if (strcmp(how, "abort") == 0)
		abort();
	while (strcmp(how, "spin") == 0)
		s += leaf(s);
	return 3;
}
