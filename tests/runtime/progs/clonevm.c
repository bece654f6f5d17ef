/*
 * clonevm: tasks that share their creator's thread pointer (clone with
 * CLONE_VM and without CLONE_SETTLS), as green-thread and sandbox libraries
 * make them, call instrumented functions at the same time as their creator:
 * one a process (SIGCHLD) on a malloc'd stack, one a thread (CLONE_THREAD)
 * on a stack that is an array in main's frame.  Each is recorded as a
 * thread of its own with its own root, the creator's stacks stay exact, and
 * the program sees what it sees without zond: its errno (shared by the
 * tasks), the children's statuses, each task's own counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

enum { CALLS = 200000 };

static volatile int go, thread_done;
static long from_main, from_proc, from_thread;

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

__attribute__((noinline)) static int proc_fn(void *arg)
{
	(void)arg;
	while (!go)
		;
	work(&from_proc);
	return 7;
}

__attribute__((noinline)) static int thread_fn(void *arg)
{
	while (!go)
		;
	work(&from_thread);
	__atomic_store_n(&thread_done, 1, __ATOMIC_RELEASE);
	return *(int *)arg;
}

__attribute__((noinline)) static pid_t start(int (*fn)(void *), char *top, int flags, void *arg)
{
	return clone(fn, top, flags, arg);
}

int main(void)
{
	enum { SIZE = 1 << 18 };
	char on_frame[SIZE] __attribute__((aligned(16)));
	char *heap = malloc(SIZE);
	int zero = 0;
	errno = 0;
	pid_t proc = start(proc_fn, heap + SIZE, CLONE_VM | SIGCHLD, NULL);
	pid_t thread = start(thread_fn, on_frame + SIZE,
			     CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
				     CLONE_SYSVSEM,
			     &zero);
	int errno_after = errno;
	go = 1;
	work(&from_main);
	int st = 0;
	pid_t w = waitpid(proc, &st, 0);
	while (!__atomic_load_n(&thread_done, __ATOMIC_ACQUIRE))
		;
	printf("clone: %s %s errno %d\n", proc > 0 ? "ok" : "failed", thread > 0 ? "ok" : "failed",
	       errno_after);
	printf("proc: waited %d, status %d\n", w == proc, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	printf("leaf: main %ld, proc %ld, thread %ld\n", from_main, from_proc, from_thread);
	free(heap);
	return 0;
}
