/*
 * More suspended coroutines than the runtime's first stash held (1024
 * stacks, 64 frames each): NC coroutines (makecontext, swapcontext) suspended
 * at once, each running task -> step -> (yield) -> after -> leaf twice, and
 * two that yield DEEP + 1 frames down (task -> rec x DEEP + 1), calling leaf
 * after each resumption and on the way back up.  Every call stays under its
 * own callers: task;step;after;leaf, never after or step as roots.  Then one
 * coroutine left suspended in step is resumed in a forked child: the frames
 * the parent parked name the parent's records, so the child's calls on that
 * stack are counted with no callers (lost_stack_calls), never as roots.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#define NC 1500
#define DEEP 66

static ucontext_t main_ctx, co[NC], deep[2], spare;
static long leaves, steps, afters, recs;

void leaf(void)
{
	leaves++;
}

void after(void)
{
	afters++;
	leaf();
}

void step(ucontext_t *self)
{
	steps++;
	leaf();
	swapcontext(self, &main_ctx);
	after();
}

void task(int id)
{
	ucontext_t *self = id < 0 ? &spare : &co[id];
	step(self);
	step(self);
}

void rec(int id, int d)
{
	recs++;
	if (d == 0) {
		for (int k = 0; k < 3; k++) {
			swapcontext(&deep[id], &main_ctx);
			leaf();
		}
		return;
	}
	rec(id, d - 1);
	leaf();
}

void dive(int id)
{
	rec(id, DEEP);
}

static void make(ucontext_t *uc, void (*fn)(void), int arg, size_t size)
{
	getcontext(uc);
	uc->uc_stack.ss_sp = malloc(size);
	uc->uc_stack.ss_size = size;
	uc->uc_link = &main_ctx;
	makecontext(uc, fn, 1, arg);
}

int main(void)
{
	for (int id = 0; id < NC; id++)
		make(&co[id], (void (*)(void))task, id, 16384);
	for (int id = 0; id < 2; id++)
		make(&deep[id], (void (*)(void))dive, id, 1 << 20);
	/* three rounds: two yields, then task returns (uc_link) */
	for (int r = 0; r < 3; r++) {
		for (int id = 0; id < NC; id++)
			swapcontext(&main_ctx, &co[id]);
		for (int id = 0; id < 2; id++)
			swapcontext(&main_ctx, &deep[id]);
	}
	for (int id = 0; id < 2; id++)
		swapcontext(&main_ctx, &deep[id]); /* the last leaf, then back up */
	printf("leaf %ld step %ld after %ld rec %ld\n", leaves, steps, afters, recs);

	make(&spare, (void (*)(void))task, -1, 16384);
	swapcontext(&main_ctx, &spare); /* suspended in its first step */
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		swapcontext(&main_ctx, &spare); /* after, leaf; step, leaf, yield */
		printf("child: leaf %ld step %ld after %ld\n", leaves, steps, afters);
		fflush(stdout);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	return WEXITSTATUS(status);
}
