/*
 * ucontext.c - two coroutines made by makecontext on malloc'd stacks:
 * run() switches into one (swapcontext), yield_() inside it switches back;
 * each coroutine's function returns at the end, to main through uc_link
 * (setcontext).  Measured calls return on another stack than the one the
 * thread made its last call on, or never return where they were made.
 * Prints a sum a wrong return would change, and its counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define STEPS 500

static ucontext_t main_ctx, co_ctx[2];
static long n_run, n_step, n_work, n_yield, n_coro, sum;

__attribute__((noinline)) void work(long k)
{
	n_work++;
	sum += k;
}

__attribute__((noinline)) void yield_(int id)
{
	n_yield++;
	swapcontext(&co_ctx[id], &main_ctx);
}

__attribute__((noinline)) void step(int id, long i)
{
	n_step++;
	work(i);
	yield_(id);
	work(i * 3 + id);
}

__attribute__((noinline)) void coro(int id)
{
	n_coro++;
	for (long i = 0; i < STEPS; i++)
		step(id, i);
}

__attribute__((noinline)) void run(int id)
{
	n_run++;
	swapcontext(&main_ctx, &co_ctx[id]);
}

int main(void)
{
	for (int id = 0; id < 2; id++) {
		getcontext(&co_ctx[id]);
		co_ctx[id].uc_stack.ss_sp = malloc(1 << 16);
		co_ctx[id].uc_stack.ss_size = 1 << 16;
		co_ctx[id].uc_link = &main_ctx;
		makecontext(&co_ctx[id], (void (*)(void))coro, 1, id);
	}
	for (int i = 0; i <= STEPS; i++) { /* the last round: each coro returns */
		run(0);
		run(1);
	}
	printf("sum %ld\n", sum);
	printf("count run %ld\ncount step %ld\ncount work %ld\ncount yield_ %ld\ncount coro %ld\n",
	       n_run, n_step, n_work, n_yield, n_coro);
	return 0;
}
