/*
 * blockall.c - a server's start: every signal blocked (in a thread too,
 * through pthread_sigmask), CPU work, then whatever is pending collected
 * with sigtimedwait: nothing, without zond as under its sampler, whose
 * signal the program's masks never block (signals.c).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

static volatile unsigned long sink;

static void burn(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i * i;
}

static int collect(const sigset_t *all)
{
	struct timespec none = {0, 0};
	int taken = 0;
	while (sigtimedwait(all, NULL, &none) > 0)
		taken++;
	return taken;
}

static void *worker(void *arg)
{
	sigset_t *all = arg;
	pthread_sigmask(SIG_BLOCK, all, NULL);
	burn(30000000);
	printf("thread took %d\n", collect(all));
	return NULL;
}

int main(void)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	burn(30000000);
	printf("main took %d\n", collect(&all));
	pthread_t t;
	pthread_create(&t, NULL, worker, &all);
	pthread_join(t, NULL);
	return 0;
}
