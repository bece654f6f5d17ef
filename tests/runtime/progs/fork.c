/*
 * fork: the child gets its own raw file that starts with the frames open at
 * the fork (main, spawn), continued: counted in the parent's file only, so
 * that the run has main and spawn called once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void before(void)
{
}

static void child_work(void)
{
}

static void after(void)
{
}

static void spawn(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 3; i++)
			child_work();
		exit(7);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("child exited %d\n", WEXITSTATUS(status));
}

int main(void)
{
	before();
	spawn();
	after();
	return 0;
}
