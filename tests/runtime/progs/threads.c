/* Eight threads calling the same functions: every call counted, none lost. */
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 8, CALLS = 100000 };

static volatile unsigned sink;

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
	(void)arg;
	for (unsigned i = 0; i < CALLS; i++)
		work(i);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	puts("joined");
	return 0;
}
