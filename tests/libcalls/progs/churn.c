/*
 * churn.c - 1000 short threads, one after the other, more than the
 * collector has thread slots: ended threads' slots are merged and reused.
 * Thread k calls ml_add k % 7 + 1 times; the program counts them itself.
 */
#include <pthread.h>
#include <stdio.h>

#include "mylib.h"

enum { THREADS = 1000 };

static void *thread_main(void *arg)
{
	unsigned k = (unsigned)(unsigned long)arg;
	long sum = 0;
	for (unsigned i = 0; i < k % 7 + 1; i++)
		sum = ml_add((int)sum, (int)i);
	return (void *)sum;
}

int main(void)
{
	unsigned long calls = 0;
	for (unsigned k = 0; k < THREADS; k++) {
		pthread_t t;
		pthread_create(&t, NULL, thread_main, (void *)(unsigned long)k);
		pthread_join(t, NULL);
		calls += k % 7 + 1;
	}
	printf("threads %d ml_add %lu\n", THREADS, calls);
	return 0;
}
