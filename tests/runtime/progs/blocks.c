/* Hand-placed blocks; the same file is also built without -finstrument-functions. */
#include <stdio.h>

#include "zond.h"

static volatile int sink;

static void leaf(void)
{
	sink++;
}

static void forgetful(void)
{
	ZOND_BEGIN("never-ended");
	leaf();
}

static void work(void)
{
	ZOND_BEGIN("phase");
	leaf();
	ZOND_BEGIN("inner");
	leaf();
	ZOND_END("inner");
	ZOND_END("phase");
	for (int i = 0; i < 3; i++) {
		ZOND_SCOPE("loop");
		leaf();
		if (i == 1)
			continue;
		leaf();
	}
	forgetful();
	leaf();
}

int main(void)
{
	work();
	puts("done");
	return 0;
}
