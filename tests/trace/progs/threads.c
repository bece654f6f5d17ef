/*
 * threads.c - four threads, each calling work() 2000 times with its own
 * argument (thread k, created k-th, runs work(100 + k - 1)): zond trace
 * must give each thread its own profile, with exact entry counts, and
 * work's cost growing by the same step from one thread to the next.
 */
#include <pthread.h>
#include <stdio.h>

/* noipa: not pure either, so that every call happens. */
static __attribute__((noipa)) unsigned work(unsigned n)
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++)
		s += i * i;
	return s;
}

static void *run(void *arg)
{
	unsigned s = 0;
	for (int i = 0; i < 2000; i++)
		s += work(100 + (unsigned)(long)arg);
	return (void *)(long)s;
}

int main(void)
{
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], 0, run, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], 0);
	puts("done");
	return 0;
}
