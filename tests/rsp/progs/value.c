/*
 * value.c - a bare-metal program for the GDB transport's test
 * (gdb_test.c): value() returns 7 unless zond rewrote it; between two
 * loops of calls the program spins while `spin_forever` is set (by the
 * debugger), with `phase` saying where it is.
 */
#include <stdio.h>

volatile int spin_forever, phase;

__attribute__((noipa)) int value(void)
{
	return 7;
}

int main(void)
{
	int sum = 0;
	for (int i = 0; i < 10; i++)
		sum += value();
	phase = 1;
	while (spin_forever)
		;
	phase = 2;
	for (int i = 0; i < 10; i++)
		sum += value();
	printf("sum=%d\n", sum);
	return 3;
}
