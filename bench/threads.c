/*
 * threads.c N - N short threads started and joined one after another
 * (a thread per request), each making a few calls: what zond costs per
 * thread, for bench/threads.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;

__attribute__((noinline)) static void leaf(unsigned i)
{
	sink += i;
}

__attribute__((noinline)) static void work(unsigned i)
{
	for (unsigned k = 0; k < 10; k++)
		leaf(i + k);
}

static void *request(void *arg)
{
	work((unsigned)(unsigned long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, request, (void *)(unsigned long)i) != 0 ||
		    pthread_join(t, NULL) != 0)
			return 1;
	}
	printf("%u\n", sink);
	return 0;
}
