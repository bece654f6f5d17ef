/*
 * spin.c - a multi-threaded program to attach to: prints "ready" to stderr
 * once its 4 threads run, then they call work() until main reads a line
 * on stdin; it prints results that do not depend on timing (the sum of
 * what work() returned over a fixed final pass) and, on stderr, how many
 * times work() was called.
 */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4

static volatile int stop;
static unsigned long calls[NTHREADS];

__attribute__((noinline)) long work(long x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 2 + 1;
}

__attribute__((noinline)) void *spin(void *arg)
{
	long id = (long)arg;
	while (!stop) {
		work(id);
		calls[id]++;
	}
	long sum = 0;
	for (long i = 0; i < 1000; i++) {
		sum += work(i);
		calls[id]++;
	}
	return (void *)sum;
}

int main(void)
{
	pthread_t t[NTHREADS];
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, spin, (void *)i);
	fprintf(stderr, "ready\n");
	char line[16];
	if (!fgets(line, sizeof line, stdin))
		return 1;
	stop = 1;
	unsigned long total = 0;
	for (int i = 0; i < NTHREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		printf("thread %d: %ld\n", i, (long)r);
		total += calls[i];
	}
	fprintf(stderr, "count work %lu\n", total);
	return 5;
}
