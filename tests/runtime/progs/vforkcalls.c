/*
 * vforkcalls: vfork children call instrumented functions before they end,
 * on their parent's stack and thread pointer while it waits: one by _exit,
 * one by exec from deeper down, one made by clone(CLONE_VM | CLONE_VFORK) on
 * a stack of its own.  Each child is a thread of its own with its own root;
 * its frames are not left on the parent's shadow stack (the parent's later
 * calls from deeper frames are the parent's, under its own callers).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static void leaf(int i)
{
	sink += i;
}

__attribute__((noinline)) static void calls(int n)
{
	for (int i = 0; i < n; i++)
		leaf(i);
}

__attribute__((noinline)) static void in_child(int n)
{
	calls(n);
}

__attribute__((noinline)) static void do_exec(const char *self)
{
	in_child(3);
	execl(self, self, "child", (char *)NULL);
	_exit(127);
}

__attribute__((noinline)) static void deeper(const char *self)
{
	do_exec(self);
}

__attribute__((noinline)) static int cloned(void *arg)
{
	in_child(*(int *)arg);
	return 5;
}

__attribute__((noinline)) static void parent_after(int n)
{
	calls(n);
}

__attribute__((noinline)) static int by_exit(void)
{
	pid_t pid = vfork();
	if (pid == 0) {
		in_child(2);
		_exit(3);
	}
	parent_after(1);
	int st = 0;
	waitpid(pid, &st, 0);
	return WEXITSTATUS(st);
}

__attribute__((noinline)) static int by_exec(const char *self)
{
	pid_t pid = vfork();
	if (pid == 0)
		deeper(self);
	parent_after(2);
	int st = 0;
	waitpid(pid, &st, 0);
	return WEXITSTATUS(st);
}

__attribute__((noinline)) static int by_clone(void)
{
	enum { SIZE = 1 << 16 };
	char *stack = malloc(SIZE);
	int n = 4;
	pid_t pid = clone(cloned, stack + SIZE, CLONE_VM | CLONE_VFORK | SIGCHLD, &n);
	parent_after(3);
	int st = 0;
	waitpid(pid, &st, 0);
	free(stack);
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		calls(11);
		return 0;
	}
	int a = by_exit();
	int b = by_exec(argv[0]);
	int c = by_clone();
	parent_after(5);
	printf("statuses %d %d %d\n", a, b, c);
	return 0;
}
