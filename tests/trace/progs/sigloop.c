/*
 * sigloop.c - a loop of calls of leaf() (argv[1] of them, default 300000)
 * while a timer signal every 200 us runs handler(), which calls hfn():
 * signals land between any two blocks, on a function's first instruction
 * too (sigloop.sh).  Prints how many signals it handled.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

static volatile long sink, hits;

__attribute__((noinline)) void hfn(void)
{
	hits++;
}

__attribute__((noinline)) void handler(int sig)
{
	(void)sig;
	hfn();
}

__attribute__((noinline)) void leaf(long i)
{
	sink += i;
}

__attribute__((noinline)) void loop(long n)
{
	for (long i = 0; i < n; i++)
		leaf(i);
}

int main(int argc, char **argv)
{
	signal(SIGALRM, handler);
	struct itimerval every = {{0, 200}, {0, 200}}, off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &every, NULL);
	loop(argc > 1 ? atol(argv[1]) : 300000);
	setitimer(ITIMER_REAL, &off, NULL);
	printf("signals handled: %ld\n", hits);
	return 0;
}
