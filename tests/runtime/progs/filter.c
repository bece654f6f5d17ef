/* ZOND_FILTER excluding noisy(): quiet() is then called from main either way. */
#include <stdio.h>

void noisy(void);

static void quiet(void)
{
}

void noisy(void)
{
	quiet();
}

int main(void)
{
	noisy();
	quiet();
	noisy();
	puts("done");
	return 0;
}
