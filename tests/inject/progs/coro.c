/*
 * coro.c - two coroutines on stacks of their own (swapcontext), each
 * calling a function that switches to the other from inside: a thread's
 * measured calls then return on another stack than the one they were
 * made on last.  Prints its own sums (which a wrong return would change)
 * and counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

static ucontext_t main_ctx, ctx_a, ctx_b;
static long n_a, n_b, n_yield, sum_a, sum_b, rounds;

__attribute__((noinline)) void yield_to(ucontext_t *from, ucontext_t *to)
{
	n_yield++;
	swapcontext(from, to);
	__asm__ volatile("");
}

__attribute__((noinline)) long step_a(long i)
{
	n_a++;
	yield_to(&ctx_a, &ctx_b);
	return i * 2;
}

__attribute__((noinline)) long step_b(long i)
{
	n_b++;
	yield_to(&ctx_b, &ctx_a);
	return i * 3;
}

static void run_a(void)
{
	for (long i = 0; i < rounds; i++)
		sum_a += step_a(i);
}

static void run_b(void)
{
	for (long i = 0; i < rounds; i++)
		sum_b += step_b(i);
	swapcontext(&ctx_b, &main_ctx);
}

int main(int argc, char **argv)
{
	static char stack_a[65536], stack_b[65536];
	rounds = argc > 1 ? atol(argv[1]) : 1000;
	getcontext(&ctx_a);
	ctx_a.uc_stack.ss_sp = stack_a;
	ctx_a.uc_stack.ss_size = sizeof stack_a;
	ctx_a.uc_link = &main_ctx;
	makecontext(&ctx_a, run_a, 0);
	getcontext(&ctx_b);
	ctx_b.uc_stack.ss_sp = stack_b;
	ctx_b.uc_stack.ss_size = sizeof stack_b;
	ctx_b.uc_link = &main_ctx;
	makecontext(&ctx_b, run_b, 0);
	swapcontext(&main_ctx, &ctx_a);
	printf("sums %ld %ld\n", sum_a, sum_b);
	printf("count step_a %ld\ncount step_b %ld\ncount yield_to %ld\n", n_a, n_b, n_yield);
	return 0;
}
