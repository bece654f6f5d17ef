/* clock.c - the time now (clock.h). */
#include "clock.h"

int64_t clock_now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
