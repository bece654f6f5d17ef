/* threads.c - exact counts from many threads; pthread_exit and cancellation inside profiled calls. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>

#include "mylib.h"

enum { THREADS = 8, CALLS = 100000 };

static void *adder(void *arg)
{
	long sum = 0;
	for (int i = 0; i < CALLS; i++)
		sum += ml_add(i, 1);
	*(long *)arg = sum;
	return NULL;
}

static void leave(void *arg)
{
	(void)arg;
	ml_add(0, 0);
	pthread_exit(NULL);
}

static void *exiter(void *arg)
{
	ml_call(leave, arg);
	return arg; /* not reached */
}

static sem_t inside;

/* one profiled call, then wait in a cancellation point (usleep) inside ml_call */
static void wait_for_cancel(void *arg)
{
	(void)arg;
	ml_add(0, 0);
	sem_post(&inside);
	for (;;)
		usleep(1000);
}

static void *cancelled(void *arg)
{
	ml_call(wait_for_cancel, arg);
	return arg;
}

int main(void)
{
	pthread_t t[THREADS];
	long sums[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, adder, &sums[i]);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_t e, c;
	pthread_create(&e, NULL, exiter, NULL);
	pthread_join(e, NULL);
	sem_init(&inside, 0, 0);
	pthread_create(&c, NULL, cancelled, NULL);
	sem_wait(&inside);
	pthread_cancel(c);
	void *res;
	pthread_join(c, &res);
	printf("sum %ld cancelled %d\n", sums[0], res == PTHREAD_CANCELED);
	/* calls go on normally on the main thread */
	printf("after %d\n", ml_twice(21));
	return 0;
}
