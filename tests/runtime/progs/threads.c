/*
 * Eight threads calling the same functions: every call counted, none lost.
 * All eight are alive at once: each waits for the others after its first
 * probe (entering thread_main, where the runtime gives it a slot or counts
 * it lost), so no thread ends and frees its slot for another before every
 * thread has tried to get one (threads_overflow: 3 slots, 6 threads lost).
 */
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 8, CALLS = 100000 };

static volatile unsigned sink;
static pthread_barrier_t all_started;

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
	pthread_barrier_wait(&all_started);
	for (unsigned i = 0; i < CALLS; i++)
		work(i);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	pthread_barrier_init(&all_started, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&all_started);
	puts("joined");
	return 0;
}
