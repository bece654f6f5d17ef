/* Known sleeps, for the timing checks of timecheck.c. */
#include <time.h>

static void nap(long ms)
{
	struct timespec ts = {0, ms * 1000000};
	nanosleep(&ts, NULL);
}

static void sleeper(long ms)
{
	nap(ms);
}

static void rec(int n)
{
	if (n == 0)
		sleeper(10);
	else
		rec(n - 1);
}

static void outer(void)
{
	sleeper(10);
	sleeper(20);
}

int main(void)
{
	outer();
	rec(5);
	return 0;
}
