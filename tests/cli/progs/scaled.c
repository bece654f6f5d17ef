/*
 * scaled.c - a program whose work is set by its arguments, for zond diff:
 * `scaled WORK CALLS` runs heavy() once, WORK million steps, and light()
 * CALLS times, and prints how many times it called each.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void heavy(long work)
{
	for (long i = 0; i < work * 1000000; i++)
		sink += (unsigned long)i;
}

__attribute__((noinline)) static void light(void)
{
	sink++;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fputs("usage: scaled WORK CALLS\n", stderr);
		return 2;
	}
	long work = atol(argv[1]), calls = atol(argv[2]);
	heavy(work);
	for (long i = 0; i < calls; i++)
		light();
	printf("heavy 1 light %ld\n", calls);
	return 0;
}
