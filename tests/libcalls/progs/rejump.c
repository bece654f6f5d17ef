/*
 * rejump.c - longjmp out of a profiled call, straight back to a setjmp (a
 * call that is only counted): every setjmp is main's, none is made from
 * inside the call it left.
 */
#include <setjmp.h>
#include <stdio.h>

#include "mylib.h"

static jmp_buf env;

static void jump_out(void *arg)
{
	(void)arg;
	longjmp(env, 1);
}

int main(void)
{
	volatile int jumps = 0;
	for (volatile int i = 0; i < 10; i++) {
		if (setjmp(env) == 0)
			ml_call(jump_out, NULL);
		else
			jumps++;
	}
	printf("jumps %d\n", jumps);
	return 0;
}
