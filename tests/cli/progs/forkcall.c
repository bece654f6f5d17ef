/*
 * forkcall.c - calls in progress at fork() (QA finding F4): dofork() spins,
 * forks, and the child spins ten times longer before dofork returns and it
 * ends; three times.  The child continues main and dofork (and, under zond
 * libcalls, fork) without calling them: their pieces there are no calls.
 */
#include <sys/wait.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) int dofork(void)
{
	spin(300000);
	int pid = fork();
	spin(pid == 0 ? 3000000 : 300000);
	return pid;
}

int main(void)
{
	for (int k = 0; k < 3; k++) {
		if (dofork() == 0)
			_exit(0);
		wait(0);
	}
	return 0;
}
