/*
 * clonemany [TASKS]: TASKS (default 70) tasks on their creator's thread
 * pointer (clone(CLONE_VM | SIGCHLD), each on a malloc'd stack) alive at
 * once beside main, all calling instrumented functions, then main again
 * once all have ended.  libzond keeps 64 apart per thread: beyond, the
 * calls outside every known task's range, the rest's and main's own from
 * the 65th clone on, are counted in lost_shared_tls_calls (and stay so
 * while that thread lives); with fewer, main's calls after its tasks ended
 * are recorded under its own stacks again (the fast path).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

enum { CALLS = 1000, MAX = 100, SIZE = 1 << 16 };

static volatile int go, stop;
static long counts[MAX + 1];

__attribute__((noinline)) static int leaf(int i, long *count)
{
	(*count)++;
	return i + 1;
}

__attribute__((noinline)) static void work(long *count)
{
	for (int i = 0; i < CALLS; i++)
		leaf(i, count);
}

__attribute__((noinline)) static int task_fn(void *arg)
{
	while (!go)
		;
	work(arg);
	while (!stop) /* all alive at once, whatever the scheduling */
		;
	return 3;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 70;
	if (n > MAX)
		n = MAX;
	static char *stacks[MAX];
	static pid_t pids[MAX];
	for (int i = 0; i < n; i++) {
		stacks[i] = malloc(SIZE);
		pids[i] = clone(task_fn, stacks[i] + SIZE, CLONE_VM | SIGCHLD, &counts[i]);
	}
	go = 1;
	work(&counts[MAX]);
	stop = 1;
	int ok = 0;
	for (int i = 0; i < n; i++) {
		int st = 0;
		ok += waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 3;
	}
	long after = 0;
	work(&after);
	long sum = 0;
	for (int i = 0; i < n; i++)
		sum += counts[i];
	printf("tasks %d, ended with status 3: %d; calls: tasks %ld, main %ld, after %ld\n", n, ok,
	       sum, counts[MAX], after);
	for (int i = 0; i < n; i++)
		free(stacks[i]);
	return 0;
}
