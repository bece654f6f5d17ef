/*
 * crash.c - calls count() a number of times it prints, then kills itself
 * with SIGKILL (no exit path runs): zond inject must keep what was measured.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static unsigned long n_count;

__attribute__((noinline)) void count(void)
{
	n_count++;
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	(void)argv;
	for (int i = 0; i < 300 + argc; i++)
		count();
	printf("count count %lu\n", n_count);
	fflush(stdout);
	kill(getpid(), SIGKILL);
	return 0;
}
