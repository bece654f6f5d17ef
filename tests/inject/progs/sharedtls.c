/*
 * sharedtls.c - a clone(CLONE_VM) child without its own TLS (no
 * CLONE_SETTLS: its thread pointer is its parent's), running measured code
 * at the same time as its parent (QA s11 F1).  The parent calls work() 10
 * times, then clones the child; both call work() (which calls leaf2()
 * twice) 2,000,000 times at once.  Prints both sums and the calls, the
 * same in every run.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#define NOI __attribute__((noinline))
static atomic_long calls;
static volatile long child_sum;

NOI long leaf2(long x)
{
	return x * 7 + 3;
}

NOI long work(long x)
{
	atomic_fetch_add(&calls, 1);
	return leaf2(x) ^ leaf2(x + 1);
}

NOI int child(void *a)
{
	(void)a;
	long s = 0;
	for (long i = 0; i < 2000000; i++)
		s += work(i);
	child_sum = s;
	return 0;
}

int main(void)
{
	long s = 0;
	for (long i = 0; i < 10; i++)
		s += work(i);
	size_t sz = 1 << 20;
	char *stk = malloc(sz);
	int pid = clone(child, stk + sz, CLONE_VM | SIGCHLD, 0);
	if (pid < 0) {
		perror("clone");
		return 1;
	}
	for (long i = 0; i < 2000000; i++)
		s += work(i);
	int st;
	waitpid(pid, &st, 0);
	printf("parent %ld child %ld calls %ld status %d\n", s, child_sum, (long)calls, st);
	return 0;
}
