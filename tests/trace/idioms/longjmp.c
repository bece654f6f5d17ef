/* longjmp.c - longjmp out of a deep recursion, several times. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static jmp_buf env;
NOINLINE void dive(int depth) { if (depth == 0) longjmp(env, 1); dive(depth - 1); }
NOINLINE int after(int x) { return x + 1; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5, s = 0;
	for (volatile int i = 0; i < n; i++) {
		if (setjmp(env) == 0)
			dive(10 + i);
		s = after(s);
	}
	printf("%d\n", s);
	return 0;
}
