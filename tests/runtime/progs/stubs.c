/*
 * Nearly all of its time in the hooks and the PLT stubs that reach them:
 * an empty instrumented function called in a loop (samples in the stubs
 * are zond's, stubcheck).
 */
#include <stdio.h>

__attribute__((noinline)) void empty(void)
{
	__asm__ volatile("");
}

int main(void)
{
	for (long i = 0; i < 200000000; i++)
		empty();
	puts("ran: yes");
	return 0;
}
