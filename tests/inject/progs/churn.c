/*
 * churn.c - a thread-per-connection server's life: threads started and
 * ended all the time (8 every 100 us), each calling work() once; prints
 * "ready" to stderr, runs until killed.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile long calls;

__attribute__((noinline)) void work(void)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
}

static void *one(void *arg)
{
	(void)arg;
	work();
	return NULL;
}

int main(void)
{
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	fprintf(stderr, "ready\n");
	for (;;) {
		pthread_t t;
		for (int i = 0; i < 8; i++)
			pthread_create(&t, &at, one, NULL);
		usleep(100);
	}
}
