/*
 * texit N: N threads, one after another, each calling g() 10 times from
 * body() and then ending by pthread_exit() from body -> d2 -> d3, so that
 * three of its frames are open when it ends.  More threads than zond's
 * slots: the ended ones are merged into one summary.  Prints its counts.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink, n_g;

__attribute__((noinline)) static void g(long k)
{
	n_g++;
	for (long i = 0; i < k; i++)
		sink += i ^ (sink >> 1);
}

__attribute__((noinline)) static void d3(void)
{
	g(1000);
	pthread_exit(NULL);
}

__attribute__((noinline)) static void d2(void)
{
	d3();
}

__attribute__((noinline)) static void *body(void *arg)
{
	for (int i = 0; i < 10; i++)
		g(20000);
	d2();
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, body, NULL) != 0 || pthread_join(t, NULL) != 0)
			return 1;
	}
	printf("threads %d g %ld\n", n, n_g);
	return 0;
}
