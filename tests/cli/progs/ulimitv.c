/*
 * ulimitv N: starts N threads that each make a call and wait, then mallocs
 * 1 MiB blocks (each touched) until malloc fails, and prints how many MiB
 * it got.  Under an address-space limit (ulimit -v) zond's mappings come out
 * of the program's budget: it must get (nearly) as much as without zond.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_barrier_t barrier;
static volatile long sink;

__attribute__((noinline)) static void work(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

static void *waiter(void *arg)
{
	(void)arg;
	work(1000);
	pthread_barrier_wait(&barrier);
	pthread_barrier_wait(&barrier);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t threads[16];
	if (n < 0 || n > 16)
		return 2;
	pthread_barrier_init(&barrier, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&threads[i], NULL, waiter, NULL);
	pthread_barrier_wait(&barrier);
	long mib = 0;
	void *p;
	while ((p = malloc(1 << 20)) != NULL) {
		memset(p, 1, 64);
		mib++;
	}
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	printf("%ld\n", mib);
	return 0;
}
