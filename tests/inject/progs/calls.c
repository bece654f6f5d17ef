/*
 * calls.c - functions with call counts the program keeps itself, printed
 * at the end as "count NAME N": recursion, threads, longjmp out of nested
 * calls, a signal handler on an alternate stack calling a function while
 * another is active, tail calls (a jmp, not a call: two chained, so three
 * measured functions share one return-address slot), and C library calls in between.  inject.sh compares
 * zond inject's counts with these.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS   4
#define PER_THREAD 5000

static unsigned long n_fib, n_leaf, n_deep, n_jumper, n_handler_work, n_interrupted, n_worker;
static unsigned long n_tail_top, n_tail_mid, n_tail_callee;
static unsigned long n_thread_leaf[NTHREADS];
static jmp_buf back;

__attribute__((noinline)) long fib(int n)
{
	n_fib++;
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) long leaf(long x)
{
	n_leaf++;
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

/* It never returns (every path ends in longjmp), which GCC calls infinite recursion. */
#pragma GCC diagnostic ignored "-Winfinite-recursion"
__attribute__((noinline)) void deep(int level)
{
	n_deep++;
	if (level > 0)
		deep(level - 1);
	else
		longjmp(back, 1);
	__asm__ volatile(""); /* not a tail call */
}

__attribute__((noinline)) int jumper(int level)
{
	n_jumper++;
	if (setjmp(back) == 0)
		deep(level);
	return level;
}

__attribute__((noinline)) void handler_work(void)
{
	n_handler_work++;
}

static void on_signal(int sig)
{
	(void)sig;
	handler_work();
}

__attribute__((noinline)) void interrupted(void)
{
	n_interrupted++;
	raise(SIGUSR1);
	leaf(2);
}

__attribute__((noinline)) long tail_callee(long x)
{
	n_tail_callee++;
	__asm__ volatile("" : "+r"(x));
	return x * 2 + 1;
}

/* Sibling calls on here alone (the file is built without): each ends in jmp. */
#define TAIL_CALLS __attribute__((noinline, optimize("optimize-sibling-calls")))

TAIL_CALLS long tail_mid(long x)
{
	n_tail_mid++;
	return tail_callee(x + 1);
}

TAIL_CALLS long tail_top(long x)
{
	n_tail_top++;
	return tail_mid(x * 3);
}

__attribute__((noinline)) long thread_leaf(long i)
{
	__asm__ volatile("" : "+r"(i));
	return i + 1;
}

__attribute__((noinline)) void *worker(void *arg)
{
	long id = (long)arg, sum = 0;
	__atomic_add_fetch(&n_worker, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < PER_THREAD; i++) {
		sum += thread_leaf(i);
		n_thread_leaf[id]++;
	}
	return (void *)sum;
}

int main(void)
{
	stack_t ss = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_ONSTACK;
	sigaltstack(&ss, NULL);
	sigaction(SIGUSR1, &sa, NULL);

	long s = fib(15);
	for (int i = 0; i < 1000; i++)
		s += leaf(i);
	for (int i = 0; i < 10; i++)
		s += jumper(i % 4);
	for (int i = 0; i < 7; i++)
		interrupted();
	for (int i = 0; i < 100; i++)
		s += tail_top(i);
	for (int i = 0; i < 50; i++)
		s += tail_mid(i);
	pthread_t t[NTHREADS];
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NTHREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		s += (long)r;
	}
	unsigned long tl = 0;
	for (int i = 0; i < NTHREADS; i++)
		tl += n_thread_leaf[i];
	printf("result %ld\n", s);
	printf("count fib %lu\ncount leaf %lu\ncount deep %lu\ncount jumper %lu\n", n_fib, n_leaf,
	       n_deep, n_jumper);
	printf("count handler_work %lu\ncount interrupted %lu\ncount worker %lu\n", n_handler_work,
	       n_interrupted, n_worker);
	printf("count thread_leaf %lu\n", tl);
	printf("count tail_top %lu\ncount tail_mid %lu\ncount tail_callee %lu\n", n_tail_top,
	       n_tail_mid, n_tail_callee);
	return 0;
}
