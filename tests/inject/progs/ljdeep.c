/*
 * ljdeep.c - a longjmp out of a measured function, then measured calls
 * made deeper in the stack than the frame left, without a call at or above
 * its slot in between (inject_ljdeep, QA s12 F1): qsort's comparator called
 * from main, a handler of a signal main raises (on the thread's stack and
 * on a sigaltstack below it), a measured call from an unmeasured deep
 * recursion.  Prints "count NAME N" for each measured function.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf jb;
static volatile long c_fail, c_cmp, c_handler, c_work, c_deep, c_main;

__attribute__((noinline)) void fail(void)
{
	c_fail++;
	longjmp(jb, 1);
}

__attribute__((noinline)) long work(int n)
{
	c_work++;
	volatile long s = 0;
	for (int i = 0; i < n; i++)
		s += i;
	return s;
}

__attribute__((noinline)) int cmp(const void *a, const void *b)
{
	c_cmp++;
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) void handler(int sig)
{
	(void)sig;
	c_handler++;
	work(1000);
}

/* unmeasured (not in -f): its frames go deeper than fail's slot was */
__attribute__((noinline)) long down(int d)
{
	char pad[256];
	memset(pad, d, sizeof pad);
	__asm__ volatile("" ::"r"(pad) : "memory");
	return d ? down(d - 1) + pad[3] : work(100000);
}

int main(void)
{
	c_main++;
	static int v[1000];
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	if (!setjmp(jb))
		fail(); /* left by longjmp */
	for (int i = 0; i < 1000; i++)
		v[i] = (i * 7919) % 1000;
	qsort(v, 1000, sizeof v[0], cmp);
	if (!setjmp(jb))
		fail();
	for (int i = 0; i < 5; i++)
		raise(SIGUSR1);
	/* a handler on an alternate stack (a heap buffer: below the stack) */
	stack_t ss = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16};
	sigaltstack(&ss, NULL);
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR2, &sa, NULL);
	if (!setjmp(jb))
		fail();
	for (int i = 0; i < 5; i++)
		raise(SIGUSR2);
	if (!setjmp(jb))
		fail();
	long s = down(8);
	printf("s %d\n", s > 0);
	printf("count fail %ld\ncount cmp %ld\ncount handler %ld\ncount work %ld\ncount main %ld\n",
	       c_fail, c_cmp, c_handler, c_work, c_main);
	return 0;
}
