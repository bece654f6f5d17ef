/*
 * fork.c - a child calls leaf() 50 times and exits with 4; the parent waits
 * for it, calls leaf() 100 times and exits with the child's status + 1.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noipa)) int leaf(int i) { return i + 1; }

int main(void)
{
	int s = 0, status = 0;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 50; i++)
			s += leaf(i);
		printf("child %d\n", s);
		return 4;
	}
	waitpid(pid, &status, 0);
	for (int i = 0; i < 100; i++)
		s += leaf(i);
	printf("parent %d\n", s);
	return WEXITSTATUS(status) + 1;
}
