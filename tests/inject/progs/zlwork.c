/*
 * zlwork.c - a process whose main thread has exited (pthread_exit) while two
 * threads call work() in a loop, counting their calls, and a third waits for
 * a line on stdin: then the workers stop, and it writes the count to stderr
 * ("count work N"), "done" to stdout, and exits 0.  "ready" on stderr once
 * both workers have called work().
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOI __attribute__((noipa))
static long calls, started;
static int stop;
static pthread_t workers[2];

NOI long work(long i)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	return i * 3;
}

static void *worker(void *a)
{
	long s = 0;
	(void)a;
	s += work(0);
	if (__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST) == 2) {
		fputs("ready\n", stderr);
		fflush(stderr);
	}
	for (long i = 1; !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++)
		s += work(i);
	return (void *)s;
}

static void *waiter(void *a)
{
	char line[16];
	(void)a;
	if (!fgets(line, sizeof line, stdin))
		exit(1);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int t = 0; t < 2; t++)
		pthread_join(workers[t], NULL);
	fprintf(stderr, "count work %ld\n", calls);
	puts("done");
	exit(0);
}

int main(void)
{
	pthread_t t;
	for (int k = 0; k < 2; k++)
		pthread_create(&workers[k], 0, worker, 0);
	pthread_create(&t, 0, waiter, 0);
	pthread_exit(0);
}
