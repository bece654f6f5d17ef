/*
 * forks.c - forks K children (argv[1], default 1), one after the other:
 * child k (1..K) prints its pid, calls leaf() 100 * k times and exits with
 * k; with argv[2] = "nest", child 1 forks a grandchild first, which calls
 * leaf() 7 times and exits with 9.  The parent waits for each, calls leaf()
 * 30 times and exits with the sum of the children's statuses.  Each process
 * prints its pid and its own count of leaf() calls, the tests' truth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noipa)) int leaf(int i)
{
	return i + 1;
}

static int calls(int n)
{
	int s = 0, c = 0;
	for (int i = 0; i < n; i++, c++)
		s += leaf(i);
	printf("pid %d leaf %d sum %d\n", (int)getpid(), c, s);
	fflush(stdout);
	return c;
}

static int child(int k, int nest)
{
	if (nest) {
		pid_t g = fork();
		if (g == 0) {
			calls(7);
			_exit(9);
		}
		waitpid(g, NULL, 0);
	}
	calls(100 * k);
	return k;
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 1, nest = argc > 2 && strcmp(argv[2], "nest") == 0;
	int sum = 0;
	fflush(stdout);
	for (int i = 1; i <= k; i++) {
		pid_t pid = fork();
		if (pid == 0)
			exit(child(i, nest && i == 1));
		int status = 0;
		waitpid(pid, &status, 0);
		sum += WEXITSTATUS(status);
	}
	calls(30);
	return sum;
}
