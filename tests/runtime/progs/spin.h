/*
 * spin.h - for the sampled-time test programs: spin(s) burns s seconds of
 * the calling thread's CPU time (instrumented, as the programs are).
 */
#ifndef ZOND_TEST_SPIN_H
#define ZOND_TEST_SPIN_H

#include <time.h>

static volatile unsigned long spin_sink;

static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void spin(double seconds)
{
	double t0 = cpu_seconds();
	while (cpu_seconds() - t0 < seconds)
		for (int i = 0; i < 1000; i++)
			spin_sink += (unsigned long)i;
}

#endif
