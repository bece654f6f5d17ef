/*
 * manythreads.c - many short threads over the program's life, few alive at
 * once (QA s11 F5), each calling the measured work(); counts its own calls
 * and prints them:
 *   - 1000 threads one after another, each on a stack of its own the
 *     program mmaps and never gives back (so that no thread gets an ended
 *     one's stack, and so its thread pointer), 100 calls each;
 *   - 300 threads one after another on glibc's default stacks (each gets
 *     the ended one's stack and TCB, so its thread pointer), 100 calls each;
 *   - 50 waves of 8 threads alive at once, stacks of their own, 100 calls
 *     each;
 *   - 300 threads one after another that end inside the measured leave()
 *     (pthread_exit): leave() never returns, each calls work() once.
 * With an argument the program also writes to stderr how many descriptors
 * it has open at the end ("fds N"), for a run with --event, whose counters'
 * descriptors are the payload's.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define NOI __attribute__((noipa))
static long work_calls, leave_calls;

NOI void work(long i)
{
	(void)i;
	__atomic_add_fetch(&work_calls, 1, __ATOMIC_RELAXED);
}

NOI void leave(void)
{
	__atomic_add_fetch(&leave_calls, 1, __ATOMIC_RELAXED);
	work(0);
	pthread_exit(NULL);
}

static void *run(void *a)
{
	(void)a;
	for (int i = 0; i < 100; i++)
		work(i);
	return NULL;
}

static void *run_leave(void *a)
{
	(void)a;
	leave();
	return NULL;
}

/* n threads running fn at once, each on a fresh stack of its own (own != 0). */
static int wave(int n, void *(*fn)(void *), int own)
{
	pthread_t th[8];
	for (int t = 0; t < n; t++) {
		pthread_attr_t at;
		pthread_attr_init(&at);
		if (own) {
			size_t size = 1 << 17;
			void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (stack == MAP_FAILED || pthread_attr_setstack(&at, stack, size) != 0)
				return -1;
		}
		if (pthread_create(&th[t], &at, fn, NULL) != 0)
			return -1;
		pthread_attr_destroy(&at);
	}
	for (int t = 0; t < n; t++)
		pthread_join(th[t], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	for (int t = 0; t < 1000; t++)
		if (wave(1, run, 1) < 0)
			return 1;
	for (int t = 0; t < 300; t++)
		if (wave(1, run, 0) < 0)
			return 1;
	for (int t = 0; t < 50; t++)
		if (wave(8, run, 1) < 0)
			return 1;
	for (int t = 0; t < 300; t++)
		if (wave(1, run_leave, 0) < 0)
			return 1;
	printf("work calls: %ld\nleave calls: %ld\n", work_calls, leave_calls);
	(void)argv;
	if (argc > 1) {
		int fds = 0;
		DIR *d = opendir("/proc/self/fd");
		while (d && readdir(d))
			fds++;
		fprintf(stderr, "fds %d\n", fds);
	}
	return 0;
}
