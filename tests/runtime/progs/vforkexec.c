/*
 * vforkexec: the functions a vfork child enters before its exec leave no
 * frame on its parent's shadow stack (they share memory): the parent's
 * later calls from outer are outer's, not under the child's do_exec.  The
 * child's calls are a thread of their own, rooted at do_exec.
 */
#include <stdlib.h>
#include <string.h>
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

__attribute__((noinline)) static void do_exec(const char *self)
{
	calls(2);
	execl(self, self, "child", (char *)NULL);
	_exit(127);
}

__attribute__((noinline)) static void after(int n)
{
	calls(n);
}

__attribute__((noinline)) static void outer(const char *self)
{
	pid_t pid = vfork();
	if (pid == 0)
		do_exec(self);
	after(5);
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		calls(11);
		return 0;
	}
	outer(argv[0]);
	after(4);
	return 0;
}
