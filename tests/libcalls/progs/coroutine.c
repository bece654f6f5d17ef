/*
 * coroutine.c - a makecontext coroutine calls qsort; the comparator
 * suspends it with swapcontext back to main, which makes library calls of
 * its own and resumes it; qsort goes on.  Each of the 48 swapcontext calls
 * the coroutine makes is made inside its qsort; main's 49 are main's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

static ucontext_t main_ctx, co_ctx;
static long compared;
static int done;
static int v[16];

static int compare(const void *a, const void *b)
{
	compared++;
	swapcontext(&co_ctx, &main_ctx); /* suspended inside qsort */
	return *(const int *)a - *(const int *)b;
}

static void coroutine(void)
{
	qsort(v, 16, sizeof v[0], compare);
	done = 1;
}

int main(void)
{
	static char stack[256 * 1024];
	for (int i = 0; i < 16; i++)
		v[i] = (i * 7) % 16;
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = sizeof stack;
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, coroutine, 0);
	int resumes = 0;
	char buf[64];
	while (!done) {
		swapcontext(&main_ctx, &co_ctx);
		resumes++;
		snprintf(buf, sizeof buf, "%d", resumes); /* on main's stack meanwhile */
		if (strlen(buf) > 10)
			abort();
	}
	printf("resumes=%d compared=%ld\n", resumes, compared);
	return 0;
}
