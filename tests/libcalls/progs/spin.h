/* spin.h - CPU time spent in a loop (for samplers to fire), no library call in it but the clock's. */
#ifndef SPIN_H
#define SPIN_H

#include <time.h>

static inline void spin_cpu(double seconds)
{
	struct timespec a, b;
	volatile double x = 0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 10000; i++)
			x += i * 0.5;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < seconds);
}

#endif
