/*
 * crash.c - a bare-metal program that counts 100 calls of step(), prints
 * the count, then ends badly inside fall(): an illegal instruction (the
 * trap handler of picolibc's crt0 reports it and exits with status 1).
 */
#include <stdio.h>

volatile unsigned n_step;

__attribute__((noipa)) void step(void)
{
	n_step++;
}

__attribute__((noipa)) void fall(void)
{
	n_step += 1000; /* the fault lies past the bytes zond relocates */
	__asm__ volatile(".word 0"); /* illegal */
}

int main(void)
{
	for (int i = 0; i < 100; i++)
		step();
	printf("step=%u\n", n_step);
	fall();
	printf("not reached\n");
	return 0;
}
