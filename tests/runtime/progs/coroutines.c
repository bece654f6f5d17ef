/*
 * Two coroutines on stacks of their own (makecontext, swapcontext): the
 * first is resumed until its function returns (uc_link back to main), the
 * second yields once and is left suspended.  Each stack has its own calls:
 * coro's are roots (nothing is below it on its stack), never under resume.
 */
#include <stdio.h>
#include <ucontext.h>

static ucontext_t main_ctx, co_ctx[2];
static char stacks[2][65536];
static int works, yields;

void work(void)
{
	works++;
}

void yield_to_main(int id)
{
	yields++;
	swapcontext(&co_ctx[id], &main_ctx);
}

void step(int id)
{
	work();
	yield_to_main(id);
	work();
}

void coro(int id)
{
	for (int i = 0; i < (id == 0 ? 3 : 1); i++)
		step(id);
}

void resume(int id)
{
	swapcontext(&main_ctx, &co_ctx[id]);
}

int main(void)
{
	for (int id = 0; id < 2; id++) {
		getcontext(&co_ctx[id]);
		co_ctx[id].uc_stack.ss_sp = stacks[id];
		co_ctx[id].uc_stack.ss_size = sizeof stacks[id];
		co_ctx[id].uc_link = &main_ctx;
		makecontext(&co_ctx[id], (void (*)(void))coro, 1, id);
	}
	for (int i = 0; i < 4; i++)
		resume(0); /* three yields, then coro(0) returns */
	resume(1);         /* one yield, left suspended */
	printf("works %d yields %d\n", works, yields);
	return 0;
}
