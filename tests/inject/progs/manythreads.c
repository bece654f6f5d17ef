/*
 * manythreads.c - 300 threads one after another, never two alive, each
 * on a stack of its own the program mmaps and never gives back (so that no
 * thread gets an ended one's stack, and so its thread pointer), each
 * calling work() 100 times (QA s11 F5: threads with stacks of distinct
 * sizes).  Prints the calls made (30000).
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>

#define NOI __attribute__((noipa))
static volatile long sink;

NOI void work(long i)
{
	sink += i;
}

static void *run(void *a)
{
	(void)a;
	for (int i = 0; i < 100; i++)
		work(i);
	return NULL;
}

int main(void)
{
	for (int t = 0; t < 300; t++) {
		pthread_attr_t at;
		pthread_attr_init(&at);
		size_t size = 1 << 17;
		void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0);
		if (stack == MAP_FAILED || pthread_attr_setstack(&at, stack, size) != 0)
			return 1;
		pthread_t th;
		if (pthread_create(&th, &at, run, NULL) != 0)
			return 1;
		pthread_join(th, NULL);
		pthread_attr_destroy(&at);
	}
	printf("work calls: %d\n", 300 * 100);
	return 0;
}
