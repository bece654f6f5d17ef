/* Recording switched by hand: with ZOND_MANUAL=1 only during() is seen. */
#include <stdio.h>

#include "zond.h"

static void before(void)
{
}

static void leaf(void)
{
}

static void during(void)
{
	leaf();
	leaf();
}

static void after(void)
{
}

int main(void)
{
	before();
	ZOND_START();
	during();
	ZOND_STOP();
	after();
	puts("done");
	return 0;
}
