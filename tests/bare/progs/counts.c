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

static int n_leaf, n_fib, n_crit, n_fixed, n_down;

/* -DCOUNTS_RAM: leaf runs from RAM, beyond a jal's reach of the code in flash (record.sh) */
#ifdef COUNTS_RAM
#define IN_RAM __attribute__((section(".data.in_ram")))
#else
#define IN_RAM
#endif

IN_RAM __attribute__((noinline)) int leaf(int x)
{
	n_leaf++;
	return x * 3 + 1;
}

__attribute__((noinline)) int fib(int n)
{
	n_fib++;
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* a recursion whose exit hook gcc calls after the epilogue (a jump): sp is then the caller's */
__attribute__((noinline)) void down(int n)
{
	if (n)
		down(n - 1);
	n_down++;
}

/* straight-line code, no branch: every call runs each of its instructions once */
__attribute__((noinline)) void fixed(void)
{
	__asm__ volatile(".rept 50\n addi zero, zero, 0\n .endr" ::: "memory");
	n_fixed++;
}

/* soft float: gcc calls libgcc's __muldf3 after the exit hook (doc/bare-metal.md) */
__attribute__((noinline)) double square(double x)
{
	return x * x;
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
	down(6);
	s += n_down;
	double d = 1.5;
	for (int i = 0; i < 5; i++)
		d = square(d) / 2;
	s += (int)d;
	printf("leaf=%d fib=%d critical=%d fixed=%d sum=%d\n", n_leaf, n_fib, n_crit, n_fixed, s);
#ifdef COUNTS_FOREVER
	for (;;)
		__asm__ volatile("" ::: "memory");
#endif
	return 3;
}
