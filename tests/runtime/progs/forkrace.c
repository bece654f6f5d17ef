/*
 * forkrace: a forked child's frames are those open at its fork, whatever
 * its parent does next.  The child makes its calls only once the parent
 * has returned from spawn and entered wait_side (told by a pipe), which the
 * child never calls: its calls belong under main;spawn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int ready[2];

static void child_work(void)
{
}

static pid_t spawn(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		if (read(ready[0], &c, 1) != 1)
			_exit(2);
		for (int i = 0; i < 3; i++)
			child_work();
		_exit(7);
	}
	return pid;
}

static void wait_side(pid_t pid)
{
	int status;
	if (write(ready[1], "x", 1) != 1)
		exit(3);
	waitpid(pid, &status, 0);
	printf("child exited %d\n", WEXITSTATUS(status));
}

int main(void)
{
	if (pipe(ready) != 0)
		return 1;
	wait_side(spawn());
	return 0;
}
