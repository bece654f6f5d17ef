/*
 * longjmp out of a call, then the same function called again from the same
 * stack frame and call site: the abandoned frame sits exactly where the new
 * call's does, yet the new call is its caller's, not the old one's.  An
 * error-recovery loop (step fails every other time) and a recursion left
 * from its bottom twice.  Real stacks: main;step 6, main;step;fail 3,
 * main;dive 2 and each deeper dive 2.
 */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

__attribute__((noinline)) static void fail(void)
{
	longjmp(env, 1);
}

__attribute__((noinline)) static void step(int i)
{
	if (i % 2)
		fail();
}

__attribute__((noinline)) static void dive(int n)
{
	if (n < 0)
		return;
	if (n == 0)
		longjmp(env, 1);
	dive(n - 1);
	__asm__ volatile("");
}

int main(void)
{
	for (volatile int i = 0; i < 6; i++)
		if (!setjmp(env))
			step(i);
	for (volatile int i = 0; i < 2; i++)
		if (!setjmp(env))
			dive(3);
	puts("done");
	return 0;
}
