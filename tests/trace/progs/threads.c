/*
 * threads.c - four threads calling work(): zond trace must refuse it with one
 * clear line (QEMU 7.2's inline counters are shared by all vCPUs), never
 * write a corrupt trace or store a wrong profile.
 */
#include <pthread.h>
#include <stdio.h>

static __attribute__((noinline)) unsigned work(unsigned n)
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
