/* longjmp.c - longjmp and siglongjmp out of a profiled call, then calls go on. */
#include <setjmp.h>
#include <stdio.h>

#include "mylib.h"

static jmp_buf env;
static sigjmp_buf senv;

static void jump_out(void *arg)
{
	ml_add(1, 2);
	longjmp(env, *(int *)arg);
}

static void sigjump_out(void *arg)
{
	ml_twice(3);
	siglongjmp(senv, *(int *)arg);
}

int main(void)
{
	volatile int total = 0;
	for (volatile int i = 1; i <= 10; i++) {
		int r = setjmp(env);
		if (r == 0)
			ml_call(jump_out, (void *)&i);
		else
			total += ml_add(r, 0);
	}
	for (volatile int i = 1; i <= 5; i++) {
		int r = sigsetjmp(senv, 1);
		if (r == 0)
			ml_call(sigjump_out, (void *)&i);
		else
			total += ml_add(r, 0);
	}
	printf("total %d\n", total);
	return 0;
}
