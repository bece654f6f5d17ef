/*
 * forkmany N: forks N children one after the other, each calling work() 10
 * times, and waits for each; prints the calls it made.  Each child is a
 * process of its own with a raw file of its own (forkdisk.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

static void work(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	fflush(stdout);
	for (int c = 0; c < n; c++) {
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			for (int i = 0; i < 10; i++)
				work(i);
			_exit(0);
		}
		if (waitpid(pid, NULL, 0) != pid)
			return 1;
	}
	printf("work %d\n", n * 10);
	return 0;
}
