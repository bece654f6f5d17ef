/*
 * Pools far too small (ZOND_FUNCS=5 ZOND_EDGES=4 ZOND_DEPTH=3): what does
 * not fit is counted as lost, and nothing crashes.  Functions main f1 f2 down
 * f3 fit, f4 does not; edges up to main -> down fit, down -> down and
 * main -> f3 do not; down(3) to down(0) are deeper than the stack.
 */
#include <stdio.h>

static void f1(void)
{
}

static void f2(void)
{
}

static void f3(void)
{
}

static void f4(void)
{
}

static void down(int n)
{
	if (n)
		down(n - 1);
}

int main(void)
{
	f1();
	f2();
	down(5);
	f3();
	f4();
	puts("done");
	return 0;
}
