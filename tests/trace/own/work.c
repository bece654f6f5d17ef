/*
 * work.c - calls leaf() 1000 x N times (N = argv[1], default 1), in a forked
 * child too when argv[2] is "fork", prints "done N", exits with 7.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;
__attribute__((noipa)) void leaf(int i) { sink += i; }

static void work(int n)
{
	for (int k = 0; k < n; k++)
		for (int i = 0; i < 1000; i++)
			leaf(i);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pid_t child = argc > 2 && strcmp(argv[2], "fork") == 0 ? fork() : -1;
	if (child == 0) {
		work(n);
		_exit(0);
	}
	work(n);
	if (child > 0)
		waitpid(child, NULL, 0);
	printf("done %d\n", n);
	return 7;
}
