/*
 * A coroutine switched with getcontext and setcontext (the other half of the
 * ucontext API): gen -> step x N; step calls leaf, yields with getcontext(&co)
 * then setcontext(&main_ctx), and after the resumption calls leaf again;
 * main resumes it the same way and calls consume -> leaf after each time.
 * Each stack keeps its own callers: gen;step;leaf twice per step,
 * main;consume;leaf, never main;step or main;leaf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define N 10

static ucontext_t main_ctx, co;
static int leaves, steps, consumes;

void leaf(void)
{
	leaves++;
}

void step(void)
{
	volatile int back = 0;
	steps++;
	leaf();
	getcontext(&co);
	if (!back) {
		back = 1;
		setcontext(&main_ctx);
	}
	leaf();
}

void gen(void)
{
	for (int i = 0; i < N; i++)
		step();
	setcontext(&main_ctx);
}

void consume(void)
{
	consumes++;
	leaf();
}

int main(void)
{
	static char stack[65536];
	getcontext(&co);
	co.uc_stack.ss_sp = stack;
	co.uc_stack.ss_size = sizeof stack;
	co.uc_link = NULL;
	makecontext(&co, gen, 0);
	for (int r = 0; r < N + 1; r++) {
		volatile int back = 0;
		getcontext(&main_ctx);
		if (!back) {
			back = 1;
			setcontext(&co);
		}
		consume();
	}
	printf("leaf %d step %d consume %d\n", leaves, steps, consumes);
	return 0;
}
