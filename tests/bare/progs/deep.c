/* deep.c - a recursion 200 deep, more than the runtime's ZOND_BARE_DEPTH (128) frames
 * (messages.sh). */
#include <stdio.h>

static volatile int n_deep;

__attribute__((noinline)) int deep(int n)
{
	n_deep++;
	return n ? deep(n - 1) + 1 : 0;
}

int main(void)
{
	int r = deep(199);
	printf("deep=%d r=%d\n", n_deep, r);
	return 0;
}
