/*
 * altabove.c - signal handlers on alternate stacks that lie *above* their
 * threads' stacks (mmap'd before the threads, as a program that allocates
 * its threads' signal stacks up front does), calling a measured function
 * while their thread is inside measured functions (QA s11 F2).  Two workers
 * loop on mid() -> leaf() twice; main sends them SIGUSR1 (SA_ONSTACK) 1000
 * times, each once the one before was handled, whose handler calls mid().
 * Every function counts its calls
 * (atomic adds) and main prints "count NAME N", "above N" (the workers
 * whose alternate stack lies above a local of theirs) and "bad N" (results
 * of mid() that were wrong: 0).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define NOI __attribute__((noinline))
static atomic_long n_leaf, n_mid, n_handler, n_worker, handled, above, started;
static atomic_int stop;
static void *alt[2];

NOI long leaf(long x)
{
	atomic_fetch_add(&n_leaf, 1);
	return x * 2654435761u % 1000003;
}

NOI long mid(long x)
{
	atomic_fetch_add(&n_mid, 1);
	return leaf(x) + leaf(x + 1);
}

NOI void handler(int s)
{
	atomic_fetch_add(&n_handler, 1);
	volatile long v = mid(s);
	(void)v;
	atomic_fetch_add(&handled, 1);
}

NOI void *worker(void *a)
{
	atomic_fetch_add(&n_worker, 1);
	stack_t ss = {.ss_sp = alt[(long)a], .ss_size = 65536};
	sigaltstack(&ss, 0);
	int here;
	if ((char *)alt[(long)a] > (char *)&here)
		atomic_fetch_add(&above, 1);
	long bad = 0;
	for (long i = 0; !atomic_load(&stop); i++) {
		long r = mid(i);
		if (i == 0)
			atomic_fetch_add(&started, 1);
		if (r != (i * 2654435761u % 1000003) + ((i + 1) * 2654435761u % 1000003))
			bad++;
	}
	return (void *)bad;
}

int main(void)
{
	for (int i = 0; i < 2; i++)
		alt[i] = mmap(0, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa = {.sa_handler = handler, .sa_flags = SA_ONSTACK | SA_RESTART};
	sigaction(SIGUSR1, &sa, 0);
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], 0, worker, (void *)i);
	while (atomic_load(&started) < 2)
		usleep(100);
	for (int k = 0; k < 1000; k++) { /* each taken before the next (none coalesce) */
		pthread_kill(t[k & 1], SIGUSR1);
		while (atomic_load(&handled) < k + 1)
			;
	}
	atomic_store(&stop, 1);
	long bad = 0;
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	printf("count leaf %ld\ncount mid %ld\ncount handler %ld\ncount worker %ld\n",
	       (long)n_leaf, (long)n_mid, (long)n_handler, (long)n_worker);
	printf("above %ld\nbad %ld\n", (long)above, bad);
	return 0;
}
