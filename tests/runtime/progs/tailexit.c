/*
 * Exit probes the compiler jumps to from a function's epilogue, after the
 * function gave its stack frame back (gcc -O2 does for a function whose
 * last act is the exit probe): the probe then runs above the frame its entry
 * probe opened.  Recursion through such functions, a loop calling them, and
 * a longjmp back into an older activation of one of them (through code
 * without probes), which then returns with the frames of the newer ones
 * still open.
 */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static volatile int sink;

__attribute__((noinline)) static void leaf(int i)
{
	sink += i;
}

/* down(n): leaf(n), then down(n - 1) */
__attribute__((noinline)) static void down(int n)
{
	if (n <= 0)
		return;
	leaf(n);
	down(n - 1);
	sink++;
}

__attribute__((noinline)) static void jump(int n);

/* not instrumented: its setjmp lands with jump(1) and jump(0) still open */
__attribute__((noinline, no_instrument_function)) static void land(void)
{
	if (!setjmp(env))
		jump(1);
}

/* jump(2) calls land, which calls jump(1), which calls jump(0), which jumps back */
__attribute__((noinline)) static void jump(int n)
{
	if (n == 0)
		longjmp(env, 1);
	if (n == 2)
		land();
	else
		jump(n - 1);
	sink++;
}

__attribute__((noinline)) static void after(void)
{
	sink++;
}

int main(void)
{
	for (int i = 0; i < 4; i++)
		down(3);
	jump(2);
	after();
	printf("sink %d\n", sink);
	return 0;
}
