/*
 * churn: 1000 short threads, one after the other (main and one alive), more than the
 * runtime has thread slots: ended threads' slots are merged and reused, and
 * every call is kept.  Thread k calls work() k % 7 + 1 times; the program
 * counts the calls itself and prints the count.
 */
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 1000 };

static volatile unsigned sink;
static unsigned long calls; /* the reference: calls of work() */

static void leaf(unsigned i)
{
	sink += i;
}

static void work(unsigned i)
{
	leaf(i);
}

static void *thread_main(void *arg)
{
	unsigned k = (unsigned)(unsigned long)arg;
	for (unsigned i = 0; i < k % 7 + 1; i++)
		work(i);
	return NULL;
}

int main(void)
{
	for (unsigned k = 0; k < THREADS; k++) {
		pthread_t t;
		pthread_create(&t, NULL, thread_main, (void *)(unsigned long)k);
		pthread_join(t, NULL);
		calls += k % 7 + 1;
	}
	printf("threads %d work %lu leaf %lu\n", THREADS, calls, calls);
	return 0;
}
