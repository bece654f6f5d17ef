/*
 * handlers.c - a signal handler that calls a function, on a CPU-time timer
 * every 100 us, in a loop of calls: most signals land in one of zond's
 * probes, whose busy thread made the handler's own probes count nothing.
 * Prints the program's own counts ("count NAME N").
 */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

static volatile long n_handler, n_in_handler, n_work, n_leaf;

__attribute__((noinline)) void in_handler(void)
{
	n_in_handler++;
}

static void handler(int sig)
{
	(void)sig;
	n_handler++;
	in_handler();
}

__attribute__((noinline)) void leaf(void)
{
	n_leaf++;
}

__attribute__((noinline)) void work(void)
{
	n_work++;
	for (int i = 0; i < 10; i++)
		leaf();
}

int main(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	struct itimerval it = {{0, 100}, {0, 100}};
	setitimer(ITIMER_PROF, &it, NULL);
	for (int i = 0; i < 2000000; i++)
		work();
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_PROF, &off, NULL);
	printf("count handler %ld\ncount in_handler %ld\ncount work %ld\ncount leaf %ld\n", n_handler,
	       n_in_handler, n_work, n_leaf);
	return 0;
}
