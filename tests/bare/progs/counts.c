/*
 * counts.c - a bare-metal program that keeps its own call counters (the
 * truth zond's counts are checked against) and prints them through
 * semihosting: a leaf called in a loop, a recursion, a block around a
 * critical section run with interrupts off, and a straight-line leaf whose
 * instruction count is known from objdump.  Built with -DCOUNTS_FOREVER it
 * never ends: it spins in main after printing (a target read while it runs).
 */
#include <stdio.h>
#include <zond.h>

static int n_leaf, n_fib, n_crit, n_fixed;

__attribute__((noinline)) int leaf(int x)
{
	n_leaf++;
	return x * 3 + 1;
}

__attribute__((noinline)) int fib(int n)
{
	n_fib++;
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* straight-line code, no branch: every call runs each of its instructions once */
__attribute__((noinline)) void fixed(void)
{
	__asm__ volatile(".rept 50\n addi zero, zero, 0\n .endr" ::: "memory");
	n_fixed++;
}

/* mstatus.MIE off and back on around the block: a critical section */
static void critical(int i)
{
	unsigned long was;
	__asm__ volatile("csrrci %0, mstatus, 8" : "=r"(was) : : "memory");
	ZOND_BEGIN("critical");
	n_crit++;
	leaf(i);
	ZOND_END("critical");
	__asm__ volatile("csrw mstatus, %0" : : "r"(was) : "memory");
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += leaf(i);
	s += fib(12);
	for (int i = 0; i < 3; i++)
		critical(i);
	for (int i = 0; i < 7; i++)
		fixed();
	printf("leaf=%d fib=%d critical=%d fixed=%d sum=%d\n", n_leaf, n_fib, n_crit, n_fixed, s);
#ifdef COUNTS_FOREVER
	for (;;)
		__asm__ volatile("" ::: "memory");
#endif
	return 3;
}
