/*
 * clonevm: tasks that share their creator's thread pointer (clone with
 * CLONE_VM and without CLONE_SETTLS) call library functions at the same
 * time as their creator: a process (SIGCHLD) on a malloc'd stack calls
 * ml_add, a thread (CLONE_THREAD) on a stack in main's frame calls ml_call
 * with a callback, and main calls ml_twice (which calls ml_add inside
 * mylib).  Each task's calls are its own, a thread of their own: no
 * invented context (ml_twice;ml_call...), exact counts per function; the
 * program sees what it sees alone (its errno, the statuses, its counts).
 * Calls of main after both tasks ended are counted as alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "mylib.h"

enum { CALLS = 100000 };

static volatile int go, thread_done;
static long from_main, from_proc, from_thread;

static void count(void *arg)
{
	++*(long *)arg;
}

static int proc_fn(void *arg)
{
	(void)arg;
	while (!go)
		;
	for (int i = 0; i < CALLS; i++)
		from_proc += ml_add(i, 1) == i + 1;
	return 7;
}

static int thread_fn(void *arg)
{
	while (!go)
		;
	for (int i = 0; i < CALLS / 2; i++)
		ml_call(count, &from_thread);
	__atomic_store_n(&thread_done, 1, __ATOMIC_RELEASE);
	return *(int *)arg;
}

int main(void)
{
	enum { SIZE = 1 << 18 };
	char on_frame[SIZE] __attribute__((aligned(16)));
	char *heap = malloc(SIZE);
	int zero = 0;
	errno = 0;
	pid_t proc = clone(proc_fn, heap + SIZE, CLONE_VM | SIGCHLD, NULL);
	pid_t thread = clone(thread_fn, on_frame + SIZE,
			     CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
				     CLONE_SYSVSEM,
			     &zero);
	int errno_after = errno;
	go = 1;
	for (int i = 0; i < CALLS * 2; i++)
		from_main += ml_twice(i) == 2 * i;
	int st = 0;
	pid_t w = waitpid(proc, &st, 0);
	while (!__atomic_load_n(&thread_done, __ATOMIC_ACQUIRE))
		;
	/* alone again: these are main's as without tasks */
	long after = 0;
	for (int i = 0; i < 3; i++)
		after += ml_sum(i, 1);
	printf("clone: %s %s errno %d\n", proc > 0 ? "ok" : "failed", thread > 0 ? "ok" : "failed",
	       errno_after);
	printf("proc: waited %d, status %d\n", w == proc, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	printf("calls: main %ld, proc %ld, thread %ld, after %ld\n", from_main, from_proc,
	       from_thread, after);
	free(heap);
	return 0;
}
