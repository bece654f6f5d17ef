/*
 * sigmask: blocks every signal, then reads its mask back three ways (a
 * query, the old set of SIG_SETMASK, after unblocking one real-time signal)
 * and prints what it saw, then burns CPU in burn() with every signal still
 * blocked.  Under zond, whose sampling signal is never really blocked, the
 * program must read back what it set.  `sigmask exec` blocks every signal
 * and execs `sigmask query`, which prints the mask it started with.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) static void burn(long n)
{
	for (long i = 0; i < n; i++)
		sink += i ^ (sink >> 1);
}

/* the blockable signals blocked in set: their count, and whether all are */
static int blocked(const sigset_t *set)
{
	int n = 0;
	for (int s = 1; s <= SIGRTMAX; s++)
		n += sigismember(set, s) == 1;
	return n;
}

int main(int argc, char **argv)
{
	sigset_t all, cur, old, none;
	sigfillset(&all);
	sigemptyset(&none);
	if (argc > 1 && strcmp(argv[1], "query") == 0) {
		sigprocmask(SIG_BLOCK, NULL, &cur);
		printf("started with %d\n", blocked(&cur));
		burn(20000000);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "exec") == 0) {
		sigprocmask(SIG_BLOCK, &all, NULL);
		fflush(stdout);
		execl("/proc/self/exe", argv[0], "query", (char *)NULL);
		return 1;
	}
	sigprocmask(SIG_BLOCK, &all, NULL);
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	printf("query %d\n", blocked(&cur));
	sigprocmask(SIG_SETMASK, &all, &old);
	printf("old %d\n", blocked(&old));
	burn(20000000);
	sigset_t one;
	sigemptyset(&one);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(&one, s);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("realtime unblocked %d\n", blocked(&cur));
	sigprocmask(SIG_SETMASK, &none, &old);
	printf("old %d\n", blocked(&old));
	return 0;
}
