/* longjmp out of three levels of instrumented frames, three times. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

static void deep(int n)
{
	if (n < 0)
		return;
	if (n == 0)
		longjmp(env, 1);
	deep(n - 1);
}

static void after(void)
{
}

static void jumper(void)
{
	if (!setjmp(env))
		deep(3);
	after();
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		jumper();
	puts("done");
	return 0;
}
