/*
 * deep.c - recursion deeper than the shadow stack zond is given: down(200)
 * burns 0.3 s of CPU time at the bottom.  Run with --depth 50, every sample
 * belongs to the deepest frame zond keeps (none lost).
 */
#include <stdio.h>

#include "spin.h"

__attribute__((noinline)) static int down(int n)
{
	if (n == 0) {
		spin(0.3);
		return 0;
	}
	return down(n - 1) + 1;
}

int main(void)
{
	printf("%d\n", down(200));
	return 0;
}
